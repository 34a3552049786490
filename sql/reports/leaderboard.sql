-- Players ranked by net score (recomputed) within each rule family, one ranking per family (their points are on different scales): hands, win and self-draw rates (each win counts), deal-in rate, average win value, kongs and chickens per hand (NULL for a family without chickens).
-- zh: 各玩法内按净得分（重算）排名的玩家，每种玩法一张排名（各玩法分值尺度不同）：手数、胡牌率与自摸率（每次胡牌都计）、点炮率、平均胡牌分值、每手的杠与鸡（没有鸡的玩法为 NULL）。
WITH seat_wins AS (
    SELECT
        game_id,
        hand_no,
        seat,
        count(*) AS wins,
        count(*) FILTER (WHERE source = 'self_draw') AS self_draws
    FROM wins
    GROUP BY game_id, hand_no, seat
),
deal_ins AS (
    SELECT DISTINCT game_id, hand_no, discarder AS seat
    FROM wins
    WHERE discarder IS NOT NULL
),
win_values AS (
    SELECT g.family, w.player_id, avg(w.value) AS avg_win_value
    FROM wins AS w
    JOIN games AS g USING (game_id)
    GROUP BY g.family, w.player_id
),
board AS (
    SELECT
        g.family,
        row_number() OVER (
            PARTITION BY g.family
            ORDER BY sum(coalesce(hp.delta, 0)) DESC, hp.player_id
        ) AS rank,
        hp.player_id,
        count(*) AS hands,
        CAST(sum(coalesce(hp.delta, 0)) AS BIGINT) AS net_score,
        avg(coalesce(sw.wins, 0)) AS win_rate,
        avg(coalesce(sw.self_draws, 0)) AS self_draw_rate,
        avg((di.seat IS NOT NULL)::INTEGER) AS deal_in_rate,
        avg(hp.exposed_kongs + hp.added_kongs + hp.concealed_kongs) AS kongs_per_hand,
        avg(hp.chickens_standing + hp.chickens_flipped + hp.chickens_gold + hp.chickens_charging + hp.chickens_responsibility) AS chickens_per_hand
    FROM hand_players AS hp
    JOIN games AS g USING (game_id)
    LEFT JOIN seat_wins AS sw ON sw.game_id = hp.game_id AND sw.hand_no = hp.hand_no AND sw.seat = hp.seat
    LEFT JOIN deal_ins AS di ON di.game_id = hp.game_id AND di.hand_no = hp.hand_no AND di.seat = hp.seat
    GROUP BY g.family, hp.player_id
)
SELECT
    b.family,             -- the rule family of the ranking (games.family) (a name from the family registry); NULL for games whose ruleset no longer resolves
    b.rank,               -- 1 for the best net score in the family (ties by player id)
    b.player_id,          -- the log's player id (players.player_id)
    n.name AS player_name,  -- the player's display name in the latest game that gives one (players.name); NULL when no log names the player
    b.hands,              -- hands the player sat in, in this family
    b.net_score,          -- the sum of the player's recomputed deltas in this family (an unsettled hand counts 0)
    b.win_rate,           -- the player's wins per hand: the share of the hands won, each win counting where play goes on after a win (a player who won twice in a hand counts two)
    b.self_draw_rate,     -- the player's wins by self-draw (自摸) per hand, each counting
    b.deal_in_rate,       -- share of the hands in which a winner won on the player's discard or kong (点炮)
    v.avg_win_value,      -- average value per payer of the player's settled wins (wins.value); NULL without one
    b.kongs_per_hand,     -- kongs made per hand (exposed, added and concealed; robbed kongs not counted)
    b.chickens_per_hand   -- chickens the player was paid for per hand, all kinds; NULL for a family without chickens
FROM board AS b
LEFT JOIN win_values AS v ON v.family IS NOT DISTINCT FROM b.family AND v.player_id = b.player_id
LEFT JOIN internal.player_names AS n ON n.player_id = b.player_id
ORDER BY b.family NULLS LAST, b.rank
