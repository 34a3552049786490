-- Each player's display name in the latest game that gives one (players.name), one row per player some log names: what the reports leaderboard and illegal_moves_by_player and the dashboard's dashboard_players show beside a player id.
SELECT
    player_id,  -- the log's player id (players.player_id)
    name  -- the name in the player's latest game that gives one (by the game's start, then the game id, then the name)
FROM (
    SELECT
        p.player_id,
        p.name,
        row_number() OVER (
            PARTITION BY p.player_id
            ORDER BY g.started_at DESC NULLS LAST, p.game_id DESC, p.name
        ) AS pick
    FROM players AS p
    JOIN games AS g USING (game_id)
    WHERE p.name IS NOT NULL
)
WHERE pick = 1
ORDER BY player_id
