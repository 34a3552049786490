-- One row per `zhuoji ingest` run; a run killed before it finished stays 'interrupted'.
CREATE TABLE ingest_runs (
    run_id            INTEGER   NOT NULL PRIMARY KEY,  -- 1, 2, ... in start order
    status            VARCHAR   NOT NULL CHECK (status IN ('running', 'completed', 'interrupted')),
    -- 'running' while it runs; 'interrupted' when the next run finds it killed
    started_at        TIMESTAMP NOT NULL,  -- when the run started (UTC)
    finished_at       TIMESTAMP,           -- when it finished (UTC); NULL while running or when killed
    files_seen        INTEGER   NOT NULL,  -- log files found under the paths given
    files_loaded      INTEGER   NOT NULL,  -- new or changed files loaded
    files_skipped     INTEGER   NOT NULL,  -- files already loaded with the same content
    files_quarantined INTEGER   NOT NULL,  -- files quarantined (see quarantine)
    games             INTEGER   NOT NULL,  -- games loaded by this run
    hands             INTEGER   NOT NULL,  -- hands loaded by this run
    violations        INTEGER   NOT NULL,  -- illegal-move findings in those hands
    mismatches        INTEGER   NOT NULL,  -- settlement findings in those hands (hands.mismatches summed); disputed_hands counts the hands
    workers           INTEGER   NOT NULL,  -- replay worker processes
    runner            VARCHAR   NOT NULL   -- 'process-pool' or 'dask tcp://...'
);
