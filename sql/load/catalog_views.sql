-- The views of a schema ($schema: the report views' schema) and their comments.
SELECT view_name, comment
FROM duckdb_views()
WHERE schema_name = $schema AND NOT internal
ORDER BY view_name
