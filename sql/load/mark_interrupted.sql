-- Runs still 'running' when a new one starts were killed (only one process can write).
UPDATE ingest_runs SET status = 'interrupted' WHERE status = 'running'
