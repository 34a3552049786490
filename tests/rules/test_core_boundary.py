"""The boundary between the core (``rules/*.py``) and the families (``rules/families/*/``).

The core imports no family: every core module's imports are read (AST) and none may name
``zhuoji.rules.families.<name>``. The toy family of ``tests/rules/toy_family`` (its own settings
model, none of Guizhou's fields) replays hands through the core's table, which proves the
core reads no Guizhou setting; the same deals under a Guizhou preset show where the
family's own rules (通行证, 报听, 翻鸡) join the core's.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

import pytest

from tests.rules.toy_family import ToyRuleset
from tests.support.builders import make_hand
from zhuoji.rules.event_registry import all_event_kinds
from zhuoji.rules.events import Flip, HandRecord, Ready, Win
from zhuoji.rules.facts import Outcome
from zhuoji.rules.families import family_named
from zhuoji.rules.presets import load_preset
from zhuoji.rules.replay import replay_hand
from zhuoji.rules.table import (
    _KINDS,
    IllegalMoveError,
    Table,
    TableRules,
    table_rules_of,
)
from zhuoji.rules.tiles import HONOUR_TILES, Tile
from zhuoji.rules.violations import ViolationCode

RULES = Path(__file__).resolve().parents[2] / "rules"
C = ViolationCode


def _imported_modules(path: Path) -> list[tuple[int, str]]:
    """Every module a file imports, with its line (``from a import b`` gives ``a`` and
    ``a.b``: ``from zhuoji.rules.families import guizhou`` is an import of the family)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}:{node.lineno}: a relative import"
            base = node.module or ""
            out.append((node.lineno, base))
            out.extend((node.lineno, f"{base}.{alias.name}") for alias in node.names)
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", None) in (
                "import_module", "__import__"):
            for arg in node.args:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    out.append((node.lineno, arg.value))
    return out


def _family_imports(path: Path) -> list[tuple[int, str]]:
    """The imports of ``zhuoji.rules.families.<a family's folder>`` (or of anything in one)."""
    names = {p.name for p in (RULES / "families").iterdir() if p.is_dir()} - {"__pycache__"}
    bad = []
    for line, module in _imported_modules(path):
        parts = module.split(".")
        if parts[:3] == ["zhuoji", "rules", "families"] and len(parts) > 3 and parts[3] in names:
            bad.append((line, module))
    return bad


CORE_MODULES = sorted(p for p in RULES.glob("*.py")) + sorted((RULES / "core").glob("*.py"))


def test_the_core_modules_are_read() -> None:
    names = {p.stem for p in CORE_MODULES}
    assert {"table", "hand", "facts", "replay", "audit", "snapshot", "events"} <= names
    assert "simulate" not in names  # the Guizhou bots are the family's
    assert (RULES / "families" / "guizhou" / "simulate.py").is_file()
    assert (RULES / "families" / "guizhou" / "legality.py").is_file()


@pytest.mark.parametrize("path", CORE_MODULES, ids=lambda p: p.name)
def test_no_core_module_imports_a_family(path: Path) -> None:
    where = path.relative_to(RULES.parent)
    assert [f"{where}:{line} imports {module}" for line, module in _family_imports(path)] == []


def test_the_import_reader_finds_a_family_import(tmp_path: Path) -> None:
    """The reader the boundary test relies on sees each way of importing a family."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import zhuoji.rules.families.guizhou.patterns\n"
        "from zhuoji.rules.families import guizhou\n"
        "from zhuoji.rules.families.guizhou.settings import Ruleset\n"
        "from zhuoji.rules.families import family_of\n"
        "import importlib\nimportlib.import_module('zhuoji.rules.families.guizhou.family')\n",
        encoding="utf-8",
    )
    found = _family_imports(sample)
    assert sorted({line for line, _ in found}) == [1, 2, 3, 6]  # not 4: the registry
    assert (3, "zhuoji.rules.families.guizhou.settings") in found


# ---------------------------------------------------------------------- the toy family
TOY = ToyRuleset(name="toy-table")
# seat 0 deals; seat 1 waits on 4s or 7s with a plain hand (no kong, no 报听: no 通行证 in Guizhou)
DEAL = {0: "258m125999p13457s", 1: "123456789m44p56s", 2: "345789m22p456s99s"}
FRONT = "4p6s7p3p5s"


def _toy_set(record: HandRecord) -> HandRecord:
    """A hand of the toy's 136 tiles: the honours at the back of the wall."""
    assert record.wall is not None
    return replace(record, wall=record.wall + tuple(t for t in HONOUR_TILES for _ in range(4)))


def _hand(events: str) -> HandRecord:
    return _toy_set(make_hand(DEAL, events, front=FRONT, hand_no=3))


