"""Fault injection: every kind is made, and the audit finds exactly what the manifest says.

The end-to-end test writes faulted logs for every preset in both encodings, reads them
back with the parsers, audits every hand and compares the findings with ``faults.jsonl``
kind by kind: each injected fault is found (with all of its codes, the first at its event)
and nothing else is. The unit tests make each kind once on a hand chosen for it.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import orjson
import pytest

from zhuoji.flows.audit.bridge import hand_records
from zhuoji.flows.simulation.faults import (
    MALFORMED,
    Fault,
    FaultKind,
    expected_codes,
    fault_kinds,
    is_file_fault,
)
from zhuoji.flows.simulation.file_damage import damage_document, damage_stream_lines
from zhuoji.flows.simulation.hand_faults import inject_hand_fault
from zhuoji.flows.simulation.writer import (
    FAULTS_MANIFEST,
    SimulationRequest,
    build_game,
    run_simulation,
)
from zhuoji.parsers.errors import MalformedLogError
from zhuoji.parsers.models import Game
from zhuoji.parsers.read import (
    Encoding,
    generate_games,
    generate_stream_games_from_bytes,
    parse_document,
)
from zhuoji.parsers.write import format_document, generate_stream_lines
from zhuoji.rules.audit import audit_hand
from zhuoji.rules.bots import SimulatedHand, bots_of
from zhuoji.rules.families import family_named
from zhuoji.rules.families.guizhou.simulate import simulate_game
from zhuoji.rules.presets import load_preset, preset_names, resolve_ruleset
from zhuoji.rules.violations import ViolationCode

PRESETS = preset_names("guizhou")
EVERY_FAMILY = [*PRESETS, *preset_names("changsha")]


# --------------------------------------------------------------------------------------
# end to end: manifest against findings
# --------------------------------------------------------------------------------------


def _findings(folder: Path) -> tuple[dict[tuple[str, int], list[Any]], set[tuple[str, str]]]:
    """Findings per (game_id, hand_no) as [codes, first event index], and the malformed
    games as (file, game_id or "") pairs, for every log file of a folder."""
    hands: dict[tuple[str, int], list[Any]] = {}
    malformed: set[tuple[str, str]] = set()
    for path in sorted(folder.iterdir()):
        if path.name == FAULTS_MANIFEST:
            continue
        for game in generate_games(path):
            if isinstance(game, MalformedLogError):
                # a document holds one game: the file names it (a truncated one has no id)
                stream = ".jsonl" in path.name
                malformed.add((path.name, (game.game_id or "") if stream else ""))
                continue
            ruleset = load_preset(game.ruleset)
            for record in hand_records(game):
                findings = audit_hand(record, ruleset).findings
                if findings:
                    hands[(game.game_id, record.hand_no)] = [
                        [str(f.code) for f in findings], findings[0].event_index
                    ]
    return hands, malformed


def _assert_manifest_is_found(folder: Path, rows: list[dict[str, Any]], *, stream: bool) -> None:
    found, malformed = _findings(folder)
    wanted: dict[tuple[str, int], list[Any]] = {}
    wanted_malformed: set[tuple[str, str]] = set()
    for row in rows:
        assert row["expected"] == row["codes"][0]
        if row["expected"] == MALFORMED:
            wanted_malformed.add((row["file"], row["game_id"] if stream else ""))
        else:
            wanted[(row["game_id"], row["hand_no"])] = [row["codes"], row["event_index"]]
    # kind by kind: every injected fault is found as listed, and nothing else is found
    assert Counter(tuple(v[0]) for v in found.values()) == Counter(
        tuple(v[0]) for v in wanted.values())
    assert found == wanted
    assert malformed == wanted_malformed


@pytest.mark.slow
@pytest.mark.parametrize("encoding", [Encoding.DOCUMENT, Encoding.STREAM])
def test_audit_finds_every_injected_fault_and_nothing_else(
    tmp_path: Path, encoding: Encoding
) -> None:
    request = SimulationRequest(
        rulesets=tuple(EVERY_FAMILY), games=3, seed=41, hands_per_game=6, encoding=encoding,
        faults=0.4, games_per_file=2, gzip=encoding is Encoding.STREAM,
    )
    summary = run_simulation(request, tmp_path)
    rows = [orjson.loads(line) for line in (tmp_path / FAULTS_MANIFEST).read_bytes().splitlines()]
    assert rows == list(summary.faults)
    assert len(rows) > 0.25 * request.hands

    _assert_manifest_is_found(tmp_path, rows, stream=encoding is Encoding.STREAM)
    kinds = Counter(row["kind"] for row in rows)
    assert len(kinds) >= 12  # a spread of kinds, not one kind over and over
    assert any(row["game_id"].startswith("sim-changsha") for row in rows)


DATA = Path(__file__).resolve().parents[2] / "data"


@pytest.mark.parametrize(
    "folder",
    ["sample/sim/document", "sample/sim/stream", "sample/changsha", "sample/sichuan", "faulty"])
def test_the_committed_sample_matches_its_manifest(folder: str) -> None:
    """data/sample/sim and data/faulty are what the engine finds today (docs/simulator.md
    has the commands that regenerate them when the engine changes what it finds)."""
    rows = [orjson.loads(line)
            for line in (DATA / folder / FAULTS_MANIFEST).read_bytes().splitlines()]
    assert rows
    if folder.startswith("sample"):  # the sample parses: no file damage in it
        assert all(not is_file_fault(FaultKind(row["kind"])) for row in rows)
    else:
        assert any(is_file_fault(FaultKind(row["kind"])) for row in rows)
    _assert_manifest_is_found(DATA / folder, rows, stream=folder.endswith(("stream", "faulty")))


def test_same_seed_same_faults(tmp_path: Path) -> None:
    request = SimulationRequest(rulesets=("guiyang",), games=2, seed=5, hands_per_game=5,
                                faults=0.5)
    a = run_simulation(request, tmp_path / "a")
    b = run_simulation(request, tmp_path / "b", workers=2)
    assert a.faults == b.faults and a.faults
    for path in sorted((tmp_path / "a").iterdir()):
        assert path.read_bytes() == (tmp_path / "b" / path.name).read_bytes()


def test_no_fault_rate_no_manifest(tmp_path: Path) -> None:
    run_simulation(SimulationRequest(rulesets=("guiyang",), games=1, seed=1, hands_per_game=2),
                   tmp_path)
    assert not (tmp_path / FAULTS_MANIFEST).exists()


# --------------------------------------------------------------------------------------
# each kind, once
# --------------------------------------------------------------------------------------


@cache
def _hands(name: str, games: int) -> tuple[SimulatedHand, ...]:
    rs = load_preset(name)
    simulate = bots_of(rs).simulate_game
    return tuple(h for g in range(games)
                 for h in simulate(rs, seed=77, game_no=g, hands=8).hands)


def _preset_for(kind: FaultKind) -> str:
    if kind is FaultKind.WILDCARD_DISCARD:
        return "an-majiang"
    if kind is FaultKind.MISSING_SUIT:
        return "zunyi"
    return "guiyang"


def _games_for(kind: FaultKind, name: str) -> int:
    if name.startswith("changsha"):
        # seed 77: the first missed win is in game 2, the first draw from an empty wall
        # after a shown 海底 in game 6
        rare = {FaultKind.MISSED_WIN: 4, FaultKind.WALL_EXHAUSTED: 8}
    else:
        rare = {FaultKind.FROZEN_HAND: 40, FaultKind.MISSED_WIN: 25,
                FaultKind.WALL_EXHAUSTED: 12, FaultKind.KONG_TO_UNREADY: 6}
    return rare.get(kind, 2)


def _made(kind: FaultKind, name: str) -> Iterator[tuple[SimulatedHand, Any, Fault]]:
    rs = load_preset(name)
    for hand in _hands(name, _games_for(kind, name)):
        got = inject_hand_fault(hand, kind, rs, random.Random(hand.record.hand_no))
        if got is not None:
            yield hand, got[0], got[1]


HAND_KINDS = [k for k in FaultKind if not is_file_fault(k)]
_CHANGSHA = load_preset("changsha")
CHANGSHA_ONLY = {FaultKind.ILLEGAL_CHOW, FaultKind.NO_258_PAIR, FaultKind.BAD_SMALL_WIN,
                 FaultKind.BAD_SEABED, FaultKind.LOCKED_HAND, FaultKind.BAD_ROLL,
                 FaultKind.BAD_BIRD}
FAMILY_TESTED = set(family_named("sichuan").faults.kinds)
"""Kinds made and checked in the family's own test (tests/rules/test_sichuan_sim.py)."""
CASES = [
    *((kind, _preset_for(kind)) for kind in HAND_KINDS
      if kind not in CHANGSHA_ONLY and kind not in FAMILY_TESTED),
    *((kind, "changsha") for kind in fault_kinds(_CHANGSHA, stream=False)
      if not is_file_fault(kind)),
]
_RESULT_CODES = {ViolationCode.NOT_ZERO_SUM, ViolationCode.SCORE_MISMATCH,
                 ViolationCode.ITEM_MISMATCH, ViolationCode.ITEM_SUM_MISMATCH,
                 ViolationCode.DEALER_MISMATCH}


