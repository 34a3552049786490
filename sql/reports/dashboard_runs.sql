-- Dashboard: the last $limit ingest runs, newest first.
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
    mismatches,
    workers,
    runner
FROM ingest_runs
ORDER BY run_id DESC
LIMIT CAST($limit AS INTEGER)
