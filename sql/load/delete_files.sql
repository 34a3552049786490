-- Forget the bookkeeping rows of files processed again, forgotten or pruned.
DELETE FROM files WHERE path IN (SELECT unnest($paths))
