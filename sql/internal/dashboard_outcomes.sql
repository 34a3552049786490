-- Dashboard: hands by how they ended: self-drawn win, win on a discard, multiple win, exhaustive draw, incomplete.
SELECT
    kind,                -- self_drawn_win, discard_win, multiple_win, exhaustive_draw or incomplete
    count(*) AS hands    -- hands that ended so
FROM (
    SELECT
        CASE
            WHEN h.outcome = 'win' AND w.winners > 1 THEN 'multiple_win'
            WHEN h.outcome = 'win' AND w.self_drawn THEN 'self_drawn_win'
            WHEN h.outcome = 'win' THEN 'discard_win'
            ELSE h.outcome
        END AS kind
    FROM hands AS h
    LEFT JOIN (
        SELECT game_id, hand_no, count(*) AS winners, bool_or(source = 'self_draw') AS self_drawn
        FROM wins
        GROUP BY game_id, hand_no
    ) AS w ON w.game_id = h.game_id AND w.hand_no = h.hand_no
)
GROUP BY kind
ORDER BY hands DESC, kind
