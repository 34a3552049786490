"""Ready (叫牌) at a Changsha table is ready to *win*: a wait counts only when the hand it
completes is a Changsha win, a 小胡 with a pair of 2, 5 or 8 or a big shape taking any pair
(seed 003: 「二五八做将」, 「碰碰胡…乱将」, 「清一色…乱将」), through the core's
``win_filter`` hook. It decides the dice after a kong (「听牌后才能开杠」) and the waits the
audit shows; a win on a hand it refuses is still named ``no_258_pair``."""

from __future__ import annotations

from tests.rules.test_wall_events import hand, play, replay, stop, wall_event
from zhuoji.rules.presets import resolve_ruleset
from zhuoji.rules.table import Table
from zhuoji.rules.violations import ViolationCode

C = ViolationCode
RULES = resolve_ruleset("changsha", {"birds": 0})
LOOSE_PAIR = resolve_ruleset("changsha", {"birds": 0, "pair_258": False})


def waits_after(deal: str, events: str, rules: object = RULES) -> tuple[bool, str]:
    rec = hand({0: deal}, place={-13: "9m"})
    table = Table.from_record(rec, rules)  # type: ignore[arg-type]
    assert table.run([wall_event(t) for t in events.split()]) is None
    return table.is_ready(0), "".join(str(t) for t in table.waits(0))


def test_a_single_wait_on_a_tile_that_is_no_2_5_8_pair_is_not_ready() -> None:
    # after the kong of 5m: 234p 567p 234s and a lone 1s: the 1s pair would be no 将
    assert waits_after("5555m 234p 567p 234s 1s", "0C5m") == (False, "")
    # 1234s: 1s (11s 234s) or 4s (123s 44s), neither pair a 将
    assert waits_after("5555m 234p 567p 234s 1s", "0C5m", LOOSE_PAIR) == (True, "1s4s")
    # 2234s: 2s (22s 234s) or 5s (22s 345s), the 2s pair a 将 either way
    assert waits_after("5555m 234p 567p 234s 2s", "0C5m") == (True, "2s5s")


def test_only_the_waits_that_win_are_kept() -> None:
    # 11s 33s and sets: the shanpon waits 1s and 3s each leave the other pair (no 将);
    # 55s 33s: 5s leaves the 3s pair (no), 3s leaves the 5s pair (yes)
    assert waits_after("5555m 234p 567p 11s 33s", "0C5m")[0] is False
    assert waits_after("5555m 234p 567p 55s 33s", "0C5m") == (True, "3s")
    assert waits_after("5555m 234p 567p 55s 33s", "0C5m", LOOSE_PAIR) == (True, "3s5s")


def test_a_big_shape_takes_any_pair() -> None:
    # 清一色: every tile a 筒 (乱将): 234p 567p 789p 9p waits on 6p (567p 678p 99p) and
    # 9p (567p 789p 99p), neither with a 2-5-8 pair, both a win
    assert waits_after("1111p 234p 567p 789p 9p", "0C1p") == (True, "6p9p")
    # the same shape with a 万 set is no 清一色: not ready
    assert waits_after("1111m 234p 567p 789p 9p", "0C1m") == (False, "")


def test_the_dice_after_a_kong_need_a_hand_ready_to_win() -> None:
    rec = hand({0: "5555m 234p 567p 234s 1s"}, place={-13: "9m"})
    code, message = stop(rec, "0C5m 0@3,4", RULES)
    assert code is C.BAD_ROLL and "only a ready hand" in message
    ready = hand({0: "5555m 234p 567p 234s 2s"}, place={-13: "9m"})
    play(ready, "0C5m 0@3,4 0+9m 0-9m", RULES)  # type: ignore[arg-type]
    play(rec, "0C5m 0@3,4 0+9m 0-9m", LOOSE_PAIR)  # type: ignore[arg-type]


def test_a_win_the_filter_refuses_is_still_named_no_258_pair() -> None:
    rec = hand({0: "123m 234p 567p 234s 1s 9m"}, place={0: "1s"})
    table = Table.from_record(rec, RULES)
    assert table.run([wall_event("0-9m")]) is None
    assert not table.is_ready(0) and table.waits(0) == ()
    r = replay(rec, "0-9m 1+1s 1-1s 0H1s<1", RULES)  # type: ignore[arg-type]
    (v,) = r.violations  # type: ignore[attr-defined]
    assert v.code is C.NO_258_PAIR and "1s" in v.message, v


def test_legal_actions_offer_only_the_wins_the_family_allows() -> None:
    def wins(deal: str, rules: object = RULES) -> int:
        table = Table.from_record(hand({0: deal}), rules)  # type: ignore[arg-type]
        return sum(1 for a in table.legal_actions() if type(a).__name__ == "Win")

    # the dealer's dealt 14 are complete with a 1s pair: no 天胡 offered, unless 乱将
    assert wins("123m 234p 567p 234s 11s") == 0
    assert wins("123m 234p 567p 234s 11s", LOOSE_PAIR) > 0
    assert wins("123m 234p 567p 234s 22s") > 0
