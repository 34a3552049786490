"""Rule families: the registry, and one subpackage per family (``rules/families/<name>/``).

A family is a system of games sharing a tile set and a way of settling (捉鸡, the
chicken-scoring family, is the first). Its folder registers one :class:`Family` when
imported: its name, its settings model (a :class:`~zhuoji.rules.settings.RulesetBase`
subclass, the TOML presets of the family are validated by it), its settlement, its
patterns, its tile set, the event kinds it adds to the core's and its table rules
(``table_rules``: what the core's table plays a ruleset of the family with). No family
imports another; the registry finds the families by importing the ``family`` module of
every subpackage of this package on first use (:func:`families`), so adding a family is
adding a folder. A family kept outside this package (a platform's own, a test's) is found
at the same moment, without editing zhuoji, through the entry points of the group
``zhuoji.families`` (:data:`ENTRY_POINTS`) and the environment variable
``ZHUOJI_FAMILIES`` (:data:`FAMILIES_ENV`), each naming a family's registration module or
folder (:func:`plugin_entries`); a family's module may also register itself with
:func:`register` when it is imported.

A family's folder also holds its words (``glossary.toml``: its name and title in both
languages, its patterns, terms and messages, :mod:`zhuoji.rules.glossary`) and its presets
(``presets/*.toml``, :mod:`zhuoji.rules.presets`), found there by name
(:func:`family_folder`); the family a preset names by default is the one registered with
``default=True`` (:func:`default_family`).

``docs/rules/families.md`` describes the split between the core and a family, and how to
add one.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import os
import pkgutil
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from types import MappingProxyType, ModuleType
from typing import Any

from zhuoji.rules.event_kinds import EventKind
from zhuoji.rules.marks import HandMarks, Mark
from zhuoji.rules.messages import Message
from zhuoji.rules.settings import RulesetBase, RulesetError
from zhuoji.rules.tiles import TileSet

__all__ = [
    "ENTRY_POINTS",
    "FAMILIES_ENV",
    "Family",
    "FamilyPluginError",
    "UnknownFamilyError",
    "default_family",
    "families",
    "family_folder",
    "family_named",
    "family_names",
    "family_of",
    "plugin_entries",
    "register",
    "registered",
    "replayable",
]

class UnknownFamilyError(RulesetError):
    """A family name no registered family has."""


class FamilyPluginError(RulesetError):
    """A family kept outside this package (an entry point, an entry of ``ZHUOJI_FAMILIES``)
    that cannot be imported or registers no family."""


@dataclass(frozen=True)
class Family:
    """One rule family, as its folder registers it."""

    name: str
    """The family's name (its folder's name): what a preset's ``family`` says."""
    title: str = field(default="", kw_only=True)
    """One line for ``zhuoji rules list`` where the family's words give none (their
    ``[family_title]`` entry, in both languages: :func:`zhuoji.rules.glossary.family_title`)."""
    settings: type[RulesetBase]
    """The settings model: every preset of the family is validated by it."""
    settle: Callable[..., Any]
    """The settlement: ``settle(replay, ruleset, base_stake, ...)`` -> the hand's ledger."""
    audit_result: Callable[..., Any]
    """The comparison of a settlement with a recorded result -> its violations."""
    patterns: tuple[str, ...]
    """The family's pattern names, in their canonical order."""
    tile_set: TileSet
    """The tiles a game of the family is played with (108, 136 or 144)."""
    event_kinds: frozenset[str] = frozenset()
    """The event types the family adds to the core's (``chow``, ``flower`` ...)."""
    table_rules: Callable[[Any], Any] | None = None
    """``table_rules(ruleset)`` -> the :class:`zhuoji.rules.table.TableRules` the core's table plays
    the ruleset with (its settings in the core's names, the family's event kinds and hooks);
    called once per ruleset. A family without one has rulesets but cannot replay hands."""
    extras: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """Anything else the family exposes to its own presets and tools, by name."""
    chickens: bool = False
    """The family scores chickens (鸡): its settlements list them (``chickens``),
    its hands may flip one (翻鸡), its wins may carry a penalty; the warehouse's chicken
    columns and the pages show them for its games only (the audit's text and JSON through
    the family's ``text_lines`` and ``json_keys``)."""
    carry: Callable[..., Any] | None = None
    """State carried from hand to hand (``mechanics.carry``): ``carry(previous, before,
    ruleset)`` gives a hand's :class:`~zhuoji.rules.table.Carry` from the game's previous
    hand's :class:`~zhuoji.rules.replay.HandReplay` and the carry it started with (both ``None``
    for the game's first hand)."""
    # --- the replay panel's and the hand page's marks (rules/marks.py)
    panel_marks: Callable[[Any], Sequence[Mark]] | None = None
    """``panel_marks(table)`` -> the family's marks on the replay panel after an event
    (:class:`~zhuoji.rules.marks.Mark`: a seat's badge, a tile the table shows), read from the
    table's public state; called after the deal and after every event of a hand shown step by
    step (:func:`zhuoji.rules.snapshot.table_data`). None: no mark."""
    hand_marks: Callable[[RulesetBase | None, Mapping[str, Any]], HandMarks] | None = None
    """``hand_marks(ruleset, hand)`` -> the family's marks on a hand's page
    (:class:`~zhuoji.rules.marks.HandMarks`: its marked tiles, its lines of facts, its
    notes) from the game's ruleset (None when the stored one cannot be resolved) and the
    warehouse's row of the hand (``dashboard_hand_header``). None: no mark."""
    # --- the event kinds the family declares itself
    event_declarations: tuple[EventKind, ...] = ()
    """The declarations of the family's own event kinds (each an
    :class:`~zhuoji.rules.event_kinds.EventKind`, in its folder's ``events`` module): the
    log's name, fields, token, snapshot and text of each. The core's and its mechanics'
    kinds are declared in :mod:`zhuoji.rules.event_kinds`; ``event_kinds`` names which of
    all the declared kinds the family plays."""
    # --- the family's words and presets (the files of its folder)
    folder: Traversable | None = None
    """The family's folder, where its files are found by their names: its words
    (``glossary.toml``, :mod:`zhuoji.rules.glossary`) and its presets (``presets/*.toml``,
    :mod:`zhuoji.rules.presets`). None: the folder of the package its settings model is
    defined in (``rules/families/<name>/``, or a family's own package kept elsewhere)."""
    default: bool = False
    """The family of a preset or ruleset table that names none (the logs of
    ``zhuoji-log/1`` before families were named, and their ``rule_overrides``):
    :func:`default_family`. One registered family at most says so."""
    # --- the simulator's faults, the referee's text, the audit's JSON
    faults: Any = None
    """The family's own kinds of fault, their injectors and the order a simulated hand's
    kind is drawn in: a :class:`zhuoji.rules.faults.FamilyFaults` (its folder's
    ``faults.py``); None: the family-neutral kinds only."""
    text_lines: Callable[[str, Any], list[str]] | None = None
    """``text_lines(place, view)`` -> the family's own lines of the referee's text of a hand
    (``zhuoji audit``) at ``place`` (one of :data:`zhuoji.rules.referee.TEXT_PLACES`), in the
    view's language: ``view`` is a :class:`zhuoji.rules.referee.HandText` (its folder's
    ``referee.py``)."""
    json_keys: Callable[..., dict[str, Any]] | None = None
    """``json_keys(place, hand, winner=None)`` -> the family's own keys of a hand's JSON object
    (``zhuoji audit --json``) at ``place`` (one of :data:`zhuoji.rules.referee.JSON_PLACES`),
    for a :class:`zhuoji.rules.audit.HandAudit` (its folder's ``referee.py``)."""

    # --- the warehouse's columns (flows/warehouse/rows.py)
    chicken_counts: Callable[[Any], Iterable[tuple[int, str, int]]] | None = None
    """``chicken_counts(settlement)`` -> ``(seat, kind, count)`` for each count of chickens the
    hand's settlement paid a seat for, ``kind`` naming the ``hand_players`` column it adds to
    (``chickens_<kind>``: ``standing``, ``flipped``, ``gold``, ``charging`` or
    ``responsibility``). Read for a family that scores chickens (:attr:`chickens`); a family
    without the hook has zero counts there."""

    # --- the core's table (rules/core)
    refuses_chow: bool = False
    """The family's rule is no chow (吃): a ``chow`` in its logs is ``chow_not_allowed``,
    not ``event_not_in_family`` (read once per ruleset, where the family's table rules and
    the chow mechanic give no ``chow`` kind of their own)."""


