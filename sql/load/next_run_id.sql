-- The next run id: above every run recorded and every run a file names.
SELECT coalesce(max(run_id), 0) + 1
FROM (SELECT run_id FROM ingest_runs UNION ALL SELECT run_id FROM files UNION ALL SELECT run_id FROM quarantine)
