-- The columns of one table of the main schema ($table), in order: name, type, nullable, comment.
SELECT
    column_name AS "column",
    data_type AS type,
    is_nullable AS nullable,
    comment
FROM duckdb_columns()
WHERE schema_name = 'main' AND table_name = $table AND NOT internal
ORDER BY column_index
