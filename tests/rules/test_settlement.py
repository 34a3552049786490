"""Settlement: the ledger's mechanics under the family defaults and single overrides,
its properties on simulated and random hands, and the checks against a recorded result.

Hands are written with :mod:`tests.support.builders` (compact tiles and event tokens);
expected ledgers in a compact notation (:func:`parse_ledger`):
``"*>1 hand 1; 0>1 exposed_kong 1; -chicken"`` reads "every other seat pays seat 1 a hand
of 1, seat 0 pays seat 1 an exposed kong of 1, and there is no chicken item".
"""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from tests.support.builders import Players, make_hand, parse_events, random_hands
from tests.support.builders import test_ruleset as family_ruleset
from zhuoji.rules.events import HandRecord, RecordedItem, RecordedResult
from zhuoji.rules.facts import Outcome, SeatFacts
from zhuoji.rules.families.guizhou.patterns import Pattern
from zhuoji.rules.families.guizhou.settings import Ruleset
from zhuoji.rules.families.guizhou.settlement import (
    REASON_CHINESE,
    ChickenKind,
    Reason,
    Settlement,
    audit_result,
    best_waiting_value,
    format_amount,
    item_nets,
    next_dealer_of,
    settle,
    with_names,
)
from zhuoji.rules.families.guizhou.simulate import simulate_game
from zhuoji.rules.presets import load_preset, preset_names
from zhuoji.rules.replay import HandReplay, replay_hand
from zhuoji.rules.settings import apply_overrides
from zhuoji.rules.tiles import Tile
from zhuoji.rules.violations import SETTLEMENT_CODES, ViolationCode

# --------------------------------------------------------------------------------------
# helpers shared with the per-preset tables and the documentation test
# --------------------------------------------------------------------------------------

DEALER_HAND = "2469p2468s3579s9s7m"
"""A scattered 14-tile dealer hand (no standing chicken) whose first discard is 9s."""

_SEATS = r"\*|\d+(?:,\d+)*"
_ENTRY = re.compile(
    rf"^(?P<payers>{_SEATS})>(?P<payees>{_SEATS}) (?P<reason>[a-z_]+) (?P<amount>\d+)$"
)


def parse_ledger(text: str, n_players: int) -> tuple[dict[str, int], set[str]]:
    """Expected ledger items summed by ``"payer>payee reason"``, and the reasons written.

    Entries are separated by ``;``: ``P>Q reason amount`` (``P`` and ``Q`` a seat, a list
    ``0,2``, or ``*`` for every seat but the other side's one; amounts of the same key add
    up) or ``-reason`` (no item with that reason).
    """
    expected: dict[str, int] = {}
    reasons: set[str] = set()
    for raw in text.split(";"):
        entry = raw.strip()
        if not entry:
            continue
        if entry.startswith("-"):
            reasons.add(Reason(entry[1:]).value)
            continue
        m = _ENTRY.match(entry)
        if m is None:
            raise ValueError(f"bad ledger entry {entry!r}")
        reason = Reason(m["reason"]).value
        for payer, payee in _pairs(m["payers"], m["payees"], n_players):
            key = f"{payer}>{payee} {reason}"
            expected[key] = expected.get(key, 0) + int(m["amount"])
        reasons.add(reason)
    return expected, reasons


def _pairs(payers: str, payees: str, n_players: int) -> list[tuple[int, int]]:
    if payers == "*" and payees == "*":
        raise ValueError("only one side of a ledger entry may be '*'")
    if payers == "*":
        (payee,) = (int(p) for p in payees.split(","))
        return [(s, payee) for s in range(n_players) if s != payee]
    if payees == "*":
        (payer,) = (int(p) for p in payers.split(","))
        return [(payer, s) for s in range(n_players) if s != payer]
    return [(int(a), int(b)) for a in payers.split(",") for b in payees.split(",")]


def ledger_of(settlement: Settlement, reasons: set[str] | None = None) -> dict[str, int]:
    """The settlement's items summed by ``"payer>payee reason"`` (only ``reasons``)."""
    out: dict[str, int] = {}
    for item in settlement.items:
        if reasons is not None and item.reason.value not in reasons:
            continue
        key = f"{item.payer}>{item.payee} {item.reason.value}"
        out[key] = out.get(key, 0) + item.amount
    return out


def check_ledger(settlement: Settlement, expected: str, n_players: int = 4) -> None:
    """The items of the reasons ``expected`` names are exactly the expected ones."""
    want, reasons = parse_ledger(expected, n_players)
    assert ledger_of(settlement, reasons) == want, "\n".join(settlement.explanation)


def play(
    ruleset: Ruleset,
    deal: dict[int, str],
    events: str,
    *,
    front: str = "",
    back: str = "",
    dealer: int = 0,
    streak: int = 0,
    stake: int = 1,
    allow: tuple[ViolationCode, ...] = (),
) -> tuple[HandReplay, Settlement]:
    """Replay and settle a hand; the replay must be clean (but for the ``allow`` codes)."""
    record = make_hand(deal, events, front=front, back=back, dealer=dealer,
                       n_players=ruleset.players, wildcards=ruleset.wildcards)
    record = replace(record, dealer_streak=streak, base_stake=stake)
    return settle_record(record, ruleset, allow=allow)


def settle_record(
    record: HandRecord, ruleset: Ruleset, *, allow: tuple[ViolationCode, ...] = ()
) -> tuple[HandReplay, Settlement]:
    replay = replay_hand(record, ruleset)
    unexpected = [v for v in replay.violations if v.code not in allow]
    assert not unexpected, unexpected
    assert replay.outcome is not Outcome.INCOMPLETE
    settlement = settle(replay, ruleset, record.base_stake, dealer_streak=record.dealer_streak)
    assert settlement is not None
    return replay, settlement


def rules(**settings: object) -> Ruleset:
    """The family defaults with dotted-path settings replaced."""
    return apply_overrides(family_ruleset(), settings)


