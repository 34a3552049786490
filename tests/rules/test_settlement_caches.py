"""What the settler keeps between hands (each ruleset's plan, the values of recurring wins
and chicken groups, shared chicken counts and win values) never changes a result: every
hand settles the same after many others as it does from nothing."""

from __future__ import annotations

import dataclasses

import pytest

from tests.support.builders import Players, random_hands
from zhuoji.rules.facts import Outcome
from zhuoji.rules.families.guizhou.settings import Ruleset
from zhuoji.rules.families.guizhou.settlement import Settlement, settle
from zhuoji.rules.families.guizhou.simulate import simulate_game
from zhuoji.rules.memo import clear_all
from zhuoji.rules.presets import load_preset, preset_names
from zhuoji.rules.replay import HandReplay, replay_hand
from zhuoji.rules.settings import apply_overrides


def _from_nothing(replay: HandReplay, rs: Ruleset, stake: int, streak: int) -> Settlement | None:
    """The settlement with every memo table empty and a copy of the ruleset (a copy has
    none of the values computed from the original: its plan is made again)."""
    clear_all()
    fresh = rs.model_copy()
    assert fresh == rs
    return settle(replay, fresh, stake, dealer_streak=streak)


def _variant(rs: Ruleset) -> Ruleset:
    """``rs`` with other values wherever the kept values could be confused."""
    return apply_overrides(rs, {
        "dealer.bonus": rs.dealer.bonus + 1,
        "dealer.streak_bonus": rs.dealer.streak_bonus + 2,
        "bonuses.self_draw": rs.bonuses.self_draw + 1,
        "chickens.flip_value": rs.chickens.flip_value + 2,
        "chickens.gold_multiplier": rs.chickens.gold_multiplier + 1,
        "patterns.plain": rs.patterns.plain + 1,
    })


def _replays(rs: Ruleset, seed: int) -> list[HandReplay]:
    replays = [h.replay for g in range(3) for h in simulate_game(
        rs, seed=seed, game_no=g, hands=4).hands]
    players = Players(win=0.8, kong=0.9, pong=0.6, ready=0.8)
    replays += [replay_hand(record, rs) for record in random_hands(seed, 6, rs, players)]
    return [r for r in replays if r.outcome is not Outcome.INCOMPLETE]


@pytest.mark.parametrize("name", preset_names("guizhou"))
def test_a_hand_settles_the_same_after_others_as_from_nothing(name: str) -> None:
    rs = load_preset(name)
    other = _variant(rs)
    replays = _replays(rs, seed=11)
    cases = [(r, ruleset, stake, streak)
             for r in replays
             for ruleset in (rs, other)
             for stake, streak in ((1, 0), (2, 0), (1, 1), (3, 3))]
    clear_all()
    warm = [settle(r, ruleset, stake, dealer_streak=streak)
            for r, ruleset, stake, streak in cases]
    for (r, ruleset, stake, streak), settled in zip(cases, warm, strict=True):
        assert settled == _from_nothing(r, ruleset, stake, streak)
    # The variant really pays differently: the two rulesets' plans are not one.
    differ = [w != v for w, v in zip(warm[0::8], warm[4::8], strict=True)]
    assert any(differ)


@pytest.mark.parametrize("name", preset_names("guizhou"))
def test_without_its_explanation_a_settlement_is_the_same(name: str) -> None:
    rs = load_preset(name)
    replays = _replays(rs, seed=23)
    assert any(r.outcome is Outcome.WIN for r in replays)
    for r in replays:
        for stake, streak in ((1, 0), (2, 1)):
            full = settle(r, rs, stake, dealer_streak=streak)
            quiet = settle(r, rs, stake, dealer_streak=streak, explain=False)
            assert full is not None and quiet is not None
            assert full.explanation and quiet.explanation == ()
            assert quiet == dataclasses.replace(full, explanation=())