REGISTRATION_MODULE = "family"
"""The module of a family's folder that registers it (``rules/families/<name>/family.py``);
the folder's ``__init__`` imports nothing, so that the core may import a family's modules
(its types) without registering it half-imported."""

_REGISTRY: dict[str, Family] = {}
_REGISTERED: list[tuple[Family, ...]] = [()]
"""The registered families by name, made again at each registration (:func:`registered`)."""
_discovered: list[bool] = []


def register(family: Family) -> Family:
    """Add a family to the registry (its folder's ``family`` module calls this); returns it.

    Raises :class:`RulesetError` when the name is taken by another family, or when the
    settings model's ``family`` default is not the family's name.
    """
    known = _REGISTRY.get(family.name)
    if known is not None and known != family:
        # a programming error, never a user's: not translated
        raise RulesetError(f"family {family.name!r} is registered twice")
    default = family.settings.model_fields["family"].default
    if default != family.name:
        # a programming error, never a user's: not translated
        raise RulesetError(
            f"family {family.name!r}: its settings model {family.settings.__name__} gives "
            f"family = {default!r}"
        )
    if family.default:
        for other in _REGISTRY.values():
            if other.default and other.name != family.name:
                # a programming error, never a user's: not translated
                raise RulesetError(f"families {other.name!r} and {family.name!r} are both "
                                   "the default family (Family.default)")
    _REGISTRY[family.name] = family
    _REGISTERED[0] = tuple(_REGISTRY[name] for name in sorted(_REGISTRY))
    return family


