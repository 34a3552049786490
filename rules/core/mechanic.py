"""The one way an optional mechanic plugs into the table: a :class:`Mechanic` (the switches
that turn it on, the event kinds it adds or wraps, the state it keeps per table) and its
:class:`MechanicState`, whose hooks the core calls at fixed points.

Each mechanic is a module of ``rules/core/`` holding one :class:`Mechanic` (``MECHANIC``);
:mod:`zhuoji.rules.core.assemble` lists them. Once per ruleset the assembler keeps the
mechanics the family switches on, their kinds and whether the plain case of a draw, a
discard and a pong stays (:class:`~zhuoji.rules.core.state.TableRulesBase`); a table makes
each one's state when it is dealt and calls the hooks of those states only (a ruleset with
no mechanic has none to call). Every hook's default adds nothing to the core's rule.

This module is the bottom of the core (it imports none of it but for types) and stays
interpreted (the mechanics' states subclass :class:`MechanicState`; a compiled base class
would need them compiled too).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from zhuoji.rules.events import Event, HandRecord
from zhuoji.rules.mechanics import Mechanics
from zhuoji.rules.violations import Violation, ViolationCode

if TYPE_CHECKING:
    from zhuoji.rules.core.state import Kind, Table

__all__ = ["Mechanic", "MechanicState", "adds_to_checks"]


class MechanicState:
    """A table's state of one mechanic and the hooks the core calls (each default: nothing
    added). ``t`` is the table, ``what`` the event's description in a message."""

    # ------------------------------------------------------------------ checks
    def check_seat(self, t: Table, seat: int, what: str) -> Violation | None:
        """Before the check of any event naming a seat (after the seat is at the table)."""
        return None

    def gate(self, t: Table, ev: Event, seat: int | None) -> Violation | None:
        """Before the check of any event (the kinds the phase lets through); ``seat``: the
        event's seat where its kind names one."""
        return None

    def check_discard(self, t: Table, seat: int, tile: int) -> Violation | None:
        """After the core found a discard legal."""
        return None

    def check_meld(self, t: Table, seat: int, tile: int, code: ViolationCode,
                   what: str) -> Violation | None:
        """After the core found a pong or a kong legal (``code``: its code)."""
        return None

    def check_win(self, t: Table, seat: int, counts: list[int], what: str) -> Violation | None:
        """After the core found a win's hand complete (``counts``: with the winning tile)."""
        return None

    # ------------------------------------------------------------------ applies
    def after_win(self, t: Table, seat: int, first: bool) -> None:
        """After a win was applied (``first``: the first on its tile)."""

    # ------------------------------------------------------------------ the phase
    def describe_phase(self, t: Table) -> str | None:
        """The phase's description where the mechanic owns the phase, else None."""
        return None

    def finish(self, t: Table) -> Violation | None:
        """The violation of a log that ends now, as the mechanic sees it."""
        return None

    def due_after_win(self, t: Table) -> bool:
        """An event the mechanic plays after a win is still due (the hand is not over)."""
        return False

    # ------------------------------------------------------------------ legal_actions
    def phase_candidates(self, t: Table) -> list[Event] | None:
        """Every candidate of a phase the mechanic owns, else None."""
        return None

    def turn_candidates(self, t: Table, out: list[Event]) -> None:
        """Adds candidates of the player's turn (before the wins)."""

    def claim_candidates(self, t: Table, out: list[Event]) -> None:
        """Adds candidates after a discard (after the wins, pongs and kongs)."""

    def more_candidates(self, t: Table, out: list[Event]) -> None:
        """Adds candidates after the core's."""


_CHECK_HOOKS = ("check_seat", "gate", "check_discard", "check_meld", "check_win", "after_win")


def adds_to_checks(state: MechanicState) -> bool:
    """Whether ``state``'s class has a hook of its own among those the core calls on every
    event it checks (:data:`_CHECK_HOOKS`); a table calls those of such states only."""
    own = type(state)
    return any(getattr(own, hook) is not getattr(MechanicState, hook) for hook in _CHECK_HOOKS)


class Mechanic:
    """One optional mechanic: the :class:`~zhuoji.rules.mechanics.Mechanics` fields that
    switch it on (any of them), the kinds it adds or wraps for the switches on, the state a
    table keeps for it, and whether the plain case stays where it plays: ``plain_cases``
    off, every event takes the full check (the mechanic wraps the core's kinds);
    ``plain_turn`` off, a discard or a pong is never the plain case (the mechanic's hooks
    add to their checks)."""

    def __init__(
        self,
        name: str,
        switches: tuple[str, ...],
        kinds: Callable[[Mechanics], dict[type, Kind]],
        state: Callable[[Table, HandRecord], MechanicState],
        *,
        plain_cases: bool = True,
        plain_turn: bool = True,
    ) -> None:
        for switch in switches:
            if switch not in Mechanics.model_fields:
                raise ValueError(f"no mechanic {switch!r} in zhuoji.rules.mechanics.Mechanics")
        self.name = name
        self.switches = switches
        self.kinds = kinds
        self.state = state
        self.plain_cases = plain_cases
        self.plain_turn = plain_turn

    def plays(self, mech: Mechanics) -> bool:
        """Whether a family with ``mech`` plays this mechanic."""
        return any(getattr(mech, switch) for switch in self.switches)
