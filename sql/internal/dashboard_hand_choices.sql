-- Dashboard: each seat's choices at the start of the hands picked by $game_ids and $hand_nos (a family with an exchange or a declared suit): the suit declared, the tiles passed and to whom, the tiles received and from whom.
WITH picked AS (
    SELECT
        unnest(CAST($game_ids AS VARCHAR[])) AS game_id,
        unnest(CAST($hand_nos AS INTEGER[])) AS hand_no
)
SELECT
    c.game_id,
    c.hand_no,
    c.seat,
    c.player_id,
    c.declared_suit,
    c.passed,
    c.passed_to,
    c.received,
    c.received_from
FROM picked
JOIN seat_choices AS c USING (game_id, hand_no)
ORDER BY c.game_id, c.hand_no, c.seat