# --- finding the families ----------------------------------------------------------------

ENTRY_POINTS = "zhuoji.families"
"""The entry point group of the families an installed distribution adds: each entry names
a family's registration module (``plugin = "my_platform.family"``) or its registered
:class:`Family` (``"my_platform.family:FAMILY"``)."""

FAMILIES_ENV = "ZHUOJI_FAMILIES"
"""The environment variable listing more families, separated by commas: each entry a
registration module (``my_platform.family``, on the import path), a package holding one
(``my_platform``: its ``family`` module is imported) or a family's folder (a path: the
folder holding its ``__init__.py`` and ``family.py``, imported as a package named after the
folder). Read once,
by the first lookup of a process; a worker process inherits it and finds the same families."""

_failed: list[FamilyPluginError] = []


def plugin_entries(environ: Mapping[str, str] | None = None) -> list[tuple[Message, str]]:
    """The families kept outside this package, in the order they are imported: ``(where,
    entry)`` pairs, ``where`` naming what lists the entry (``entry point 'NAME' of DIST``,
    ``environment variable ZHUOJI_FAMILIES``). The entry points come first, by name, then
    the variable's entries in its order."""
    entries: list[tuple[Message, str]] = []
    for point in sorted(importlib.metadata.entry_points(group=ENTRY_POINTS),
                        key=lambda p: (p.name, p.value)):
        dist = point.dist.name if point.dist is not None else "?"
        entries.append((Message("entry point {n:any} of {d:any}", repr(point.name), dist),
                        point.value))
    listed = (os.environ if environ is None else environ).get(FAMILIES_ENV, "")
    where = Message("environment variable {v:any}", FAMILIES_ENV)
    entries.extend((where, e.strip()) for e in listed.split(",") if e.strip())
    return entries


def _is_folder(entry: str) -> bool:
    return os.sep in entry or "/" in entry or entry.startswith(("~", "."))


def _import_folder(folder: Path) -> None:
    """Import the family folder ``folder`` as the package named after it, then its
    registration module."""
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder}: no such folder")
    for needed in ("__init__.py", f"{REGISTRATION_MODULE}.py"):
        if not (folder / needed).is_file():
            raise FileNotFoundError(f"{folder}: no {needed} in the folder")
    name = folder.name
    if not name.isidentifier():
        raise ImportError(f"{folder}: the folder's name is no Python package name")
    known = sys.modules.get(name)
    if known is None:  # a module of that name on the path would be shadowed: refused too
        other = importlib.util.find_spec(name)
        if other is not None and Path(other.origin or "").parent.resolve() != folder.resolve():
            raise ImportError(f"the name {name!r} is already a module's ({other.origin})")
    if known is not None:
        paths = [Path(p).resolve() for p in getattr(known, "__path__", [])]
        if folder.resolve() not in paths:
            raise ImportError(f"the name {name!r} is already a module's "
                              f"({getattr(known, '__file__', None) or name})")
    else:
        spec = importlib.util.spec_from_file_location(
            name, folder / "__init__.py", submodule_search_locations=[str(folder)])
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
    importlib.import_module(f"{name}.{REGISTRATION_MODULE}")


