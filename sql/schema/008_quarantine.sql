-- Files that were not loaded, with every reason (a file with one malformed game is held whole).
CREATE TABLE quarantine (
    path     VARCHAR NOT NULL PRIMARY KEY,  -- files.path
    sha256   VARCHAR NOT NULL,        -- hex SHA-256 of the file's bytes (a fixed file gets another and is retried)
    size     BIGINT  NOT NULL,        -- the file's size in bytes
    n_errors INTEGER NOT NULL,        -- how many errors the file has
    reason   VARCHAR NOT NULL,        -- the errors as sentences, one per line
    errors   STRUCT(line INTEGER, json_path VARCHAR, game_id VARCHAR, message VARCHAR)[] NOT NULL,
    -- each error with its line, JSON path and game id where known
    run_id   INTEGER NOT NULL         -- the ingest run that quarantined it
);
