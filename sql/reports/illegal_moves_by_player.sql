-- Illegal-move findings per player and code (findings with no player at fault are left out).
-- zh: 按玩家和代码统计的违规发现（不归咎于任何玩家的发现不计）。
WITH counts AS (
    SELECT
        player_id,
        code,
        count(*) AS findings,
        count(DISTINCT (game_id, hand_no)) AS hands,
        count(*) FILTER (WHERE fatal) AS fatal
    FROM violations
    WHERE NOT settlement AND player_id IS NOT NULL
    GROUP BY player_id, code
)
SELECT
    c.player_id,            -- the player at fault (violations.player_id)
    n.name AS player_name,  -- the player's display name in the latest game that gives one (players.name); NULL when no log names the player
    c.code,                 -- the illegal move's code (docs/rules/legality.md)
    c.findings,             -- findings of this code against the player
    c.hands,                -- hands holding at least one of them
    c.fatal                 -- findings that stopped the hand's replay
FROM counts AS c
LEFT JOIN internal.player_names AS n USING (player_id)
ORDER BY c.player_id, c.findings DESC, c.code
