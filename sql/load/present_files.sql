-- Which of these paths the database holds rows for (loaded or quarantined).
SELECT path FROM files WHERE path IN (SELECT unnest($paths)) ORDER BY path
