-- Hands whose recorded result differs from the recomputed one: both sets of deltas, both next dealers, the findings.
-- zh: 记录结果与重算结果不符的牌局：两组得分变化、两个下一任庄家、各条发现。
WITH seats AS (
    SELECT
        game_id,
        hand_no,
        list(recorded_delta ORDER BY seat) AS recorded_deltas,
        list(delta ORDER BY seat) AS recomputed_deltas
    FROM hand_players
    GROUP BY game_id, hand_no
),
findings AS (
    SELECT game_id, hand_no, list(code ORDER BY item_no) AS codes
    FROM violations
    WHERE settlement
    GROUP BY game_id, hand_no
)
SELECT
    h.game_id,                                    -- the game (games.game_id)
    h.hand_no,                                    -- the log's hand number within the game
    h.outcome,                                    -- how the replay ended: win, exhaustive_draw or incomplete
    s.recorded_deltas,                            -- the record's delta of each seat, seat 0 first (NULL where the log gives none)
    s.recomputed_deltas,                          -- the recomputed delta of each seat, seat 0 first (NULL when the hand was not settled)
    h.recorded_next_dealer,                       -- the record's next dealer (a seat), when it gives one
    h.next_dealer AS recomputed_next_dealer,      -- the next dealer by the rules (recomputed)
    f.codes                                       -- the hand's settlement findings' codes in the order found (score_mismatch, item_mismatch, item_sum_mismatch, dealer_mismatch, not_zero_sum), a list
FROM hands AS h
JOIN seats AS s USING (game_id, hand_no)
LEFT JOIN findings AS f USING (game_id, hand_no)
WHERE h.disputed
ORDER BY h.game_id, h.hand_no
