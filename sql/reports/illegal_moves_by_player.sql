-- Illegal-move findings per player and code (findings with no player at fault are left out).
SELECT
    player_id,
    code,
    count(*) AS findings,
    count(DISTINCT (game_id, hand_no)) AS hands,
    count(*) FILTER (WHERE fatal) AS fatal
FROM violations
WHERE NOT settlement AND player_id IS NOT NULL
GROUP BY player_id, code
ORDER BY player_id, findings DESC, code
