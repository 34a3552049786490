-- Dashboard: every player's totals and rates, ranked by net score (recomputed): games, hands, wins, deal-ins, kongs and chickens by kind, findings.
WITH everyone AS (
    SELECT DISTINCT player_id FROM players
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
    SELECT p.player_id, min(g.started_at) AS first_played, max(g.started_at) AS last_played
    FROM players AS p
    JOIN games AS g USING (game_id)
    GROUP BY p.player_id
),
seats AS (
    SELECT
        player_id,
        count(DISTINCT game_id) AS games,
        count(*) AS hands,
        sum(coalesce(delta, 0)) AS net_score,
        sum(recorded_delta) AS recorded_net,
        count(*) FILTER (WHERE winner) AS wins,
        count(*) FILTER (WHERE self_drawn) AS self_draws,
        count(*) FILTER (WHERE dealt_in) AS deal_ins,
        count(*) FILTER (WHERE ready) AS ready_at_end,
        count(*) FILTER (WHERE declared_ready) AS declared_ready,
        avg(win_value) AS avg_win_value,
        max(win_value) AS best_win_value,
        sum(exposed_kongs) AS exposed_kongs,
        sum(added_kongs) AS added_kongs,
        sum(concealed_kongs) AS concealed_kongs,
        sum(chickens_standing) AS chickens_standing,
        sum(chickens_flipped) AS chickens_flipped,
        sum(chickens_gold) AS chickens_gold,
        sum(chickens_charging) AS chickens_charging,
        sum(chickens_responsibility) AS chickens_responsibility
    FROM hand_players
    GROUP BY player_id
),
findings AS (
    SELECT player_id, count(*) AS illegal_moves
    FROM violations
    WHERE NOT settlement AND player_id IS NOT NULL
    GROUP BY player_id
),
disputes AS (
    SELECT hp.player_id, count(*) AS disputed_hands
    FROM hand_players AS hp
    JOIN hands AS h USING (game_id, hand_no)
    WHERE h.disputed
    GROUP BY hp.player_id
)
SELECT
    row_number() OVER (ORDER BY coalesce(s.net_score, 0) DESC, e.player_id) AS rank,
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
LEFT JOIN seats AS s USING (player_id)
LEFT JOIN names AS n USING (player_id)
LEFT JOIN span AS sp USING (player_id)
LEFT JOIN findings AS f USING (player_id)
LEFT JOIN disputes AS d USING (player_id)
ORDER BY rank
