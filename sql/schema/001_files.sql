-- One row per input file ever seen: its content hash and where it ended (loaded or quarantined).
CREATE TABLE files (
    path    VARCHAR NOT NULL PRIMARY KEY,  -- absolute path, forward slashes
    sha256  VARCHAR NOT NULL,              -- hex SHA-256 of the file's bytes as stored
    size    BIGINT  NOT NULL,              -- the file's size in bytes
    status  VARCHAR NOT NULL CHECK (status IN ('loaded', 'quarantined')),  -- where the file ended
    games   INTEGER NOT NULL,              -- games loaded from the file (0 when quarantined)
    hands   INTEGER NOT NULL,              -- hands loaded from the file (0 when quarantined)
    run_id  INTEGER NOT NULL               -- the ingest run that loaded or quarantined it
);
