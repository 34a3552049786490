-- Players ranked by net score (recomputed): hands, win, self-draw and deal-in rates, average win value, kongs and chickens per hand.
SELECT
    player_id,
    count(*) AS hands,
    sum(coalesce(delta, 0)) AS net_score,
    avg(winner::INTEGER) AS win_rate,
    avg(self_drawn::INTEGER) AS self_draw_rate,
    avg(dealt_in::INTEGER) AS deal_in_rate,
    avg(win_value) AS avg_win_value,
    avg(exposed_kongs + added_kongs + concealed_kongs) AS kongs_per_hand,
    avg(chickens_standing + chickens_flipped + chickens_gold + chickens_charging + chickens_responsibility) AS chickens_per_hand
FROM hand_players
GROUP BY player_id
ORDER BY net_score DESC, player_id
