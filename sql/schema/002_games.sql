-- One row per game loaded.
CREATE TABLE games (
    game_id        VARCHAR   NOT NULL PRIMARY KEY,  -- the log's game id, unique across the warehouse
    path           VARCHAR   NOT NULL,     -- files.path of the file holding the game
    ruleset        VARCHAR   NOT NULL,     -- preset name from the log
    rule_overrides VARCHAR,                -- the log's overrides as JSON text (sorted keys)
    base_stake     INTEGER   NOT NULL,     -- points per unit of value; every amount is a multiple
    started_at     TIMESTAMP,              -- when the game started (UTC), when the log says
    n_players      SMALLINT  NOT NULL,     -- 4, or 3 (三丁拐) or 2 (二丁拐)
    n_hands        INTEGER   NOT NULL      -- hands in the log
);
