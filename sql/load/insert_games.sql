-- Bulk-load the games of a batch from the workers' Parquet shards: the rows of the batch's
-- loaded files ($paths), each row's file in source_file, with the engine version, ruleset
-- fingerprint and family each file's worker reported (registered as batch_rulesets).
INSERT INTO games BY NAME
SELECT g.* EXCLUDE (source_file), r.engine_version, r.ruleset_fingerprint, r.family
FROM read_parquet($files) g
LEFT JOIN batch_rulesets r
    ON r.path = g.path
    AND r.ruleset = g.ruleset
    AND r.rule_overrides IS NOT DISTINCT FROM g.rule_overrides
WHERE g.source_file IN (SELECT unnest($paths))
ORDER BY g.game_id
