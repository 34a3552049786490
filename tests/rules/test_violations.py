"""One test per illegal-move code, each on a minimal hand written in compact notation.

Every test checks the code, the hand number, the event index, the seat and that the
message shows the tiles involved; the clean counterpart (same deal, legal events) replays
without any violation, so each test fails if the detection is removed.

The deal used by most tests (dealer seat 0):

* seat 0: 258m125999p13467s (14 tiles, far from ready)
* seat 1: 111333555777m2p   (all pungs waiting on 2p: bigger than plain, a pass)
* seat 2: 234789m23p456s99s (plain, waiting on 1p and 4p: no pass)
* seat 3: 1669m2678p23588s  (not ready)
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from tests.rules.toy_family import ToyRuleset
from tests.support.builders import draw_and_discard, make_hand, test_ruleset
from zhuoji.rules.events import Discard, HandRecord, Ready
from zhuoji.rules.facts import Outcome
from zhuoji.rules.families.guizhou.settings import Ruleset
from zhuoji.rules.replay import HandReplay, replay_game, replay_hand
from zhuoji.rules.table import IllegalMoveError, Table
from zhuoji.rules.tiles import HONOUR_TILES, Tile, format_tiles, parse_tiles
from zhuoji.rules.violations import SETTLEMENT_CODES, Violation, ViolationCode

C = ViolationCode
HAND_NO = 7
DEAL = {
    0: "258m125999p13467s",
    1: "111333555777m2p",
    2: "234789m23p456s99s",
    3: "1669m2678p23588s",
}
FRONT = "4p6s7p3p5s"  # the next draws: 4p 6s 7p 3p 5s ...
CLEAN = "0-2p 1H2p<0 F4p"  # seat 1 wins on the dealer's 2p, the flip shows the front tile
FOUR_NINES = "258m1259999p1346s"  # a dealer holding 9999p


def record(events: str, deal: dict[int, str] | None = None, **kwargs: Any) -> HandRecord:
    return make_hand(deal or DEAL, events, front=FRONT, hand_no=HAND_NO, **kwargs)


def replay(events: str, rules: Ruleset | None = None, **kwargs: Any) -> HandReplay:
    return replay_hand(record(events, **kwargs), rules or test_ruleset())


def only(result: HandReplay) -> Violation:
    assert len(result.violations) == 1, result.violations
    return result.violations[0]


def assert_violation(
    result: HandReplay, code: ViolationCode, index: int | None, seat: int | None,
    *shown: str,
) -> Violation:
    v = only(result)
    assert (v.code, v.hand_no, v.event_index, v.seat) == (code, HAND_NO, index, seat), v
    for text in shown:
        assert text in v.message, (text, v.message)
    assert v.fatal
    assert result.outcome is Outcome.INCOMPLETE
    return v


def assert_clean(result: HandReplay) -> None:
    assert result.violations == (), result.violations
    assert result.outcome in (Outcome.WIN, Outcome.EXHAUSTIVE_DRAW)


def test_every_illegal_move_code_has_a_test_here() -> None:
    import tests.rules.test_violations as me

    names = {n for n in dir(me) if n.startswith("test_")}
    for code in ViolationCode:
        if code in SETTLEMENT_CODES:
            continue
        assert any(n.startswith(f"test_{code.value}") for n in names), code


def test_the_clean_hand_replays_cleanly() -> None:
    result = replay(CLEAN)
    assert_clean(result)
    assert result.outcome is Outcome.WIN
    assert result.events_applied == 3


# ---------------------------------------------------------------------- the deal
def test_bad_deal_dealer_short_of_a_tile() -> None:
    good = record(CLEAN)
    dealer = good.deal[0]
    bad = replace(good, deal=(dealer[:-1], *good.deal[1:]), wall=(*good.wall, dealer[-1]))  # type: ignore[misc]
    v = assert_violation(replay_hand(bad, test_ruleset()), C.BAD_DEAL, None, 0,
                         format_tiles(dealer[:-1]), "13 tiles, 14 expected")
    assert "dealer" in v.message
    assert_clean(replay_hand(good, test_ruleset()))


def test_false_hand_dealer_short_of_a_tile_under_xianggong() -> None:
    # the same short deal under a ruleset with 相公 (penalties.false_hand): a finding, and
    # the hand plays on to its end
    good = record(CLEAN)
    dealer = good.deal[0]
    bad = replace(good, deal=(dealer[:-1], *good.deal[1:]), wall=(*good.wall, dealer[-1]))  # type: ignore[misc]
    rules = test_ruleset(penalties={"false_hand": 2})
    result = replay_hand(bad, rules)
    v = only(result)
    assert (v.code, v.hand_no, v.event_index, v.seat, v.fatal) == (
        C.FALSE_HAND, HAND_NO, None, 0, False)
    assert "13 tiles, 14 expected" in v.message and "相公" in v.message
    assert result.outcome is Outcome.WIN
    # two tiles short is still a false hand; three is a bad deal
    for short, code in ((2, C.FALSE_HAND), (3, C.BAD_DEAL)):
        bad = replace(good, deal=(dealer[:-short], *good.deal[1:]),
                      wall=(*good.wall, *dealer[-short:]))  # type: ignore[misc]
        assert replay_hand(bad, rules).violations[0].code is code


def test_bad_deal_wrong_player_count() -> None:
    result = replay_hand(record(CLEAN), test_ruleset(players=3))
    assert_violation(result, C.BAD_DEAL, None, None, "4 players")


def test_bad_deal_wall_short_of_the_full_set() -> None:
    good = record(CLEAN)
    bad = replace(good, wall=good.wall[:-1])  # type: ignore[index]
    missing = good.wall[-1]  # type: ignore[index]
    assert_violation(replay_hand(bad, test_ruleset()), C.BAD_DEAL, None, None,
                     "107 tiles", f"missing {missing}")


def test_tile_overflow_fifth_copy_in_the_deal() -> None:
    good = record(CLEAN)
    seat3 = list(good.deal[3])
    seat3[seat3.index(Tile.P6)] = Tile.M1  # seat 1 holds three 1m, seat 3 one: a fifth
    bad = replace(good, deal=(*good.deal[:3], tuple(seat3)))
    assert_violation(replay_hand(bad, test_ruleset()), C.TILE_OVERFLOW, None, 3,
                     "5 copies of 1m", format_tiles(seat3))


def test_tile_overflow_fifth_copy_in_the_wall() -> None:
    good = record(CLEAN)
    wall = list(good.wall)  # type: ignore[arg-type]
    wall[wall.index(Tile.S9)] = Tile.M3  # 3m: seat 1 three, seat 2 one
    bad = replace(good, wall=tuple(wall))
    assert_violation(replay_hand(bad, test_ruleset()), C.TILE_OVERFLOW, None, None,
                     "5 copies of 3m")


def test_tile_overflow_draw_without_a_wall() -> None:
    # seats 1 and 3 hold all four 1m: without a wall, only the count can be checked
    result = replay("0-9p 1+1m", known_wall=False)
    assert_violation(result, C.TILE_OVERFLOW, 1, 1, "1m", "all 4 copies")
    assert_clean(replay("0-9p 1+4p 1-4p 2+1p 2H1p", known_wall=False,
                        rules=test_ruleset(flip_chicken=False)))


# ---------------------------------------------------------------------- turns and tiles
def test_out_of_turn_draw() -> None:
    result = replay("0-9p 2+4p")  # seat 1 is due to draw
    assert_violation(result, C.OUT_OF_TURN, 1, 2, "seat 2 draws 4p", "seat 1 is due")


def test_out_of_turn_discard() -> None:
    result = replay("1-2p")  # the dealer starts
    assert_violation(result, C.OUT_OF_TURN, 0, 1, "seat 1 discards 2p", "seat 0 must discard")


def test_not_in_hand() -> None:
    result = replay("0-3m")
    assert_violation(result, C.NOT_IN_HAND, 0, 0, "3m", "258m125999p13467s")


def test_illegal_pong_without_the_pair() -> None:
    result = replay("0-1p 3P1p<0")
    assert_violation(result, C.ILLEGAL_PONG, 1, 3, "1p", "1669m2678p23588s")


def test_illegal_pong_not_the_last_discard() -> None:
    result = replay("0-2p 3P6p<0")
    assert_violation(result, C.ILLEGAL_PONG, 1, 3, "6p", "the last discard is 2p")


def test_illegal_kong_concealed_with_three() -> None:
    result = replay("0C9p")
    assert_violation(result, C.ILLEGAL_KONG, 0, 0, "9p", "without four", "258m125999p13467s")
    deal = {**DEAL, 0: FOUR_NINES}
    assert_clean(replay("0C9p 0+5s 0-5s 1+4p 1-4p 2+6s 2-6s 3+7p 3-7p 0+3p 0-2p 1H2p<0 F5s",
                        deal=deal, back="5s"))


def test_illegal_kong_exposed_without_three() -> None:
    result = replay("0-9p 3E9p<0")
    assert_violation(result, C.ILLEGAL_KONG, 1, 3, "9p", "without three")


def test_chow_not_allowed() -> None:
    result = replay("0-1p 2Y123p<0")
    assert_violation(result, C.CHOW_NOT_ALLOWED, 1, 2, "123p", "never allowed")


# ---------------------------------------------------------------------- wins
def test_invalid_win_incomplete_hand() -> None:
    result = replay("0-1p 1H1p<0")
    assert_violation(result, C.INVALID_WIN, 1, 1, "1p", "111333555777m12p", "not complete")


def test_invalid_win_self_draw_of_another_tile() -> None:
    result = replay("0-9p 1+4p 1H2p")
    assert_violation(result, C.INVALID_WIN, 2, 1, "2p", "drew 4p")


def test_no_pass_plain_discard_win() -> None:
    result = replay("0-1p 2H1p<0")
    assert_violation(result, C.NO_PASS, 1, 2, "1p", "234789m23p45699s", "通行证")
    assert_clean(replay("0-1p 2H1p<0 F4p", test_ruleset(pass_rule=False)))


def test_missed_win_is_recorded_and_the_hand_goes_on() -> None:
    # seat 1 lets seat 3's 2p pass, then wins on the dealer's 2p before drawing again
    events = "0-9p 1+4p 1-4p 2+6s 2-6s 3+7p 3-2p 0+3p 0-2p 1H2p<0 F5s"
    result = replay(events)
    v = only(result)
    assert (v.code, v.hand_no, v.event_index, v.seat) == (C.MISSED_WIN, HAND_NO, 9, 1)
    assert not v.fatal
    assert "2p" in v.message and "event 6" in v.message and "seat 3" in v.message
    assert result.outcome is Outcome.WIN  # not fatal: the win stands (包牌 is settlement's)
    assert [w.seat for w in result.winners] == [1]
    assert result.events_applied == 11
    assert_clean(replay("0-9p 1+4p 1-4p 2+6s 2-6s 3+7p 3-2p 1H2p<3 F3p"))


def test_missed_win_cleared_by_a_draw() -> None:
    # seat 1 passes the dealer's 2p, draws and discards, then wins on seat 3's 2p
    assert_clean(replay("0-2p 1+4p 1-4p 2+6s 2-6s 3+7p 3-2p 1H2p<3 F3p"))


def test_missing_suit_win_with_three_suits() -> None:
    rules = test_ruleset(missing_suit_required=True, pass_rule=False)
    result = replay("0-1p 2H1p<0", rules)
    assert_violation(result, C.MISSING_SUIT, 1, 2, "1p", "234789m123p45699s", "缺一门")
    assert_clean(replay(CLEAN, rules))  # seat 1's hand holds characters and dots only
    assert_clean(replay("0-1p 2H1p<0 F4p", test_ruleset(pass_rule=False)))


# ---------------------------------------------------------------------- 报听
def test_frozen_hand_discard_other_than_the_drawn_tile() -> None:
    result = replay("1R 0-9p 1+4p 1-1m")
    assert_violation(result, C.FROZEN_HAND, 3, 1, "1m", "drew 4p", "111333555777m24p")
    assert_clean(replay("1R 0-9p 1+4p 1-4p 2+6s 2-6s 3+7p 3-2p 1H2p<3 F3p"))


def test_frozen_hand_pong() -> None:
    deal = {**DEAL, 1: "111333555m77m88s"}  # ready on 7m or 8s, declared
    events = "1R 0-9p 1+4p 1-4p 2+6s 2-6s 3+7p 3-8s"
    result = replay(events + " 1P8s<3", deal=deal)
    assert_violation(result, C.FROZEN_HAND, 8, 1, "8s", "declared ready")
    assert_clean(replay(events + " 1H8s<3 F3p", deal=deal))


def test_false_ready_not_ready() -> None:
    result = replay("3R")
    assert_violation(result, C.FALSE_READY, 0, 3, "1669m2678p23588s", "not ready")


def test_false_ready_dealer_with_no_ready_discard() -> None:
    result = replay("0R")
    assert_violation(result, C.FALSE_READY, 0, 0, "258m125999p13467s")


def test_false_ready_too_late() -> None:
    result = replay("0-9p 1+4p 1-4p 2+6s 2-6s 3+7p 3-7p 0+3p 0-3p 1+5s 1R")
    assert_violation(result, C.FALSE_READY, 10, 1, "too late", "111333555777m2p5s")


def test_false_ready_discard_breaks_the_declaration() -> None:
    deal = {**DEAL, 0: "229m345678p456s99s"}  # ready after discarding 9m, not after 5p
    assert len(parse_tiles(deal[0])) == 14
    result = replay("0R 0-5p", deal=deal)
    assert_violation(result, C.FALSE_READY, 1, 0, "5p", "not ready", "229m345678p45699s")
    assert_clean(replay("0R 0-9m 1+4p 1-4p 2+6s 2-6s 3+7p 3-2p 1H2p<3 F3p", deal=deal))


# ---------------------------------------------------------------------- the wall
def test_wall_mismatch() -> None:
    result = replay("0-9p 1+5s")
    assert_violation(result, C.WALL_MISMATCH, 1, 1, "5s", "front is 4p")


def test_wall_mismatch_replacement_draw() -> None:
    result = replay("0C9p 0+4p", deal={**DEAL, 0: FOUR_NINES}, back="5s")
    assert_violation(result, C.WALL_MISMATCH, 1, 0, "4p", "back (kong replacement) is 5s")


def _to_the_end() -> tuple[HandRecord, str]:
    rec = record("")
    assert rec.wall is not None and len(rec.wall) == 55
    return rec, "0-9p " + draw_and_discard(rec, 1, 55)


def test_wall_exhausted() -> None:
    _, events = _to_the_end()
    result = replay(events + " 0+4p")
    assert_violation(result, C.WALL_EXHAUSTED, 111, 0, "4p", "wall is empty")
    assert_clean(replay(events + " X"))


def test_premature_end_tiles_left() -> None:
    result = replay("0-9p X")
    assert_violation(result, C.PREMATURE_END, 1, None, "55 tiles left")


def test_premature_end_log_stops_mid_hand() -> None:
    result = replay("0-9p 1+4p")
    v = assert_violation(result, C.PREMATURE_END, None, None, "seat 1 must discard")
    assert result.events_applied == 2 and v.event_index is None


def test_event_after_end() -> None:
    result = replay(CLEAN + " 1-2p")
    assert_violation(result, C.EVENT_AFTER_END, 3, 1, "2p")
    _, events = _to_the_end()
    assert_violation(replay(events + " X 0+4p"), C.EVENT_AFTER_END, 112, 0, "4p")


def test_wildcard_discard() -> None:
    deal = {**DEAL, 0: "258mW25999p13467s"}  # a wildcard instead of the 1p
    rules = test_ruleset(wildcards=2)
    result = replay("0-W", rules, deal=deal, wildcards=2)
    assert_violation(result, C.WILDCARD_DISCARD, 0, 0, "W", "258m25999p13467sW")
    assert_clean(replay(CLEAN, rules, deal=deal, wildcards=2))


# ---------------------------------------------------------------------- the flip
def test_bad_flip_wrong_tile() -> None:
    result = replay("0-2p 1H2p<0 F9m")
    assert_violation(result, C.BAD_FLIP, 2, None, "9m", "front is 4p")


def test_bad_flip_missing() -> None:
    result = replay("0-2p 1H2p<0")
    assert_violation(result, C.BAD_FLIP, None, None, "without the flip")
    assert_clean(replay("0-2p 1H2p<0", test_ruleset(flip_chicken=False)))


def test_bad_flip_ruleset_without_flip() -> None:
    result = replay(CLEAN, test_ruleset(flip_chicken=False))
    assert_violation(result, C.BAD_FLIP, 2, None, "4p", "no 翻鸡")


def test_bad_flip_twice() -> None:
    result = replay(CLEAN + " F4p")
    assert_violation(result, C.BAD_FLIP, 3, None, "already shown (4p)")


def test_bad_flip_without_a_win() -> None:
    result = replay("0-9p F4p")
    assert_violation(result, C.BAD_FLIP, 1, None, "4p", "no win")


def test_bad_flip_empty_wall() -> None:
    # the wall's last tile is 1p: seat 3 draws and discards it, seat 2 wins on it
    rec = record("", back="1p")
    assert rec.wall is not None and rec.wall[-1] == Tile.P1
    events = "0-9p " + draw_and_discard(rec, 1, 55) + " 2H1p<3"
    rules = test_ruleset(pass_rule=False)
    result = replay(events + " F4p", rules, back="1p")
    assert_violation(result, C.BAD_FLIP, 112, None, "4p", "wall is empty")
    assert_clean(replay(events, rules, back="1p"))  # no flip is due with an empty wall


def test_bad_flip_after_an_exhaustive_draw() -> None:
    _, events = _to_the_end()
    result = replay(events + " X F4p")
    assert_violation(result, C.BAD_FLIP, 112, None, "4p", "ended without a win")


# ---------------------------------------------------------------------- stopping
def test_a_fatal_violation_stops_the_hand() -> None:
    result = replay("0-1p 3P1p<0 3-6p 0+4p")
    assert result.events_applied == 1
    assert result.fatal is not None and result.fatal.code is C.ILLEGAL_PONG
    table = Table.from_record(record(""), test_ruleset())
    table.apply(record("0-1p").events[0])
    with pytest.raises(IllegalMoveError) as info:
        table.apply(record("0-1p 3P1p<0").events[1])
    assert info.value.violation.code is C.ILLEGAL_PONG
    assert "hand 7, event 1" in str(info.value)


def test_the_next_hand_of_the_game_replays_normally() -> None:
    bad = record("0-1p 3P1p<0")
    good = replace(record(CLEAN), hand_no=HAND_NO + 1)
    first, second = replay_game([bad, good], test_ruleset())
    assert first.fatal is not None and first.fatal.code is C.ILLEGAL_PONG
    assert second.violations == () and second.outcome is Outcome.WIN
    assert second.hand_no == HAND_NO + 1


# ---------------------------------------------------------------------- the family's kinds
def test_event_not_in_family() -> None:
    """An event of a kind the ruleset's family does not play: fatal, the event and its seat
    named, the table unchanged. The test family has no 报听 and no 翻鸡; Guizhou plays both,
    and rejects a chow with its own code."""
    toy = ToyRuleset(name="toy-violations")

    def toy_hand(events: str) -> HandRecord:  # the toy's 136 tiles: honours at the back
        hand = record(events)
        assert hand.wall is not None
        return replace(hand, wall=hand.wall + tuple(t for t in HONOUR_TILES for _ in range(4)))

    table = Table.from_record(toy_hand(""), toy)
    v = table.check(Ready(2))
    assert v is not None and (v.code, v.seat, v.fatal) == (C.EVENT_NOT_IN_FAMILY, 2, True)
    assert "the toy family (ruleset 'toy-violations') has no ready event" in v.message
    stopped = table.run([Discard(0, Tile.P2), Ready(1)])
    assert stopped is not None and stopped.code is C.EVENT_NOT_IN_FAMILY
    assert stopped.event_index == 1 and table.event_index == 1
    flip = replay_hand(toy_hand("0-2p 1H2p<0 F4p"), toy)
    assert [(x.code, x.event_index, x.seat) for x in flip.violations] == [
        (C.EVENT_NOT_IN_FAMILY, 2, None)]
    assert_clean(replay("0-2p 1H2p<0 F4p"))  # Guizhou's own events
    assert only(replay("0-1p 2Y123p<0")).code is C.CHOW_NOT_ALLOWED


# --- wallend: the end of the wall and kong draws (a family playing them: tests/rules/wall_family)
def _wall_replay(record: HandRecord, events: str) -> HandReplay:
    from tests.rules.test_wall_events import replay as wall_replay

    result = wall_replay(record, events)
    assert isinstance(result, HandReplay)
    return result


def _wall_hand(deal: dict[int, str], place: dict[int, str]) -> HandRecord:
    from tests.rules.test_wall_events import hand

    return hand(deal, place=place, hand_no=HAND_NO)


_READY_QUAD = {0: "5555m 123p 456p 789s 1s"}


def test_bad_roll_dice_thrown_by_a_hand_that_is_not_ready() -> None:
    rec = _wall_hand({0: "5555m 124p 456p 789s 1s"}, {-13: "1s", 0: "7m"})
    assert_violation(_wall_replay(rec, "0C5m 0@3,4"), C.BAD_ROLL, 1, 0, "124456p1789s", "ready")
    assert_clean(_wall_replay(_wall_hand(_READY_QUAD, {-13: "1s", 0: "7m"}),
                              "0C5m 0@3,4 0+1s 0H1s B7m"))


def test_locked_hand_a_tile_kept_after_the_dice() -> None:
    # seat 1 waits on 9m: the dealer's replacement 9m, discarded as it must be
    rec = _wall_hand({**_READY_QUAD, 1: "123s 456s 789s 111p 9m"}, {-13: "9m", 0: "7m"})
    assert_violation(_wall_replay(rec, "0C5m 0@3,4 0+9m 0-1s"), C.LOCKED_HAND, 3, 0, "9m")
    assert_clean(_wall_replay(rec, "0C5m 0@3,4 0+9m 0-9m 1H9m<0 B7m"))


def test_bad_seabed_the_last_tile_drawn_without_its_offer() -> None:
    from tests.rules.test_wall_events import burn

    rec = _wall_hand({0: "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 2p 3p 4p 9s"}, {54: "5p"})
    last = f"0-9s {burn(rec, 1, 54)}"
    assert_violation(_wall_replay(rec, f"{last} 3+5p"), C.BAD_SEABED, 109, 3, "last tile")
    assert_clean(_wall_replay(rec, f"{last} 3$+ 3+5p 3-5p X"))


def test_bad_bird_not_the_next_tile_of_the_wall() -> None:
    rec = _wall_hand({0: "123m 456m 789m 123p 55p"}, {0: "4s"})
    assert_violation(_wall_replay(rec, "0H5p B9m"), C.BAD_BIRD, 1, None, "9m", "4s")
    assert_clean(_wall_replay(rec, "0H5p B4s"))


# ---------------------------------------------------------------------- chow and flowers
# (the codes of the core's chow and flower mechanics, through the test family that plays
# them: tests/rules/wide_family/, more cases in tests/rules/test_wide_family.py)
WIDE_DEAL = {0: "129m19p19s234567z1f", 1: "23m456p789s1z555z3f", 2: "1z2f4455667788m3p"}
WIDE_OPENING = "0*1f 0+8s 1*3f 1+6s 2*2f 2+8p"


def wide_replay(events: str, **settings: Any) -> HandReplay:
    from tests.rules.wide_family import wide_hand, wide_ruleset

    rec = wide_hand(WIDE_DEAL, events, front="3s", back="8s6s8p", hand_no=HAND_NO)
    return replay_hand(rec, wide_ruleset(**settings))


def test_illegal_chow() -> None:
    result = wide_replay(WIDE_OPENING + " 0-1m 2Y123m<0")
    assert_violation(result, C.ILLEGAL_CHOW, 7, 2, "123m", "next player")
    clean = wide_replay(WIDE_OPENING + " 0-1m 1Y123m<0 1-6s 2+3s 2-1z 1H1z<2")
    assert_clean(clean)


def test_bad_flower() -> None:
    assert_violation(wide_replay("0*2f"), C.BAD_FLOWER, 0, 0, "2f", "seat 0 holds")
    assert_violation(wide_replay("0*1f 0+8s 1*3f 1+6s 0-1m 2*2f"), C.BAD_FLOWER, 5, 2, "2f")


def test_flower_not_shown() -> None:
    assert_violation(wide_replay("0-1m"), C.FLOWER_NOT_SHOWN, 0, 0, "1m", "holding a flower")
    # seat 1 left its dealt flower in hand: after its chow it may not discard
    result = wide_replay("0*1f 0+8s 2*2f 2+6s 0-1m 1Y123m<0 1-1z")
    assert_violation(result, C.FLOWER_NOT_SHOWN, 6, 1, "1z", "holding a flower")


# ---------------------------------------------------------------------- the xuezhan family
# (换三张, 定缺, 血战到底, carry: tests/rules/test_xuezhan.py holds the rest)
def _xuezhan(events: str) -> HandReplay:
    from tests.rules.xuezhan_family import xuezhan_ruleset
    from tests.rules.xuezhan_family.hands import hand

    return replay_hand(hand(events), xuezhan_ruleset())


def _only_code(result: HandReplay) -> tuple[ViolationCode, int | None, int | None]:
    v = only(result)
    return v.code, v.event_index, v.seat


def test_bad_exchange_two_suits_and_a_repeat() -> None:
    from tests.rules.xuezhan_family.hands import CLEAN as XCLEAN

    assert _xuezhan(XCLEAN).violations == ()
    assert _only_code(_xuezhan("0>12m3s>1")) == (C.BAD_EXCHANGE, 0, 0)
    assert _only_code(_xuezhan("0>123m>1 0>123m>1")) == (C.BAD_EXCHANGE, 1, 0)


def test_bad_declaration_twice() -> None:
    from tests.rules.xuezhan_family.hands import EXCHANGE

    assert _only_code(_xuezhan(f"{EXCHANGE} 0=p 0=p")) == (C.BAD_DECLARATION, 5, 0)


def test_declared_suit_first_before_any_other_tile() -> None:
    from tests.rules.xuezhan_family.hands import SETUP

    assert _only_code(_xuezhan(f"{SETUP} 0-3s")) == (C.DECLARED_SUIT_FIRST, 8, 0)
    assert _xuezhan(f"{SETUP} 0-9p").violations[-1].code is C.PREMATURE_END


def test_acted_after_win_by_a_winner() -> None:
    from tests.rules.xuezhan_family.hands import SETUP

    assert _only_code(_xuezhan(f"{SETUP} 0-9p 1+1p 1H1p 1+1m")) == (C.ACTED_AFTER_WIN, 11, 1)


def test_carry_mismatch_and_hand_sequence_in_a_game() -> None:
    from tests.rules.xuezhan_family import xuezhan_ruleset
    from tests.rules.xuezhan_family.hands import CLEAN as XCLEAN
    from tests.rules.xuezhan_family.hands import hand, with_carry

    one = with_carry(hand(XCLEAN), {"draw_multiplier": 1}, 1)
    two = with_carry(hand(XCLEAN), {"draw_multiplier": 2}, 2)
    game = replay_game([one, two], xuezhan_ruleset())
    assert game[0].violations == ()
    assert _only_code(game[1]) == (C.CARRY_MISMATCH, None, None)
    assert not game[1].violations[0].fatal


def test_hand_sequence_out_of_order() -> None:
    from tests.rules.xuezhan_family import xuezhan_ruleset
    from tests.rules.xuezhan_family.hands import CLEAN as XCLEAN
    from tests.rules.xuezhan_family.hands import hand, with_carry

    game = replay_game([with_carry(hand(XCLEAN), None, n) for n in (1, 2, 4)],
                       xuezhan_ruleset())
    assert [r.violations for r in game[:2]] == [(), ()]
    assert _only_code(game[2]) == (C.HAND_SEQUENCE, None, None)


def test_event_not_in_family_for_a_guizhou_exchange() -> None:
    from zhuoji.rules.events import Exchange

    good = record(CLEAN)
    bad = replace(good, events=(Exchange(0, good.deal[0][:3], 1), *good.events))
    assert _only_code(replay_hand(bad, test_ruleset())) == (C.EVENT_NOT_IN_FAMILY, 0, 0)


@pytest.mark.parametrize(("events", "index", "seat", "known_wall"), [
    ("0-1z", 0, 0, True),  # a discard of an honour in a 108-tile game
    ("0-1z", 0, 0, False),
    ("0-2p 1+1z", 1, 1, False),  # a draw without a wall (with one: wall_mismatch)
    ("0C1z", 0, 0, True),  # a concealed kong
])
def test_event_not_in_family_for_a_tile_outside_the_family(
    events: str, index: int, seat: int, known_wall: bool
) -> None:
    """A record built without the readers (which refuse the tile, naming file, line and
    field) may name a tile outside the family's set: a fatal event_not_in_family naming
    it, not a crash; the table's own check says the same."""
    result = replay(events, known_wall=known_wall)
    v = assert_violation(result, C.EVENT_NOT_IN_FAMILY, index, seat)
    assert "1z is not one of the guizhou family's tiles (ruleset 'test')" in v.message
    table = Table.from_record(record(""), test_ruleset())
    checked = table.check(Discard(0, Tile.EAST))
    assert checked is not None and checked.code is C.EVENT_NOT_IN_FAMILY


