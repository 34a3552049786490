"""The Sichuan bots and faults (issue 34 item 4): thousands of simulated hands of every
Sichuan preset audit clean, the players exchange, declare and discard their declared suit
as docs/simulator.md says and leave or stay after a win as the mode says, and each of the
family's injected faults is found with nothing else.

The recorded result of every hand must be the family's settlement of its replay, whatever
that settlement pays today: the tests compare with ``family_of(ruleset).settle``.
"""

from __future__ import annotations

import random
from collections import Counter
from functools import cache
from itertools import pairwise
from pathlib import Path

import orjson
import pytest

from tests.flows.test_faults import _assert_manifest_is_found
from zhuoji.flows.simulation.faults import expected_codes, fault_kinds, is_file_fault
from zhuoji.flows.simulation.hand_faults import inject_hand_fault
from zhuoji.flows.simulation.writer import FAULTS_MANIFEST, SimulationRequest, run_simulation
from zhuoji.rules.audit import audit_hand
from zhuoji.rules.bots import SimulatedGame, SimulatedHand, bots_of
from zhuoji.rules.events import DeclareSuit, Discard, Draw, Event, Exchange, ExhaustiveDraw, Win
from zhuoji.rules.families import family_named, family_of
from zhuoji.rules.families.sichuan.settings import Ruleset
from zhuoji.rules.families.sichuan.simulate import recorded_result, simulate_game
from zhuoji.rules.mechanics import mechanics_of
from zhuoji.rules.presets import load_preset, preset_names
from zhuoji.rules.settings import RulesetBase
from zhuoji.rules.table import Table

PRESETS = ["sichuan", "sichuan-sbr", "sichuan-xueliu", "sichuan-xuezhan"]
GAMES = 64  # per preset, of 8 hands: 2,048 hands in all
HANDS = 8
SEED = 2034


def _exchanging(name: str, to: str = "any") -> Ruleset:
    """A preset with 换三张 on (three tiles of one suit, passed ``to``)."""
    rs = load_preset(name)
    assert isinstance(rs, Ruleset)
    mech = rs.mechanics.model_copy(update={"exchange": 3, "exchange_to": to})
    return rs.model_copy(update={"mechanics": mech, "name": f"{name}-exchange-{to}"})


@cache
def _games(name: str) -> tuple[SimulatedGame, ...]:
    rs = load_preset(name)
    return tuple(simulate_game(rs, seed=SEED, game_no=g, hands=HANDS) for g in range(GAMES))


@cache
def _exchange_games(to: str) -> tuple[SimulatedGame, ...]:
    rs = _exchanging("sichuan-xuezhan", to)
    return tuple(simulate_game(rs, seed=SEED, game_no=g, hands=HANDS) for g in range(12))


def _hands(name: str) -> list[SimulatedHand]:
    return [h for g in _games(name) for h in g.hands]


def _assert_clean(rs: RulesetBase, hands: list[SimulatedHand]) -> None:
    family = family_of(rs)
    for hand in hands:
        record = hand.record
        audit = audit_hand(record, rs)
        assert audit.findings == (), (rs.name, record.hand_no, audit.findings)
        # the recorded result is the family's own settlement of the replay
        settlement = family.settle(audit.replay, rs, record.base_stake,
                                   dealer_streak=record.dealer_streak)
        assert record.result == recorded_result(settlement)


def test_the_family_names_its_bots() -> None:
    assert set(PRESETS) <= set(preset_names("sichuan"))
    for name in PRESETS:
        assert bots_of(load_preset(name)).simulate_game is simulate_game


@pytest.mark.parametrize("name", PRESETS)
def test_thousands_of_hands_audit_clean(name: str) -> None:
    hands = _hands(name)
    assert len(hands) * len(PRESETS) >= 2000
    _assert_clean(load_preset(name), hands)