# A plain hand waiting on 1p/4p (no standing chicken of any preset); seat 1 self-draws 4p
# on its second turn.
PLAIN = "123m456m23p99p345p"
SELF_DRAW_EVENTS = "0-9s 1+1m 1-1m 2+3s 2-3s 3+5s 3-5s 0+6s 0-6s 1+4p 1H4p F8s"
SELF_DRAW_FRONT = "1m3s5s6s4p8s"


# --------------------------------------------------------------------------------------
# the hand and its bonuses
# --------------------------------------------------------------------------------------


def test_self_draw_is_paid_by_every_other_player_and_explained() -> None:
    _, s = play(family_ruleset(), {0: DEALER_HAND, 1: PLAIN}, SELF_DRAW_EVENTS,
                front=SELF_DRAW_FRONT)
    check_ledger(s, "*>1 hand 1; *>1 self_draw 1; -chicken")
    assert s.deltas == (-2, 6, -2, -2)
    assert s.next_dealer == 1
    assert s.explanation[0] == (
        "seat 1 won by self-draw on 4p: plain 平胡 1 + self_draw 自摸 1 = 2, paid by each of "
        "seats 2, 3, 0 (6 in all)"
    )
    assert s.wins[0].patterns == ("plain", "self_draw") and s.wins[0].value == 2
    # payers in turn order after the winner, each win's parts in ledger order
    assert [(i.payer, i.reason) for i in s.items[:2]] == [(2, Reason.HAND), (2, Reason.SELF_DRAW)]


def test_discard_win_is_paid_by_the_discarder_alone() -> None:
    # seat 1 holds a big hand (all pungs: its own pass) and wins on seat 2's 2m
    _, s = play(family_ruleset(), {0: DEALER_HAND, 1: "111m333m555p99p22m"},
                "0-9s 1+7s 1-7s 2+2m 2-2m 1H2m<2 F8s", front="7s2m8s")
    check_ledger(s, "2>1 hand 5; -self_draw")
    assert s.deltas == (0, 5, -5, 0)
    assert "seat 1 won on seat 2's discard 2m: all_pungs 大对子 5 = 5, paid by seat 2" in (
        s.explanation)


def test_the_best_shape_pattern_is_paid() -> None:
    # a flush all-pungs hand qualifies for plain, all_pungs, full_flush and flush_all_pungs
    _, s = play(family_ruleset(), {0: DEALER_HAND, 1: "111m333m555m99m22m"},
                "0-9s 1+1p 1-1p 2+3s 2-3s 3+5s 3-5s 0+6s 0-6s 1+2m 1H2m F8s",
                front="1p3s5s6s2m8s")
    check_ledger(s, "*>1 hand 15; *>1 self_draw 1")
    assert s.wins[0].patterns[0] == "flush_all_pungs"
    # a preset that does not score 清大对 falls back to the next best pattern
    _, s = play(rules(**{"patterns.flush_all_pungs": 0}), {0: DEALER_HAND, 1: "111m333m555m99m22m"},
                "0-9s 1+1p 1-1p 2+3s 2-3s 3+5s 3-5s 0+6s 0-6s 1+2m 1H2m F8s",
                front="1p3s5s6s2m8s")
    check_ledger(s, "*>1 hand 10")
    assert s.wins[0].patterns[0] == "full_flush"


def test_heavenly_and_earthly_add_to_the_hand_in_add_mode() -> None:
    rs = rules(**{"bonuses.heavenly": 10, "bonuses.earthly": 7})
    # the dealer wins on its dealt hand (天胡)
    _, s = play(rs, {0: "123m456m23p99p567p4p"}, "0H4p F8s", front="8s")
    check_ledger(s, "*>0 hand 11; *>0 self_draw 1")
    assert s.wins[0].patterns == ("plain", "heavenly", "self_draw")
    # a non-dealer wins on its first draw (地胡)
    _, s = play(rs, {0: DEALER_HAND, 1: PLAIN}, "0-9s 1+4p 1H4p F8s", front="4p8s")
    check_ledger(s, "*>1 hand 8; *>1 self_draw 1")


def test_pattern_mode_lets_situational_values_compete() -> None:
    rs = rules(**{"bonuses.mode": "pattern", "bonuses.kong_bloom": 10, "patterns.plain": 2})
    _, s = play(rs, {0: DEALER_HAND, 1: "5555m123p456p99p2m"}, "0-9s 1+3m 1C5m 1+4m 1H4m F7s",
                front="3m7s", back="4m")
    # kong bloom 10 beats plain 2; self-draw is still added; no separate kong_bloom item
    check_ledger(s, "*>1 hand 10; *>1 self_draw 1; -kong_bloom; *>1 concealed_kong 2")
    assert s.wins[0].patterns == ("kong_bloom", "self_draw")


def test_kong_bloom_adds_to_the_self_draw() -> None:
    _, s = play(family_ruleset(), {0: DEALER_HAND, 1: "5555m123p456p99p2m"},
                "0-9s 1+3m 1C5m 1+4m 1H4m F7s", front="3m7s", back="4m")
    check_ledger(s, "*>1 hand 1; *>1 self_draw 1; *>1 kong_bloom 1; *>1 concealed_kong 2")
    assert s.deltas == (-5, 15, -5, -5)


