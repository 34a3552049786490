-- Dashboard: the last $limit ingest runs, newest first: their files, games, hands, illegal moves, disputed hands (NULL: a run recorded before they were counted) and settlement findings.
SELECT
    run_id,
    status,
    started_at,
    finished_at,
    files_seen,
    files_loaded,
    files_skipped,
    files_quarantined,
    games,
    hands,
    violations,
    disputed_hands,
    mismatches AS settlement_findings,
    workers,
    runner
FROM ingest_runs
ORDER BY run_id DESC
LIMIT CAST($limit AS INTEGER)
