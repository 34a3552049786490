-- Patterns among winning hands, per rule family (each family scores its own patterns, some of the same name): wins that qualify for each (a self-drawn win qualifies for self_draw, in a family whose settlement scores self_draw as a pattern: a family that pays a self-draw by its own rule and lists no such pattern has no self_draw row), wins in which the settlement scored it, of those the wins valued so by a rule without qualifying (a robbed kong or a hot discard valued as another pattern, a robbed kong counted as a self-draw), and the scored share of the family's wins.
-- zh: 各玩法胡牌中的番型（各玩法计自己的番型，有的同名）：符合各番型的胡牌数（自摸的胡牌符合 self_draw，仅限结算把 self_draw 作为番型计分的玩法：按自己的规则付自摸、不列此番型的玩法没有 self_draw 一行），结算计了该番型的胡牌数，其中按规则如此计值而并不符合的胡牌数（抢杠或热炮按另一番型计值，抢杠算作自摸），以及计分占该玩法胡牌的比例。
WITH won AS (
    SELECT
        row_number() OVER () AS win,
        g.family,
        CASE WHEN w.source = 'self_draw' THEN list_append(w.patterns, 'self_draw') ELSE w.patterns END AS patterns,
        w.scored_patterns
    FROM wins AS w
    JOIN games AS g USING (game_id)
),
totals AS (
    SELECT family, count(*) AS wins
    FROM won
    GROUP BY family
),
qualifying AS (
    SELECT family, pattern, count(DISTINCT win) AS wins
    FROM (SELECT win, family, unnest(patterns) AS pattern FROM won)
    GROUP BY family, pattern
),
scored AS (
    SELECT
        family,
        pattern,
        count(*) AS wins,
        count(*) FILTER (WHERE NOT list_contains(patterns, pattern)) AS valued
    FROM (SELECT family, patterns, unnest(scored_patterns) AS pattern FROM won)
    GROUP BY family, pattern
)
SELECT
    coalesce(q.family, s.family) AS family,       -- the rule family (games.family): each scores its own patterns
    coalesce(q.pattern, s.pattern) AS pattern,    -- the pattern's name in the family (docs/rules)
    coalesce(q.wins, 0) AS qualifying_wins,       -- wins whose hand qualifies for it (wins.patterns; a self-drawn win for self_draw)
    coalesce(s.wins, 0) AS scored_wins,           -- wins in which the settlement scored it (wins.scored_patterns)
    coalesce(s.valued, 0) AS valued_wins,         -- of those, wins scored so by a rule without qualifying (a robbed kong or a hot discard valued as another pattern, a robbed kong counted as a self-draw)
    coalesce(s.wins, 0) / t.wins AS scored_share  -- scored wins' share of the family's wins (0 to 1)
FROM qualifying AS q
FULL OUTER JOIN scored AS s ON s.family IS NOT DISTINCT FROM q.family AND s.pattern = q.pattern
JOIN totals AS t ON t.family IS NOT DISTINCT FROM coalesce(q.family, s.family)
WHERE coalesce(q.pattern, s.pattern) <> 'self_draw'
    OR coalesce(q.family, s.family) IN (SELECT family FROM scored WHERE pattern = 'self_draw')
ORDER BY family NULLS LAST, scored_wins DESC, qualifying_wins DESC, pattern
