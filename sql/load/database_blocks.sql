-- The open database's block size in bytes, the blocks its header counts (free ones among
-- them) and the blocks in use.
SELECT block_size, total_blocks, used_blocks
FROM pragma_database_size()
WHERE database_name = current_database()
