"""Rule families: the registry, and one subpackage per family (``rules/families/<name>/``).

A family is a system of games sharing a tile set and a way of settling (Guizhou 捉鸡 is
the first). Its folder registers one :class:`Family` when imported: its name, its
settings model (a :class:`~zhuoji.rules.settings.RulesetBase` subclass, the TOML presets of the
family are validated by it), its settlement, its patterns, its tile set, the event
kinds it adds to the core's and its table rules (``table_rules``: what the core's table
plays a ruleset of the family with). No family imports another; the registry finds
the families by importing the ``family`` module of every subpackage of this package on
first use (:func:`families`), so adding a family is adding a folder. A family kept
elsewhere (a test's) registers itself with :func:`register` when its module is imported.

``docs/rules/families.md`` describes the split between the core and a family, and how to
add one.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from zhuoji.rules.messages import Message
from zhuoji.rules.settings import RulesetBase, RulesetError
from zhuoji.rules.tiles import TileSet

__all__ = [
    "DEFAULT_FAMILY",
    "Family",
    "UnknownFamilyError",
    "families",
    "family_named",
    "family_names",
    "family_of",
    "register",
    "replayable",
]

DEFAULT_FAMILY = "guizhou"
"""The family of a preset or ruleset table that names none (the logs of ``zhuoji-log/1``
before families were named, and their ``rule_overrides``)."""


class UnknownFamilyError(RulesetError):
    """A family name no registered family has."""


@dataclass(frozen=True)
class Family:
    """One rule family, as its folder registers it."""

    name: str
    """The family's name (its folder's name): what a preset's ``family`` says."""
    title: str
    """One line for ``zhuoji rules list``."""
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
    """The family scores chickens (鸡, Guizhou): its settlements list them (``chickens``),
    its hands may flip one (翻鸡), its wins may carry a penalty; the audit's JSON, the
    warehouse's chicken columns and the pages show them for its games only."""
    carry: Callable[..., Any] | None = None
    """State carried from hand to hand (``mechanics.carry``): ``carry(previous, before,
    ruleset)`` gives a hand's :class:`~zhuoji.rules.table.Carry` from the game's previous
    hand's :class:`~zhuoji.rules.replay.HandReplay` and the carry it started with (both ``None``
    for the game's first hand)."""


REGISTRATION_MODULE = "family"
"""The module of a family's folder that registers it (``rules/families/<name>/family.py``);
the folder's ``__init__`` imports nothing, so that the core may import a family's modules
(its types) without registering it half-imported."""

_REGISTRY: dict[str, Family] = {}
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
    _REGISTRY[family.name] = family
    return family


def _discover() -> None:
    if _discovered:
        return
    _discovered.append(True)
    for module in pkgutil.iter_modules(__path__):
        if module.ispkg:
            importlib.import_module(f"{__name__}.{module.name}.{REGISTRATION_MODULE}")


def families() -> tuple[Family, ...]:
    """Every registered family, by name (the folders of this package are imported first)."""
    _discover()
    return tuple(_REGISTRY[name] for name in sorted(_REGISTRY))


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
