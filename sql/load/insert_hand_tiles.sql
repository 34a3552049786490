-- Bulk-load each seat's end-of-hand tiles of a batch from the workers' Parquet shards.
INSERT INTO hand_tiles BY NAME SELECT * FROM read_parquet($files) ORDER BY game_id, hand_no, seat
