-- The rulesets of the games whose family is not recorded (loaded before games.family was).
SELECT DISTINCT ruleset, rule_overrides
FROM games
WHERE family IS NULL
ORDER BY ruleset, rule_overrides NULLS FIRST
