-- Dashboard: each seat of the hands picked by $game_ids and $hand_nos: player, recomputed and recorded delta, how the hand ended for it, kongs, chickens, patterns.
WITH picked AS (
    SELECT
        unnest(CAST($game_ids AS VARCHAR[])) AS game_id,
        unnest(CAST($hand_nos AS INTEGER[])) AS hand_no
),
seat_wins AS (
    SELECT
        game_id,
        hand_no,
        seat,
        bool_or(source = 'self_draw') AS self_drawn,
        CAST(sum(value) AS INTEGER) AS win_value,
        flatten(list(patterns ORDER BY win_no)) AS patterns,
        flatten(list(scored_patterns ORDER BY win_no)) AS scored_patterns
    FROM wins
    SEMI JOIN picked USING (game_id, hand_no)
    GROUP BY game_id, hand_no, seat
),
deal_ins AS (
    SELECT DISTINCT game_id, hand_no, discarder AS seat
    FROM wins
    SEMI JOIN picked USING (game_id, hand_no)
    WHERE discarder IS NOT NULL
)
SELECT
    hp.game_id,
    hp.hand_no,
    hp.seat,
    hp.player_id,
    p.name,
    hp.delta,
    hp.recorded_delta,
    sw.seat IS NOT NULL AS winner,
    coalesce(sw.self_drawn, false) AS self_drawn,
    di.seat IS NOT NULL AS dealt_in,
    hp.ready,
    hp.declared_ready,
    hp.exposed_kongs,
    hp.added_kongs,
    hp.concealed_kongs,
    hp.chickens_standing,
    hp.chickens_flipped,
    hp.chickens_gold,
    hp.chickens_charging,
    hp.chickens_responsibility,
    sw.win_value,
    coalesce(sw.patterns, []) AS patterns,
    coalesce(sw.scored_patterns, []) AS scored_patterns
FROM picked
JOIN hand_players AS hp USING (game_id, hand_no)
LEFT JOIN seat_wins AS sw ON sw.game_id = hp.game_id AND sw.hand_no = hp.hand_no AND sw.seat = hp.seat
LEFT JOIN deal_ins AS di ON di.game_id = hp.game_id AND di.hand_no = hp.hand_no AND di.seat = hp.seat
LEFT JOIN players AS p ON p.game_id = hp.game_id AND p.seat = hp.seat
ORDER BY hp.game_id, hp.hand_no, hp.seat
