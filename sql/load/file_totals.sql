-- The games and hands the database holds from these files.
SELECT coalesce(sum(games), 0), coalesce(sum(hands), 0) FROM files WHERE path IN (SELECT unnest($paths))
