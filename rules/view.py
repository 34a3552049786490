"""What a family may read of the table: :class:`TableView`, and :class:`TableEdit` for the
apply of a family's event kind.

A family's hooks (:class:`~zhuoji.rules.table.TableRules`: ``check_win``, ``win_patterns``,
``closing_due``, ``candidates``, the checks and applies of its event kinds ...) receive the
core's :class:`~zhuoji.rules.table.Table`; they are typed against these protocols and read it
through public names only (``tests/rules/test_table_view.py`` checks that no family reads a
name that starts with an underscore). The table implements both; the members that are not
among its older read access are one block at the end of the class.

Speed: the hooks run per win, per turn of :meth:`~TableView.legal_actions` and per event of a
family's kinds, so the members are cheap. Where a hook reads per-seat state in a loop
(``hands``, ``seat_melds``, ``rivers``, ``declared_ready``, ``taken``, ``copies``,
``known_wall``, ``kong_records``, ``rob_offers``), the property returns the table's own list,
typed as a :class:`~collections.abc.Sequence`: read-only by its type, never copied. A hook
that needs a changed copy makes one (``list(t.hands[seat])``). The older methods
(``counts``, ``melds``, ``discards``, ``kongs``, ``noted`` ...) return tuples, copies for
the reports.

This module imports nothing of the table at run time (the table's types only under
``TYPE_CHECKING``, where a static check also holds the table to both protocols).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from zhuoji.rules.events import Event, KongKind, Suit
from zhuoji.rules.facts import DiscardFact, KongFact, RollFact, WinFact
from zhuoji.rules.melds import Meld
from zhuoji.rules.settings import RulesetBase
from zhuoji.rules.tiles import Tile
from zhuoji.rules.violations import Violation, ViolationCode

if TYPE_CHECKING:
    from zhuoji.rules.core.state import Phase, Table, TableRulesBase

__all__ = [
    "KongRecordView",
    "RobOfferView",
    "TableEdit",
    "TableView",
    "WallMechanicsView",
    "never_plain",
]


def never_plain(t: object, ev: object) -> bool:
    """The ``plain`` of an event kind that has no plain case (every event of it takes the
    full check): the first field of a :class:`~zhuoji.rules.table.Kind`."""
    return False


class KongRecordView(Protocol):
    """A kong as the table keeps it while the hand goes on (:attr:`TableView.kong_records`;
    :meth:`TableView.kongs` gives the same as :class:`~zhuoji.rules.facts.KongFact` copies)."""

    @property
    def seat(self) -> int: ...
    @property
    def tile(self) -> Tile: ...
    @property
    def kind(self) -> KongKind: ...
    @property
    def event_index(self) -> int: ...
    @property
    def from_seat(self) -> int | None: ...
    @property
    def robbed(self) -> bool: ...
    @property
    def replacement(self) -> Tile | None: ...


class RobOfferView(Protocol):
    """An added kong that could have been robbed: its event, its tile, the seat that made
    it (what a rule on a win let pass looks back at, beside the rivers)."""

    @property
    def event_index(self) -> int: ...
    @property
    def tile(self) -> Tile: ...
    @property
    def seat(self) -> int: ...


class WallMechanicsView(Protocol):
    """What the wall mechanics (dice after a kong, the last tile) keep during a hand."""

    @property
    def rolls(self) -> Sequence[RollFact]: ...
    @property
    def last_tile(self) -> Tile | None:
        """The wall's last tile, once drawn."""
        ...
    @property
    def last_drawer(self) -> int:
        """The seat that drew the last tile (-1: not drawn yet)."""
        ...
    @property
    def last_draw_at(self) -> int:
        """The event index of that draw (-1: not drawn yet)."""
        ...
    @property
    def replaced_by(self) -> int:
        """The seat whose kong replacement was the last tile (-1: none)."""
        ...


