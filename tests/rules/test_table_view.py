"""Families read the table through its public view (:mod:`zhuoji.rules.view`), never through
the core's private names.

The family modules are every ``.py`` file under ``rules/families/<name>/`` and under the
test families: each package under ``tests/`` whose folder is named ``*_family`` or holds a
``family.py``. Each is read with :mod:`ast`; the rule, exact:

- **imports**: no ``from M import _x`` and no ``import M._x`` where ``M`` is a module of
  ``zhuoji.rules`` outside the family's own package (``zhuoji.rules.families.<name>``, or
  the test family's folder), a relative import resolved first; ``_x``: a name starting
  with one underscore, not a dunder;
- **attributes**: no attribute access ``X._x`` (one underscore, not a dunder) where ``X`` is
  anything but the bare names ``self`` or ``cls`` (the family's own objects keep their
  private parts to themselves), and no ``getattr``/``setattr``/``hasattr``/``delattr`` of
  such a name given as a string literal.

There is no exception: a family's own state of a hand is its state object (the table's
``family_state``), not a core slot.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from tests.support.builders import make_hand, test_ruleset
from zhuoji.rules.events import Ready
from zhuoji.rules.messages import Message
from zhuoji.rules.table import Phase, Table
from zhuoji.rules.tiles import Tile
from zhuoji.rules.view import TableEdit, TableView
from zhuoji.rules.violations import ViolationCode

ROOT = Path(__file__).resolve().parents[2]

_ATTR_FUNCTIONS = frozenset({"getattr", "setattr", "hasattr", "delattr"})


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


@cache
def family_folders() -> tuple[Path, ...]:
    """``rules/families/<name>/`` and the test families' folders."""
    found = [d for d in sorted((ROOT / "rules" / "families").iterdir())
             if (d / "__init__.py").is_file()]
    found += [d for d in sorted((ROOT / "tests").rglob("*"))
              if d.is_dir() and (d / "__init__.py").is_file()
              and (d.name.endswith("_family") or (d / "family.py").is_file())]
    return tuple(found)


def family_modules() -> list[Path]:
    """Every module of a family folder."""
    return [p for d in family_folders() for p in sorted(d.rglob("*.py"))]


