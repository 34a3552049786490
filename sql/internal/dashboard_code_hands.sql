-- Dashboard: per illegal-move code, the most recent hands holding it (at most $limit each): findings, players at fault, the first message, the code's total hands.
WITH per_hand AS (
    SELECT
        code,
        game_id,
        hand_no,
        count(*) AS findings,
        bool_or(fatal) AS fatal,
        string_agg(DISTINCT player_id, ', ' ORDER BY player_id) AS players,
        arg_min(message, item_no) AS message
    FROM violations
    WHERE NOT settlement
    GROUP BY code, game_id, hand_no
),
ranked AS (
    SELECT
        p.*,
        g.started_at,
        row_number() OVER (
            PARTITION BY p.code
            ORDER BY g.started_at DESC NULLS LAST, p.game_id, p.hand_no
        ) AS pick,
        count(*) OVER (PARTITION BY p.code) AS total
    FROM per_hand AS p
    JOIN games AS g USING (game_id)
)
SELECT code, game_id, hand_no, started_at, findings, fatal, players, message, total
FROM ranked
WHERE pick <= CAST($limit AS INTEGER)
ORDER BY code, pick
