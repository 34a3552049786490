"""The hand replay driver: every event of a hand through a :class:`~zhuoji.rules.table.Table`.

``replay_hand`` applies the events in order. The first fatal violation stops the hand
(the caller replays the game's later hands independently, as :func:`replay_game` does);
non-fatal findings are collected on the way. The result, :class:`HandReplay`, holds what
settlement and the warehouse read.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from zhuoji.rules.events import Event, HandRecord, Suit
from zhuoji.rules.facts import ChickenDiscard, Outcome, SeatFacts, WallFacts, WinFact
from zhuoji.rules.families import family_of
from zhuoji.rules.frozen import quick_init
from zhuoji.rules.mechanics import mechanics_of
from zhuoji.rules.settings import RulesetBase
from zhuoji.rules.table import (
    Carry,
    ExchangeFact,
    IllegalMoveError,
    Table,
    carry_findings,
    sequence_finding,
)
from zhuoji.rules.tiles import Tile
from zhuoji.rules.violations import Violation

__all__ = ["GameCarry", "HandReplay", "replay_game", "replay_hand"]


@dataclass(frozen=True, slots=True)
class HandReplay:
    """One replayed hand.

    ``violations`` lists the findings in event order: non-fatal ones (``missed_win``) and,
    last, the fatal violation that stopped the hand, if any. ``events_applied`` counts the
    events applied before the stop (all of them when the hand replayed cleanly). Facts
    describe the table where the replay ended. ``table`` is kept only on request.
    ``exchanges`` and ``declared_suits`` hold the 换三张 and 定缺 of a family that plays
    them (``()`` otherwise); ``carry`` the state the earlier hands of the game left to this
    one (``None`` unless the family carries state and the game was replayed as a whole).
    ``noted`` holds the events of the family's kinds its settlement reads (e.g.
    ``small_win``: :meth:`~zhuoji.rules.table.Table.note`), in event order.
    """

    hand_no: int
    n_players: int
    dealer: int
    outcome: Outcome
    violations: tuple[Violation, ...]
    winners: tuple[WinFact, ...]
    seats: tuple[SeatFacts, ...]
    flip: Tile | None
    chicken_discards: tuple[ChickenDiscard, ...]
    wall_left: int
    events_applied: int
    table: Table | None = field(default=None, compare=False, repr=False)
    wall_facts: WallFacts | None = None  # the wall mechanics' record (rules/core/wall.py)
    exchanges: tuple[ExchangeFact, ...] = ()
    declared_suits: tuple[Suit | None, ...] = ()
    carry: Carry | None = None
    noted: tuple[Event, ...] = ()

    @property
    def fatal(self) -> Violation | None:
        """The violation that stopped the hand, if any."""
        if self.violations and self.violations[-1].fatal:
            return self.violations[-1]
        return None

    @property
    def is_clean(self) -> bool:
        return not self.violations

    def __init__(
        self,
        hand_no: int,
        n_players: int,
        dealer: int,
        outcome: Outcome,
        violations: tuple[Violation, ...],
        winners: tuple[WinFact, ...],
        seats: tuple[SeatFacts, ...],
        flip: Tile | None,
        chicken_discards: tuple[ChickenDiscard, ...],
        wall_left: int,
        events_applied: int,
        table: Table | None = None,
        wall_facts: WallFacts | None = None,
        exchanges: tuple[ExchangeFact, ...] = (),
        declared_suits: tuple[Suit | None, ...] = (),
        carry: Carry | None = None,
        noted: tuple[Event, ...] = (),
    ) -> None:
        # compiled: native stores (past the frozen __setattr__); interpreted: see quick_init
        self.hand_no = hand_no  # type: ignore[misc]
        self.n_players = n_players  # type: ignore[misc]
        self.dealer = dealer  # type: ignore[misc]
        self.outcome = outcome  # type: ignore[misc]
        self.violations = violations  # type: ignore[misc]
        self.winners = winners  # type: ignore[misc]
        self.seats = seats  # type: ignore[misc]
        self.flip = flip  # type: ignore[misc]
        self.chicken_discards = chicken_discards  # type: ignore[misc]
        self.wall_left = wall_left  # type: ignore[misc]
        self.events_applied = events_applied  # type: ignore[misc]
        self.table = table  # type: ignore[misc]
        self.wall_facts = wall_facts  # type: ignore[misc]
        self.exchanges = exchanges  # type: ignore[misc]
        self.declared_suits = declared_suits  # type: ignore[misc]
        self.carry = carry  # type: ignore[misc]
        self.noted = noted  # type: ignore[misc]


quick_init(HandReplay)


def replay_hand(
    record: HandRecord,
    ruleset: RulesetBase,
    *,
    keep_table: bool = False,
    carry: Carry | None = None,
    before: tuple[Violation, ...] = (),
) -> HandReplay:
    """Replay one hand with full legality checks; never raises for an illegal log.

    ``carry`` is the state the earlier hands of the game leave to this one (see
    :func:`replay_game`), compared with the hand's recorded ``carry``; ``before`` holds
    findings about the hand's place in its game (``hand_sequence``), listed first."""
    found = (*before, *carry_findings(record.hand_no, record.carry, carry,
                                      mechanics_of(ruleset).carry))
    try:
        table = Table.from_record(record, ruleset)
    except IllegalMoveError as exc:
        return HandReplay(
            hand_no=record.hand_no, n_players=record.n_players, dealer=record.dealer,
            outcome=Outcome.INCOMPLETE, violations=(*found, exc.violation), winners=(),
            seats=(), flip=None, chicken_discards=(), wall_left=0, events_applied=0,
            carry=carry,
        )
    fatal = table.run(record.events)
    if fatal is None:
        fatal = table.finish()
    return replay_of_table(record, table, fatal, keep_table=keep_table, carry=carry,
                           before=found)


