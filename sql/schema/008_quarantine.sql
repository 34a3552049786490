-- Files that were not loaded, with every reason (a file with one malformed game is held whole).
CREATE TABLE quarantine (
    path     VARCHAR NOT NULL PRIMARY KEY,
    sha256   VARCHAR NOT NULL,
    size     BIGINT  NOT NULL,
    n_errors INTEGER NOT NULL,
    reason   VARCHAR NOT NULL,        -- the errors as sentences, one per line
    errors   STRUCT(line INTEGER, json_path VARCHAR, game_id VARCHAR, message VARCHAR)[] NOT NULL,
    run_id   INTEGER NOT NULL
);
