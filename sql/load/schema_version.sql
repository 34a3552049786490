-- The highest schema version applied (-1 for a new database).
SELECT coalesce(max(version), -1) FROM schema_version
