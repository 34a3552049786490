-- Dashboard: the tables of the warehouse (optional tables such as hand_tiles are read only when present).
SELECT table_name  -- a table of the warehouse
FROM duckdb_tables()
WHERE NOT temporary
ORDER BY table_name
