"""After the dice of a kong the thrower's hand is locked (seed 003: 「一旦掷骰子后摸进任何牌
掷骰子者如果不能胡则必须打出，直到胡牌或放炮为止」): under ``kong_dice_locks_claims`` (the
Changsha presets: not in the seed text, the common published form) it claims no discard
either, a pong, a chow or an exposed kong being ``locked_hand``; a table that turns the
setting off lets it claim. The win on a discard stays open to it."""

from __future__ import annotations

from tests.rules.test_wall_events import burn, hand, play, replay, stop
from zhuoji.rules.presets import resolve_ruleset
from zhuoji.rules.violations import ViolationCode

C = ViolationCode
RULES = resolve_ruleset("changsha", {"birds": 0})
CLAIMS_OPEN = resolve_ruleset("changsha", {"birds": 0,
                                           "mechanics.kong_dice_locks_claims": False})
# the dealer: after the kong of 5m, 234p 567p 22s 33s waits on 3s (333s and the 2s pair);
# the replacement (dice 3 + 4) is 9m, discarded
DEALER = {0: "5555m 234p 567p 22s 33s"}
THROWN = "0C5m 0@3,4 0+9m 0-9m"


def _after_throw(front: dict[int, str]) -> tuple[object, str]:
    rec = hand(DEALER, place={-13: "9m", **front})
    return rec, f"{THROWN} {burn(rec, 1, 2)}"


def test_a_pong_after_the_dice_is_a_locked_hand() -> None:
    rec, head = _after_throw({2: "2s"})
    code, message = stop(rec, f"{head} 3+2s 3-2s 0P2s<3", RULES)  # type: ignore[arg-type]
    assert code is C.LOCKED_HAND and "kong_dice_locks_claims" in message
    play(rec, f"{head} 3+2s 3-2s 0P2s<3 0-2p", CLAIMS_OPEN)  # type: ignore[arg-type]


def test_a_chow_after_the_dice_is_a_locked_hand() -> None:
    rec, head = _after_throw({2: "1p"})
    code, message = stop(rec, f"{head} 3+1p 3-1p 0Y123p<3", RULES)  # type: ignore[arg-type]
    assert code is C.LOCKED_HAND and "claims no discard" in message
    play(rec, f"{head} 3+1p 3-1p 0Y123p<3 0-4p", CLAIMS_OPEN)  # type: ignore[arg-type]


def test_an_exposed_kong_after_the_dice_is_a_locked_hand() -> None:
    rec = hand({0: "5555m 234p 567p 222s 3s"}, place={-13: "9m", 2: "2s"})
    head = f"{THROWN} {burn(rec, 1, 2)} 3+2s 3-2s"
    code, _ = stop(rec, f"{head} 0E2s<3", RULES)  # type: ignore[arg-type]
    assert code is C.LOCKED_HAND


def test_the_locked_player_still_wins_on_a_discard() -> None:
    rec, head = _after_throw({2: "3s"})
    result = replay(rec, f"{head} 3+3s 3-3s 0H3s<3", RULES)  # type: ignore[arg-type]
    assert result.is_clean, result.violations  # type: ignore[attr-defined]


def test_a_later_kong_replaced_without_the_dice_is_no_kong_bloom() -> None:
    """杠上开花 is a win on the replacement the dice counted (「没掷骰子补可胡牌，算作自摸」):
    with the locks off, the dealer throws for its kong of 5m (replacement 2m, passed up and
    discarded), later konges a discarded 7p without the dice and self-draws 2m from the
    back: a plain self-draw, though the tile is the one the earlier dice counted."""
    unlocked = resolve_ruleset("changsha", {
        "birds": 0, "mechanics.kong_dice_locks_hand": False,
        "mechanics.kong_dice_locks_claims": False})
    rec = hand({0: "5555m 777p 123s 456s 2m"}, place={-13: "2m", -1: "2m", 2: "7p"})
    events = f"0C5m 0@3,4 0+2m 0-2m {burn(rec, 1, 2)} 3+7p 3-7p 0E7p<3 0+2m 0H2m"
    result = replay(rec, events, unlocked)  # type: ignore[arg-type]
    assert result.is_clean, result.violations  # type: ignore[attr-defined]
    (win,) = result.winners  # type: ignore[attr-defined]
    assert "kong_bloom" not in win.patterns and win.self_drawn, win.patterns
