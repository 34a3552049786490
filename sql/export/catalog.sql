-- What the database $database holds, one row per object: its kind, schema, name, column
-- (for a column's comment), comment and definition. What a whole-warehouse export must
-- carry over (flows/warehouse/export.py compares the warehouse's rows with the copy's).
SELECT 'table' AS kind, schema_name, table_name AS name, NULL AS column_name, comment,
       NULL AS definition
FROM duckdb_tables()
WHERE database_name = $database AND NOT temporary
UNION ALL
SELECT 'view', schema_name, view_name, NULL, comment, sql
FROM duckdb_views()
WHERE database_name = $database AND NOT internal AND NOT temporary
UNION ALL
SELECT 'column', schema_name, table_name, column_name, comment, NULL
FROM duckdb_columns()
WHERE database_name = $database AND NOT internal
UNION ALL
SELECT 'macro', schema_name, function_name, NULL, comment, NULL
FROM duckdb_functions()
WHERE database_name = $database AND NOT internal AND function_type IN ('macro', 'table_macro')
UNION ALL
SELECT 'sequence', schema_name, sequence_name, NULL, comment, NULL
FROM duckdb_sequences()
WHERE database_name = $database AND NOT temporary
UNION ALL
SELECT 'type', schema_name, type_name, NULL, comment, NULL
FROM duckdb_types()
WHERE database_name = $database AND NOT internal
UNION ALL
SELECT 'index', schema_name, index_name, NULL, comment, NULL
FROM duckdb_indexes()
WHERE database_name = $database
ORDER BY ALL
