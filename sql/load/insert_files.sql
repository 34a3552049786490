-- Bulk-load the bookkeeping rows of a batch's files (an Arrow table registered as batch_files).
INSERT INTO files BY NAME SELECT * FROM batch_files ORDER BY path
