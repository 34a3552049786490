-- One row per win, in the order the wins happened within the hand: a hand may have several (several winners on one discard, or play going on after a win), from several discarders.
CREATE TABLE IF NOT EXISTS wins (
    game_id         VARCHAR   NOT NULL,   -- games.game_id
    hand_no         INTEGER   NOT NULL,   -- hands.hand_no
    win_no          SMALLINT  NOT NULL,   -- 0, 1, 2 ... the win's place among the hand's wins, in event order
    seat            SMALLINT  NOT NULL,   -- the winner's seat (0-based)
    player_id       VARCHAR   NOT NULL,   -- players.player_id of the winner
    source          VARCHAR   NOT NULL CHECK (source IN ('self_draw', 'discard', 'robbed_kong')),
    -- how it was won: self_draw (自摸), on a discard (点炮), or robbing an added kong (抢杠)
    discarder       SMALLINT,             -- the seat that dealt in: the discarder, or the player whose kong was robbed; NULL on a self-draw
    discarder_id    VARCHAR,              -- players.player_id of that seat; NULL on a self-draw
    tile            VARCHAR,              -- the tile won on, canonical text (NULL only in a hand loaded before hand_tiles existed, whose file the next ingest audits again)
    value           INTEGER,              -- what each paying seat paid for the win as the family's settlement values it (the scored patterns and their bonuses at the game's stake, WinValue.value; the same as hand_players.win_value); negative for a win whose winner paid it to the others instead (a penalty win, 包牌); NULL when the hand was not settled
    patterns        VARCHAR[] NOT NULL,   -- every pattern the win qualifies for, in the family's canonical order (its shape patterns, then its situational ones)
    scored_patterns VARCHAR[] NOT NULL,   -- what the settlement scored for the win; empty when the hand was not settled
    PRIMARY KEY (game_id, hand_no, win_no)
);
-- The hands loaded before the table existed: one win per winner of hand_players. Such a hand has
-- one discarder (hands.discarder) or one self-drawn winner, and several winners on one discard
-- are ordered by turn after the discarder. A robbed kong is told from a discard by the discarder's
-- river: on a discard win the tile won on is the discarder's last discard; a robbed kong's tile
-- (the fourth of the robbed player's pong) was never discarded. (A hand loaded before hand_tiles
-- existed has no tiles to tell by: its win counts as a discard win until the next ingest audits
-- its file again, as it does every file loaded before engine versions were recorded.) Rows the
-- table already holds are kept (the file is safe to apply again).
INSERT OR IGNORE INTO wins BY NAME
SELECT
    hp.game_id,
    hp.hand_no,
    CAST(row_number() OVER (
        PARTITION BY hp.game_id, hp.hand_no
        ORDER BY (hp.seat - coalesce(h.discarder, 0) + g.n_players) % g.n_players, hp.seat
    ) - 1 AS SMALLINT) AS win_no,
    hp.seat,
    hp.player_id,
    CASE
        WHEN hp.self_drawn THEN 'self_draw'
        WHEN t.win_tile IS NULL THEN 'discard'
        WHEN coalesce(CASE WHEN right(dt.discards, 1) = 'W' THEN 'W' ELSE right(dt.discards, 2) END, '')
             = t.win_tile THEN 'discard'
        ELSE 'robbed_kong'
    END AS source,
    CASE WHEN hp.self_drawn THEN NULL ELSE h.discarder END AS discarder,
    CASE WHEN hp.self_drawn THEN NULL ELSE dp.player_id END AS discarder_id,
    t.win_tile AS tile,
    hp.win_value AS value,
    hp.patterns,
    hp.scored_patterns
FROM hand_players AS hp
JOIN hands AS h USING (game_id, hand_no)
JOIN games AS g USING (game_id)
LEFT JOIN hand_tiles AS t USING (game_id, hand_no, seat)
LEFT JOIN hand_tiles AS dt
    ON dt.game_id = hp.game_id AND dt.hand_no = hp.hand_no AND dt.seat = h.discarder
LEFT JOIN players AS dp
    ON dp.game_id = hp.game_id AND dp.seat = h.discarder
WHERE hp.winner
ORDER BY hp.game_id, hp.hand_no, win_no;
