-- Record the family of the games whose family is not recorded yet, from their rulesets resolved
-- (registered as filled_families: ruleset, rule_overrides, family, chickens).
UPDATE games
SET family = f.family
FROM filled_families AS f
WHERE games.family IS NULL
    AND f.ruleset = games.ruleset
    AND f.rule_overrides IS NOT DISTINCT FROM games.rule_overrides
