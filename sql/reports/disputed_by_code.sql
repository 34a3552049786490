-- Settlement findings per code (the record against the recomputation): how many, in how many hands, that share of the hands with a recorded result.
SELECT
    v.code,
    count(*) AS findings,
    count(DISTINCT (v.game_id, v.hand_no)) AS hands,
    round(
        count(DISTINCT (v.game_id, v.hand_no))
        / nullif((SELECT count(*) FROM hands WHERE recorded), 0),
        4
    ) AS share_of_recorded
FROM violations AS v
WHERE v.settlement
GROUP BY v.code
ORDER BY hands DESC, v.code
