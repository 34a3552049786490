-- Dashboard: every win of the hands picked by $game_ids and $hand_nos in the order they happened (a hand may have several: several winners on one discard, or play going on after a win): the winner, how it was won, who dealt in, the tile, the value and the scored patterns.
WITH picked AS (
    SELECT
        unnest(CAST($game_ids AS VARCHAR[])) AS game_id,
        unnest(CAST($hand_nos AS INTEGER[])) AS hand_no
)
SELECT
    w.game_id,
    w.hand_no,
    w.win_no,
    w.seat,
    w.player_id,
    w.source,
    w.discarder,
    w.discarder_id,
    w.tile,
    w.value,
    w.scored_patterns
FROM picked
JOIN wins AS w USING (game_id, hand_no)
ORDER BY w.game_id, w.hand_no, w.win_no