def test_every_hand_kind_has_a_case() -> None:
    assert {kind for kind, _ in CASES} == set(HAND_KINDS) - FAMILY_TESTED
    assert {kind for kind, name in CASES if name == "changsha"} >= CHANGSHA_ONLY | {
        FaultKind.MISSED_WIN, FaultKind.BAD_DEAL, FaultKind.NOT_IN_HAND, FaultKind.WRONG_DELTA}


@pytest.mark.parametrize(("kind", "name"), CASES, ids=[f"{n}-{k}" for k, n in CASES])
def test_each_hand_fault_kind_is_made_and_found_first(kind: FaultKind, name: str) -> None:
    made = next(_made(kind, name), None)
    assert made is not None, f"no {name} hand took a {kind}"
    hand, record, fault = made
    rs = load_preset(name)
    findings = audit_hand(record, rs).findings
    codes = tuple(str(f.code) for f in findings)
    assert codes == fault.codes
    if name.startswith("changsha") and codes != expected_codes(kind):
        # a tampered Changsha result: the checks its own settlement makes, first the kind's
        assert codes[0] == expected_codes(kind)[0] and set(codes) <= _RESULT_CODES
    else:
        assert codes == expected_codes(kind)
    assert findings[0].event_index == fault.event_index
    assert fault.note
    original = hand.record
    if fault.event_index is not None:
        # the edit point is the first deviation from the legal log, except where another
        # course of play leads to the fault: a player who lets a win pass (legal) before
        # the missed win, or keeps all three suits (legal moves) before winning with them
        at = fault.event_index
        first = next(i for i, (a, b) in enumerate(
            zip([*record.events, None], [*original.events, None], strict=False)) if a != b)
        if kind in (FaultKind.MISSED_WIN, FaultKind.MISSING_SUIT):
            assert first <= at
        else:
            assert first == at
    elif kind in (FaultKind.BAD_DEAL, FaultKind.TILE_OVERFLOW):
        assert record.events == original.events and record.deal != original.deal
    else:
        assert record.events == original.events and record.result != original.result


