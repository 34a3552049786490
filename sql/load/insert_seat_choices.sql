-- Bulk-load the seats' exchanges and declared suits of a batch from the workers' Parquet shards:
-- the rows of the batch's loaded files ($paths), each row's file in source_file.
INSERT INTO seat_choices BY NAME SELECT * EXCLUDE (source_file) FROM read_parquet($files)
WHERE source_file IN (SELECT unnest($paths)) ORDER BY game_id, hand_no, seat
