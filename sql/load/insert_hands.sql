-- Bulk-load the hands of a batch from the workers' Parquet shards.
INSERT INTO hands BY NAME SELECT * FROM read_parquet($files) ORDER BY game_id, hand_no