def test_declared_ready_at_least_and_add() -> None:
    events = "1R 0-9s 1+1m 1-1m 2+3s 2-3s 3+5s 3-5s 0+6s 0-6s 1+4p 1H4p F8s"
    _, s = play(family_ruleset(), {0: DEALER_HAND, 1: PLAIN}, events, front=SELF_DRAW_FRONT)
    check_ledger(s, "*>1 hand 10; *>1 self_draw 1; -declared_ready")
    assert "raised to declared_ready 报听 10 (硬报: at least 10)" in s.items[0].detail
    rs = rules(**{"ready.value_mode": "add", "ready.hard_value": 20, "ready.soft_value": 10})
    _, s = play(rs, {0: DEALER_HAND, 1: PLAIN}, events, front=SELF_DRAW_FRONT)
    check_ledger(s, "*>1 hand 1; *>1 self_draw 1; *>1 declared_ready 20")
    # a soft declaration (软听, right after the first draw) takes the soft value
    soft = "0-9s 1+1m 1R 1-1m 2+3s 2-3s 3+5s 3-5s 0+6s 0-6s 1+4p 1H4p F8s"
    _, s = play(rs, {0: DEALER_HAND, 1: PLAIN}, soft, front=SELF_DRAW_FRONT)
    check_ledger(s, "*>1 declared_ready 10")


def test_kill_ready_makes_the_declarer_pay_its_declaration_on_top() -> None:
    seat2 = "123s456s789s22s66m"  # declared ready on the dealt hand, waits 2s/6m
    events = "2R 0-9s 1+1m 1-1m 2+4p 2-4p 1H4p<2 F1p"
    _, s = play(family_ruleset(), {0: DEALER_HAND, 1: PLAIN, 2: seat2}, events,
                front="1m4p1p")
    check_ledger(s, "2>1 hand 1; 2>1 kill_ready 10")
    assert any("杀报" in line for line in s.explanation)
    # without 杀报 a big hand (its own pass) wins on the declarer's discard, nothing extra
    _, s = play(rules(**{"ready.kill_ready": False}),
                {0: DEALER_HAND, 1: "111m333m555p99p44p", 2: seat2}, events, front="1m4p1p")
    check_ledger(s, "2>1 hand 5")
    check_ledger(s, "-kill_ready")


def test_kill_ready_adds_nothing_to_a_self_draw() -> None:
    seat2 = "123s456s789s22s66m"
    events = "2R 0-9s 1+1m 1-1m 2+3m 2-3m 3+5s 3-5s 0+6s 0-6s 1+4p 1H4p F8s"
    _, s = play(family_ruleset(), {0: DEALER_HAND, 1: PLAIN, 2: seat2}, events,
                front="1m3m5s6s4p8s")
    check_ledger(s, "*>1 hand 1; *>1 self_draw 1; -kill_ready")


def test_dealer_and_streak_bonus_only_on_the_dealers_win() -> None:
    rs = rules(**{"dealer.bonus": 1, "dealer.streak_bonus": 1})
    dealer_win = "0-9s 1+1m 1-1m 2+3s 2-3s 3+5s 3-5s 0+4p 0H4p F8s"
    _, s = play(rs, {0: PLAIN + "9s"}, dealer_win, front="1m3s5s4p8s", streak=2)
    check_ledger(s, "*>0 hand 1; *>0 self_draw 1; *>0 dealer 1; *>0 dealer_streak 2")
    _, s = play(rs, {0: DEALER_HAND, 1: PLAIN}, SELF_DRAW_EVENTS, front=SELF_DRAW_FRONT,
                streak=2)
    check_ledger(s, "-dealer; -dealer_streak")


def test_missed_win_penalty_reverses_the_hand_payment() -> None:
    # seat 1 (all pungs, waits 9p/2m) lets seat 2's 9p pass, then wins on seat 3's 2m
    # before drawing again: 包牌
    deal = {0: DEALER_HAND, 1: "111m333m555p99p22m"}
    events = "0-9s 1+7s 1-7s 2+9p 2-9p 3+2m 3-2m 1H2m<3 F8s"
    rs = rules(**{"penalties.missed_win": True})
    replay, s = play(rs, deal, events, front="7s9p2m8s", allow=(ViolationCode.MISSED_WIN,))
    check_ledger(s, "1>* hand 5")
    assert s.wins[0].penalty and s.wins[0].payers == (2, 3, 0)
    assert any("包牌" in line for line in s.explanation)
    # without the penalty the win is paid as usual (and stays a missed_win finding)
    replay, s = play(family_ruleset(), deal, events, front="7s9p2m8s",
                     allow=(ViolationCode.MISSED_WIN,))
    assert [v.code for v in replay.violations] == [ViolationCode.MISSED_WIN]
    check_ledger(s, "3>1 hand 5")


# --------------------------------------------------------------------------------------
# kongs
# --------------------------------------------------------------------------------------

NOT_READY_KONG = "0-9s 1+1m 1-1m 2+7s 2C9m 2+2p 2-2p 3+3s 3-3s 0+6s 0-6s 1+4p 1H4p F8s"
NOT_READY_KONG_DEAL = {0: DEALER_HAND, 1: PLAIN, 2: "9999m2468s1356p9p"}


def test_a_kong_of_a_player_not_ready_scores_nothing() -> None:
    replay, s = play(family_ruleset(), NOT_READY_KONG_DEAL, NOT_READY_KONG,
                     front="1m7s3s6s4p8s", back="2p")
    assert not replay.seats[2].ready
    check_ledger(s, "-concealed_kong")
    assert ("seat 2's concealed kong 闷豆 of 9m does not score: seat 2 neither won nor is "
            "ready (双杀)") in s.explanation
    # with need_ready off it is paid by every other player
    _, s = play(rules(**{"kongs.need_ready": False}), NOT_READY_KONG_DEAL, NOT_READY_KONG,
                front="1m7s3s6s4p8s", back="2p")
    check_ledger(s, "*>2 concealed_kong 2")


def test_a_ready_players_kong_scores() -> None:
    deal = {0: DEALER_HAND, 1: PLAIN, 2: "9999m234s567s88s5s"}
    events = "0-9s 1+1m 1-1m 2+5s 2C9m 2+2p 2-2p 3+3s 3-3s 0+6s 0-6s 1+4p 1H4p F8s"
    replay, s = play(family_ruleset(), deal, events, front="1m5s3s6s4p8s", back="2p")
    assert replay.seats[2].ready
    check_ledger(s, "*>2 concealed_kong 2")


