-- One row per hand: how it ended, the recomputed and the recorded result, the findings.
CREATE TABLE hands (
    game_id              VARCHAR  NOT NULL,
    hand_no              INTEGER  NOT NULL,
    dealer               SMALLINT NOT NULL,
    dealer_streak        INTEGER  NOT NULL,
    n_events             INTEGER  NOT NULL,   -- events in the log
    events_applied       INTEGER  NOT NULL,   -- events replayed before a fatal violation (or all)
    has_wall             BOOLEAN  NOT NULL,   -- the log lists the live wall
    wall_left            INTEGER  NOT NULL,   -- tiles left in the wall where the replay ended
    outcome              VARCHAR  NOT NULL CHECK (outcome IN ('win', 'exhaustive_draw', 'incomplete')),
    winners              SMALLINT NOT NULL,   -- 2 or 3 on a multiple win (一炮多响)
    self_drawn           BOOLEAN  NOT NULL,   -- won by self-draw (自摸)
    discarder            SMALLINT,            -- who dealt in (or whose kong was robbed)
    flip_tile            VARCHAR,             -- the flipped tile (翻鸡), canonical text
    settled              BOOLEAN  NOT NULL,   -- a settlement was recomputed (not incomplete)
    next_dealer          SMALLINT,            -- recomputed
    recorded             BOOLEAN  NOT NULL,   -- the log holds the server's result
    recorded_next_dealer SMALLINT,
    violations           INTEGER  NOT NULL,   -- illegal-move findings
    fatal                BOOLEAN  NOT NULL,   -- a fatal violation stopped the replay
    fatal_code           VARCHAR,
    mismatches           INTEGER  NOT NULL,   -- settlement findings (score/dealer mismatch, not zero-sum)
    disputed             BOOLEAN  NOT NULL,   -- mismatches > 0: the record differs from the recomputation
    PRIMARY KEY (game_id, hand_no)
);