@pytest.mark.parametrize("to", ["any", "next", "previous", "across"])
def test_hands_with_the_exchange_audit_clean(to: str) -> None:
    rs = _exchanging("sichuan-xuezhan", to)
    hands = [h for g in _exchange_games(to) for h in g.hands]
    _assert_clean(rs, hands)
    offsets = set()
    for hand in hands:
        passed = [e for e in hand.record.events if isinstance(e, Exchange)]
        assert len(passed) == 4 and hand.record.events[:4] == tuple(passed)
        offsets |= {(e.to - e.seat) % 4 for e in passed}
        for e in passed:
            # three tiles of the shortest suit holding three
            deal = hand.record.deal[e.seat]
            lengths = [sum(1 for t in deal if t // 9 == s) for s in range(3)]
            suit = e.tiles[0] // 9
            assert {t // 9 for t in e.tiles} == {suit} and len(e.tiles) == 3
            assert lengths[suit] == min(x for x in lengths if x >= 3)
    want = {"next": {1}, "previous": {3}, "across": {2}, "any": {1, 2, 3}}[to]
    assert offsets == want


@pytest.mark.parametrize("name", PRESETS)
def test_each_next_hand_is_dealt_by_the_settlements_next_dealer(name: str) -> None:
    for game in _games(name)[:20]:
        records = game.records
        assert records[0].dealer == 0
        for before, after in pairwise(records):
            assert before.result is not None
            nxt = before.result.next_dealer
            assert after.dealer == (before.dealer if nxt is None else nxt)
            streak = before.dealer_streak + 1 if after.dealer == before.dealer else 0
            assert after.dealer_streak == streak


def test_same_seed_same_games_and_verified_choices() -> None:
    for name in PRESETS:
        rs = load_preset(name)
        for g in range(3):
            verified = simulate_game(rs, seed=SEED, game_no=g, hands=HANDS, verify=True)
            assert verified == _games(name)[g]
    rs = _exchanging("sichuan-xuezhan")
    assert simulate_game(rs, seed=SEED, game_no=0, hands=HANDS, verify=True) == \
        _exchange_games("any")[0]
    assert simulate_game(load_preset("sichuan"), seed=SEED + 1, game_no=0, hands=2) != \
        _games("sichuan")[0]


@pytest.mark.parametrize("name", PRESETS)
def test_each_player_declares_its_shortest_suit_and_discards_it_first(name: str) -> None:
    rs = load_preset(name)
    for hand in _hands(name)[:200]:
        events = hand.record.events
        declared = {e.seat: "mps".index(e.suit.value) for e in events
                    if isinstance(e, DeclareSuit)}
        assert sorted(declared) == [0, 1, 2, 3]
        table = Table.from_record(hand.record, rs)
        for i, event in enumerate(events):
            if isinstance(event, DeclareSuit):
                counts = table.counts(event.seat)
                lengths = [sum(counts[9 * s:9 * s + 9]) for s in range(3)]
                assert lengths[declared[event.seat]] == min(lengths), (hand.record.hand_no, i)
            if isinstance(event, Discard):
                counts = table.counts(event.seat)
                void = declared[event.seat]
                holds = any(counts[9 * void:9 * void + 9])
                assert not holds or event.tile // 9 == void
            table.apply(event)


def _winners(events: tuple[Event, ...]) -> list[tuple[int, Win]]:
    return [(i, e) for i, e in enumerate(events) if isinstance(e, Win)]


def test_the_base_game_ends_at_the_first_win() -> None:
    """One winner, or several on one discard (一炮多响), and nothing after."""
    several = 0
    for hand in _hands("sichuan"):
        events = hand.record.events
        wins = _winners(events)
        if not wins:
            continue
        first = wins[0][0]
        assert all(isinstance(e, Win) for e in events[first:])
        assert len({(w.tile, w.from_seat) for _, w in wins}) == 1
        several += len(wins) > 1
    assert several > 0


@pytest.mark.parametrize("name", ["sichuan-xuezhan", "sichuan-sbr"])
def test_in_xuezhan_a_winner_leaves_and_the_others_play_on(name: str) -> None:
    """A seat that has won takes no further turn; the hand ends when one seat is left
    without a win or the wall ends; some hands have three winners."""
    by_count: Counter[int] = Counter()
    for hand in _hands(name):
        events = hand.record.events
        won: dict[int, int] = {}
        for i, e in enumerate(events):
            if isinstance(e, Win):
                assert e.seat not in won
                won[e.seat] = i
            elif isinstance(e, Draw | Discard):
                assert e.seat not in won, (hand.record.hand_no, i)
        by_count[len(won)] += 1
        assert len(won) == 3 or isinstance(events[-1], ExhaustiveDraw)
    assert by_count[3] > by_count[1] > 0 and by_count[2] > 0


# ----------------------------------------------------------------------- faults


_OWN = tuple(family_named("sichuan").faults.kinds)
_RARE = {"win_in_declared_suit", "meld_of_declared_suit", "wall_exhausted"}


def _kinds(rs: RulesetBase) -> list[str]:
    return [str(k) for k in fault_kinds(rs, stream=False) if not is_file_fault(k)]


def test_the_family_draws_its_kinds_as_its_mechanics_say() -> None:
    assert "acted_after_win" not in _kinds(load_preset("sichuan"))
    assert "acted_after_win" in _kinds(load_preset("sichuan-xuezhan"))
    assert "bad_exchange" not in _kinds(load_preset("sichuan-xuezhan"))
    assert "bad_exchange" in _kinds(_exchanging("sichuan-xuezhan"))
    for name in PRESETS:
        kinds = _kinds(load_preset(name))
        assert "illegal_chow" not in kinds and "missed_win" not in kinds
        assert {"declared_suit_first", "win_in_declared_suit", "chow_not_played",
                "bad_declaration", "meld_of_declared_suit"} <= set(kinds)


def _cases() -> list[tuple[str, str]]:
    cases = [(k, name) for name in PRESETS for k in _kinds(load_preset(name))]
    # with 换三张: the kinds of the setup and of 血战
    cases += [(k, "exchange") for k in _kinds(_exchanging("sichuan-xuezhan"))
              if k in {"bad_exchange", "bad_declaration", "declared_suit_first",
                       "acted_after_win"}]
    return cases


@pytest.mark.parametrize(("kind", "name"), _cases(), ids=[f"{n}-{k}" for k, n in _cases()])
def test_each_fault_is_found_and_nothing_else(kind: str, name: str) -> None:
    """Each kind is made in a simulated hand (the rare ones looked for in more hands), and
    the audit finds exactly its codes, the first at the fault's event."""
    if name == "exchange":
        rs: RulesetBase = _exchanging("sichuan-xuezhan")
        hands = [h for g in _exchange_games("any") for h in g.hands]
    else:
        rs = load_preset(name)
        hands = _hands(name)
    limit = len(hands) if kind in _RARE else 24
    made = 0
    for hand in hands[:limit]:
        got = inject_hand_fault(hand, kind, rs, random.Random(hand.record.hand_no))
        if got is None:
            continue
        record, fault = got
        findings = audit_hand(record, rs).findings
        codes = tuple(str(f.code) for f in findings)
        assert codes == fault.codes == expected_codes(kind), (kind, fault.note)
        assert findings[0].event_index == fault.event_index
        made += 1
        if made >= 3:
            break
    assert made > 0, f"no {name} hand took a {kind}"


def test_the_findings_of_the_family_kinds() -> None:
    """Each kind of the family gives the core's finding for the rule it breaks."""
    assert {k: expected_codes(k) for k in _OWN} == {
        "declared_suit_first": ("declared_suit_first",),
        "win_in_declared_suit": ("missing_suit",),
        "meld_of_declared_suit": ("illegal_pong",),
        "chow_not_played": ("chow_not_allowed",),
        "acted_after_win": ("acted_after_win",),
        "bad_exchange": ("bad_exchange",),
        "bad_declaration": ("bad_declaration",),
    }


@pytest.mark.slow
def test_the_simulator_finds_every_injected_fault_and_nothing_else(tmp_path: Path) -> None:
    """End to end: faulted logs of every preset written, read back and audited; the
    findings are the manifest's, kind by kind."""
    request = SimulationRequest(rulesets=tuple(PRESETS), games=4, seed=41, hands_per_game=6,
                                faults=0.5, games_per_file=2, file_damage=False)
    summary = run_simulation(request, tmp_path)
    rows = [orjson.loads(line) for line in (tmp_path / FAULTS_MANIFEST).read_bytes().splitlines()]
    assert rows == list(summary.faults)
    assert len(rows) > 0.3 * request.hands
    _assert_manifest_is_found(tmp_path, rows, stream=False)
    assert {row["kind"] for row in rows} & set(_OWN)


def test_play_after_win_is_the_mechanics() -> None:
    assert not mechanics_of(load_preset("sichuan")).play_after_win
    for name in ("sichuan-xuezhan", "sichuan-sbr"):
        mech = mechanics_of(load_preset(name))
        assert mech.play_after_win and not mech.winners_stay
    mech = mechanics_of(load_preset("sichuan-xueliu"))
    assert mech.play_after_win and mech.winners_stay


def test_in_xueliu_a_winner_stays_and_may_win_again() -> None:
    """血流成河: a winner takes its turns again, play goes on to the wall's end, and players
    win twice or more."""
    twice = played_on = 0
    wins: Counter[int] = Counter()
    for hand in _hands("sichuan-xueliu"):
        events = hand.record.events
        assert isinstance(events[-1], ExhaustiveDraw), hand.record.hand_no
        by_seat = Counter(e.seat for e in events if isinstance(e, Win))
        wins[sum(by_seat.values())] += 1
        twice += any(n >= 2 for n in by_seat.values())
        won: set[int] = set()
        acted_after = False
        for e in events:
            if isinstance(e, Win):
                won.add(e.seat)
            elif isinstance(e, Discard) and e.seat in won:
                acted_after = True
        played_on += acted_after
    assert played_on > 0.9 * len(_hands("sichuan-xueliu"))
    assert twice > len(_hands("sichuan-xueliu")) // 2
    assert max(wins) >= 8
