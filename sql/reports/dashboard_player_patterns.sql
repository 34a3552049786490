-- Dashboard: each player's wins by scored pattern (a win scoring several patterns counts under each).
SELECT player_id, pattern, count(*) AS wins
FROM (
    SELECT player_id, unnest(scored_patterns) AS pattern
    FROM hand_players
    WHERE winner
)
GROUP BY player_id, pattern
ORDER BY player_id, wins DESC, pattern