def test_exposed_kong_payer_and_uniform_value() -> None:
    deal = {0: "5m2469p2468s3579s9s", 1: "555m123p456p99p2m3m"}
    events = "0-5m 1E5m<0 1+4m 1H4m F7s"
    _, s = play(family_ruleset(), deal, events, front="7s", back="4m")
    check_ledger(s, "0>1 exposed_kong 1")
    _, s = play(rules(**{"kongs.exposed_payer": "every_other"}), deal, events, front="7s",
                back="4m")
    check_ledger(s, "*>1 exposed_kong 1")
    _, s = play(rules(**{"kongs.uniform": 3}), deal, events, front="7s", back="4m")
    check_ledger(s, "0>1 exposed_kong 3")


def test_a_delayed_kong_is_a_pass_that_scores_nothing() -> None:
    deal = {0: DEALER_HAND, 1: "5555m123p456p99p2m"}
    events = "0-9s 1+9m 1-9m 2+3s 2-3s 3+5s 3-5s 0+6s 0-6s 1+3m 1C5m 1+4m 1H4m F7s"
    replay, s = play(family_ruleset(), deal, events, front="9m3s5s6s3m7s", back="4m")
    assert replay.seats[1].kongs[0].delayed
    check_ledger(s, "-concealed_kong; *>1 kong_bloom 1")
    assert any("憨包豆" in line for line in s.explanation)
    _, s = play(rules(**{"kongs.delayed_scores": True}), deal, events, front="9m3s5s6s3m7s",
                back="4m")
    check_ledger(s, "*>1 concealed_kong 2")


def test_no_kong_is_paid_at_an_exhaustive_draw() -> None:
    record = _exhaustive(family_ruleset(), {0: DEALER_HAND, 1: "111m333m555p99p22m"})
    replay, s = settle_record(record, family_ruleset())
    assert replay.outcome is Outcome.EXHAUSTIVE_DRAW
    assert "no kong is paid at an exhaustive draw" in s.explanation


# hot discard: seat 2 (ready after it) makes a concealed kong and its replacement 4p deals
# seat 1's win
HOT_DEAL = {0: DEALER_HAND, 1: PLAIN, 2: "9999m234s567s88s5s"}
HOT_EVENTS = "0-9s 1+1m 1-1m 2+5s 2C9m 2+4p 2-4p 1H4p<2 F1p"


def test_hot_discard_pays_the_hand_and_the_hot_value_and_voids_the_kong() -> None:
    replay, s = play(family_ruleset(), HOT_DEAL, HOT_EVENTS, front="1m5s1p", back="4p")
    assert replay.winners[0].hot_discard and replay.seats[2].ready
    check_ledger(s, "2>1 hand 1; 2>1 hot_discard 1; -concealed_kong")
    assert ("seat 2's concealed kong 闷豆 of 9m does not score (热炮: the discard after it "
            "dealt the win)") in s.explanation


def test_hot_discard_forfeits_all_kongs_or_everything() -> None:
    # seat 2 makes an added kong of 8m, then a concealed kong of 9m whose replacement 4p
    # deals seat 1's win; seat 2 holds 1s and is ready (waiting on 1s) at the end
    deal = {0: "8m2469p2468s3579s7m", 1: PLAIN, 2: "9999m88m234s567s5s"}
    events = ("0-8m 2P8m<0 2-5s 3+3s 3-3s 0+6s 0-6s 1+1m 1-1m 2+8m 2A8m 2+1s 2C9m 2+4p "
              "2-4p 1H4p<2 F7s")
    front = "3s6s1m8m7s"
    replay, s = play(rules(**{"hot_discard.forfeit": "kong"}), deal, events, front=front,
                     back="1s4p")
    assert replay.seats[2].ready and replay.winners[0].hot_discard
    check_ledger(s, "*>2 added_kong 3; -concealed_kong; *>2 chicken 1")
    _, s = play(rules(**{"hot_discard.forfeit": "all_kongs"}), deal, events, front=front,
                back="1s4p")
    check_ledger(s, "-added_kong; -concealed_kong; *>2 chicken 1")
    _, s = play(rules(**{"hot_discard.forfeit": "kongs_and_chickens"}), deal, events,
                front=front, back="1s4p")
    check_ledger(s, "-added_kong; -concealed_kong; -chicken")


# robbed kong: seat 2 pongs 5m, later adds the fourth, seat 1 robs it
ROB_DEAL = {0: "5m7m2469p2468s3567s", 1: "123p456p99p34m789m", 2: "55m2468s1359p79s1m"}
ROB_EVENTS = "0-5m 2P5m<0 2-1m 3+3s 3-3s 0+6s 0-6s 1+1s 1-1s 2+5m 2A5m 1H5m<2 F8s"
ROB_FRONT = "3s6s1s5m8s"


def test_robbed_kong_variants() -> None:
    replay, s = play(family_ruleset(), ROB_DEAL, ROB_EVENTS, front=ROB_FRONT)
    assert replay.winners[0].robbed_kong and replay.seats[2].kongs[0].robbed
    check_ledger(s, "2>1 hand 10; -self_draw; -robbed_kong; -added_kong")
    assert "full_flush 清一色 10 (抢杠 valued as full_flush)" in s.items[0].detail
    rs = rules(**{"robbed_kong.valued_as": "pattern", "robbed_kong.counts_as_self_draw": True,
                  "robbed_kong.robbed_pays_for_all": True})
    _, s = play(rs, ROB_DEAL, ROB_EVENTS, front=ROB_FRONT)
    check_ledger(s, "2>1 hand 3; 2>1 self_draw 3")
    assert any("包三家" in line for line in s.explanation)
    rs = rules(**{"robbed_kong.valued_as": "plain", "robbed_kong.bonus": 9})
    _, s = play(rs, ROB_DEAL, ROB_EVENTS, front=ROB_FRONT)
    check_ledger(s, "2>1 hand 1; 2>1 robbed_kong 9")


