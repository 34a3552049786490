-- Forget the quarantine rows of files about to be loaded or quarantined again.
DELETE FROM quarantine WHERE path IN (SELECT unnest($paths))
