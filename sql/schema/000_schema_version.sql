-- Which numbered schema files have been applied to this database (the loader reads it first).
CREATE TABLE IF NOT EXISTS schema_version (
    version    INTEGER   NOT NULL PRIMARY KEY,
    name       VARCHAR   NOT NULL,
    applied_at TIMESTAMP NOT NULL DEFAULT current_timestamp
);
