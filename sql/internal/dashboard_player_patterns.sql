-- Dashboard: each player's wins by scored pattern in each rule family (a win scoring several patterns counts under each).
SELECT
    player_id,          -- the player (players.player_id)
    family,             -- the rule family (games.family)
    pattern,            -- a pattern the settlement scored (wins.scored_patterns)
    count(*) AS wins    -- the player's wins scoring it in the family
FROM (
    SELECT w.player_id, g.family, unnest(w.scored_patterns) AS pattern
    FROM wins AS w
    JOIN games AS g USING (game_id)
)
GROUP BY player_id, family, pattern
ORDER BY player_id, family NULLS LAST, wins DESC, pattern
