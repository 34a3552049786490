-- Every file already loaded or quarantined, with the content hash it had then.
SELECT path, sha256 FROM files ORDER BY path