def test_kinds_follow_the_preset() -> None:
    assert FaultKind.WILDCARD_DISCARD in fault_kinds(load_preset("an-majiang"), stream=False)
    assert FaultKind.WILDCARD_DISCARD not in fault_kinds(load_preset("guiyang"), stream=False)
    assert FaultKind.MISSING_SUIT in fault_kinds(load_preset("zunyi"), stream=False)
    assert FaultKind.MISSING_SUIT not in fault_kinds(load_preset("guiyang"), stream=False)
    assert FaultKind.BROKEN_JSON_LINE in fault_kinds(load_preset("guiyang"), stream=True)
    assert FaultKind.BROKEN_JSON_LINE not in fault_kinds(load_preset("guiyang"), stream=False)
    # the Changsha family: its own illegal moves, none of Guizhou's rules
    for name in preset_names("changsha"):
        kinds = fault_kinds(load_preset(name), stream=False)
        assert {FaultKind.ILLEGAL_CHOW, FaultKind.NO_258_PAIR, FaultKind.BAD_SMALL_WIN,
                FaultKind.BAD_SEABED, FaultKind.LOCKED_HAND, FaultKind.MISSED_WIN,
                FaultKind.BAD_ROLL, FaultKind.BAD_BIRD} <= set(kinds)
        assert not {FaultKind.CHOW_NOT_ALLOWED, FaultKind.NO_PASS, FaultKind.FROZEN_HAND,
                    FaultKind.BAD_FLIP, FaultKind.MISSING_CHICKEN} & set(kinds)
    # and Guizhou none of Changsha's
    assert FaultKind.ILLEGAL_CHOW not in fault_kinds(load_preset("guiyang"), stream=True)
    assert FaultKind.BAD_SEABED not in fault_kinds(load_preset("zunyi"), stream=True)
    assert not {FaultKind.BAD_ROLL, FaultKind.BAD_BIRD} & set(
        fault_kinds(load_preset("guiyang"), stream=True))
    # the dice and birds kinds follow the mechanics: a roll by a hand that is not ready is a
    # fault only where a hand must be ready to throw, and there are birds to get wrong
    plain = resolve_ruleset("changsha", {"mechanics.birds": 0,
                                         "mechanics.kong_dice_needs_ready": False})
    assert not {FaultKind.BAD_ROLL, FaultKind.BAD_BIRD} & set(fault_kinds(plain, stream=False))


def test_a_hand_without_the_needed_situation_takes_no_fault() -> None:
    rs = load_preset("guiyang")
    for hand in _hands("guiyang", 2):
        if hand.record.events[-1].__class__.__name__ != "ExhaustiveDraw":
            assert inject_hand_fault(hand, FaultKind.WALL_EXHAUSTED, rs, random.Random(1)) is None
            return
    raise AssertionError("every hand ended in a draw")