def test_robbed_player_loses_chickens_under_quan_shao() -> None:
    # seat 2 holds a 1s and is ready after its pong; the robbing win burns its chickens
    deal = {0: "5m7m2469p2468s3567s", 1: "123p456p99p34m789m", 2: "55m11s234s678s66m1m"}
    events = "0-5m 2P5m<0 2-1m 3+3s 3-3s 0+6s 0-6s 1+2s 1-2s 2+5m 2A5m 1H5m<2 F8s"
    replay, s = play(family_ruleset(), deal, events, front="3s6s2s5m8s")
    assert replay.seats[2].ready
    check_ledger(s, "*>2 chicken 2")
    rs = rules(**{"robbed_kong.forfeit": "kongs_and_chickens"})
    _, s = play(rs, deal, events, front="3s6s2s5m8s")
    check_ledger(s, "-chicken")
    assert "none of seat 2's kongs or chickens score (its kong was robbed: 全烧)" in (
        s.explanation)


# --------------------------------------------------------------------------------------
# chickens
# --------------------------------------------------------------------------------------

CHICKEN_HAND = "11s777p888p23p567s"  # waits 1p/4p; 1s x2, 7p x3, 8p x3, 5s x1


def test_standing_flipped_and_gold_chickens() -> None:
    deal = {0: DEALER_HAND, 1: CHICKEN_HAND}
    events = "0-9s 1+1m 1-1m 2+3s 2-3s 3+5s 3-5s 0+6s 0-6s 1+4p 1H4p F4s"
    _, s = play(family_ruleset(), deal, events, front="1m3s5s6s4p4s")
    check_ledger(s, "*>1 chicken 3")  # 2 x 1s + 1 x 5s flipped
    counts = {(c.kind, c.tile): c.count for c in s.chickens}
    assert counts == {(ChickenKind.STANDING, Tile.S1): 2, (ChickenKind.FLIPPED, Tile.S5): 1}
    events = events.replace("F4s", "F9s")
    _, s = play(family_ruleset(), deal, events, front="1m3s5s6s4p9s")
    check_ledger(s, "*>1 chicken 4")  # 2 x 1s gold, x2
    assert [(c.kind, c.count) for c in s.chickens] == [(ChickenKind.GOLD, 2)]
    assert any("gold 金鸡" in line for line in s.explanation)


def test_chickens_of_a_player_not_ready_do_not_score() -> None:
    # seat 3 holds 1s but is not ready; with need_ready off it is paid too
    deal = {0: DEALER_HAND, 1: PLAIN, 3: "11s2468m2468p357s"}
    _, s = play(family_ruleset(), deal, SELF_DRAW_EVENTS.replace("3+5s 3-5s", "3+6m 3-6m"),
                front="1m3s6m6s4p8s")
    check_ledger(s, "-chicken")
    _, s = play(rules(**{"chickens.need_ready": False}), deal,
                SELF_DRAW_EVENTS.replace("3+5s 3-5s", "3+6m 3-6m"), front="1m3s6m6s4p8s")
    check_ledger(s, "*>3 chicken 2; *>0 chicken 1")  # the dealer keeps a 9s (flipped)


def test_charging_and_responsibility_chickens() -> None:
    charging = "0-9s 1+1s 1-1s 2+3s 2-3s 3+5s 3-5s 0+6s 0-6s 1+4p 1H4p F8s"
    _, s = play(family_ruleset(), {0: DEALER_HAND, 1: PLAIN}, charging,
                front="1s3s5s6s4p8s")
    check_ledger(s, "*>1 charging_chicken 2; -chicken; -responsibility_chicken")
    # 内外鸡 counts own discards, but the charging one only once
    _, s = play(rules(**{"chickens.scope": "hand_and_discards"}), {0: DEALER_HAND, 1: PLAIN},
                charging, front="1s3s5s6s4p8s")
    check_ledger(s, "*>1 charging_chicken 2; -chicken")
    # the first 1s ponged: the discarder pays the claimer, and there is no charging chicken
    deal = {0: "1s2469p2468s3579s7m", 1: "11s234s567s23p99p9m"}
    ponged = "0-1s 1P1s<0 1-9m 2+3s 2-3s 3+5s 3-5s 0+6s 0-6s 1+4p 1H4p F8s"
    _, s = play(family_ruleset(), deal, ponged, front="3s5s6s4p8s")
    check_ledger(s, "0>1 responsibility_chicken 1; *>1 chicken 3; -charging_chicken")
    assert any("no charging chicken 冲锋鸡 for 1s" in line for line in s.explanation)


def test_chicken_penalty_for_exposed_chickens_of_a_player_not_ready() -> None:
    events = "0-9s 1+1m 1-1m 2+1s 2-1s 3+1s 3-1s 0+6s 0-6s 1+4p 1H4p F8s"
    deal = {0: DEALER_HAND, 1: PLAIN}
    replay, s = play(rules(**{"chickens.penalty": True}), deal, events, front="1m1s1s6s4p8s")
    assert not replay.seats[2].ready and not replay.seats[3].ready
    check_ledger(s, "2>1 chicken_penalty 2; 3>1 chicken_penalty 1")
    _, s = play(family_ruleset(), deal, events, front="1m1s1s6s4p8s")
    check_ledger(s, "-chicken_penalty")


def test_concealed_kong_of_a_chicken_and_wildcards() -> None:
    deal = {0: DEALER_HAND, 1: "1111s123p456p99p2p"}
    events = "0-9s 1+3p 1C1s 1+4p 1H4p F7s"
    _, s = play(family_ruleset(), deal, events, front="3p7s", back="4p")
    check_ledger(s, "*>1 chicken 4; *>1 concealed_kong 2")
    _, s = play(rules(**{"chickens.concealed_kong_value": 6}), deal, events, front="3p7s",
                back="4p")
    check_ledger(s, "*>1 chicken 6; *>1 concealed_kong 2")


