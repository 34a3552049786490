"""The table after each event of a hand, as plain data (the hand page's step-by-step replay).

:func:`replay_snapshots` plays a hand's events on a :class:`~zhuoji.rules.table.Table` and, after
the deal and after every applied event, reads the table's public state: each seat's
concealed tiles, melds and discards (and its declared suit, 定缺, in a family that declares
one), the wall count, the seat to act and the phase, and the marks the ruleset's family
puts on it (``Family.panel_marks``). The first fatal violation stops the replay, as it
stops :func:`~zhuoji.rules.replay.replay_hand`; the event that caused it is not applied
(the last snapshot is the table before it). Nothing here changes the table other than
through :meth:`~zhuoji.rules.table.Table.step`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from zhuoji.rules.event_kinds import generic_snapshot
from zhuoji.rules.event_registry import kind_of
from zhuoji.rules.events import (
    Event,
    HandRecord,
)
from zhuoji.rules.families import family_of
from zhuoji.rules.melds import Meld, MeldKind
from zhuoji.rules.settings import RulesetBase
from zhuoji.rules.table import IllegalMoveError, Table
from zhuoji.rules.violations import Violation

__all__ = ["HandSnapshots", "Snapshot", "event_data", "replay_snapshots", "table_data"]

Data = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The table once ``step`` events are applied (0: just after the deal); ``event`` is
    the event applied last (None for the deal), as :func:`event_data` gives it."""

    step: int
    event: Data | None
    table: Data


@dataclass(frozen=True, slots=True)
class HandSnapshots:
    """Every snapshot of one hand, and the fatal violation that stopped it (if any).
    ``steps`` is empty when the deal itself is illegal."""

    steps: tuple[Snapshot, ...]
    fatal: Violation | None
    stopped_at: Data | None  # the event the fatal violation was about, not applied


def event_data(event: Event) -> Data:
    """An event as plain data: ``kind`` and the fields it has (tiles as text), as its kind's
    declaration gives it (:class:`zhuoji.rules.event_kinds.EventKind`'s ``snapshot``)."""
    try:
        kind = kind_of(event)
    except KeyError:  # a value of no declared kind
        return {"kind": type(event).__name__.lower()}
    if kind.snapshot is not None:
        return kind.snapshot(event)
    return generic_snapshot(kind, event)


def _meld_data(meld: Meld) -> Data:
    data: Data = {"kind": meld.kind.value, "tile": meld.tile.text, "from": meld.from_seat}
    if meld.kind is MeldKind.CHOW:
        data["tiles"] = [t.text for t in meld.tiles]
    return data


def table_data(table: Table) -> Data:
    """The table's state now, read through its public methods only. The family's marks
    (``Family.panel_marks``, :mod:`zhuoji.rules.marks`) are each seat's ``marks`` and the
    table's (``marks``), as plain data."""
    hook = family_of(table.ruleset).panel_marks
    marks = () if hook is None else tuple(hook(table))
    declared = table.declared_suits()  # 定缺: () when the family declares none
    seats = []
    for seat in range(table.n_players):
        data: Data = {
            "concealed": [t.text for t in table.concealed(seat)],
            "melds": [_meld_data(m) for m in table.melds(seat)],
            "discards": [
                {"tile": d.tile.text, "claimed": d.claimed_by is not None}
                for d in table.discards(seat)
            ],
            "marks": [m.data() for m in marks if m.seat == seat],
        }
        suit = declared[seat] if seat < len(declared) else None
        if suit is not None:  # a family with a declared suit: the seat's, once declared
            data["declared_suit"] = suit.value
        flowers = table.flowers(seat)
        if flowers:  # a family with flowers: those the seat has shown
            data["flowers"] = [t.text for t in flowers]
        seats.append(data)
    return {
        "turn": table.turn,
        "phase": table.phase.value,
        "wall_left": table.wall_left,
        "winners": [w.seat for w in table.winners],
        "marks": [m.data() for m in marks if m.seat is None],
        "seats": seats,
    }


def replay_snapshots(record: HandRecord, ruleset: RulesetBase) -> HandSnapshots:
    """The table after the deal and after each applied event of ``record``."""
    try:
        table = Table.from_record(record, ruleset)
    except IllegalMoveError as exc:
        return HandSnapshots((), exc.violation, None)
    steps = [Snapshot(0, None, table_data(table))]
    for event in record.events:
        fatal = table.step(event)
        if fatal is not None:
            return HandSnapshots(tuple(steps), fatal, event_data(event))
        steps.append(Snapshot(table.event_index, event_data(event), table_data(table)))
    return HandSnapshots(tuple(steps), table.finish(), None)
