-- Which engine versions and rulesets produced the warehouse: files, games and hands per engine version,
-- preset and ruleset fingerprint (NULL: loaded before they were recorded), the runs that loaded them,
-- and whether that engine is the one of the latest completed ingest run (the next ingest re-audits the others).
WITH latest AS (
    SELECT engine_version
    FROM ingest_runs
    WHERE command = 'ingest' AND status = 'completed' AND engine_version IS NOT NULL
    ORDER BY run_id DESC
    LIMIT 1
)
SELECT
    g.engine_version,
    g.ruleset,
    g.ruleset_fingerprint,
    count(DISTINCT g.path) AS files,
    count(*) AS games,
    sum(g.n_hands) AS hands,
    min(f.run_id) AS first_run,
    max(f.run_id) AS last_run,
    coalesce(g.engine_version = (SELECT engine_version FROM latest), false) AS latest_engine
FROM games g
JOIN files f USING (path)
GROUP BY g.engine_version, g.ruleset, g.ruleset_fingerprint
ORDER BY g.engine_version NULLS FIRST, g.ruleset, g.ruleset_fingerprint NULLS FIRST
