-- Bulk-load the quarantine rows of a batch (an Arrow table registered as batch_quarantine).
INSERT INTO quarantine BY NAME SELECT * FROM batch_quarantine ORDER BY path
