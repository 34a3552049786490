ALTER TABLE ingest_runs ADD COLUMN command VARCHAR DEFAULT 'ingest'  -- What the run did: 'ingest' (zhuoji ingest) or 'forget' (zhuoji forget).
