ALTER TABLE ingest_runs ADD COLUMN engine_version VARCHAR  -- The engine version of the process that ran it (NULL: before versions were recorded).