def _changsha(deal: list[str], events: list[Any]) -> HandReplay:
    from dataclasses import replace as _replace

    from zhuoji.rules.presets import load_preset

    rec = _replace(make_hand(deal), events=tuple(events))
    return replay_hand(rec, load_preset("changsha"))


def test_bad_small_win_checked_against_the_dealt_hand() -> None:
    from zhuoji.rules.events import SmallWin

    deal = ["1111m234p567s2288m", "3579m13579p1357s"]
    four = tuple(parse_tiles("1111m"))
    ok = _changsha(deal, [SmallWin(0, "four_of_a_kind", four)])
    assert all(v.code is not C.BAD_SMALL_WIN for v in ok.violations), ok.violations
    bad = _changsha(deal, [SmallWin(0, "two_triplets", four)])
    assert bad.violations[0].code is C.BAD_SMALL_WIN
    late = _changsha(deal, [Discard(0, Tile.P2), SmallWin(0, "four_of_a_kind", four)])
    assert late.violations[0].code is C.BAD_SMALL_WIN
    # the same declaration twice (a whole-hand kind, or the same quad) is refused; a
    # second 四喜 of another quad adds up
    again = _changsha(deal, [SmallWin(0, "four_of_a_kind", four)] * 2)
    assert [(v.code, v.event_index) for v in again.violations][:1] == [(C.BAD_SMALL_WIN, 1)]
    assert "declared four_of_a_kind on those tiles already" in again.violations[0].message
    quads = ["1111m2222p567s228m", "3579m13579p1357s"]
    two = _changsha(quads, [SmallWin(0, "four_of_a_kind", four),
                            SmallWin(0, "four_of_a_kind", tuple(parse_tiles("2222p")))])
    assert all(v.code is not C.BAD_SMALL_WIN for v in two.violations), two.violations
    plain = "34679m1369p1349s"  # no 2, 5 or 8: 板板胡
    whole = tuple(parse_tiles(plain))
    once = _changsha([deal[0], plain], [SmallWin(1, "no_258", whole)])
    assert all(v.code is not C.BAD_SMALL_WIN for v in once.violations), once.violations
    twice = _changsha([deal[0], plain], [SmallWin(1, "no_258", whole)] * 2)
    assert [v.code for v in twice.violations][:1] == [C.BAD_SMALL_WIN]
    assert twice.violations[0].event_index == 1


def test_no_258_pair_for_a_small_win() -> None:
    from zhuoji.rules.events import Win

    bad = _changsha(["123m456m789m234p11s", "13579m13579p135s"],
                    [Win(0, Tile.S1)])
    assert bad.violations[0].code is C.NO_258_PAIR
    good = _changsha(["123m456m789m234p22s", "13579m13579p135s"], [Win(0, Tile.S2)])
    assert all(v.code is not C.NO_258_PAIR for v in good.violations), good.violations
