-- Patterns among winning hands: wins that qualify for each (a self-drawn win qualifies for self_draw), wins in which the settlement scored it, of those the wins valued so by a rule without qualifying (a robbed kong or a hot discard valued as another pattern, a robbed kong counted as a self-draw), and the scored share of all wins.
WITH wins AS (
    SELECT
        row_number() OVER () AS win,
        CASE WHEN self_drawn THEN list_append(patterns, 'self_draw') ELSE patterns END AS patterns,
        scored_patterns
    FROM hand_players
    WHERE winner
),
qualifying AS (
    SELECT pattern, count(DISTINCT win) AS wins
    FROM (SELECT win, unnest(patterns) AS pattern FROM wins)
    GROUP BY pattern
),
scored AS (
    SELECT
        pattern,
        count(*) AS wins,
        count(*) FILTER (WHERE NOT list_contains(patterns, pattern)) AS valued
    FROM (SELECT patterns, unnest(scored_patterns) AS pattern FROM wins)
    GROUP BY pattern
)
SELECT
    pattern,
    coalesce(q.wins, 0) AS qualifying_wins,
    coalesce(s.wins, 0) AS scored_wins,
    coalesce(s.valued, 0) AS valued_wins,
    coalesce(s.wins, 0) / (SELECT count(*) FROM wins) AS scored_share
FROM qualifying AS q
FULL OUTER JOIN scored AS s USING (pattern)
ORDER BY scored_wins DESC, qualifying_wins DESC, pattern
