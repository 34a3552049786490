-- Settlement findings per code (the record against the recomputation): how many, in how many hands, that share of the hands with a recorded result.
-- zh: 按代码统计的结算发现（记录对照重算）：多少条、涉及多少手、占有记录结果的牌局的比例。
SELECT
    v.code,                                            -- the settlement check (score_mismatch, item_mismatch, item_sum_mismatch, dealer_mismatch, not_zero_sum)
    count(*) AS findings,                              -- findings of this code
    count(DISTINCT (v.game_id, v.hand_no)) AS hands,   -- disputed hands holding it
    round(
        count(DISTINCT (v.game_id, v.hand_no))
        / nullif((SELECT count(*) FROM hands WHERE recorded), 0),
        4
    ) AS share_of_recorded                             -- those hands' share of the hands whose log records a result (0 to 1, 4 decimals)
FROM violations AS v
WHERE v.settlement
GROUP BY v.code
ORDER BY hands DESC, v.code
