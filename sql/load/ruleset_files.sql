-- The files holding games of these rulesets (a table registered as stale_rulesets).
SELECT DISTINCT g.path, s.ruleset, s.rule_overrides
FROM games g
JOIN stale_rulesets s
    ON g.ruleset = s.ruleset
    AND g.rule_overrides IS NOT DISTINCT FROM s.rule_overrides
    AND g.ruleset_fingerprint IS NOT DISTINCT FROM s.ruleset_fingerprint
ORDER BY g.path, s.ruleset, s.rule_overrides NULLS FIRST
