-- Remove the seat_choices rows of the games of files about to be replaced.
DELETE FROM seat_choices
WHERE game_id IN (SELECT game_id FROM games WHERE path IN (SELECT unnest($paths)))