def replay_of_table(
    record: HandRecord,
    table: Table,
    fatal: Violation | None,
    *,
    keep_table: bool = False,
    carry: Carry | None = None,
    before: tuple[Violation, ...] = (),
) -> HandReplay:
    """The :class:`HandReplay` of ``record`` once its events have been played on ``table``
    (``fatal``: the violation that stopped it, or ``None``; :meth:`Table.finish` already
    called). A simulator that plays through the table uses this instead of replaying."""
    violations = (*before, *table.findings) if before else table.findings
    if fatal is not None:
        violations = (*violations, fatal)
        outcome = Outcome.INCOMPLETE
    elif table.winners:
        outcome = Outcome.WIN
    else:
        outcome = Outcome.EXHAUSTIVE_DRAW
    return HandReplay(
        record.hand_no, record.n_players, record.dealer, outcome, violations,
        table.winners, table.seat_facts(), table.flip, table.chicken_discards(),
        table.wall_left, table.event_index, table if keep_table else None,
        table.wall_facts(),
        table.exchanges(), table.declared_suits(), carry, table.noted,
    )


def replay_game(records: Iterable[HandRecord], ruleset: RulesetBase) -> list[HandReplay]:
    """Replay every hand of a game; a fatal violation stops only its own hand.

    A family that carries state from hand to hand (``mechanics.carry``) gets each hand's
    :attr:`HandReplay.carry` from its ``carry`` hook, fed the game's earlier hands in log
    order; a hand that does not follow the one before it is a ``hand_sequence`` finding."""
    if not mechanics_of(ruleset).carry:
        return [replay_hand(record, ruleset) for record in records]
    out: list[HandReplay] = []
    thread = GameCarry(ruleset)
    for record in records:
        carry, before = thread.before(record)
        replay = replay_hand(record, ruleset, carry=carry, before=before)
        thread.after(replay)
        out.append(replay)
    return out


class GameCarry:
    """The state carried through one game's hands, hand by hand: :meth:`before` gives a
    hand's carry (and its ``hand_sequence`` finding), :meth:`after` takes its replay."""

    def __init__(self, ruleset: RulesetBase) -> None:
        self._rule = family_of(ruleset).carry
        self._ruleset = ruleset
        self._previous: HandReplay | None = None
        self._carry: Carry | None = None
        self._hand_no: int | None = None

    def before(self, record: HandRecord) -> tuple[Carry | None, tuple[Violation, ...]]:
        rule = self._rule
        if rule is not None:
            self._carry = rule(self._previous, self._carry, self._ruleset)
        finding = sequence_finding(self._hand_no, record.hand_no)
        self._hand_no = record.hand_no
        return self._carry, (() if finding is None else (finding,))

    def after(self, replay: HandReplay) -> None:
        self._previous = replay
