-- One player's hands in play order with the game's rule family, the recomputed and recorded result, a running score within the family (families' points are on different scales) and the player's own findings.
-- zh: 一位玩家按对局顺序的各手：牌局的玩法、重算与记录的结果、玩法内的累计得分（各玩法分值尺度不同）以及该玩家自己的发现。
WITH seat_wins AS (
    SELECT
        game_id,
        hand_no,
        seat,
        bool_or(source = 'self_draw') AS self_drawn,
        CAST(sum(value) AS INTEGER) AS win_value,
        flatten(list(patterns ORDER BY win_no)) AS patterns,
        flatten(list(scored_patterns ORDER BY win_no)) AS scored_patterns
    FROM wins
    GROUP BY game_id, hand_no, seat
),
deal_ins AS (
    SELECT DISTINCT game_id, hand_no, discarder AS seat
    FROM wins
    WHERE discarder IS NOT NULL
)
SELECT
    hp.game_id,        -- the game (games.game_id)
    g.started_at,      -- when the game started (UTC), when the log says
    g.family,          -- the game's rule family (games.family)
    hp.hand_no,        -- the log's hand number within the game
    hp.seat,           -- the player's seat in the game (0-based)
    h.outcome,         -- how the replay ended: win, exhaustive_draw or incomplete
    sw.seat IS NOT NULL AS winner,  -- the player won the hand (wins)
    coalesce(sw.self_drawn, false) AS self_drawn,  -- won by self-draw (自摸)
    di.seat IS NOT NULL AS dealt_in,  -- a winner won on the player's discard or kong (点炮)
    sw.win_value,      -- a settled win's value per payer (wins.value; summed over the player's wins of the hand when it won more than once); NULL otherwise
    coalesce(sw.patterns, []) AS patterns,  -- every pattern the player's win qualifies for, a list (empty without a win; a player who won more than once: each win's in turn)
    hp.delta,          -- the player's recomputed delta; NULL when the hand was not settled
    hp.recorded_delta, -- the record's delta; NULL when the log has no result
    CAST(sum(coalesce(hp.delta, 0)) OVER (
        PARTITION BY g.family
        ORDER BY g.started_at NULLS LAST, hp.game_id, hp.hand_no
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) AS BIGINT) AS running_score,  -- the player's net score in the family up to and with this hand (recomputed)
    h.disputed,        -- the hand's record differs from the recomputation
    coalesce(v.findings, 0) AS own_findings  -- illegal-move findings against the player in the hand
FROM hand_players AS hp
JOIN hands AS h USING (game_id, hand_no)
JOIN games AS g USING (game_id)
LEFT JOIN seat_wins AS sw ON sw.game_id = hp.game_id AND sw.hand_no = hp.hand_no AND sw.seat = hp.seat
LEFT JOIN deal_ins AS di ON di.game_id = hp.game_id AND di.hand_no = hp.hand_no AND di.seat = hp.seat
LEFT JOIN (
    SELECT game_id, hand_no, seat, count(*) AS findings
    FROM violations
    WHERE NOT settlement AND seat IS NOT NULL
    GROUP BY game_id, hand_no, seat
) AS v ON v.game_id = hp.game_id AND v.hand_no = hp.hand_no AND v.seat = hp.seat
WHERE hp.player_id = $player
ORDER BY g.started_at NULLS LAST, hp.game_id, hp.hand_no
