-- Each ruleset the loaded games were audited under, with the fingerprint it resolved to then.
SELECT DISTINCT ruleset, rule_overrides, ruleset_fingerprint
FROM games
ORDER BY ruleset, rule_overrides NULLS FIRST, ruleset_fingerprint NULLS FIRST
