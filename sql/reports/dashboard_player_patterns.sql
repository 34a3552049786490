-- Dashboard: each player's wins by scored pattern in each rule family (a win scoring several patterns counts under each).
SELECT player_id, family, pattern, count(*) AS wins
FROM (
    SELECT hp.player_id, g.family, unnest(hp.scored_patterns) AS pattern
    FROM hand_players AS hp
    JOIN games AS g USING (game_id)
    WHERE hp.winner
)
GROUP BY player_id, family, pattern
ORDER BY player_id, family NULLS LAST, wins DESC, pattern
