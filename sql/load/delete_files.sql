-- Forget the bookkeeping rows of files about to be loaded or quarantined again.
DELETE FROM files WHERE path IN (SELECT unnest($paths))
