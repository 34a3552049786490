-- Dashboard: every player's running score (recomputed) in each rule family the player played, in play order, cut into at most $points stretches of the family's hands: the score after each stretch, its low and its high.
WITH ordered AS (
    SELECT
        hp.player_id,
        g.family,
        row_number() OVER (
            PARTITION BY hp.player_id, g.family
            ORDER BY g.started_at NULLS LAST, hp.game_id, hp.hand_no, hp.seat
        ) AS n,
        CAST(sum(coalesce(hp.delta, 0)) OVER (
            PARTITION BY hp.player_id, g.family
            ORDER BY g.started_at NULLS LAST, hp.game_id, hp.hand_no, hp.seat
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS BIGINT) AS running,
        count(*) OVER (PARTITION BY hp.player_id, g.family) AS total
    FROM hand_players AS hp
    JOIN games AS g USING (game_id)
)
SELECT
    player_id,
    family,
    max(n) AS hand_index,
    arg_max(running, n) AS score,
    min(running) AS low,
    max(running) AS high
FROM ordered
GROUP BY player_id, family, (n - 1) * CAST($points AS BIGINT) // total
ORDER BY player_id, family NULLS LAST, hand_index
