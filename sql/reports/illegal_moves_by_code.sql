-- Illegal-move findings per code: how many, in how many hands, how many stopped the hand.
SELECT
    code,
    count(*) AS findings,
    count(DISTINCT (game_id, hand_no)) AS hands,
    count(*) FILTER (WHERE fatal) AS fatal
FROM violations
WHERE NOT settlement
GROUP BY code
ORDER BY findings DESC, code
