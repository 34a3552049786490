-- Dashboard: every player's totals and rates in each rule family the player played, ranked by net score (recomputed) within the family: games, hands, wins (each win of a hand counts), deal-ins (hands dealt in), kongs and chickens by kind (NULL for a family without chickens), findings.
WITH everyone AS (
    SELECT DISTINCT g.family, p.player_id
    FROM players AS p
    JOIN games AS g USING (game_id)
),
span AS (
    SELECT
        g.family,
        p.player_id,
        min(g.started_at) AS first_played,
        max(g.started_at) AS last_played
    FROM players AS p
    JOIN games AS g USING (game_id)
    GROUP BY g.family, p.player_id
),
seat_wins AS (
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
    SELECT g.family, w.player_id, avg(w.value) AS avg_win_value, max(w.value) AS best_win_value
    FROM wins AS w
    JOIN games AS g USING (game_id)
    GROUP BY g.family, w.player_id
),
seats AS (
    SELECT
        g.family,
        hp.player_id,
        count(DISTINCT hp.game_id) AS games,
        count(*) AS hands,
        CAST(sum(coalesce(hp.delta, 0)) AS BIGINT) AS net_score,
        CAST(sum(hp.recorded_delta) AS BIGINT) AS recorded_net,
        CAST(coalesce(sum(sw.wins), 0) AS BIGINT) AS wins,
        CAST(coalesce(sum(sw.self_draws), 0) AS BIGINT) AS self_draws,
        count(*) FILTER (WHERE di.seat IS NOT NULL) AS deal_ins,
        count(*) FILTER (WHERE hp.ready) AS ready_at_end,
        count(*) FILTER (WHERE hp.declared_ready) AS declared_ready,
        CAST(sum(hp.exposed_kongs) AS BIGINT) AS exposed_kongs,
        CAST(sum(hp.added_kongs) AS BIGINT) AS added_kongs,
        CAST(sum(hp.concealed_kongs) AS BIGINT) AS concealed_kongs,
        CAST(sum(hp.chickens_standing) AS BIGINT) AS chickens_standing,
        CAST(sum(hp.chickens_flipped) AS BIGINT) AS chickens_flipped,
        CAST(sum(hp.chickens_gold) AS BIGINT) AS chickens_gold,
        CAST(sum(hp.chickens_charging) AS BIGINT) AS chickens_charging,
        CAST(sum(hp.chickens_responsibility) AS BIGINT) AS chickens_responsibility
    FROM hand_players AS hp
    JOIN games AS g USING (game_id)
    LEFT JOIN seat_wins AS sw ON sw.game_id = hp.game_id AND sw.hand_no = hp.hand_no AND sw.seat = hp.seat
    LEFT JOIN deal_ins AS di ON di.game_id = hp.game_id AND di.hand_no = hp.hand_no AND di.seat = hp.seat
    GROUP BY g.family, hp.player_id
),
findings AS (
    SELECT g.family, v.player_id, count(*) AS illegal_moves
    FROM violations AS v
    JOIN games AS g USING (game_id)
    WHERE NOT v.settlement AND v.player_id IS NOT NULL
    GROUP BY g.family, v.player_id
),
disputes AS (
    SELECT g.family, hp.player_id, count(*) AS disputed_hands
    FROM hand_players AS hp
    JOIN hands AS h USING (game_id, hand_no)
    JOIN games AS g USING (game_id)
    WHERE h.disputed
    GROUP BY g.family, hp.player_id
)
SELECT
    e.family,  -- the rule family (games.family)
    row_number() OVER (
        PARTITION BY e.family
        ORDER BY coalesce(s.net_score, 0) DESC, e.player_id
    ) AS rank,  -- 1 for the best net score in the family (ties by player id)
    e.player_id,  -- the player (players.player_id)
    n.name,  -- the player's display name in the latest game that gives one; NULL when no log names the player
    coalesce(s.games, 0) AS games,  -- games the player played in the family
    coalesce(s.hands, 0) AS hands,  -- hands the player sat in, in the family
    coalesce(s.net_score, 0) AS net_score,  -- the sum of the player's recomputed deltas in the family
    s.recorded_net,  -- the sum of the record's deltas (NULL where the logs give none)
    s.wins,  -- wins (each win counts: a player who won twice in a hand, playing on after a win, counts two)
    s.self_draws,  -- wins by self-draw (each counts)
    s.deal_ins,  -- hands a winner won on the player's discard or kong
    s.ready_at_end,  -- hands ended ready (one tile from complete)
    s.declared_ready,  -- hands in which the player declared ready (报听)
    s.wins / nullif(s.hands, 0) AS win_rate,  -- wins per hand (each win counts)
    s.self_draws / nullif(s.hands, 0) AS self_draw_rate,  -- self-drawn wins per hand (each counts)
    s.deal_ins / nullif(s.hands, 0) AS deal_in_rate,  -- deal-ins per hand
    s.ready_at_end / nullif(s.hands, 0) AS ready_rate,  -- ready at the end, per hand
    v.avg_win_value,  -- average value per payer of the settled wins (wins.value)
    v.best_win_value,  -- the best such value
    s.exposed_kongs,  -- exposed kongs (点豆) made
    s.added_kongs,  -- added kongs (转弯豆) made
    s.concealed_kongs,  -- concealed kongs (闷豆) made
    (s.exposed_kongs + s.added_kongs + s.concealed_kongs) / nullif(s.hands, 0) AS kongs_per_hand,  -- kongs per hand
    s.chickens_standing,  -- 常鸡 standing chickens paid for; NULL for a family without chickens
    s.chickens_flipped,  -- 翻鸡 flipped chickens paid for; NULL for a family without chickens
    s.chickens_gold,  -- 金鸡 gold chickens paid for; NULL for a family without chickens
    s.chickens_charging,  -- 冲锋鸡 charging chickens paid for; NULL for a family without chickens
    s.chickens_responsibility,  -- 责任鸡 responsibility chickens paid for (counted for the claimer); NULL for a family without chickens
    (s.chickens_standing + s.chickens_flipped + s.chickens_gold + s.chickens_charging
        + s.chickens_responsibility) / nullif(s.hands, 0) AS chickens_per_hand,  -- chickens paid for per hand; NULL for a family without chickens
    coalesce(f.illegal_moves, 0) AS illegal_moves,  -- illegal-move findings against the player in the family
    coalesce(d.disputed_hands, 0) AS disputed_hands,  -- disputed hands the player sat in, in the family
    sp.first_played,  -- when the player's first game of the family started (UTC)
    sp.last_played  -- when the last started (UTC)
FROM everyone AS e
LEFT JOIN seats AS s ON s.family IS NOT DISTINCT FROM e.family AND s.player_id = e.player_id
LEFT JOIN win_values AS v ON v.family IS NOT DISTINCT FROM e.family AND v.player_id = e.player_id
LEFT JOIN internal.player_names AS n ON n.player_id = e.player_id
LEFT JOIN span AS sp ON sp.family IS NOT DISTINCT FROM e.family AND sp.player_id = e.player_id
LEFT JOIN findings AS f ON f.family IS NOT DISTINCT FROM e.family AND f.player_id = e.player_id
LEFT JOIN disputes AS d ON d.family IS NOT DISTINCT FROM e.family AND d.player_id = e.player_id
ORDER BY e.family NULLS LAST, rank