def test_the_toy_rules_come_from_its_own_settings() -> None:
    rules = table_rules_of(TOY)
    assert isinstance(rules, TableRules) and rules is table_rules_of(TOY)  # once per ruleset
    assert (rules.family, rules.name, rules.players) == ("toy", "toy-table", 4)
    assert rules.multiple_winners and not rules.robbing_kong
    assert Ready not in rules.kinds and Flip not in rules.kinds and Win in rules.kinds
    assert not hasattr(TOY, "pass_rule") and not hasattr(TOY, "flip_chicken")
    guizhou = table_rules_of(load_preset("guiyang"))
    assert Ready in guizhou.kinds and Flip in guizhou.kinds and guizhou.family == "guizhou"


def test_a_toy_hand_replays_through_the_core() -> None:
    """Seat 1 wins on the dealer's 4s: the toy has no pass rule and no flip, so the hand is
    clean and over at the win; under Guizhou the same win needs a 通行证."""
    record = _hand("0-4s 1H4s<0")
    toy = replay_hand(record, TOY)
    assert toy.violations == () and toy.outcome is Outcome.WIN
    (win,) = toy.winners
    assert (win.seat, win.tile, win.from_seat) == (1, Tile.S4, 0)
    assert win.shape == ("win",) and win.situational == () and win.passes == ()
    assert win.waits == (Tile.S4, Tile.S7)
    table = replay_hand(record, TOY, keep_table=True).table
    assert table is not None and table.is_over and table.legal_actions() == []
    guizhou = replay_hand(make_hand(DEAL, "0-4s 1H4s<0", front=FRONT, hand_no=3),
                          load_preset("guiyang"))
    assert [v.code for v in guizhou.violations] == [C.NO_PASS]


def test_a_toy_hand_plays_on_the_core_rules() -> None:
    """Draws, discards, a pong and an exhaustive check through the core: the same codes as
    in any family where the core's rule applies."""
    record = _hand("0-9p 1+4p 1-4p 2+6s 2-6s")
    table = Table.from_record(record, TOY)
    assert table.run(record.events) is None and table.event_index == 5
    end = table.finish()  # the log stops mid-hand
    assert end is not None and end.code is C.PREMATURE_END
    late = replay_hand(_hand("0-9p 2+4p"), TOY)
    assert [v.code for v in late.violations] == [C.OUT_OF_TURN]
    pong = _hand("0-2p 2P2p<0 2-9s")
    table = Table.from_record(pong, TOY)
    assert table.run(pong.events) is None and len(table.melds(2)) == 1
    early = replay_hand(_hand("0-9p X"), TOY)
    assert [v.code for v in early.violations] == [C.PREMATURE_END]


def test_a_heavenly_toy_win_names_the_toy_situation() -> None:
    record = _toy_set(make_hand({0: "111222333m444p55s"}, "0H5s", hand_no=4))
    (win,) = replay_hand(record, TOY).winners
    assert win.heavenly and win.shape == ("win",) and win.situational == ("heavenly",)


def test_event_not_in_family_for_the_toy() -> None:
    """报听 and 翻鸡 are Guizhou's: the toy's table knows no such kind."""
    ready = replay_hand(_hand("1R"), TOY)
    (v,) = ready.violations
    assert (v.code, v.event_index, v.seat, v.fatal) == (C.EVENT_NOT_IN_FAMILY, 0, 1, True)
    assert "toy family" in v.message and "no ready event" in v.message
    flip = replay_hand(_hand("0-4s 1H4s<0 F4p"), TOY)
    (v,) = flip.violations
    assert (v.code, v.event_index, v.seat) == (C.EVENT_NOT_IN_FAMILY, 2, None)
    table = Table.from_record(_hand(""), TOY)
    assert table.check(Ready(0)) is not None
    with pytest.raises(IllegalMoveError, match="event_not_in_family"):
        table.apply(Ready(0))
    assert table.event_index == 0  # nothing changed
    # under Guizhou 报听 is its own event: seat 1's dealt hand is ready (硬报)
    guizhou = make_hand(DEAL, "", front=FRONT, hand_no=3)
    assert Table.from_record(guizhou, load_preset("guiyang")).check(Ready(1)) is None


def test_a_family_lists_the_kinds_its_table_plays() -> None:
    """Guizhou's registration names the events its table rules add (``chow`` is among the
    table's kinds only to be rejected with ``chow_not_allowed``)."""
    guizhou = family_named("guizhou")
    rules = table_rules_of(load_preset("guiyang"))
    names = {k.cls: k.name for k in all_event_kinds()}
    added = {names[k] for k in rules.kinds if k not in _KINDS}
    assert added - {"chow"} == set(guizhou.event_kinds) == {"ready", "flip"}
    assert set(_KINDS) <= set(rules.kinds)
