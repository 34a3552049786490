-- The tables of the open database, each as a qualified, quoted name (for
-- load/last_table_block).
SELECT '"' || replace(schema_name, '"', '""') || '"."' || replace(table_name, '"', '""') || '"'
FROM duckdb_tables()
WHERE database_name = current_database() AND NOT temporary
ORDER BY schema_name, table_name
