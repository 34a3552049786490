ALTER TABLE ingest_runs ADD COLUMN files_reaudited INTEGER DEFAULT 0  -- Unchanged files audited again: a new engine version or ruleset fingerprint, or --full-refresh.
