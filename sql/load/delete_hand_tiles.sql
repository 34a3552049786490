-- Remove the tile rows of the games of files about to be replaced.
DELETE FROM hand_tiles
WHERE game_id IN (SELECT game_id FROM games WHERE path IN (SELECT unnest($paths)))
