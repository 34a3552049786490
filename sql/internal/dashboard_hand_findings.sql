-- Dashboard: every finding (illegal moves and settlement checks) of the hands picked by $game_ids and $hand_nos, in order.
WITH picked AS (
    SELECT
        unnest(CAST($game_ids AS VARCHAR[])) AS game_id,
        unnest(CAST($hand_nos AS INTEGER[])) AS hand_no
)
SELECT
    v.game_id,
    v.hand_no,
    v.item_no,
    v.event_index,
    v.seat,
    v.player_id,
    v.code,
    v.settlement,
    v.message,
    v.fatal
FROM picked
JOIN violations AS v USING (game_id, hand_no)
ORDER BY v.game_id, v.hand_no, v.item_no
