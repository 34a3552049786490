-- One row per player per hand: result, how the hand ended for the player, kongs, chickens, patterns.
CREATE TABLE hand_players (
    game_id                 VARCHAR   NOT NULL,   -- games.game_id
    hand_no                 INTEGER   NOT NULL,   -- hands.hand_no
    seat                    SMALLINT  NOT NULL,   -- 0-based
    player_id               VARCHAR   NOT NULL,   -- players.player_id of the seat
    delta                   INTEGER,              -- recomputed; NULL when the hand was not settled
    recorded_delta          INTEGER,              -- the server's; NULL when the log has no result
    winner                  BOOLEAN   NOT NULL,   -- the seat won the hand (胡)
    self_drawn              BOOLEAN   NOT NULL,   -- won by self-draw
    dealt_in                BOOLEAN   NOT NULL,   -- a winner won on this player's discard or kong (点炮)
    ready                   BOOLEAN   NOT NULL,   -- ready (one tile from complete) at the end
    declared_ready          BOOLEAN   NOT NULL,   -- declared ready (报听) during the hand
    exposed_kongs           SMALLINT  NOT NULL,   -- 点豆 (robbed kongs are not counted)
    added_kongs             SMALLINT  NOT NULL,   -- 转弯豆
    concealed_kongs         SMALLINT  NOT NULL,   -- 闷豆
    chickens_standing       SMALLINT  NOT NULL,   -- chickens the seat was paid for, by kind, as settled: 常鸡 standing
    chickens_flipped        SMALLINT  NOT NULL,   -- 翻鸡 flipped
    chickens_gold           SMALLINT  NOT NULL,   -- 金鸡 gold
    chickens_charging       SMALLINT  NOT NULL,   -- 冲锋鸡 charging
    chickens_responsibility SMALLINT  NOT NULL,   -- 责任鸡 responsibility (counted for the claimer)
    win_value               INTEGER,              -- winners of settled hands: the win's value per payer
    patterns                VARCHAR[] NOT NULL,   -- winners: every pattern the win qualifies for
    scored_patterns         VARCHAR[] NOT NULL,   -- winners of settled hands: what the settlement scored
    PRIMARY KEY (game_id, hand_no, seat)
);
