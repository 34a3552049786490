-- The players of each game, by seat.
CREATE TABLE players (
    game_id   VARCHAR  NOT NULL,  -- games.game_id
    seat      SMALLINT NOT NULL,  -- 0-based, in turn order
    player_id VARCHAR  NOT NULL,  -- the log's player id (stable across games)
    name      VARCHAR,            -- the log's display name, when it gives one
    PRIMARY KEY (game_id, seat)
);
