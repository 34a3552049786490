-- Dashboard: every player's totals and rates in each rule family the player played, ranked by net score (recomputed) within the family: games, hands, wins, deal-ins, kongs and chickens by kind (NULL for a family without chickens), findings.
WITH everyone AS (
    SELECT DISTINCT g.family, p.player_id
    FROM players AS p
    JOIN games AS g USING (game_id)
),
names AS (
    SELECT player_id, name
    FROM (
        SELECT
            p.player_id,
            p.name,
            row_number() OVER (
                PARTITION BY p.player_id
                ORDER BY g.started_at DESC NULLS LAST, p.game_id DESC, p.name
            ) AS pick
        FROM players AS p
        JOIN games AS g USING (game_id)
        WHERE p.name IS NOT NULL
    )
    WHERE pick = 1
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
seats AS (
    SELECT
        g.family,
        hp.player_id,
        count(DISTINCT hp.game_id) AS games,
        count(*) AS hands,
        sum(coalesce(hp.delta, 0)) AS net_score,
        sum(hp.recorded_delta) AS recorded_net,
        count(*) FILTER (WHERE hp.winner) AS wins,
        count(*) FILTER (WHERE hp.self_drawn) AS self_draws,
        count(*) FILTER (WHERE hp.dealt_in) AS deal_ins,
        count(*) FILTER (WHERE hp.ready) AS ready_at_end,
        count(*) FILTER (WHERE hp.declared_ready) AS declared_ready,
        avg(hp.win_value) AS avg_win_value,
        max(hp.win_value) AS best_win_value,
        sum(hp.exposed_kongs) AS exposed_kongs,
        sum(hp.added_kongs) AS added_kongs,
        sum(hp.concealed_kongs) AS concealed_kongs,
        sum(hp.chickens_standing) AS chickens_standing,
        sum(hp.chickens_flipped) AS chickens_flipped,
        sum(hp.chickens_gold) AS chickens_gold,
        sum(hp.chickens_charging) AS chickens_charging,
        sum(hp.chickens_responsibility) AS chickens_responsibility
    FROM hand_players AS hp
    JOIN games AS g USING (game_id)
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
    e.family,
    row_number() OVER (
        PARTITION BY e.family
        ORDER BY coalesce(s.net_score, 0) DESC, e.player_id
    ) AS rank,
    e.player_id,
    n.name,
    coalesce(s.games, 0) AS games,
    coalesce(s.hands, 0) AS hands,
    coalesce(s.net_score, 0) AS net_score,
    s.recorded_net,
    s.wins,
    s.self_draws,
    s.deal_ins,
    s.ready_at_end,
    s.declared_ready,
    s.wins / nullif(s.hands, 0) AS win_rate,
    s.self_draws / nullif(s.hands, 0) AS self_draw_rate,
    s.deal_ins / nullif(s.hands, 0) AS deal_in_rate,
    s.ready_at_end / nullif(s.hands, 0) AS ready_rate,
    s.avg_win_value,
    s.best_win_value,
    s.exposed_kongs,
    s.added_kongs,
    s.concealed_kongs,
    (s.exposed_kongs + s.added_kongs + s.concealed_kongs) / nullif(s.hands, 0) AS kongs_per_hand,
    s.chickens_standing,
    s.chickens_flipped,
    s.chickens_gold,
    s.chickens_charging,
    s.chickens_responsibility,
    (s.chickens_standing + s.chickens_flipped + s.chickens_gold + s.chickens_charging
        + s.chickens_responsibility) / nullif(s.hands, 0) AS chickens_per_hand,
    coalesce(f.illegal_moves, 0) AS illegal_moves,
    coalesce(d.disputed_hands, 0) AS disputed_hands,
    sp.first_played,
    sp.last_played
FROM everyone AS e
LEFT JOIN seats AS s ON s.family IS NOT DISTINCT FROM e.family AND s.player_id = e.player_id
LEFT JOIN names AS n ON n.player_id = e.player_id
LEFT JOIN span AS sp ON sp.family IS NOT DISTINCT FROM e.family AND sp.player_id = e.player_id
LEFT JOIN findings AS f ON f.family IS NOT DISTINCT FROM e.family AND f.player_id = e.player_id
LEFT JOIN disputes AS d ON d.family IS NOT DISTINCT FROM e.family AND d.player_id = e.player_id
ORDER BY e.family NULLS LAST, rank
