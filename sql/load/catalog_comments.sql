-- The stored comment of every table of the main schema (column NULL) and of each of its columns.
SELECT table_name, NULL AS column_name, comment
FROM duckdb_tables()
WHERE schema_name = 'main' AND NOT temporary
UNION ALL
SELECT table_name, column_name, comment
FROM duckdb_columns()
WHERE schema_name = 'main' AND NOT internal
ORDER BY ALL
