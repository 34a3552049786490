-- Every win of the hands with several (several winners on one discard, or play going on after a win), in the order they happened: the winner, how it was won, who dealt in, the tile, the value and the scored patterns.
-- zh: 有多次胡牌的牌局（一炮多响，或胡牌后继续打）中的每次胡牌，按发生顺序：胡牌者、胡法、点炮者、所胡的牌、分值与计分番型。
WITH several AS (
    SELECT game_id, hand_no, count(*) AS hand_wins
    FROM wins
    GROUP BY game_id, hand_no
    HAVING count(*) > 1
)
SELECT
    g.family,            -- the game's rule family (games.family)
    w.game_id,           -- the game (games.game_id)
    w.hand_no,           -- the log's hand number within the game
    s.hand_wins,         -- the hand's wins, all of them
    w.win_no,            -- the win's place among the hand's wins (0 first), in event order
    w.seat,              -- the winner's seat (0-based)
    w.player_id,         -- the winner (players.player_id)
    w.source,            -- how it was won: self_draw (自摸), discard (on a discard), robbed_kong (抢杠)
    w.discarder,         -- the seat that dealt in (the discarder, or the player whose kong was robbed); NULL on a self-draw
    w.discarder_id,      -- that seat's player (players.player_id); NULL on a self-draw
    w.tile,              -- the tile won on
    w.value,             -- what each paying seat paid for the win (wins.value); NULL when the hand was not settled
    w.scored_patterns    -- what the settlement scored for the win, a list
FROM wins AS w
JOIN several AS s USING (game_id, hand_no)
JOIN games AS g USING (game_id)
ORDER BY g.family NULLS LAST, w.game_id, w.hand_no, w.win_no
