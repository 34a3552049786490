-- NULL chicken columns for the hands of the games whose family is not recorded yet and scores no
-- chickens (the rulesets resolved, registered as filled_families: ruleset, rule_overrides, family, chickens).
UPDATE hand_players
SET
    chickens_standing = NULL,
    chickens_flipped = NULL,
    chickens_gold = NULL,
    chickens_charging = NULL,
    chickens_responsibility = NULL
WHERE game_id IN (
    SELECT g.game_id
    FROM games AS g
    JOIN filled_families AS f
        ON f.ruleset = g.ruleset
        AND f.rule_overrides IS NOT DISTINCT FROM g.rule_overrides
    WHERE g.family IS NULL AND NOT f.chickens
)
