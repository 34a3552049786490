-- Dashboard: the hands picked by the lists $game_ids and $hand_nos (paired by position): how each ended, recomputed and recorded next dealer, its game (its family among it).
WITH picked AS (
    SELECT
        unnest(CAST($game_ids AS VARCHAR[])) AS game_id,
        unnest(CAST($hand_nos AS INTEGER[])) AS hand_no
),
won AS (
    SELECT
        game_id,
        hand_no,
        count(*) AS winners,
        bool_or(source = 'self_draw') AS self_drawn,
        min(discarder) AS discarder
    FROM wins
    SEMI JOIN picked USING (game_id, hand_no)
    GROUP BY game_id, hand_no
)
SELECT
    h.game_id,
    h.hand_no,
    g.path,
    f.sha256 AS file_sha256,
    g.ruleset,
    g.family,
    g.rule_overrides,
    g.base_stake,
    g.started_at,
    g.n_players,
    h.dealer,
    h.dealer_streak,
    h.n_events,
    h.events_applied,
    h.has_wall,
    h.wall_left,
    h.outcome,
    CAST(coalesce(w.winners, 0) AS SMALLINT) AS winners,
    coalesce(w.self_drawn, false) AS self_drawn,
    w.discarder,
    h.flip_tile,
    h.settled,
    h.next_dealer,
    h.recorded,
    h.recorded_next_dealer,
    h.violations,
    h.fatal,
    h.fatal_code,
    h.mismatches,
    h.disputed
FROM picked
JOIN hands AS h USING (game_id, hand_no)
JOIN games AS g USING (game_id)
LEFT JOIN won AS w ON w.game_id = h.game_id AND w.hand_no = h.hand_no
LEFT JOIN files AS f ON f.path = g.path
ORDER BY h.game_id, h.hand_no
