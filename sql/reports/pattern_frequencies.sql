-- Patterns among winning hands: wins that qualify for each, wins in which the settlement scored it, and that share of all wins.
WITH wins AS (
    SELECT patterns, scored_patterns FROM hand_players WHERE winner
),
qualifying AS (
    SELECT pattern, count(*) AS wins
    FROM (SELECT unnest(patterns) AS pattern FROM wins)
    GROUP BY pattern
),
scored AS (
    SELECT pattern, count(*) AS wins
    FROM (SELECT unnest(scored_patterns) AS pattern FROM wins)
    GROUP BY pattern
)
SELECT
    pattern,
    coalesce(q.wins, 0) AS qualifying_wins,
    coalesce(s.wins, 0) AS scored_wins,
    coalesce(s.wins, 0) / (SELECT count(*) FROM wins) AS scored_share
FROM qualifying AS q
FULL OUTER JOIN scored AS s USING (pattern)
ORDER BY scored_wins DESC, qualifying_wins DESC, pattern
