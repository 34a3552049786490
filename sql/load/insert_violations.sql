-- Bulk-load the findings of a batch from the workers' Parquet shards.
INSERT INTO violations BY NAME SELECT * FROM read_parquet($files) ORDER BY game_id, hand_no, item_no
