-- One row per player per hand: result, how the hand ended for the player, kongs, chickens, patterns.
CREATE TABLE hand_players (
    game_id                 VARCHAR   NOT NULL,
    hand_no                 INTEGER   NOT NULL,
    seat                    SMALLINT  NOT NULL,
    player_id               VARCHAR   NOT NULL,
    delta                   INTEGER,              -- recomputed; NULL when the hand was not settled
    recorded_delta          INTEGER,              -- the server's; NULL when the log has no result
    winner                  BOOLEAN   NOT NULL,
    self_drawn              BOOLEAN   NOT NULL,   -- won by self-draw
    dealt_in                BOOLEAN   NOT NULL,   -- a winner won on this player's discard or kong (点炮)
    ready                   BOOLEAN   NOT NULL,   -- ready (one tile from complete) at the end
    declared_ready          BOOLEAN   NOT NULL,   -- declared ready (报听) during the hand
    exposed_kongs           SMALLINT  NOT NULL,   -- 点豆 (robbed kongs are not counted)
    added_kongs             SMALLINT  NOT NULL,   -- 转弯豆
    concealed_kongs         SMALLINT  NOT NULL,   -- 闷豆
    chickens_standing       SMALLINT  NOT NULL,   -- chicken counts by kind, as settled
    chickens_flipped        SMALLINT  NOT NULL,
    chickens_gold           SMALLINT  NOT NULL,
    chickens_charging       SMALLINT  NOT NULL,
    chickens_responsibility SMALLINT  NOT NULL,
    win_value               INTEGER,              -- winners of settled hands: the win's value per payer
    patterns                VARCHAR[] NOT NULL,   -- winners: every pattern the win qualifies for
    scored_patterns         VARCHAR[] NOT NULL,   -- winners of settled hands: what the settlement scored
    PRIMARY KEY (game_id, hand_no, seat)
);
