-- Dashboard: the warehouse in one row: games, hands, players, disputed hands, illegal moves, files, the last ingest.
SELECT
    (SELECT count(*) FROM games) AS games,
    (SELECT count(*) FROM hands) AS hands,
    (SELECT count(DISTINCT player_id) FROM players) AS players,
    (SELECT count(*) FROM hands WHERE disputed) AS disputed_hands,
    (SELECT count(*) FROM violations WHERE NOT settlement) AS illegal_moves,
    (SELECT count(*) FROM hands WHERE violations > 0) AS illegal_hands,
    (SELECT count(*) FROM hands WHERE fatal) AS stopped_hands,
    (SELECT count(*) FROM files WHERE status = 'loaded') AS files_loaded,
    (SELECT count(*) FROM quarantine) AS files_quarantined,
    (SELECT min(started_at) FROM games) AS first_game,
    (SELECT max(started_at) FROM games) AS last_game,
    (SELECT max(finished_at) FROM ingest_runs WHERE status = 'completed') AS last_ingest
