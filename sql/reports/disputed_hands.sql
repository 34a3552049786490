-- Hands whose recorded result differs from the recomputed one: both sets of deltas, both next dealers, the findings.
WITH seats AS (
    SELECT
        game_id,
        hand_no,
        list(recorded_delta ORDER BY seat) AS recorded_deltas,
        list(delta ORDER BY seat) AS recomputed_deltas
    FROM hand_players
    GROUP BY game_id, hand_no
),
findings AS (
    SELECT game_id, hand_no, string_agg(code, ', ' ORDER BY item_no) AS codes
    FROM violations
    WHERE settlement
    GROUP BY game_id, hand_no
)
SELECT
    h.game_id,
    h.hand_no,
    h.outcome,
    s.recorded_deltas,
    s.recomputed_deltas,
    h.recorded_next_dealer,
    h.next_dealer AS recomputed_next_dealer,
    f.codes
FROM hands AS h
JOIN seats AS s USING (game_id, hand_no)
LEFT JOIN findings AS f USING (game_id, hand_no)
WHERE h.disputed
ORDER BY h.game_id, h.hand_no
