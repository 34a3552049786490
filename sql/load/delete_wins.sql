-- Remove the wins rows of the games of files about to be replaced.
DELETE FROM wins
WHERE game_id IN (SELECT game_id FROM games WHERE path IN (SELECT unnest($paths)))
