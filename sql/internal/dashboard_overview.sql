-- Dashboard: the warehouse in one row: games, hands, players, disputed hands, illegal moves, files, the last ingest.
SELECT
    (SELECT count(*) FROM games) AS games,                                    -- games loaded
    (SELECT count(*) FROM hands) AS hands,                                    -- hands loaded
    (SELECT count(DISTINCT player_id) FROM players) AS players,               -- distinct player ids
    (SELECT count(*) FROM hands WHERE disputed) AS disputed_hands,            -- hands whose record differs from the recomputation
    (SELECT count(*) FROM violations WHERE NOT settlement) AS illegal_moves,  -- illegal-move findings
    (SELECT count(*) FROM hands WHERE violations > 0) AS illegal_hands,       -- hands with an illegal move
    (SELECT count(*) FROM hands WHERE fatal) AS stopped_hands,                -- hands whose replay a fatal violation stopped
    (SELECT count(*) FROM files WHERE status = 'loaded') AS files_loaded,     -- files loaded
    (SELECT count(*) FROM quarantine) AS files_quarantined,                   -- files quarantined
    (SELECT min(started_at) FROM games) AS first_game,                        -- when the first game started (UTC)
    (SELECT max(started_at) FROM games) AS last_game,                         -- when the last game started (UTC)
    (SELECT max(finished_at) FROM ingest_runs WHERE status = 'completed') AS last_ingest  -- when the last completed ingest run finished (UTC)