def _import_entry(entry: str) -> object:
    """Import one entry (a module, ``module:attribute``, a package or a folder)."""
    if _is_folder(entry):
        _import_folder(Path(entry).expanduser().absolute())
        return None
    module_name, _, attribute = entry.partition(":")
    module: ModuleType = importlib.import_module(module_name)
    if attribute:
        found: object = module
        for part in attribute.split("."):
            found = getattr(found, part)
        return found
    if hasattr(module, "__path__") and not any(
            isinstance(v, Family) for v in vars(module).values()):
        importlib.import_module(f"{module_name}.{REGISTRATION_MODULE}")
    return None


def _import_plugin(where: Message, entry: str) -> None:
    before = set(_REGISTRY)
    try:
        found = _import_entry(entry)
        if isinstance(found, Family):
            register(found)
    except Exception as exc:  # any failure of the plugin's code is named
        detail = str(exc).split("\n", 1)[0] or type(exc).__name__
        raise FamilyPluginError(Message(
            "the family {e:any} ({w:said}) cannot be imported: {d:external}",
            repr(entry), where, f"{type(exc).__name__}: {detail}")) from exc
    if set(_REGISTRY) == before and not _names_registered(entry):
        raise FamilyPluginError(Message(
            "the family {e:any} ({w:said}) registers no family", repr(entry), where))


def _names_registered(entry: str) -> bool:
    """Whether the module an entry names (imported before this lookup) holds a registered
    family."""
    if _is_folder(entry):
        name = f"{Path(entry).expanduser().absolute().name}.{REGISTRATION_MODULE}"
    else:
        name = entry.partition(":")[0]
    for module_name in (name, f"{name}.{REGISTRATION_MODULE}"):
        module = sys.modules.get(module_name)
        if module is not None and any(
                isinstance(v, Family) and _REGISTRY.get(v.name) is v
                for v in vars(module).values()):
            return True
    return False


def _discover() -> None:
    if _failed:
        raise _failed[0]
    if _discovered:
        return
    _discovered.append(True)
    for module in pkgutil.iter_modules(__path__):
        if module.ispkg:
            importlib.import_module(f"{__name__}.{module.name}.{REGISTRATION_MODULE}")
    for where, entry in plugin_entries():
        try:
            _import_plugin(where, entry)
        except FamilyPluginError as exc:
            _failed.append(exc)
            raise


def registered() -> tuple[Family, ...]:
    """The families registered so far, by name, without importing the folders of this
    package first (:func:`families` does); the same tuple until the next registration."""
    return _REGISTERED[0]


def families() -> tuple[Family, ...]:
    """Every registered family, by name (the folders of this package, the entry points and
    ``ZHUOJI_FAMILIES`` are imported first); raises :class:`FamilyPluginError` naming an
    entry that cannot be imported, on this lookup and every later one."""
    _discover()
    return tuple(_REGISTRY[name] for name in sorted(_REGISTRY))


def default_family() -> str:
    """The name of the family a preset or ruleset table that names none belongs to: the
    registered family whose registration says ``default=True``."""
    for family in families():
        if family.default:
            return family.name
    # a programming error, never a user's: not translated
    raise RulesetError("no registered family is the default family (Family.default)")


def family_names() -> list[str]:
    """The registered families' names, sorted."""
    return [f.name for f in families()]


def family_named(name: str) -> Family:
    """The family called ``name``; raises :class:`UnknownFamilyError` listing the known."""
    _discover()
    family = _REGISTRY.get(name)
    if family is None:
        known = ", ".join(sorted(_REGISTRY)) or "(none)"
        raise UnknownFamilyError(Message("unknown family {f:any}; the families are: {all:any}",
                                         repr(name), known))
    return family


def family_folder(family: Family) -> Traversable:
    """The folder a family's files are found in (:attr:`Family.folder`, or by default the
    folder of the package that defines its settings model)."""
    if family.folder is not None:
        return family.folder
    module = sys.modules[family.settings.__module__]
    package = module.__name__ if hasattr(module, "__path__") else module.__package__
    return resources.files(package or module.__name__)


def family_of(ruleset: RulesetBase) -> Family:
    """The family a ruleset belongs to."""
    return family_named(ruleset.family)


def replayable(ruleset: RulesetBase) -> RulesetBase:
    """``ruleset``, whose family can replay and settle hands (it has table rules); a
    ruleset of a family that cannot raises :class:`RulesetError` naming the family."""
    family = family_of(ruleset)
    if family.table_rules is None:
        raise RulesetError(Message(
            "ruleset {r:any} is of the {f:any} family, which has no table rules: its hands "
            "cannot be replayed", repr(ruleset.name), repr(family.name)))
    return ruleset
