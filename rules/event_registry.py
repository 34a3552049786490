"""Every declared event kind, looked up: by its log name, by the engine's value class.

The core's and its mechanics' kinds (:data:`zhuoji.rules.event_kinds.CORE_KINDS`) and those
every registered family declares (``Family.event_declarations``), each once. The table's
messages name and describe events through :func:`event_name` and :func:`describe_event`;
the replay's snapshots (:func:`zhuoji.rules.snapshot.event_data`) and the bridge between the
log and the engine (``flows/audit/bridge.py``) find a kind by :func:`kind_of` and
:func:`kind_named`.
"""

from __future__ import annotations

from typing import Any

from zhuoji.rules.event_kinds import CORE_KINDS, EventKind
from zhuoji.rules.families import families

__all__ = ["all_event_kinds", "describe_event", "event_name", "kind_named", "kind_of"]

_BY_CLASS: dict[type, EventKind] = {}
_BY_NAME: dict[str, EventKind] = {}
_ALL: list[EventKind] = []
_SEEN: list[object] = [None]  # the families the tables were built from


def _load() -> None:
    """Build the tables when the registered families are not those they were built from
    (a family kept elsewhere, a test's, registers when its module is imported)."""
    registered = families()
    if _SEEN[0] == registered:
        return
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
    _ALL[:] = list(by_name.values())
    _BY_NAME.clear()
    _BY_NAME.update(by_name)
    _BY_CLASS.clear()
    _BY_CLASS.update(by_class)
    _SEEN[0] = registered


def all_event_kinds() -> tuple[EventKind, ...]:
    """Every declared event kind: the core's, then the families' (by family name)."""
    _load()
    return tuple(_ALL)


def kind_named(name: str) -> EventKind:
    """The kind whose events the log names ``name``; ``KeyError`` when none is declared."""
    kind = _BY_NAME.get(name)
    if kind is None:
        _load()
        kind = _BY_NAME[name]
    return kind


def kind_of(event: object) -> EventKind:
    """The declared kind of an engine event; ``KeyError`` when its class is of none."""
    kind = _BY_CLASS.get(type(event))
    if kind is None:
        _load()
        kind = _BY_CLASS[type(event)]
    return kind


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
