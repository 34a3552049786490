-- Every file already loaded or quarantined: its content hash, size, status, the engine that
-- processed it and, for a quarantined file, the files its game ids clashed with.
SELECT f.path, f.sha256, f.size, f.status, f.engine_version, coalesce(q.clashes_with, [])
FROM files f
LEFT JOIN quarantine q USING (path)
ORDER BY f.path