def test_chickens_at_an_exhaustive_draw() -> None:
    ready_hand = "11s888p234p567s99p"  # ready on 1s/9p: plain 1
    rs = rules(**{"chickens.at_exhaustive_draw": "unready_pay_ready",
                  "chickens.standing": [{"tile": "1s", "value": 1},
                                        {"tile": "8p", "value": 2}]})
    record = _exhaustive(rs, {0: DEALER_HAND, 1: ready_hand})
    replay, s = settle_record(record, rs)
    assert [x.ready for x in replay.seats] == [False, True, False, False]
    check_ledger(s, "*>1 chicken 8; *>1 ready_check 1")
    replay, s = settle_record(record, family_ruleset())
    check_ledger(s, "-chicken; *>1 ready_check 1")


# --------------------------------------------------------------------------------------
# exhaustive draw, next dealer
# --------------------------------------------------------------------------------------


def _exhaustive(ruleset: Ruleset, deal: dict[int, str], first: str = "9s") -> HandRecord:
    """A hand whose dealer (seat 0) discards ``first`` and whose players then discard
    every drawn tile until the wall is empty."""
    record = make_hand(deal, "", n_players=ruleset.players, wildcards=ruleset.wildcards)
    assert record.wall is not None
    n = ruleset.players
    tokens = [f"0-{first}"]
    for k, tile in enumerate(record.wall):
        seat = (1 + k) % n
        tokens.append(f"{seat}+{tile} {seat}-{tile}")
    tokens.append("X")
    return replace(record, events=parse_events(" ".join(tokens)))


def test_ready_check_pays_each_ready_player_its_best_wait() -> None:
    record = _exhaustive(family_ruleset(), {0: DEALER_HAND, 1: "111m333m555p99p22m"})
    replay, s = settle_record(record, family_ruleset())
    assert [x.ready for x in replay.seats] == [False, True, False, False]
    check_ledger(s, "*>1 ready_check 5")
    assert best_waiting_value(replay.seats[1], family_ruleset()) == (
        Tile.M2, Pattern.ALL_PUNGS, 5)
    assert any(line.startswith("查叫: seat 1 waits on 2m9p") for line in s.explanation)
    assert s.next_dealer == 0
    rs = rules(**{"dealer.exhaustive_draw": "by_readiness"})
    _, s = settle_record(record, rs)
    assert s.next_dealer == 1
    _, s = settle_record(record, rules(**{"draw.ready_check": False}))
    check_ledger(s, "-ready_check")
    assert s.deltas == (0, 0, 0, 0)


def _replay(ready: list[bool], dealer: int, outcome: Outcome = Outcome.EXHAUSTIVE_DRAW
            ) -> HandReplay:
    seats = tuple(
        SeatFacts(s, (), (), (), None, False, r, (), (), False) for s, r in enumerate(ready)
    )
    return HandReplay(hand_no=1, n_players=len(ready), dealer=dealer, outcome=outcome,
                      violations=(), winners=(), seats=seats, flip=None, chicken_discards=(),
                      wall_left=0, events_applied=0)


@pytest.mark.parametrize(
    ("ready", "dealer", "keep", "by_readiness"),
    [
        ([False, False, False, False], 2, 2, 2),  # nobody ready: the dealer stays
        ([True, True, True, True], 2, 2, 2),  # everybody ready: the dealer stays
        ([True, True, False, True], 0, 0, 2),  # exactly one not ready: that player deals
        ([True, False, False, True], 0, 0, 0),  # dealer ready, two not: the dealer stays
        ([False, False, True, True], 0, 0, 2),  # dealer not ready: first ready after it
        ([True, False, False, False], 1, 1, 0),  # wraps round the table
    ],
)
def test_next_dealer_after_an_exhaustive_draw(
    ready: list[bool], dealer: int, keep: int, by_readiness: int
) -> None:
    assert next_dealer_of(_replay(ready, dealer), family_ruleset()) == keep
    rs = rules(**{"dealer.exhaustive_draw": "by_readiness"})
    assert next_dealer_of(_replay(ready, dealer), rs) == by_readiness


# two winners on seat 2's 4p: seats 1 and 3 (both all pungs)
MULTI_DEAL = {0: "2369p2468s3579s9s7m", 1: "111m333m555m44p99p", 3: "222m666m888m4p777s"}
MULTI_EVENTS = "0-9s 1+1p 1-1p 2+4p 2-4p 1H4p<2 3H4p<2 F8s"


@pytest.mark.parametrize(
    ("rule", "expected"),
    [("first_from_dealer", 1), ("first_after_discarder", 3), ("discarder", 2)],
)
def test_two_winners_each_settled_and_next_dealer(rule: str, expected: int) -> None:
    rs = rules(**{"dealer.two_winners": rule})
    _, s = play(rs, MULTI_DEAL, MULTI_EVENTS, front="1p4p8s")
    check_ledger(s, "2>1 hand 5; 2>3 hand 5")
    assert s.next_dealer == expected
    assert [w.seat for w in s.wins] == [1, 3]


def test_three_winners_hand_the_deal_to_the_discarder() -> None:
    deal = {0: "2369p2468s3579s9s7m", 1: "111m333m555m4p666s", 2: "77m22p33p66p88s55s4p",
            3: "222m666m888m4p777s"}
    # seat 0 discards 4p (drawn): three players win on it
    events = "0-9s 1+1p 1-1p 2+9m 2-9m 3+3m 3-3m 0+4p 0-4p 1H4p<0 2H4p<0 3H4p<0 F8s"
    _, s = play(family_ruleset(), deal, events, front="1p9m3m4p8s")
    check_ledger(s, "0>1 hand 5; 0>2 hand 8; 0>3 hand 5")
    assert s.next_dealer == 0
    assert len(s.wins) == 3
    _, s = play(rules(**{"dealer.three_winners": "first_after_discarder"}), deal, events,
                front="1p9m3m4p8s")
    assert s.next_dealer == 1


