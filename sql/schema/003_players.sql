-- The players of each game, by seat.
CREATE TABLE players (
    game_id   VARCHAR  NOT NULL,
    seat      SMALLINT NOT NULL,
    player_id VARCHAR  NOT NULL,
    name      VARCHAR,
    PRIMARY KEY (game_id, seat)
);
