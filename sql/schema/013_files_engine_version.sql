ALTER TABLE files ADD COLUMN engine_version VARCHAR  -- The engine version that loaded or quarantined each file; NULL: before versions were recorded (re-audited).
