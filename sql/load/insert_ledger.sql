-- Bulk-load the ledger rows of a batch from the workers' Parquet shards.
INSERT INTO ledger BY NAME SELECT * FROM read_parquet($files) ORDER BY game_id, hand_no, item_no
