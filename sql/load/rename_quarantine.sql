-- Move a quarantined file's row to the path its content was found at.
UPDATE quarantine SET path = $new WHERE path = $old
