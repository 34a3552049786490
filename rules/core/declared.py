"""A hand frozen by a declaration: a seat declares ready (a family's event), and from then
on its hand is frozen: every tile it draws is discarded, it claims no pong or chow, and it
makes a kong only where the ruleset allows one that keeps its waits
(:attr:`~zhuoji.rules.core.state.TableRulesBase.kong_when_frozen`). A declaration made
before the seat's discard freezes the hand at that discard, which must leave it ready.

The per-seat records are one :class:`DeclaredHands`, which every table holds in one slot
(``Table._declared``): the plain discard and the plain pong read whether a seat is frozen,
so the records are always there (a family without the declaration leaves them empty) and
this module is compiled with the core (:data:`zhuoji.rules.engine.COMPILED`). The checks
below are called by the core's checks of a discard, a pong, a kong and a chow where the
seat's hand is frozen or its freeze is pending; the declaration itself is applied by the
family's event kind through :meth:`Table.declare_ready`.

This module imports none of the core but for types: it sits below the table's state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from zhuoji.rules.events import Chow, Discard, Kong, KongKind, Pong
from zhuoji.rules.hand import _waiting_tiles_of_valid
from zhuoji.rules.tiles import EVERY_TILE
from zhuoji.rules.violations import Violation, ViolationCode
from zhuoji.rules.wide_hand import waiting_tiles_wide

if TYPE_CHECKING:
    from zhuoji.rules.core.state import Table

__all__ = [
    "DeclaredHands",
    "check_chow",
    "check_claimed_kong",
    "check_discard",
    "check_own_kong",
    "check_pong",
]

_C = ViolationCode
_EXPOSED: Final = KongKind.EXPOSED
_CONCEALED: Final = KongKind.CONCEALED


class DeclaredHands:
    """Each seat's declaration and freeze: the event index of its declaration (``at``,
    None before one), whether it was declared on the dealt hand (``hard``), whether its
    hand is frozen (``frozen``), and the seat whose freeze takes effect at its next
    discard (``pending``, -1 when none)."""

    __slots__ = ("at", "frozen", "hard", "pending")

    def __init__(self, n: int) -> None:
        self.at: list[int | None] = [None] * n
        self.hard = [False] * n
        self.pending = -1
        self.frozen = [False] * n

    def declare(self, seat: int, index: int, hard: bool, frozen_now: bool) -> None:
        """The seat declares ready at event ``index``: frozen now, or by the discard that
        follows."""
        self.at[seat] = index
        self.hard[seat] = hard
        if frozen_now:
            self.frozen[seat] = True
        else:
            self.pending = seat  # frozen by the discard that follows

    def freeze_pending(self) -> None:
        """The pending seat has discarded: its hand is frozen now."""
        self.frozen[self.pending] = True
        self.pending = -1


# ---------------------------------------------------------------------- checks
def check_discard(t: Table, ev: Discard, seat: int, tile: int) -> Violation | None:
    """A discard by a seat whose hand is frozen (only the drawn tile) or whose freeze is
    pending (the discard must leave the hand ready)."""
    declared = t._declared
    if declared.frozen[seat] and tile != t._last_draw:
        drawn = EVERY_TILE[t._last_draw] if t._last_draw >= 0 else "nothing"
        return t._v(_C.FROZEN_HAND, seat,
                    t.after_event(ev, " but declared ready and drew {tile}; {held}", drawn,
                                  t.summary(seat)))
    if declared.pending == seat and not t._ready_after_discard(seat, tile):
        return t._v(_C.FALSE_READY, seat,
                    t.after_event(ev, " after declaring ready, leaving a hand that is not "
                                      "ready; {held}", t.summary(seat)))
    return None


def check_pong(t: Table, ev: Pong) -> Violation | None:
    """A pong by a frozen hand (never)."""
    if t._declared.frozen[ev.seat]:
        return t._v(_C.FROZEN_HAND, ev.seat,
                    t.after_event(ev, " but declared ready (a pong changes the hand); {held}",
                                  t.summary(ev.seat)))
    return None


def check_chow(t: Table, ev: Chow) -> Violation | None:
    """A chow by a frozen hand (never)."""
    seat = ev.seat
    if t._declared.frozen[seat]:
        return t._v(_C.FROZEN_HAND, seat,
                    t.after_event(ev, " but declared ready (a chow changes the hand); {held}",
                                  t.summary(seat)))
    return None


def _no_kong_after_ready(t: Table, ev: Kong) -> Violation:
    return t._v(_C.FROZEN_HAND, ev.seat,
                t.after_event(ev, " but declared ready, and {why:frozenkong}; {held}",
                              t._rules.no_frozen_kong, t.summary(ev.seat)))


def _frozen_kong_keeps_waits(t: Table, seat: int, tile: int, kind: KongKind) -> bool:
    """A declared-ready player's exposed or concealed kong is allowed when it leaves the
    waits as they were (an added kong of the drawn tile never changes the hand)."""
    if kind is _EXPOSED:
        before = t._seat_waits(seat)
        used = 3
    else:
        before = t._waits_before(seat, tile)
        used = 4
    counts = t._hands[seat][:]
    counts[tile] -= used
    if t._wide:
        return waiting_tiles_wide(counts, len(t._melds[seat]) + 1) == before
    return _waiting_tiles_of_valid(counts, len(t._melds[seat]) + 1) == before


def check_claimed_kong(t: Table, ev: Kong) -> Violation | None:
    """An exposed kong (of a discard) by a frozen hand."""
    seat = ev.seat
    if t._declared.frozen[seat]:
        if not t._rules.kong_when_frozen:
            return _no_kong_after_ready(t, ev)
        if not _frozen_kong_keeps_waits(t, seat, ev.tile, ev.kind):
            return t._v(_C.FROZEN_HAND, seat,
                        t.after_event(ev, " but declared ready and the kong changes the "
                                          "waits; {held}", t.summary(seat)))
    return None


def check_own_kong(t: Table, ev: Kong) -> Violation | None:
    """A concealed or added kong by a seat whose freeze is pending (never: a discard
    follows the declaration) or whose hand is frozen (the drawn tile only, keeping the
    waits)."""
    seat, tile, kind = ev.seat, ev.tile, ev.kind
    declared = t._declared
    if declared.pending == seat:
        return t._v(_C.FROZEN_HAND, seat,
                    t.after_event(ev, " right after declaring ready (the declaration is "
                                      "followed by a discard); {held}", t.summary(seat)))
    if declared.frozen[seat]:
        if not t._rules.kong_when_frozen:
            return _no_kong_after_ready(t, ev)
        if tile != t._last_draw:
            drawn = EVERY_TILE[t._last_draw] if t._last_draw >= 0 else "nothing"
            return t._v(_C.FROZEN_HAND, seat,
                        t.after_event(ev, " but declared ready: only the drawn tile ({tile}) "
                                          "may be used; {held}", drawn, t.summary(seat)))
        if kind is _CONCEALED and not _frozen_kong_keeps_waits(t, seat, tile, kind):
            return t._v(_C.FROZEN_HAND, seat,
                        t.after_event(ev, " but declared ready and the kong changes the "
                                          "waits; {held}", t.summary(seat)))
    return None
