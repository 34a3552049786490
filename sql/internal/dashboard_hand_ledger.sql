-- Dashboard: the recomputed ledger of the hands picked by $game_ids and $hand_nos, in ledger order, each transfer with the event that moved it (NULL: the hand's as a whole).
WITH picked AS (
    SELECT
        unnest(CAST($game_ids AS VARCHAR[])) AS game_id,
        unnest(CAST($hand_nos AS INTEGER[])) AS hand_no
)
SELECT
    l.game_id,
    l.hand_no,
    l.item_no,
    l.payer_seat,
    l.payee_seat,
    l.payer_id,
    l.payee_id,
    l.amount,
    l.reason,
    l.detail,
    l.event_index
FROM picked
JOIN ledger AS l USING (game_id, hand_no)
ORDER BY l.game_id, l.hand_no, l.item_no
