-- Games with these ids already loaded from files other than the ones being replaced.
SELECT game_id, path
FROM games
WHERE game_id IN (SELECT unnest($game_ids)) AND path NOT IN (SELECT unnest($paths))
ORDER BY game_id
