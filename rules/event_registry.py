"""Every declared event kind, looked up: by its log name, by the engine's value class.

The core's and its mechanics' kinds (:data:`zhuoji.rules.event_kinds.CORE_KINDS`) and those
every registered family declares (``Family.event_declarations``), each once. The table's
messages name and describe events through :func:`event_name` and :func:`describe_event`;
the replay's snapshots (:func:`zhuoji.rules.snapshot.event_data`) and the bridge between the
log and the engine (``flows/audit/bridge.py``) find a kind by :func:`kind_of` and
:func:`kind_named`.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from zhuoji.rules.event_kinds import CORE_KINDS, EventKind
from zhuoji.rules.families import Family, families

__all__ = ["all_event_kinds", "describe_event", "event_name", "kind_named", "kind_of"]


class _Tables(NamedTuple):
    registered: tuple[Family, ...]  # the families the tables were built from
    kinds: tuple[EventKind, ...]
    by_name: dict[str, EventKind]
    by_class: dict[type, EventKind]


_TABLES: list[_Tables] = [_Tables((), (), {}, {})]


def _tables() -> _Tables:
    """The tables, built again when the registered families are not those they were built
    from (a family kept elsewhere, a test's, registers when its module is imported). Built
    aside and put in place at once: a lookup never sees them half built."""
    registered = families()
    tables = _TABLES[0]
    if tables.registered == registered and tables.kinds:
        return tables
    kinds = list(CORE_KINDS)
    for family in registered:
        kinds.extend(family.event_declarations)
    by_name: dict[str, EventKind] = {}
    by_class: dict[type, EventKind] = {}
    for kind in kinds:
        known = by_name.get(kind.name)
        if known is not None and known is not kind:
            # a programming error, never a user's: not translated
            raise ValueError(f"event kind {kind.name!r} is declared twice")
        if by_class.get(kind.cls, kind) is not kind:
            # a programming error, never a user's: not translated
            raise ValueError(f"{kind.cls.__name__} is the value of two event kinds")
        by_name[kind.name] = kind
        by_class[kind.cls] = kind
    tables = _Tables(registered, tuple(by_name.values()), by_name, by_class)
    _TABLES[0] = tables
    return tables


def all_event_kinds() -> tuple[EventKind, ...]:
    """Every declared event kind: the core's, then the families' (by family name)."""
    return _tables().kinds


def kind_named(name: str) -> EventKind:
    """The kind whose events the log names ``name``; ``KeyError`` when none is declared."""
    kind = _TABLES[0].by_name.get(name)
    return kind if kind is not None else _tables().by_name[name]


def kind_of(event: object) -> EventKind:
    """The declared kind of an engine event; ``KeyError`` when its class is of none."""
    kind = _TABLES[0].by_class.get(type(event))
    return kind if kind is not None else _tables().by_class[type(event)]


def event_name(event: object) -> str:
    """The log's name of an event's kind (``draw``, ``declare_suit`` ...)."""
    return kind_of(event).name


def describe_event(event: Any) -> str:
    """An event as the table's messages write it (``seat 0 draws 5m``); a kind declared
    without a description: ``seat N: name``, or its name when it names no seat."""
    kind = kind_of(event)
    if kind.describe is not None:
        return kind.describe(event)
    return f"seat {event.seat}: {kind.name}" if kind.seated else kind.name
