-- Every file already loaded or quarantined: its content hash, size, status and the engine
-- that processed it.
SELECT path, sha256, size, status, engine_version FROM files ORDER BY path
