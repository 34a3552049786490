ALTER TABLE quarantine ADD COLUMN clashes_with VARCHAR[]  -- The files a quarantined file's game ids clash with (empty or NULL: quarantined for another reason).
