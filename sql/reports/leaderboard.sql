-- Players ranked by net score (recomputed) within each rule family, one ranking per family (their points are on different scales): hands, win, self-draw and deal-in rates, average win value, kongs and chickens per hand (NULL for a family without chickens).
SELECT
    g.family,
    row_number() OVER (
        PARTITION BY g.family
        ORDER BY sum(coalesce(hp.delta, 0)) DESC, hp.player_id
    ) AS rank,
    hp.player_id,
    count(*) AS hands,
    sum(coalesce(hp.delta, 0)) AS net_score,
    avg(hp.winner::INTEGER) AS win_rate,
    avg(hp.self_drawn::INTEGER) AS self_draw_rate,
    avg(hp.dealt_in::INTEGER) AS deal_in_rate,
    avg(hp.win_value) AS avg_win_value,
    avg(hp.exposed_kongs + hp.added_kongs + hp.concealed_kongs) AS kongs_per_hand,
    avg(hp.chickens_standing + hp.chickens_flipped + hp.chickens_gold + hp.chickens_charging + hp.chickens_responsibility) AS chickens_per_hand
FROM hand_players AS hp
JOIN games AS g USING (game_id)
GROUP BY g.family, hp.player_id
ORDER BY g.family NULLS LAST, rank
