"""What a family adds to the simulator's faults: its own kinds of fault, their injectors, and
the order in which a hand's kind is drawn (:class:`FamilyFaults`, registered as the family's
``faults``), with the family-neutral means an injector edits a hand by
(:class:`FaultContext`, :func:`keep_the_draw`, :func:`deviation`, :func:`shifted`).

An injector takes a :class:`FaultContext` (the simulated hand, its ruleset and the fault's
generator) and gives a list of :data:`Attempt`: an edited record, the index of the event
the audit's first finding must be at (None for the deal or the result) and a note. The
simulator (:mod:`zhuoji.flows.simulation.hand_faults`) audits each attempt in turn and keeps
the first that gives exactly the kind's findings. The family-neutral kinds, their injectors
and the manifest are the simulator's (:mod:`zhuoji.flows.simulation.faults`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from zhuoji.rules.bots import SimulatedHand, bots_of
from zhuoji.rules.events import Discard, Draw, Event, HandRecord, RecordedResult
from zhuoji.rules.facts import Outcome
from zhuoji.rules.families import family_of
from zhuoji.rules.settings import RulesetBase
from zhuoji.rules.table import Table
from zhuoji.rules.tiles import NUM_SUITED, Tile

__all__ = [
    "TRIES",
    "Attempt",
    "FamilyFaults",
    "FaultContext",
    "Injector",
    "deviation",
    "keep_the_draw",
    "recorded_result",
    "shifted",
]

TRIES = 6
"""Places tried per kind before the kind is given up for the hand."""


class FaultContext:
    """A simulated hand being faulted: its record, ruleset and a generator."""

    def __init__(self, hand: SimulatedHand, ruleset: RulesetBase, rng: random.Random) -> None:
        self.hand = hand
        self.record = hand.record
        self.events = hand.record.events
        self.ruleset = ruleset
        self.rng = rng
        self.n = hand.record.n_players

    def table_at(self, index: int) -> Table:
        """The table after the hand's first ``index`` events."""
        table = Table.from_record(replace(self.record, events=()), self.ruleset)
        for event in self.events[:index]:
            table.apply(event)
        return table

    def places(self, test: Callable[[int], bool]) -> list[int]:
        """Up to :data:`TRIES` event indexes passing ``test``, in a seeded order."""
        found = [i for i in range(len(self.events)) if test(i)]
        self.rng.shuffle(found)
        return found[:TRIES]

    def after_draw(self, i: int) -> bool:
        """Event ``i`` is a discard right after the same seat's draw."""
        e, prev = self.events[i], self.events[i - 1] if i else None
        return isinstance(e, Discard) and isinstance(prev, Draw) and prev.seat == e.seat

    def unclaimed(self, i: int) -> bool:
        """Event ``i`` is an ordinary draw after a discard nobody claimed."""
        return (i > 0 and isinstance(self.events[i], Draw)
                and isinstance(self.events[i - 1], Discard))

    def edited(self, events: Sequence[Event]) -> HandRecord:
        return replace(self.record, events=tuple(events))

    def other_tile(self, not_this: int, *, held: Sequence[int] | None = None) -> Tile:
        """A suited tile other than ``not_this`` (and, given ``held``, one not held)."""
        pool = [t for t in range(NUM_SUITED) if t != not_this and (held is None or not held[t])]
        return Tile(self.rng.choice(pool))


Attempt = tuple[HandRecord, int | None, str]
"""An edited record, the event index of the fault, and a note."""

Injector = Callable[[FaultContext], list[Attempt]]
"""The attempts at one kind of fault in a hand, in the order they are tried."""


