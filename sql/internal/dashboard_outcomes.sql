-- Dashboard: hands by how they ended: self-drawn win, win on a discard, multiple win, exhaustive draw, incomplete.
SELECT
    kind,                -- self_drawn_win, discard_win, multiple_win, exhaustive_draw or incomplete
    count(*) AS hands    -- hands that ended so
FROM (
    SELECT
        CASE
            WHEN outcome = 'win' AND winners > 1 THEN 'multiple_win'
            WHEN outcome = 'win' AND self_drawn THEN 'self_drawn_win'
            WHEN outcome = 'win' THEN 'discard_win'
            ELSE outcome
        END AS kind
    FROM hands
)
GROUP BY kind
ORDER BY hands DESC, kind
