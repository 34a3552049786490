-- Remove the hands rows of the games of files about to be replaced.
DELETE FROM hands
WHERE game_id IN (SELECT game_id FROM games WHERE path IN (SELECT unnest($paths)))
