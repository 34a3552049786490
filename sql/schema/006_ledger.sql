-- The recomputed settlement of each settled hand: one row per transfer, in the ledger's order.
CREATE TABLE ledger (
    game_id    VARCHAR  NOT NULL,     -- games.game_id
    hand_no    INTEGER  NOT NULL,     -- hands.hand_no
    item_no    INTEGER  NOT NULL,     -- 0-based position in the hand's ledger
    payer_seat SMALLINT NOT NULL,     -- the seat that pays
    payee_seat SMALLINT NOT NULL,     -- the seat that is paid
    payer_id   VARCHAR  NOT NULL,     -- players.player_id of the payer
    payee_id   VARCHAR  NOT NULL,     -- players.player_id of the payee
    amount     INTEGER  NOT NULL,     -- points, a multiple of the game's base stake
    reason     VARCHAR  NOT NULL,     -- hand, self_draw, exposed_kong, chicken, ... (docs/rules)
    detail     VARCHAR  NOT NULL,     -- e.g. "flush_all_pungs 15", "3 x 1s gold"
    PRIMARY KEY (game_id, hand_no, item_no)
);
