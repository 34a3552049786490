ALTER TABLE games ADD COLUMN engine_version VARCHAR  -- The engine version (rules/version.py) that audited each game; NULL: loaded before versions were recorded.
