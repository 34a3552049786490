-- Move a file's games to the path its content was found at (their other rows follow the game ids).
UPDATE games SET path = $new WHERE path = $old
