-- Dashboard: each seat of the hands picked by $game_ids and $hand_nos: player, recomputed and recorded delta, how the hand ended for it, kongs, chickens, patterns.
WITH picked AS (
    SELECT
        unnest(CAST($game_ids AS VARCHAR[])) AS game_id,
        unnest(CAST($hand_nos AS INTEGER[])) AS hand_no
)
SELECT
    hp.game_id,
    hp.hand_no,
    hp.seat,
    hp.player_id,
    p.name,
    hp.delta,
    hp.recorded_delta,
    hp.winner,
    hp.self_drawn,
    hp.dealt_in,
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
    hp.win_value,
    hp.patterns,
    hp.scored_patterns
FROM picked
JOIN hand_players AS hp USING (game_id, hand_no)
LEFT JOIN players AS p ON p.game_id = hp.game_id AND p.seat = hp.seat
ORDER BY hp.game_id, hp.hand_no, hp.seat
