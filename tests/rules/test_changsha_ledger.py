"""Changsha settlement: every number of seed 003's points rules and each bird case."""

from __future__ import annotations

import pytest

from rules.events import RecordedItem, RecordedResult
from rules.families.changsha.ledger import (
    HandFacts,
    OpeningWin,
    Points,
    Win,
    audit_result,
    bird_seat,
    settle_facts,
)
from rules.violations import ViolationCode

P = Points()
D = 0  # the dealer


def deltas(facts: HandFacts, points: Points = P) -> tuple[int, ...]:
    return settle_facts(facts, points).deltas


def test_small_self_draw_dealer_each_pays_20() -> None:
    assert deltas(HandFacts(4, D, (Win(0, ("small",)),))) == (60, -20, -20, -20)


def test_small_self_draw_non_dealer_dealer_20_others_10() -> None:
    assert deltas(HandFacts(4, D, (Win(1, ("small",)),))) == (-20, 40, -10, -10)


def test_small_discard_10_plus_10_with_the_dealer() -> None:
    assert deltas(HandFacts(4, D, (Win(1, ("small",), discarder=2),))) == (0, 10, -10, 0)
    assert deltas(HandFacts(4, D, (Win(1, ("small",), discarder=0),))) == (-20, 20, 0, 0)
    assert deltas(HandFacts(4, D, (Win(0, ("small",), discarder=3),))) == (20, 0, 0, -20)


def test_big_self_draw_dealer_40_each() -> None:
    assert deltas(HandFacts(4, D, (Win(0, ("heavenly",)),))) == (120, -40, -40, -40)


def test_big_self_draw_non_dealer_dealer_40_others_30() -> None:
    assert deltas(HandFacts(4, D, (Win(2, ("pure_suit",)),))) == (-40, -30, 100, -30)


def test_big_discard_60_plus_10_with_the_dealer() -> None:
    assert deltas(HandFacts(4, D, (Win(1, ("all_pongs",), discarder=2),))) == (0, 60, -60, 0)
    assert deltas(HandFacts(4, D, (Win(1, ("all_pongs",), discarder=0),))) == (-70, 70, 0, 0)


def test_small_with_big_counts_as_the_big() -> None:
    assert deltas(HandFacts(4, D, (Win(1, ("small", "all_pongs"), discarder=2),))) == (
        0, 60, -60, 0)


def test_big_wins_add_up() -> None:
    # 小七对 + 天胡 by the dealer: 2 x 30 + 10 from each
    assert deltas(HandFacts(4, D, (Win(0, ("seven_pairs", "heavenly")),))) == (
        210, -70, -70, -70)


def test_opening_small_wins_add_up() -> None:
    # 四喜 + 六六顺 by seat 1: each a 小胡 self-draw (dealer 20, others 10)
    f = HandFacts(4, D, openings=(OpeningWin(1, ("four_of_a_kind", "two_triplets")),))
    s = settle_facts(f, P)
    assert s.deltas == (-40, 80, -20, -20)
    assert {i.reason.value for i in s.items} == {"opening_win", "dealer_extra"}


def test_bird_counting_from_the_dealer() -> None:
    assert [bird_seat(r, 1, 4) for r in range(1, 10)] == [1, 2, 3, 0, 1, 2, 3, 0, 1]


def test_bird_on_winner_of_discard_win_doubles_the_discarder() -> None:
    # dealer 0, bird rank 2 -> seat 1, the winner
    assert deltas(HandFacts(4, D, (Win(1, ("small",), discarder=2),), bird_ranks=(2,))) == (
        0, 20, -20, 0)


def test_bird_on_discarder_doubles_the_discarder() -> None:
    assert deltas(HandFacts(4, D, (Win(1, ("small",), discarder=2),), bird_ranks=(3,))) == (
        0, 20, -20, 0)


def test_bird_elsewhere_on_discard_win_changes_nothing() -> None:
    assert deltas(HandFacts(4, D, (Win(1, ("small",), discarder=2),), bird_ranks=(4,))) == (
        0, 10, -10, 0)


