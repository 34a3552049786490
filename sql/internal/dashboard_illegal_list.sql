-- Dashboard: the most recent $limit hands with illegal moves: their codes, the players at fault, whether the replay stopped, and the total count.
WITH findings AS (
    SELECT
        game_id,
        hand_no,
        string_agg(DISTINCT code, ', ' ORDER BY code) AS codes,
        string_agg(DISTINCT player_id, ', ' ORDER BY player_id) AS players
    FROM violations
    WHERE NOT settlement
    GROUP BY game_id, hand_no
)
SELECT
    h.game_id,
    h.hand_no,
    g.started_at,
    g.ruleset,
    g.family,
    h.outcome,
    h.violations AS illegal_moves,
    h.fatal_code,
    f.codes,
    f.players,
    h.disputed,
    count(*) OVER () AS total
FROM hands AS h
JOIN games AS g USING (game_id)
JOIN findings AS f USING (game_id, hand_no)
WHERE h.violations > 0
ORDER BY g.started_at DESC NULLS LAST, h.game_id, h.hand_no
LIMIT CAST($limit AS INTEGER)
