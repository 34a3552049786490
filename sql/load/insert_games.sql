-- Bulk-load the games of a batch from the workers' Parquet shards.
INSERT INTO games BY NAME SELECT * FROM read_parquet($files) ORDER BY game_id