# --------------------------------------------------------------------------------------
# file damage
# --------------------------------------------------------------------------------------


def _log_games() -> list[Any]:
    rs = load_preset("guiyang")
    return [build_game(simulate_game(rs, seed=9, game_no=g, hands=3),
                       simulate_game(rs, seed=9, game_no=g, hands=3).records, rs)
            for g in range(3)]


def _fault(kind: FaultKind, hand_no: int = 2, event: int = 5) -> Fault:
    return Fault(kind, hand_no, event, (MALFORMED,), "")


@pytest.mark.parametrize("kind", [FaultKind.TRUNCATED_FILE, FaultKind.BAD_TILE_TEXT])
def test_damaged_documents_do_not_parse(kind: FaultKind) -> None:
    game = _log_games()[0]
    data = format_document(game)
    assert parse_document(data) == game
    damaged = damage_document(data, _fault(kind), random.Random(3))
    with pytest.raises(MalformedLogError) as err:
        parse_document(damaged)
    if kind is FaultKind.TRUNCATED_FILE:
        assert data.startswith(damaged) and len(damaged) < len(data)
        # the cut is inside hand 2's event 5: everything before it is intact
        hand = orjson.loads(data)["hands"][1]
        assert orjson.dumps(hand["events"][4]) in damaged
        assert orjson.dumps(hand["events"][5]) not in damaged
    else:
        assert "hands[1].events[5].tile" in str(err.value)


@pytest.mark.parametrize(
    "kind", [FaultKind.TRUNCATED_FILE, FaultKind.BAD_TILE_TEXT, FaultKind.BROKEN_JSON_LINE]
)
def test_a_damaged_game_in_a_stream_leaves_the_next_game_readable(kind: FaultKind) -> None:
    games = _log_games()
    lines = [list(generate_stream_lines(g)) for g in games]
    lines[1] = damage_stream_lines(lines[1], _fault(kind), random.Random(4), last=False)
    read = list(generate_stream_games_from_bytes(b"".join(b"".join(x) for x in lines)))
    assert read[0] == games[0] and read[-1] == games[2]
    assert len(read) == 3 and isinstance(read[1], MalformedLogError)
    assert read[1].game_id == games[1].game_id


def test_a_truncated_last_game_ends_the_file_mid_line() -> None:
    games = _log_games()
    lines = list(generate_stream_lines(games[2]))
    cut = damage_stream_lines(lines, _fault(FaultKind.TRUNCATED_FILE), random.Random(4),
                              last=True)
    assert not cut[-1].endswith(b"\n") and len(cut) < len(lines)
    read = list(generate_stream_games_from_bytes(b"".join(cut)))
    assert len(read) == 1 and isinstance(read[0], MalformedLogError)
    assert "truncated" in str(read[0])


def test_faulted_game_keeps_the_other_hands_clean() -> None:
    """File damage makes its game malformed, so the game takes no other fault."""
    from zhuoji.flows.simulation.writer import fault_game

    rs = load_preset("guiyang")
    damaged = 0
    for g in range(30):
        game = simulate_game(rs, seed=3, game_no=g, hands=4)
        records, faults = fault_game(game, rs, 0.9, stream=True)
        if any(is_file_fault(f.kind) for f in faults):
            damaged += 1
            assert len(faults) == 1
            assert records == list(game.records)
    assert damaged > 0


def test_faults_use_their_own_generator() -> None:
    """The games are the same with and without faults: only the faulted hands differ."""
    from zhuoji.flows.simulation.writer import fault_game

    rs = load_preset("guiyang")
    game = simulate_game(rs, seed=3, game_no=0, hands=6)
    records, faults = fault_game(game, rs, 0.5, stream=False)
    faulted = {f.hand_no for f in faults}
    for record, original in zip(records, game.records, strict=True):
        assert (record != original) == (record.hand_no in faulted and not all(
            is_file_fault(f.kind) for f in faults if f.hand_no == record.hand_no))
    assert replace(records[0], result=None).deal == game.records[0].deal


def test_no_file_damage_leaves_only_hand_faults(tmp_path: Path) -> None:
    rs = load_preset("guiyang")
    assert any(is_file_fault(k) for k in fault_kinds(rs, stream=True))
    assert not any(is_file_fault(k) for k in fault_kinds(rs, stream=True, file_damage=False))
    request = SimulationRequest(rulesets=("guiyang",), games=3, seed=11, hands_per_game=6,
                                faults=1.0, file_damage=False)
    summary = run_simulation(request, tmp_path)
    assert summary.faults and all(not is_file_fault(FaultKind(r["kind"])) for r in summary.faults)
    for path in sorted(tmp_path.glob("*.json")):
        assert all(isinstance(g, Game) for g in generate_games(path))
