-- Bulk-load the players of a batch from the workers' Parquet shards.
INSERT INTO players BY NAME SELECT * FROM read_parquet($files) ORDER BY game_id, seat
