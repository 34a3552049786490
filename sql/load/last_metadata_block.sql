-- The highest block of the file that holds the database's metadata (NULL: none).
SELECT max(block_id) FROM pragma_metadata_info()
