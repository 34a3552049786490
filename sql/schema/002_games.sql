-- One row per game loaded.
CREATE TABLE games (
    game_id        VARCHAR   NOT NULL PRIMARY KEY,
    path           VARCHAR   NOT NULL,     -- files.path of the file holding the game
    ruleset        VARCHAR   NOT NULL,     -- preset name from the log
    rule_overrides VARCHAR,                -- the log's overrides as JSON text (sorted keys)
    base_stake     INTEGER   NOT NULL,
    started_at     TIMESTAMP,              -- UTC
    n_players      SMALLINT  NOT NULL,
    n_hands        INTEGER   NOT NULL
);
