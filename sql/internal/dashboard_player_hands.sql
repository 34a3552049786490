-- Dashboard: per player, the most recent hands (at most $limit each) that are disputed or hold the player's own illegal moves.
WITH own AS (
    SELECT
        game_id,
        hand_no,
        seat,
        count(*) AS findings,
        string_agg(DISTINCT code, ', ' ORDER BY code) AS codes
    FROM violations
    WHERE NOT settlement AND seat IS NOT NULL
    GROUP BY game_id, hand_no, seat
),
flagged AS (
    SELECT
        hp.player_id,
        hp.game_id,
        hp.hand_no,
        g.started_at,
        h.outcome,
        h.disputed,
        coalesce(o.findings, 0) AS own_findings,
        o.codes,
        hp.delta,
        hp.recorded_delta,
        row_number() OVER (
            PARTITION BY hp.player_id
            ORDER BY g.started_at DESC NULLS LAST, hp.game_id DESC, hp.hand_no DESC
        ) AS pick,
        count(*) OVER (PARTITION BY hp.player_id) AS total
    FROM hand_players AS hp
    JOIN hands AS h USING (game_id, hand_no)
    JOIN games AS g USING (game_id)
    LEFT JOIN own AS o ON o.game_id = hp.game_id AND o.hand_no = hp.hand_no AND o.seat = hp.seat
    WHERE h.disputed OR o.findings IS NOT NULL
)
SELECT
    player_id,
    game_id,
    hand_no,
    started_at,
    outcome,
    disputed,
    own_findings,
    codes,
    delta,
    recorded_delta,
    total
FROM flagged
WHERE pick <= CAST($limit AS INTEGER)
ORDER BY player_id, pick
