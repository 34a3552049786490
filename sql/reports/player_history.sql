-- One player's hands in play order with the game's rule family, the recomputed and recorded result, a running score within the family (families' points are on different scales) and the player's own findings.
SELECT
    hp.game_id,
    g.started_at,
    g.family,
    hp.hand_no,
    hp.seat,
    h.outcome,
    hp.winner,
    hp.self_drawn,
    hp.dealt_in,
    hp.win_value,
    hp.patterns,
    hp.delta,
    hp.recorded_delta,
    sum(coalesce(hp.delta, 0)) OVER (
        PARTITION BY g.family
        ORDER BY g.started_at NULLS LAST, hp.game_id, hp.hand_no
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) AS running_score,
    h.disputed,
    coalesce(v.findings, 0) AS own_findings
FROM hand_players AS hp
JOIN hands AS h USING (game_id, hand_no)
JOIN games AS g USING (game_id)
LEFT JOIN (
    SELECT game_id, hand_no, seat, count(*) AS findings
    FROM violations
    WHERE NOT settlement AND seat IS NOT NULL
    GROUP BY game_id, hand_no, seat
) AS v ON v.game_id = hp.game_id AND v.hand_no = hp.hand_no AND v.seat = hp.seat
WHERE hp.player_id = $player
ORDER BY g.started_at NULLS LAST, hp.game_id, hp.hand_no
