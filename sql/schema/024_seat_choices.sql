-- One row per seat per hand of a family that exchanges tiles at the start (换三张) or has each seat declare a suit it will not win with (定缺); no rows for the hands of other families.
CREATE TABLE IF NOT EXISTS seat_choices (
    game_id       VARCHAR  NOT NULL,   -- games.game_id
    hand_no       INTEGER  NOT NULL,   -- hands.hand_no
    seat          SMALLINT NOT NULL,   -- 0-based
    player_id     VARCHAR  NOT NULL,   -- players.player_id of the seat
    declared_suit VARCHAR,             -- the suit the seat declared (m, p or s); NULL when it declared none before the replay ended, or the family declares none
    passed        VARCHAR,             -- the tiles the seat passed in the exchange, compact notation in the order given; NULL without an exchange
    passed_to     SMALLINT,            -- the seat they went to; NULL without an exchange
    received      VARCHAR,             -- the tiles the seat was passed, compact notation in the order given; NULL without an exchange
    received_from SMALLINT,            -- the seat they came from; NULL without an exchange
    PRIMARY KEY (game_id, hand_no, seat)
);
