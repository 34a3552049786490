ALTER TABLE games ADD COLUMN ruleset_fingerprint VARCHAR  -- A digest of the game's resolved ruleset (preset + overrides, canonical JSON); NULL: loaded before it was recorded.
