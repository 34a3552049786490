-- One row per `zhuoji ingest` run; a run killed before it finished stays 'interrupted'.
CREATE TABLE ingest_runs (
    run_id            INTEGER   NOT NULL PRIMARY KEY,
    status            VARCHAR   NOT NULL CHECK (status IN ('running', 'completed', 'interrupted')),
    started_at        TIMESTAMP NOT NULL,  -- UTC
    finished_at       TIMESTAMP,           -- UTC
    files_seen        INTEGER   NOT NULL,
    files_loaded      INTEGER   NOT NULL,
    files_skipped     INTEGER   NOT NULL,
    files_quarantined INTEGER   NOT NULL,
    games             INTEGER   NOT NULL,  -- games loaded by this run
    hands             INTEGER   NOT NULL,  -- hands loaded by this run
    violations        INTEGER   NOT NULL,  -- illegal-move findings in those hands
    mismatches        INTEGER   NOT NULL,  -- hands whose record differs from the recomputation
    workers           INTEGER   NOT NULL,
    runner            VARCHAR   NOT NULL   -- 'process-pool' or 'dask tcp://...'
);