# --------------------------------------------------------------------------------------
# properties
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", preset_names("guizhou"))
def test_simulated_hands_sum_to_zero_and_scale_with_the_stake(name: str) -> None:
    rs = load_preset(name)
    seen: set[str] = set()
    for game_no in range(3):
        game = simulate_game(rs, seed=7, game_no=game_no, hands=4)
        for hand in game.hands:
            replay = hand.replay
            one = settle(replay, rs, 1, dealer_streak=hand.record.dealer_streak)
            two = settle(replay, rs, 2, dealer_streak=hand.record.dealer_streak)
            assert one is not None and two is not None
            assert sum(one.deltas) == 0
            assert two.deltas == tuple(2 * d for d in one.deltas)
            assert [i.amount for i in two.items] == [2 * i.amount for i in one.items]
            assert all(i.amount > 0 and i.payer != i.payee for i in one.items)
            assert settle(replay, rs, 1, dealer_streak=hand.record.dealer_streak) == one
            seen.update(i.reason.value for i in one.items)
    assert "hand" in seen


def test_random_playouts_sum_to_zero_under_every_preset() -> None:
    players = Players(win=0.8, kong=0.9, pong=0.6, ready=0.8)
    for k, name in enumerate(preset_names("guizhou")):
        rs = load_preset(name)
        for record in random_hands(100 + k, 8, rs, players):
            replay = replay_hand(record, rs)
            for stake in (1, 3):
                s = settle(replay, rs, stake, dealer_streak=2)
                if replay.outcome is Outcome.INCOMPLETE:
                    assert s is None
                    continue
                assert s is not None
                assert sum(s.deltas) == 0
                assert all(i.amount % stake == 0 for i in s.items)
                assert all(d % stake == 0 for d in s.deltas)


def test_incomplete_hands_are_not_settled() -> None:
    record = make_hand({0: DEALER_HAND}, "0-9s 2+1m")  # out of turn: stops the replay
    replay = replay_hand(record, family_ruleset())
    assert replay.outcome is Outcome.INCOMPLETE
    assert settle(replay, family_ruleset()) is None
    with pytest.raises(ValueError, match="base stake"):
        settle(replay_hand(make_hand({0: DEALER_HAND}, "0-9s"), family_ruleset()),
               family_ruleset(), 0)


def test_reasons_have_chinese_terms_and_names_are_inserted() -> None:
    assert set(REASON_CHINESE) == set(Reason)
    assert Reason.CONCEALED_KONG.chinese == "闷豆"
    assert with_names(["seat 2 won on seat 0's discard", "seat 9"], ["张三", "", "李四"]) == (
        "seat 2 (李四) won on seat 0 (张三)'s discard", "seat 9")


# --------------------------------------------------------------------------------------
# audit_result
# --------------------------------------------------------------------------------------


def _settled() -> Settlement:
    _, s = play(family_ruleset(), {0: DEALER_HAND, 1: PLAIN}, SELF_DRAW_EVENTS,
                front=SELF_DRAW_FRONT)
    return s


def _items(s: Settlement) -> tuple[RecordedItem, ...]:
    return tuple(RecordedItem(i.payer, i.payee, i.amount, i.reason.value) for i in s.items)


def test_a_matching_record_gives_no_finding() -> None:
    s = _settled()
    assert audit_result(s, RecordedResult(s.deltas, s.next_dealer, _items(s)), 1) == ()
    assert audit_result(s, None, 1) == ()


def test_score_mismatch_names_seats_and_differences_item_mismatch_the_items() -> None:
    s = _settled()
    # the record forgot seat 2's self-draw payment and added a kong from seat 3
    items = [i for i in _items(s) if not (i.payer == 2 and i.reason == "self_draw")]
    items.append(RecordedItem(3, 1, 2, "concealed_kong"))
    deltas = (-2, 7, -1, -4)
    assert item_nets(items, 4) == list(deltas)  # the record is consistent in itself
    score, item = audit_result(s, RecordedResult(deltas, 1, tuple(items)), 4)
    assert score.code is ViolationCode.SCORE_MISMATCH and score.hand_no == 4 and not score.fatal
    assert "seat 1: recorded +7, recomputed +6 (off by +1)" in score.message
    assert "seat 2: recorded -1, recomputed -2 (off by +1)" in score.message
    assert "seat 3: recorded -4, recomputed -2 (off by -2)" in score.message
    assert "seat 0:" not in score.message
    assert "seat 2 -> seat 1" not in score.message  # the items are item_mismatch's
    assert item.code is ViolationCode.ITEM_MISMATCH and item.hand_no == 4 and not item.fatal
    assert item.message.startswith("2 recorded items differ from the recomputed ledger: ")
    assert "seat 2 -> seat 1 self_draw 自摸: recomputed 1, missing from the record" in (
        item.message)
    assert "seat 3 -> seat 1 concealed_kong 闷豆: recorded 2, not due (extra in the record)" in (
        item.message)
    # without items only the deltas are compared
    (v,) = audit_result(s, RecordedResult(deltas, 1, None), 4)
    assert v.code is ViolationCode.SCORE_MISMATCH


def test_item_mismatch_with_the_right_deltas() -> None:
    s = _settled()
    # the right amounts between the right seats, under a wrong reason: the deltas agree
    items = list(_items(s))
    first = items[0]
    items[0] = RecordedItem(first.payer, first.payee, first.amount, "exposed_kong")
    (v,) = audit_result(s, RecordedResult(s.deltas, s.next_dealer, tuple(items)), 3)
    assert v.code is ViolationCode.ITEM_MISMATCH and v.seat is None and not v.fatal
    assert v.message.startswith("2 recorded items differ")
    assert f"seat {first.payer} -> seat {first.payee} exposed_kong 点豆: recorded " \
        f"{first.amount}, not due (extra in the record)" in v.message
    # a reason the project does not know is named as it is
    items[0] = RecordedItem(first.payer, first.payee, first.amount, "tip")
    (v,) = audit_result(s, RecordedResult(s.deltas, s.next_dealer, tuple(items)), 3)
    assert f"seat {first.payer} -> seat {first.payee} tip: recorded {first.amount}" in v.message
    # split into two items of the same group: the sums agree, nothing to find
    if first.amount > 1:
        split = [RecordedItem(first.payer, first.payee, 1, first.reason),
                 RecordedItem(first.payer, first.payee, first.amount - 1, first.reason)]
        record = RecordedResult(s.deltas, s.next_dealer, (*split, *_items(s)[1:]))
        assert audit_result(s, record, 3) == ()


