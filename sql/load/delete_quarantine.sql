-- Forget the quarantine rows of files processed again, forgotten or pruned.
DELETE FROM quarantine WHERE path IN (SELECT unnest($paths))
