-- The size in bytes of one block of the open database's file.
SELECT block_size FROM pragma_database_size() WHERE database_name = current_database()
