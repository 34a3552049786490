-- Remove the games of files about to be replaced (their other rows are removed first).
DELETE FROM games WHERE path IN (SELECT unnest($paths))
