-- The highest block of the file that table $table stores a column segment in (NULL: none;
-- block ids from $limit up are DuckDB's markers, not blocks of the file).
SELECT max(block_id) FROM pragma_storage_info($table)
WHERE persistent AND block_id >= 0 AND block_id < $limit
