-- Store a finished run's counts.
UPDATE ingest_runs SET
    status = 'completed',
    finished_at = $finished_at,
    files_seen = $files_seen,
    files_loaded = $files_loaded,
    files_skipped = $files_skipped,
    files_quarantined = $files_quarantined,
    files_renamed = $files_renamed,
    files_reaudited = $files_reaudited,
    files_forgotten = $files_forgotten,
    games = $games,
    hands = $hands,
    violations = $violations,
    mismatches = $mismatches,
    disputed_hands = $disputed_hands
WHERE run_id = $run_id