def _module_name(path: Path) -> str:
    """The import name of a module (or package) of the checkout."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[0] == "rules":
        parts.insert(0, "zhuoji")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _own_package(path: Path) -> str:
    """The package of the family folder holding ``path``."""
    folder = next(d for d in family_folders() if d in path.parents)
    return _module_name(folder / "__init__.py")


def _is_core(module: str, own: str) -> bool:
    return ((module == "zhuoji.rules" or module.startswith("zhuoji.rules."))
            and module != own and not module.startswith(own + "."))


def offences(path: Path, root: Path = ROOT) -> Iterator[str]:
    """``file:line: what`` for each private name of the core the module reads."""
    rel = path.relative_to(root).as_posix()
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    module = _module_name(path) if root == ROOT else "zhuoji.rules.families.probe.mod"
    own = _own_package(path) if root == ROOT else "zhuoji.rules.families.probe"
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            if any(_private(p) for p in source.split(".")) and _is_core(source, own):
                yield f"{rel}:{node.lineno}: imports the private module {source}"
            elif _is_core(source, own):
                for alias in node.names:
                    if _private(alias.name):
                        yield f"{rel}:{node.lineno}: imports {alias.name} from {source}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if _is_core(alias.name, own) and any(_private(p) for p in alias.name.split(".")):
                    yield f"{rel}:{node.lineno}: imports the private module {alias.name}"
        elif isinstance(node, ast.Attribute):
            own = isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
            if _private(node.attr) and not own:
                yield f"{rel}:{node.lineno}: reads {ast.unparse(node.value)}.{node.attr}"
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id in _ATTR_FUNCTIONS and len(node.args) >= 2
              and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)
              and _private(node.args[1].value)):
            yield f"{rel}:{node.lineno}: {node.func.id} of {node.args[1].value!r}"


def test_the_family_modules_are_read() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in family_modules()}
    assert "rules/families/guizhou/legality.py" in names
    assert "rules/families/changsha/legality.py" in names
    assert "tests/rules/toy_family/__init__.py" in names


@pytest.mark.parametrize("path", family_modules(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_family_reads_a_private_name_of_the_core(path: Path) -> None:
    found = list(offences(path))
    assert not found, ("a family reads the table through zhuoji.rules.view.TableView, never "
                       "a private name of the core:\n" + "\n".join(found))


def test_the_check_finds_what_it_looks_for(tmp_path: Path) -> None:
    probe = tmp_path / "mod.py"
    probe.write_text(
        "from zhuoji.rules.table import Table, _after\n"
        "from zhuoji.rules import _hidden\n"
        "import zhuoji.rules._private_mod\n"
        "from zhuoji.rules.families.probe.patterns import _own_helper\n"
        "from zhuoji.rules.families.other.patterns import _their_helper\n"
        "from .patterns import _relative_own\n"
        "def hook(t, ev):\n"
        "    self._fine = cls._fine = t.__class__\n"
        "    a = t._hands[0]\n"
        "    b = getattr(t, '_phase')\n"
        "    t.table._v(1)\n"
        "    return t.hands, a, b\n",
        encoding="utf-8",
    )
    found = [line.partition(": ")[2] for line in offences(probe, tmp_path)]
    assert found.count("imports _after from zhuoji.rules.table") == 1
    assert "imports _hidden from zhuoji.rules" in found
    assert "imports the private module zhuoji.rules._private_mod" in found
    assert "imports _their_helper from zhuoji.rules.families.other.patterns" in found
    assert "reads t._hands" in found
    assert "getattr of '_phase'" in found
    assert "reads t.table._v" in found
    assert len(found) == 7, found  # not the family's own names, self, cls or dunders


def test_the_view_module_imports_nothing_of_the_table_at_run_time() -> None:
    tree = ast.parse((ROOT / "rules" / "view.py").read_text(encoding="utf-8"))
    for node in tree.body:  # module level, outside ``if TYPE_CHECKING:``
        if isinstance(node, ast.ImportFrom):
            assert not (node.module or "").startswith("zhuoji.rules.table"), node.lineno
        elif isinstance(node, ast.Import):
            assert not any(a.name.startswith("zhuoji.rules.table") for a in node.names)


@pytest.mark.parametrize("protocol", [TableView, TableEdit])
def test_the_table_has_every_member_of_the_view(protocol: type) -> None:
    members = {name for cls in protocol.__mro__ if cls.__module__ == "zhuoji.rules.view"
               for name in vars(cls) if not name.startswith("_")}
    assert {"hands", "rivers", "seat_melds", "violation", "describe_phase"} <= members
    assert not [name for name in sorted(members) if not hasattr(Table, name)]


# seat 1 holds all pungs and waits on 2p; the dealer discards 5m
DEAL = {
    0: "258m125999p13467s",
    1: "111333555777m2p",
    2: "234789m23p456s99s",
    3: "1669m2678p23588s",
}


def _table(events: str = "0-5m") -> Table:
    record = make_hand(DEAL, events, front="4p6s7p3p5s")
    table = Table.from_record(record, test_ruleset())
    for event in record.events:
        table.apply(event)
    return table


def test_the_view_reads_the_tables_own_state_without_a_copy() -> None:
    t = _table()
    view: TableView = t
    assert view.hands is view.hands and view.rivers is view.rivers
    assert view.seat_melds is view.seat_melds and view.declared_ready is view.declared_ready
    assert view.taken is view.taken and view.kong_records is view.kong_records
    assert [tuple(h) for h in view.hands] == [t.counts(s) for s in range(4)]
    assert [tuple(r) for r in view.rivers] == [t.discards(s) for s in range(4)]
    assert view.last_discard == view.rivers[0][-1] and view.last_discard.tile == Tile.M5
    assert list(view.won) == [False] * 4 and not view.claimed_any and view.last_draw == -1
    assert list(view.declared_ready) == [None] * 4 and view.set_aside is None
    assert view.known_wall is not None and view.wall_front == 0
    assert view.wall_back - view.wall_front == view.wall_left
    assert tuple(view.known_wall[view.wall_front:view.wall_back]) == view.wall
    assert view.wall_mechanics is None and not view.rob_offers
    assert view.seat_waits(1) == (Tile.P2,) and view.ready_now(1)
    assert view.suits_held(1, view.hands[1]) == 2


def test_the_view_words_a_violation_as_the_table_does() -> None:
    t = _table()
    view: TableView = t
    v = view.violation(ViolationCode.MISSED_WIN, 1, "because", fatal=False)
    assert (v.code, v.hand_no, v.event_index, v.seat, v.message, v.fatal) == (
        ViolationCode.MISSED_WIN, t.hand_no, t.event_index, 1, "because", False)
    assert view.violation(ViolationCode.PREMATURE_END, None, "m", at_event=False).event_index \
        is None
    assert view.describe_phase() == Message(
        "seat {seat} just discarded {tile}, seat {next:seat} draws next", 0, Tile.M5, 1)
    ev = Ready(2)
    assert view.describe_event(ev) == Message("seat {seat} declares ready", 2)
    assert view.after_event(ev, " but {n}", 3) == Message(
        "{e:event}{r:after_event}", view.describe_event(ev), Message(" but {n}", 3))


@pytest.mark.parametrize("frozen_now", [True, False])
def test_a_declaration_freezes_the_hand(frozen_now: bool) -> None:
    t = _table("")
    edit: TableEdit = t
    edit.declare_ready(2, hard=frozen_now, frozen_now=frozen_now)
    assert t.declared_ready_at(2) == t.event_index == 0
    assert t.is_hard_ready(2) is frozen_now and t.is_frozen(2) is frozen_now
    edit.end_hand()
    assert t.phase is Phase.ENDED and t.is_over
