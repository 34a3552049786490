-- A running run's counts so far, stored with each batch it commits (a killed run keeps them).
UPDATE ingest_runs SET
    files_seen = $files_seen,
    files_loaded = $files_loaded,
    files_skipped = $files_skipped,
    files_quarantined = $files_quarantined,
    games = $games,
    hands = $hands,
    violations = $violations,
    mismatches = $mismatches,
    disputed_hands = $disputed_hands
WHERE run_id = $run_id