def test_item_sum_mismatch_items_against_the_own_deltas() -> None:
    s = _settled()
    items = list(_items(s))
    first = items[0]
    items[0] = RecordedItem(first.payer, first.payee, first.amount + 2, first.reason)
    # the deltas are right, the items are not and do not add up to them
    item, unbalanced = audit_result(s, RecordedResult(s.deltas, s.next_dealer, tuple(items)), 5)
    assert item.code is ViolationCode.ITEM_MISMATCH
    assert unbalanced.code is ViolationCode.ITEM_SUM_MISMATCH and not unbalanced.fatal
    payer, payee = sorted((first.payer, first.payee))
    assert unbalanced.seat is None  # two seats are off
    nets = item_nets(items, 4)
    assert unbalanced.message == (
        "the recorded items do not add up to the recorded deltas: "
        f"seat {payer}: items {format_amount(nets[payer])}, delta "
        f"{format_amount(s.deltas[payer])}; seat {payee}: items "
        f"{format_amount(nets[payee])}, delta {format_amount(s.deltas[payee])}"
    )
    # the record alone is checked even when the hand could not be settled
    (v,) = audit_result(None, RecordedResult(s.deltas, None, tuple(items)), 5)
    assert v.code is ViolationCode.ITEM_SUM_MISMATCH
    # an item naming a seat the record has no delta for
    bad = (*_items(s), RecordedItem(0, 7, 1, "hand"))
    codes = [v.code for v in audit_result(s, RecordedResult(s.deltas, None, bad), 5)]
    assert codes == [ViolationCode.ITEM_MISMATCH, ViolationCode.ITEM_SUM_MISMATCH]
    (v,) = audit_result(None, RecordedResult(s.deltas, None, bad), 5)
    assert v.message == "the recorded item 0 -> 7 hand 1 names seat 7, the record has 4 deltas"
    with pytest.raises(ValueError, match="names seat 7"):
        item_nets(bad, 4)
    # an empty breakdown is itemised: nothing paid, so every delta must be 0
    (v,) = audit_result(None, RecordedResult(s.deltas, None, ()), 5)
    assert v.code is ViolationCode.ITEM_SUM_MISMATCH
    assert audit_result(None, RecordedResult((0, 0, 0, 0), None, ()), 5) == ()


def test_every_settlement_check_in_order() -> None:
    s = _settled()
    items = list(_items(s))
    first = items[0]
    items[0] = RecordedItem(first.payer, first.payee, first.amount + 1, first.reason)
    deltas = (s.deltas[0] + 1, *s.deltas[1:])
    codes = [v.code for v in audit_result(s, RecordedResult(deltas, 3, tuple(items)), 6)]
    assert codes == [
        ViolationCode.NOT_ZERO_SUM,
        ViolationCode.SCORE_MISMATCH,
        ViolationCode.ITEM_MISMATCH,
        ViolationCode.ITEM_SUM_MISMATCH,
        ViolationCode.DEALER_MISMATCH,
    ]
    assert set(codes) == set(SETTLEMENT_CODES)


def test_score_mismatch_on_amounts_of_one_item_group() -> None:
    s = _settled()
    items = list(_items(s))
    items[0] = RecordedItem(items[0].payer, items[0].payee, 3, items[0].reason)
    deltas = (-2, 8, -4, -2)
    score, item = audit_result(s, RecordedResult(deltas, 1, tuple(items)), 1)
    assert score.code is ViolationCode.SCORE_MISMATCH
    assert item.message == (
        "1 recorded item differs from the recomputed ledger: "
        "seat 2 -> seat 1 hand 胡牌: recorded 3, recomputed 1")


def test_dealer_mismatch_and_not_zero_sum() -> None:
    s = _settled()
    (v,) = audit_result(s, RecordedResult(s.deltas, 0, None), 2)
    assert v.code is ViolationCode.DEALER_MISMATCH
    assert v.message == "the record says seat 0 deals next; by the rules it is seat 1"
    assert audit_result(s, RecordedResult(s.deltas, None, None), 2) == ()
    codes = [v.code for v in audit_result(s, RecordedResult((-2, 6, -2, -1), 1), 2)]
    assert codes == [ViolationCode.NOT_ZERO_SUM, ViolationCode.SCORE_MISMATCH]
    # the record itself is checked even when the hand could not be settled
    (v,) = audit_result(None, RecordedResult((1, 0, 0, 0)), 3)
    assert v.code is ViolationCode.NOT_ZERO_SUM
    assert "sum to 1" in v.message
    (v,) = audit_result(s, RecordedResult((-2, 6, -4)), 2)
    assert v.code is ViolationCode.SCORE_MISMATCH and "3 deltas" in v.message


def test_parse_ledger_notation() -> None:
    expected, reasons = parse_ledger("*>1 hand 2; 0,2>3 chicken 1; 0>3 chicken 1; -kill_ready", 4)
    assert expected == {"0>1 hand": 2, "2>1 hand": 2, "3>1 hand": 2, "0>3 chicken": 2,
                        "2>3 chicken": 1}
    assert reasons == {"hand", "chicken", "kill_ready"}
    with pytest.raises(ValueError):
        parse_ledger("1 hand 2", 4)