def test_bird_on_self_drawer_doubles_everyone() -> None:
    assert deltas(HandFacts(4, D, (Win(1, ("small",)),), bird_ranks=(6,))) == (
        -40, 80, -20, -20)


def test_bird_on_another_doubles_that_payer_alone() -> None:
    assert deltas(HandFacts(4, D, (Win(1, ("small",)),), bird_ranks=(3,))) == (
        -20, 50, -20, -10)


def test_seabed_tile_is_the_bird() -> None:
    f = HandFacts(4, D, (Win(1, ("seabed_draw",)),), bird_ranks=(3,), seabed_rank=2)
    s = settle_facts(f, P)
    assert s.bird_seats == (1,)
    assert s.deltas == (-80, 200, -60, -60)


@pytest.mark.parametrize(("birds", "ranks", "add", "multiply"), [
    (1, (2,), 20, 20),
    (2, (2, 3), 30, 40),
    (4, (2, 3, 6, 7), 50, 160),
])
def test_birds_1_2_4(birds: int, ranks: tuple[int, ...], add: int, multiply: int) -> None:
    f = HandFacts(4, D, (Win(1, ("small",), discarder=2),), bird_ranks=ranks)
    assert deltas(f, Points(birds=birds))[1] == add  # type: ignore[arg-type]
    assert deltas(f, Points(birds=birds, bird_doubling="multiply"))[1] == multiply  # type: ignore[arg-type]


def test_multiple_winners_the_discarder_pays_each_and_deals() -> None:
    f = HandFacts(4, D, (Win(1, ("small",), discarder=3), Win(2, ("pure_suit",), discarder=3)))
    s = settle_facts(f, P)
    assert s.deltas == (0, 10, 60, -70)
    assert s.next_dealer == 3


def test_next_dealer_rules() -> None:
    assert settle_facts(HandFacts(4, D, (Win(2, ("small",)),)), P).next_dealer == 2
    assert settle_facts(HandFacts(4, D, seabed_taker=3, seabed_first_offered=1), P).next_dealer == 3
    assert settle_facts(HandFacts(4, D, seabed_first_offered=1), P).next_dealer == 1
    assert settle_facts(HandFacts(4, D, seabed_replacement_drawer=2,
                                  seabed_first_offered=1), P).next_dealer == 2
    two = (OpeningWin(1, ("no_258",)), OpeningWin(3, ("missing_suit",)))
    assert settle_facts(HandFacts(4, D, openings=two, bird_ranks=(4,),
                                  seabed_first_offered=1), P).next_dealer == 3


def test_every_amount_is_a_setting() -> None:
    p = Points(small_self_draw=1, small_discard=2, big_self_draw=3, big_discard=5,
               dealer_extra=7)
    assert deltas(HandFacts(4, D, (Win(1, ("small",)),)), p) == (-8, 10, -1, -1)
    assert deltas(HandFacts(4, D, (Win(1, ("small",), discarder=2),)), p) == (0, 2, -2, 0)
    assert deltas(HandFacts(4, D, (Win(1, ("heavenly",)),)), p) == (-10, 16, -3, -3)
    assert deltas(HandFacts(4, D, (Win(1, ("heavenly",), discarder=2),)), p) == (0, 5, -5, 0)


def test_audit_result_against_the_record() -> None:
    s = settle_facts(HandFacts(4, D, (Win(1, ("small",), discarder=2),)), P)
    ok = RecordedResult((0, 10, -10, 0), 1, (RecordedItem(2, 1, 10, "small_win"),))
    assert audit_result(s, ok, 1) == ()
    bad = RecordedResult((0, 20, -20, 0), 0, (RecordedItem(2, 1, 20, "small_win"),))
    codes = [v.code for v in audit_result(s, bad, 1)]
    assert codes == [ViolationCode.SCORE_MISMATCH, ViolationCode.ITEM_MISMATCH,
                     ViolationCode.DEALER_MISMATCH]


def test_unknown_pattern_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown pattern"):
        settle_facts(HandFacts(4, D, (Win(1, ("dragon",)),)), P)
