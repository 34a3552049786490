"""The hand replay driver: every event of a hand through a :class:`~rules.table.Table`.

``replay_hand`` applies the events in order. The first fatal violation stops the hand
(the caller replays the game's later hands independently, as :func:`replay_game` does);
non-fatal findings are collected on the way. The result, :class:`HandReplay`, holds what
settlement and the warehouse read.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from rules.events import HandRecord
from rules.facts import ChickenDiscard, Outcome, SeatFacts, WallFacts, WinFact
from rules.frozen import quick_init
from rules.settings import RulesetBase
from rules.table import IllegalMoveError, Table
from rules.tiles import Tile
from rules.violations import Violation

__all__ = ["HandReplay", "replay_game", "replay_hand"]


@dataclass(frozen=True, slots=True)
class HandReplay:
    """One replayed hand.

    ``violations`` lists the findings in event order: non-fatal ones (``missed_win``) and,
    last, the fatal violation that stopped the hand, if any. ``events_applied`` counts the
    events applied before the stop (all of them when the hand replayed cleanly). Facts
    describe the table where the replay ended. ``table`` is kept only on request.
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
    wall_facts: WallFacts | None = None  # the wall mechanics' record (rules/wall_events.py)

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


quick_init(HandReplay)


def replay_hand(
    record: HandRecord, ruleset: RulesetBase, *, keep_table: bool = False
) -> HandReplay:
    """Replay one hand with full legality checks; never raises for an illegal log."""
    try:
        table = Table.from_record(record, ruleset)
    except IllegalMoveError as exc:
        return HandReplay(
            hand_no=record.hand_no, n_players=record.n_players, dealer=record.dealer,
            outcome=Outcome.INCOMPLETE, violations=(exc.violation,), winners=(), seats=(),
            flip=None, chicken_discards=(), wall_left=0, events_applied=0,
        )
    fatal = table.run(record.events)
    if fatal is None:
        fatal = table.finish()
    return replay_of_table(record, table, fatal, keep_table=keep_table)


def replay_of_table(
    record: HandRecord, table: Table, fatal: Violation | None, *, keep_table: bool = False
) -> HandReplay:
    """The :class:`HandReplay` of ``record`` once its events have been played on ``table``
    (``fatal``: the violation that stopped it, or ``None``; :meth:`Table.finish` already
    called). A simulator that plays through the table uses this instead of replaying."""
    violations = table.findings
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
    )


def replay_game(records: Iterable[HandRecord], ruleset: RulesetBase) -> list[HandReplay]:
    """Replay every hand of a game; a fatal violation stops only its own hand."""
    return [replay_hand(record, ruleset) for record in records]
