-- Move a file's bookkeeping row to the path its content was found at.
UPDATE files SET path = $new WHERE path = $old
