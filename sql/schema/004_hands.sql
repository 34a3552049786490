-- One row per hand: how it ended, the recomputed and the recorded result, the findings.
CREATE TABLE hands (
    game_id              VARCHAR  NOT NULL,   -- games.game_id
    hand_no              INTEGER  NOT NULL,   -- the log's hand number within the game
    dealer               SMALLINT NOT NULL,   -- the dealer's seat (庄)
    dealer_streak        INTEGER  NOT NULL,   -- 连庄 count, 0 for a fresh dealer
    n_events             INTEGER  NOT NULL,   -- events in the log
    events_applied       INTEGER  NOT NULL,   -- events replayed before a fatal violation (or all)
    has_wall             BOOLEAN  NOT NULL,   -- the log lists the live wall
    wall_left            INTEGER  NOT NULL,   -- tiles left in the wall where the replay ended
    outcome              VARCHAR  NOT NULL CHECK (outcome IN ('win', 'exhaustive_draw', 'incomplete')),
    -- how the replay ended: a win, an exhaustive draw (黄庄), or incomplete (a fatal violation or a log that stops)
    winners              SMALLINT NOT NULL,   -- how many won: 0, 1, or 2-3 on a multiple win (一炮多响)
    self_drawn           BOOLEAN  NOT NULL,   -- won by self-draw (自摸)
    discarder            SMALLINT,            -- who dealt in (or whose kong was robbed)
    flip_tile            VARCHAR,             -- the flipped tile (翻鸡), canonical text
    settled              BOOLEAN  NOT NULL,   -- a settlement was recomputed (not incomplete)
    next_dealer          SMALLINT,            -- the next dealer by the rules (recomputed); NULL when not settled
    recorded             BOOLEAN  NOT NULL,   -- the log holds the server's result
    recorded_next_dealer SMALLINT,            -- the record's next dealer, when it gives one
    violations           INTEGER  NOT NULL,   -- illegal-move findings
    fatal                BOOLEAN  NOT NULL,   -- a fatal violation stopped the replay
    fatal_code           VARCHAR,             -- the code of that fatal violation
    mismatches           INTEGER  NOT NULL,   -- settlement findings: not zero-sum, score, item, item-sum or dealer mismatch
    disputed             BOOLEAN  NOT NULL,   -- mismatches > 0: the record differs from the recomputation
    PRIMARY KEY (game_id, hand_no)
);
