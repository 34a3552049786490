ALTER TABLE ingest_runs ADD COLUMN files_forgotten INTEGER DEFAULT 0  -- Files whose rows the run dropped: vanished files (ingest --prune) or named ones (zhuoji forget).
