-- Dashboard: hands per day of play (UTC) with the disputed ones and those with illegal moves, the last $days days that have games.
WITH days AS (
    SELECT
        CAST(g.started_at AS DATE) AS day,
        count(*) AS hands,
        count(*) FILTER (WHERE h.disputed) AS disputed,
        count(*) FILTER (WHERE h.violations > 0) AS illegal
    FROM hands AS h
    JOIN games AS g USING (game_id)
    WHERE g.started_at IS NOT NULL
    GROUP BY day
)
SELECT day, hands, disputed, illegal
FROM (SELECT * FROM days ORDER BY day DESC LIMIT CAST($days AS INTEGER))
ORDER BY day
