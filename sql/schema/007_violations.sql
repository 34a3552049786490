-- Every finding of the audit: illegal moves and the settlement checks against the record.
CREATE TABLE violations (
    game_id     VARCHAR  NOT NULL,    -- games.game_id
    hand_no     INTEGER  NOT NULL,    -- hands.hand_no
    item_no     INTEGER  NOT NULL,    -- 0-based position among the hand's findings
    event_index INTEGER,              -- 0-based index into the hand's events; NULL: deal/settlement
    seat        SMALLINT,             -- the player at fault, when there is one
    player_id   VARCHAR,              -- players.player_id of that seat
    code        VARCHAR  NOT NULL,    -- stable code (docs/rules/legality.md)
    settlement  BOOLEAN  NOT NULL,    -- a settlement check (not zero-sum, score, item, item-sum or dealer mismatch); else an illegal move
    message     VARCHAR  NOT NULL,    -- one line naming the event and a short state summary
    fatal       BOOLEAN  NOT NULL,    -- the finding stopped the hand's replay
    PRIMARY KEY (game_id, hand_no, item_no)
);
