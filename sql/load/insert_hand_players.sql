-- Bulk-load the per-player hand rows of a batch from the workers' Parquet shards.
INSERT INTO hand_players BY NAME SELECT * FROM read_parquet($files) ORDER BY game_id, hand_no, seat
