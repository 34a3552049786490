-- The quarantined files whose game ids clash with other files, and those files.
SELECT path, clashes_with FROM quarantine WHERE len(clashes_with) > 0 ORDER BY path
