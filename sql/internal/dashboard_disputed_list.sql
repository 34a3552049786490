-- Dashboard: the most recent $limit disputed hands (record differs from the recomputation) with both sets of deltas and the total count.
WITH picked AS (
    SELECT
        h.game_id,
        h.hand_no,
        g.started_at,
        g.ruleset,
        g.family,
        h.outcome,
        h.recorded_next_dealer,
        h.next_dealer,
        h.violations AS illegal_moves,
        count(*) OVER () AS total
    FROM hands AS h
    JOIN games AS g USING (game_id)
    WHERE h.disputed
    ORDER BY g.started_at DESC NULLS LAST, h.game_id, h.hand_no
    LIMIT CAST($limit AS INTEGER)
),
seats AS (
    SELECT
        hp.game_id,
        hp.hand_no,
        list(hp.recorded_delta ORDER BY hp.seat) AS recorded_deltas,
        list(hp.delta ORDER BY hp.seat) AS recomputed_deltas
    FROM picked AS p
    JOIN hand_players AS hp USING (game_id, hand_no)
    GROUP BY hp.game_id, hp.hand_no
),
findings AS (
    SELECT v.game_id, v.hand_no, string_agg(v.code, ', ' ORDER BY v.item_no) AS codes
    FROM picked AS p
    JOIN violations AS v USING (game_id, hand_no)
    WHERE v.settlement
    GROUP BY v.game_id, v.hand_no
)
SELECT
    p.game_id,
    p.hand_no,
    p.started_at,
    p.ruleset,
    p.family,
    p.outcome,
    s.recorded_deltas,
    s.recomputed_deltas,
    p.recorded_next_dealer,
    p.next_dealer,
    f.codes,
    p.illegal_moves,
    p.total
FROM picked AS p
JOIN seats AS s USING (game_id, hand_no)
LEFT JOIN findings AS f USING (game_id, hand_no)
ORDER BY p.started_at DESC NULLS LAST, p.game_id, p.hand_no
