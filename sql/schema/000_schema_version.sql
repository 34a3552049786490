-- Which numbered schema files have been applied to this database (the loader reads it first).
CREATE TABLE IF NOT EXISTS schema_version (
    version    INTEGER   NOT NULL PRIMARY KEY,                    -- the file's number (sql/schema/NNN_name.sql)
    name       VARCHAR   NOT NULL,                                -- the file's name without number and extension
    applied_at TIMESTAMP NOT NULL DEFAULT current_timestamp       -- when it was applied (the database's clock)
);
