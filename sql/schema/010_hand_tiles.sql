-- Each seat's tiles where the hand ended (or where a fatal violation stopped the replay), in compact notation.
CREATE TABLE hand_tiles (
    game_id   VARCHAR  NOT NULL,   -- games.game_id
    hand_no   INTEGER  NOT NULL,   -- hands.hand_no
    seat      SMALLINT NOT NULL,   -- 0-based
    concealed VARCHAR  NOT NULL,   -- the hand as held, sorted: "123m55p" ('' when empty)
    melds     VARCHAR  NOT NULL,   -- in the order made: "pong:5p,concealed_kong:1s" ('' when none)
    discards  VARCHAR  NOT NULL,   -- the seat's discards in play order: "1s9m55p" ('' when none)
    win_tile  VARCHAR,             -- the tile the seat won on (a self-drawn one is also in concealed)
    PRIMARY KEY (game_id, hand_no, seat)
);
