-- The primary-key columns of one table of the main schema ($table), in key order.
SELECT unnest(constraint_column_names) AS column_name
FROM duckdb_constraints()
WHERE schema_name = 'main' AND table_name = $table AND constraint_type = 'PRIMARY KEY'
