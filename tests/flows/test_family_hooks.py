"""What a family adds to the simulator's faults, the referee's text and the audit's JSON
reaches them through its registered ``Family`` only (``faults``, ``text_lines``,
``json_keys``): the simulator's and the views' modules name no family, each shipped family
declares its own fault kinds, and a family kept in this test adds a fault kind, lines and
keys that ``fault_kinds``, ``inject_hand_fault``, ``format_hand`` and ``hand_json`` show.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import pytest
from pydantic import Field

from tests.rules.toy_family import ToyRuleset
from tests.support.builders import make_hand
from zhuoji.flows.audit.bridge import game_from_records
from zhuoji.flows.audit.files import GameAudit, hand_json
from zhuoji.flows.cli.audit_text import format_hand
from zhuoji.flows.simulation.faults import (
    CoreFault,
    FaultKind,
    expected_codes,
    family_faults,
    fault_kinds,
)
from zhuoji.flows.simulation.hand_faults import inject_hand_fault
from zhuoji.rules.audit import audit_hand
from zhuoji.rules.bots import SimulatedHand
from zhuoji.rules.events import Discard, HandRecord
from zhuoji.rules.families import families, family_named, register
from zhuoji.rules.faults import Attempt, FamilyFaults, FaultContext
from zhuoji.rules.glossary import text
from zhuoji.rules.ledger import LedgerItem, WinValue, audit_ledger
from zhuoji.rules.presets import load_preset, preset_names
from zhuoji.rules.referee import (
    JSON_END,
    JSON_OUTCOME,
    JSON_WINNER,
    TEXT_SETTLEMENT,
    TEXT_TABLE,
    TEXT_TILES,
    HandText,
    seat_text,
)
from zhuoji.rules.replay import HandReplay, replay_hand
from zhuoji.rules.table import TableRules
from zhuoji.rules.tiles import HONOUR_TILES, Tile

ROOT = Path(__file__).resolve().parents[2]
OWN_FILES = [
    *sorted((ROOT / "flows" / "simulation").glob("*.py")),
    ROOT / "flows" / "cli" / "simulate.py",
    ROOT / "flows" / "cli" / "audit_text.py",
    ROOT / "flows" / "cli" / "audit.py",
    ROOT / "flows" / "text" / "verdict.py",
    ROOT / "flows" / "audit" / "files.py",
]


@pytest.mark.parametrize("path", OWN_FILES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_the_simulator_and_the_audit_views_name_no_family(path: Path) -> None:
    """A family's name is data: these modules say what a mechanic does, and ask the
    registry for the rest."""
    # the shipped families, by their folders (a test family registered earlier in the same
    # process may use a core settlement, and its name, e.g. "wall", is a word these modules use)
    names = {d.name for d in (ROOT / "rules" / "families").iterdir() if (d / "family.py").is_file()}
    assert names >= {"guizhou", "changsha"}
    source = path.read_text(encoding="utf-8").lower()
    assert [n for n in sorted(names | {"sichuan", "xuezhan"}) if n in source] == []


def test_each_shipped_family_declares_its_own_fault_kinds() -> None:
    core = {str(k) for k in CoreFault}
    seen: set[str] = set()
    for faults in family_faults():
        own = set(faults.kinds)
        assert not own & core and not own & seen, own
        seen |= own
        assert set(faults.injectors) == own
        assert faults.results <= own and set(faults.codes) <= own
    # FaultKind lists the kinds of the families registered when it is made: the shipped
    assert {str(k) for k in FaultKind} >= core | {
        k for f in families() if f.faults is not None
        and f.settle.__module__.startswith("zhuoji.rules.") for k in f.faults.kinds}
    for family in ("guizhou", "changsha"):
        faults = family_named(family).faults
        assert isinstance(faults, FamilyFaults)
        for name in preset_names(family):
            kinds = set(fault_kinds(load_preset(name), stream=True))
            assert kinds <= core | set(faults.kinds), name


# --------------------------------------------------------------- a family kept in this test


class HookedRuleset(ToyRuleset):
    family: Literal["hooked"] = Field(  # type: ignore[assignment]
        "hooked", description="the rule family")


EXTRA_DISCARD = "extra_discard"


def _drawn(ruleset: Any, core: Any) -> tuple[str, ...]:
    return (EXTRA_DISCARD, *(str(k) for k in CoreFault if k in core))


def _extra_discard(c: FaultContext) -> list[Attempt]:
    seat = c.events[-1].seat if hasattr(c.events[-1], "seat") else 0
    return [(c.edited([*c.events, Discard(seat, Tile.M1)]), len(c.events), "one more")]


def _text_lines(place: str, view: HandText) -> list[str]:
    if place == TEXT_TILES:
        return ["hooked tiles"]
    if place == TEXT_TABLE:
        return [text("  none", view.lang, view.words) + " hooked table"]
    if place == TEXT_SETTLEMENT:
        return [f"hooked settlement full={view.full} {view.seat(1)} {view.tile(Tile.S4)}"]
    return []


def _json_keys(place: str, hand: Any, winner: int | None = None) -> dict[str, Any]:
    if place == JSON_OUTCOME:
        return {"hooked_outcome": hand.replay.outcome.value}
    if place == JSON_WINNER:
        return {"hooked_winner": winner}
    if place == JSON_END:
        return {"hooked_end": True}
    return {}


@dataclass(frozen=True)
class _Settlement:
    """The winner takes one stake from every other seat."""

    items: tuple[LedgerItem, ...]
    deltas: tuple[int, ...]
    next_dealer: int
    wins: tuple[WinValue, ...]
    explanation: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ("hand",)


def _settle(replay: HandReplay, ruleset: Any, base_stake: int, **_: Any) -> _Settlement | None:
    if not replay.winners:
        return None
    n = len(replay.seats)
    (win,) = replay.winners
    payers = tuple(s for s in range(n) if s != win.seat)
    items = tuple(LedgerItem(p, win.seat, base_stake, "hand", "win") for p in payers)
    deltas = tuple(base_stake * len(payers) if s == win.seat else -base_stake
                   for s in range(n))
    return _Settlement(items, deltas, win.seat, (WinValue(win.seat, (), base_stake, payers),))


def _win_names(table: Any, plan: Any, heavenly: bool, *_: Any) -> tuple[Any, ...]:
    """Every win is a plain hand (a pattern with its words in the glossary)."""
    return (), ("plain",), ()


def _table_rules(ruleset: Any) -> TableRules:
    return TableRules("hooked", ruleset.name, players=ruleset.players,
                      multiple_winners=True, win_patterns=_win_names)


HOOKED = register(replace(
    family_named("toy"), name="hooked", title="a test family with hooks",
    settings=HookedRuleset, settle=_settle, audit_result=audit_ledger,
    table_rules=_table_rules, patterns=("plain",),
    text_lines=_text_lines, json_keys=_json_keys,
    faults=FamilyFaults(
        kinds=(EXTRA_DISCARD,), drawn=_drawn, injectors={EXTRA_DISCARD: _extra_discard},
        codes={EXTRA_DISCARD: ("event_after_end",)}),
))
RULESET = HookedRuleset(name="hooked-test")
DEAL = {0: "258m125999p13457s", 1: "123456789m44p56s", 2: "345789m22p456s99s"}


def _record() -> HandRecord:
    record = make_hand(DEAL, "0-4s 1H4s<0", front="4p6s7p3p5s", hand_no=3)
    assert record.wall is not None
    return replace(record, wall=record.wall + tuple(t for t in HONOUR_TILES for _ in range(4)))


def test_a_familys_own_fault_kind_is_drawn_and_injected_as_it_registers() -> None:
    kinds = fault_kinds(RULESET, stream=False)
    assert kinds[0] == EXTRA_DISCARD and CoreFault.BROKEN_JSON_LINE not in kinds
    assert expected_codes(EXTRA_DISCARD) == ("event_after_end",)
    record = _record()
    replay = replay_hand(record, RULESET)
    hand = SimulatedHand(record=record, dice=(1, 1), replay=replay, settlement=None)
    made = inject_hand_fault(hand, EXTRA_DISCARD, RULESET, random.Random(1))
    assert made is not None
    faulted, fault = made
    assert fault.kind == EXTRA_DISCARD and fault.codes == ("event_after_end",)
    assert fault.event_index == len(record.events) == len(faulted.events) - 1


def _game_audit() -> GameAudit:
    record = _record()
    game = game_from_records([record], game_id="hooked-1", ruleset="hooked-test")
    return GameAudit("hooked.json", game, RULESET, None, (audit_hand(record, RULESET),))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_familys_lines_reach_the_referees_text_where_it_places_them(lang: Any) -> None:
    audit = _game_audit()
    full = format_hand(audit, audit.hands[0], full=True, lang=lang)
    tiles = full.index("hooked tiles")
    table = next(i for i, line in enumerate(full) if line.endswith(" hooked table"))
    settled = next(i for i, line in enumerate(full) if line.startswith("hooked settlement"))
    assert full[tiles - 1].startswith("  " + seat_text(3, audit.names, lang))
    assert table == tiles + 1 and settled == table + 1
    assert full[settled].startswith("hooked settlement full=True")
    assert full[settled + 1] == text("ledger (recomputed):", lang, "hooked")
    short = format_hand(audit, audit.hands[0], full=False, lang=lang)
    assert "hooked tiles" not in short
    assert any(line.startswith("hooked settlement full=False") for line in short)
    if lang == "zh":
        assert full[table] == "  无 hooked table" and "4s" not in full[settled]


def test_a_familys_keys_reach_the_audit_json_where_it_places_them() -> None:
    audit = _game_audit()
    obj = hand_json(audit, audit.hands[0])
    keys = list(obj)
    assert keys[keys.index("outcome") + 1] == "hooked_outcome"
    assert obj["hooked_outcome"] == "win" and keys[-1] == "hooked_end"
    assert [w["hooked_winner"] for w in obj["winners"]] == [0]
    assert list(obj["winners"][0])[-1] == "hooked_winner"


def test_a_family_without_hooks_adds_nothing() -> None:
    toy = family_named("toy")
    assert toy.faults is None and toy.text_lines is None and toy.json_keys is None
    assert HOOKED.faults is not None
    assert not re.search("hooked", " ".join(map(str, fault_kinds(
        ToyRuleset(name="toy-4"), stream=True))))
