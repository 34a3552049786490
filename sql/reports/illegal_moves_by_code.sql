-- Illegal-move findings per code: how many, in how many hands, how many stopped the hand.
-- zh: 按代码统计的违规发现：多少条、涉及多少手、其中多少条使本手中止。
SELECT
    code,                                            -- the illegal move's code (docs/rules/legality.md)
    count(*) AS findings,                            -- findings of this code
    count(DISTINCT (game_id, hand_no)) AS hands,     -- hands holding at least one
    count(*) FILTER (WHERE fatal) AS fatal           -- findings that stopped the hand's replay
FROM violations
WHERE NOT settlement
GROUP BY code
ORDER BY findings DESC, code
