ALTER TABLE ingest_runs ADD COLUMN files_renamed INTEGER DEFAULT 0  -- Files found at a new path with the content of a vanished one: their rows moved, not re-audited.
