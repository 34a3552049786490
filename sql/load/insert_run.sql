-- Record a run as it starts; finish_run fills in its counts.
INSERT INTO ingest_runs (
    run_id, status, started_at, finished_at, files_seen, files_loaded, files_skipped,
    files_quarantined, games, hands, violations, mismatches, workers, runner, command,
    files_renamed, files_reaudited, files_forgotten, engine_version, disputed_hands
) VALUES (
    $run_id, 'running', $started_at, NULL, 0, 0, 0, 0, 0, 0, 0, 0, $workers, $runner, $command,
    0, 0, 0, $engine_version, 0
)
