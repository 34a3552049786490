-- Remove the games of files processed again, forgotten or pruned (their other rows are removed first).
DELETE FROM games WHERE path IN (SELECT unnest($paths))
