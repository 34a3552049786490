-- Which engine versions and rulesets produced the warehouse: files, games and hands per engine version,
-- preset and ruleset fingerprint (NULL: loaded before they were recorded), the runs that loaded them,
-- and whether that engine is the one of the latest completed ingest run (the next ingest re-audits the others).
-- zh: 生成数据仓库的引擎版本与规则：按引擎版本、预设和规则指纹统计的文件、牌局与手数（NULL：记录这些之前载入的），载入它们的运行，以及该引擎是否为最近一次完成的导入运行所用的引擎（下次导入会重新审计其他的）。
WITH latest AS (
    SELECT engine_version
    FROM ingest_runs
    WHERE command = 'ingest' AND status = 'completed' AND engine_version IS NOT NULL
    ORDER BY run_id DESC
    LIMIT 1
)
SELECT
    g.engine_version,                      -- the engine version that audited the games (rules/version.py); NULL: loaded before versions were recorded
    g.ruleset,                             -- the preset the logs name
    g.ruleset_fingerprint,                 -- a digest of the resolved ruleset (preset and overrides); NULL: loaded before it was recorded
    count(DISTINCT g.path) AS files,       -- files holding those games
    count(*) AS games,                     -- games
    CAST(sum(g.n_hands) AS BIGINT) AS hands,  -- their hands
    min(f.run_id) AS first_run,            -- the earliest ingest run that loaded one of the files
    max(f.run_id) AS last_run,             -- the latest
    coalesce(g.engine_version = (SELECT engine_version FROM latest), false) AS latest_engine  -- true when the engine is the latest completed ingest's (the next ingest re-audits the others)
FROM games g
JOIN files f USING (path)
GROUP BY g.engine_version, g.ruleset, g.ruleset_fingerprint
ORDER BY g.engine_version NULLS FIRST, g.ruleset, g.ruleset_fingerprint NULLS FIRST
