-- Dashboard: the rulesets each player of the list $player_ids played (one row per player and ruleset): a player page is in the words of its rulesets' family when they are of one.
WITH picked AS (
    SELECT unnest(CAST($player_ids AS VARCHAR[])) AS player_id
)
SELECT DISTINCT p.player_id, g.ruleset
FROM players AS p
JOIN picked USING (player_id)
JOIN games AS g USING (game_id)
ORDER BY p.player_id, g.ruleset