class TableView(Protocol):
    """The table of one hand as a family reads it: read-only (nothing here changes it)."""

    # ------------------------------------------------------------------ the hand
    @property
    def ruleset(self) -> RulesetBase: ...
    @property
    def rules(self) -> TableRulesBase:
        """What the table plays: the family's table rules for the ruleset."""
        ...
    @property
    def hand_no(self) -> int: ...
    @property
    def n_players(self) -> int: ...
    @property
    def dealer(self) -> int: ...
    @property
    def phase(self) -> Phase: ...
    @property
    def turn(self) -> int:
        """The seat to act (in CLAIM the discarder, in KONG_DRAW the kong's owner)."""
        ...
    @property
    def event_index(self) -> int:
        """How many events have been applied (the index of the event being checked)."""
        ...
    @property
    def is_over(self) -> bool: ...
    def describe_phase(self) -> str:
        """The phase in words for a message (``seat 2 must discard`` ...)."""
        ...

    # ------------------------------------------------------------------ the seats
    @property
    def hands(self) -> Sequence[Sequence[int]]:
        """Each seat's concealed count vector (the table's own lists)."""
        ...
    @property
    def seat_melds(self) -> Sequence[Sequence[Meld]]:
        """Each seat's melds in the order made (the table's own lists)."""
        ...
    @property
    def rivers(self) -> Sequence[Sequence[DiscardFact]]:
        """Each seat's discards in order, a claimed one marked (the table's own lists)."""
        ...
    @property
    def won(self) -> Sequence[bool]:
        """Per seat: it has won (a winner plays no further where play goes on after a
        win, unless winners stay: ``mechanics.winners_stay``); the others are still in."""
        ...
    def counts(self, seat: int) -> tuple[int, ...]: ...
    def concealed(self, seat: int) -> tuple[Tile, ...]: ...
    def melds(self, seat: int) -> tuple[Meld, ...]: ...
    def discards(self, seat: int) -> tuple[DiscardFact, ...]: ...
    def flowers(self, seat: int) -> tuple[Tile, ...]: ...
    def summary(self, seat: int) -> str:
        """The seat's hand for a message (``held ...``)."""
        ...
    def declared_suits(self) -> tuple[Suit | None, ...]: ...

    # ------------------------------------------------------------------ waits and ready
    def waits(self, seat: int) -> tuple[Tile, ...]: ...
    def is_ready(self, seat: int) -> bool: ...
    def seat_waits(self, seat: int) -> tuple[Tile, ...]:
        """The waits of the seat's waiting-size hand as it stands (cached by the table)."""
        ...
    def ready_now(self, seat: int) -> bool:
        """The seat's waiting-size hand has waits (and, where a win needs a missing suit,
        lacks one)."""
        ...
    def ready_after_discard(self, seat: int, tile: int) -> bool:
        """The seat's full-turn hand would be ready after discarding ``tile``."""
        ...
    def suits_held(self, seat: int, counts: Sequence[int]) -> int:
        """How many of the three suits ``counts`` and the seat's melds hold."""
        ...
    @property
    def declared_ready(self) -> Sequence[int | None]:
        """Per seat: the event index of its declaration that froze its hand (None: none)."""
        ...
    def declared_ready_at(self, seat: int) -> int | None: ...
    def is_hard_ready(self, seat: int) -> bool: ...
    def is_frozen(self, seat: int) -> bool: ...

    # ------------------------------------------------------------------ play so far
    @property
    def last_discard(self) -> DiscardFact:
        """The latest discard (seat -1 before the first one)."""
        ...
    @property
    def last_draw(self) -> int:
        """The tile the seat to act drew this turn (-1: none)."""
        ...
    @property
    def claimed_any(self) -> bool:
        """A pong or kong was made (the first go-round is over)."""
        ...
    @property
    def kong_records(self) -> Sequence[KongRecordView]: ...
    def kongs(self) -> tuple[KongFact, ...]: ...
    @property
    def rob_offers(self) -> Sequence[RobOfferView]: ...
    @property
    def winners(self) -> tuple[WinFact, ...]: ...
    @property
    def findings(self) -> tuple[Violation, ...]: ...
    @property
    def noted(self) -> tuple[Event, ...]: ...
    @property
    def robbed_tiles(self) -> int: ...

    # ------------------------------------------------------------------ the wall
    @property
    def wall_left(self) -> int: ...
    @property
    def wall(self) -> tuple[Tile, ...] | None: ...
    @property
    def known_wall(self) -> Sequence[Tile] | None:
        """The whole recorded wall (None: the log has none); the undrawn part is
        ``known_wall[wall_front:wall_back]``."""
        ...
    @property
    def wall_front(self) -> int: ...
    @property
    def wall_back(self) -> int: ...
    @property
    def taken(self) -> Sequence[int]:
        """Per tile kind: copies out of the wall (kept up to date only without a wall)."""
        ...
    @property
    def copies(self) -> Sequence[int]:
        """Per tile kind: copies in play."""
        ...
    @property
    def set_aside(self) -> tuple[Tile, ...] | None: ...
    @property
    def wall_mechanics(self) -> WallMechanicsView | None:
        """What the wall mechanics keep (None: the family plays none of them)."""
        ...
    @property
    def family_state(self) -> object:
        """The family's own state of this hand (made by its ``family_state`` factory of the
        table rules; None when the family keeps none)."""
        ...

    # ------------------------------------------------------------------ events
    def check(self, event: Event) -> Violation | None: ...
    def legal_actions(self) -> list[Event]: ...
    def violation(self, code: ViolationCode, seat: int | None, message: str, *,
                  fatal: bool = True, at_event: bool = True) -> Violation:
        """A violation of this hand, at the event being checked (``at_event=False``: at
        none, the log's end)."""
        ...
    def describe_event(self, ev: Event) -> str:
        """An event in words for a message."""
        ...
    def after_event(self, ev: Event, clause: str, *values: object) -> str:
        """An illegal event's message: the event, then what is wrong with it."""
        ...


class TableEdit(TableView, Protocol):
    """The table as the apply of a family's event kind changes it."""

    def note(self, event: Event) -> None:
        """Keep the event for the family's settlement."""
        ...

    def declare_ready(self, seat: int, *, hard: bool, frozen_now: bool) -> None:
        """The seat declared its hand ready at this event: ``hard`` as the family counts it;
        its hand frozen now (``frozen_now``) or by its next discard."""
        ...

    def end_hand(self) -> None:
        """The hand has ended (nothing further is played)."""
        ...


if TYPE_CHECKING:
    def _the_table_is_a_view(t: Table) -> TableEdit:
        return t  # mypy holds the table to both protocols here