def keep_the_draw(c: FaultContext, i: int, table: Table, who: str) -> Attempt | None:
    """The discard at ``i`` (of the tile just drawn) made of another tile the seat holds
    (chosen by the fault's generator), or None when it holds no other."""
    e = c.events[i]
    assert isinstance(e, Discard)
    counts = table.counts(e.seat)
    tiles = [t for t in range(NUM_SUITED) if counts[t] and t != e.tile]
    if not tiles:
        return None
    tile = Tile(c.rng.choice(tiles))
    events = list(c.events)
    events[i] = Discard(e.seat, tile)
    return c.edited(events), i, f"{who} keeps its draw {e.tile} and discards {tile}"


def deviation(kind: str, *, settled: bool = False) -> Injector:
    """The hand played again by the family's bots with one player breaking the rule of
    ``kind`` (their ``Deviation`` of the same name). ``settled``: when the hand goes on
    after the deviation, its result is the engine's settlement of the new course of play
    (a missed win); otherwise the hand keeps its recorded result."""
    def attempts(c: FaultContext) -> list[Attempt]:
        out = []
        seats = list(range(c.n))
        c.rng.shuffle(seats)
        dealt = replace(c.record, events=(), result=None)
        bots = bots_of(c.ruleset)
        broken = bots.Deviation(kind)
        for seat in seats:
            played = bots.play_record(c.ruleset, dealt, deviant=seat, deviation=broken)
            found = [v for v in played.replay.violations if v.code == kind]
            if not found:
                continue
            record = played.record
            if settled and not found[0].fatal:
                # the hand goes on after the deviation: its result is the engine's
                if played.replay.outcome is Outcome.INCOMPLETE:
                    continue
                settlement = family_of(c.ruleset).settle(
                    played.replay, c.ruleset, record.base_stake,
                    dealer_streak=record.dealer_streak)
                if settlement is None:
                    continue
                record = replace(record, result=bots.recorded_result(settlement))
            else:
                record = replace(record, result=c.record.result)
            out.append((record, found[0].event_index, f"seat {seat}: {found[0].message}"))
            break
        return out

    return attempts


def recorded_result(c: FaultContext) -> RecordedResult:
    """The hand's recorded result (a tampered-result injector's starting point)."""
    result = c.record.result
    if result is None:
        # a programming error, never a user's: not translated
        raise ValueError(f"hand {c.record.hand_no} has no recorded result to tamper with")
    return result


def shifted(result: RecordedResult, moves: Sequence[tuple[int, int]]) -> tuple[int, ...]:
    """The result's deltas with each ``(seat, amount)`` added."""
    deltas = list(result.deltas)
    for seat, amount in moves:
        deltas[seat] += amount
    return tuple(deltas)


def _no_injectors() -> Mapping[str, Injector]:
    return MappingProxyType({})


def _no_codes() -> Mapping[str, tuple[str, ...]]:
    return MappingProxyType({})


@dataclass(frozen=True)
class FamilyFaults:
    """A family's faults, as its folder registers them (``Family.faults``)."""

    kinds: tuple[str, ...]
    """The family's own kinds (the ``kind`` of a manifest row), in their canonical order;
    no other family and no family-neutral kind has their names."""
    drawn: Callable[[RulesetBase, Collection[str]], Sequence[str]]
    """``drawn(ruleset, core)`` -> the kinds a hand of the ruleset can take, in the order the
    simulator draws among them: of ``core`` (the family-neutral kinds the ruleset's
    mechanics and the run's file settings give) those the family takes, and its own that the
    ruleset's settings call for."""
    injectors: Mapping[str, Injector] = field(default_factory=_no_injectors)
    """Each own kind's injector (a kind without one is not a hand fault)."""
    codes: Mapping[str, tuple[str, ...]] = field(default_factory=_no_codes)
    """The findings of an own kind, in order, when they are not the one finding of the
    kind's name (a tampered result gives the result checks' codes)."""
    results: frozenset[str] = frozenset()
    """The own kinds that tamper with a recorded result."""
    exact_results: bool = False
    """A tampered result gives exactly its kind's codes. False: the kind's first code and
    then only checks of a recorded result (a settlement that compares only what it keeps:
    items, their sums, the next dealer)."""
