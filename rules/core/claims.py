"""The table's rules for chow (吃) and flowers (花牌), the core mechanics a family switches on
with ``Mechanics.chow`` and ``Mechanics.flowers`` (``rules/mechanics.py``).

Each rule is written here once, as a check (the violation an event would be, or ``None``)
and an apply (the change a legal event makes), the event kinds of the mechanics ``chow``
and ``flowers`` (:data:`MECHANIC`); through its :class:`ClaimsState` the table applies the
replacement draw that follows a flower (:func:`apply_flower_draw`) and lists the candidates
of :func:`chow_candidates` and :func:`flower_candidates` in ``legal_actions``. A table whose
family plays neither never reaches this module: a ``flower`` there is
``event_not_in_family``, a ``chow`` whatever the family's own kind says (or
``event_not_in_family``).

* **Chow**: only the discarder's next player, on the last discard, three tiles in rank
  order of one suit (honours never chow) including the discard and two from its hand. A
  win, a pong or a kong on the same discard takes precedence: the log records the claim
  that was made, and ``legal_actions`` lists wins, then pongs and kongs, then chows. After
  a chow the player discards (no draw); the meld is ``MeldKind.CHOW`` with its lowest tile.
* **Flowers**: a flower in hand, dealt or drawn, is shown (a ``flower`` event) and set
  aside, and the seat's next event is its replacement draw from the back of the wall
  (``Phase.FLOWER_DRAW``). The player to act shows the flowers it holds; a dealt flower
  may also be shown by any seat before the dealer's first discard. A seat holding a flower
  may not discard (``flower_not_shown``); a hand holding one is never complete. The
  flowers shown are facts per seat (``SeatFacts.flowers``, ``Table.flowers``), for a
  family's settlement to score. With the wall empty no replacement can follow: the hand
  ends in an exhaustive draw.

``docs/rules/legality.md`` (section "Chow and flowers") describes the rules and their codes.
"""

from __future__ import annotations

from typing import Final

from zhuoji.rules.core.declared import check_chow as check_declared_chow
from zhuoji.rules.core.mechanic import Mechanic, MechanicState
from zhuoji.rules.core.state import (
    Kind,
    Phase,
    Table,
    _claim_discard,
    _meld,
    _not_plain,
    holds_flower,
)
from zhuoji.rules.event_registry import describe_event
from zhuoji.rules.events import Chow, Draw, Event, ExhaustiveDraw, Flower, HandRecord
from zhuoji.rules.facts import ClaimKind
from zhuoji.rules.mechanics import Mechanics
from zhuoji.rules.melds import MeldKind
from zhuoji.rules.messages import Message
from zhuoji.rules.tiles import FLOWER_TILES, NUM_SUITED, Tile
from zhuoji.rules.violations import Violation, ViolationCode

__all__ = [
    "MECHANIC",
    "ClaimsState",
    "apply_chow",
    "apply_flower",
    "apply_flower_draw",
    "check_chow",
    "check_flower",
    "chow_candidates",
    "flower_candidates",
    "flower_draw_candidates",
    "holds_flower",
]

_C = ViolationCode
_FIRST_FLOWER: Final = int(FLOWER_TILES[0])
_CLAIM: Final = Phase.CLAIM
_DISCARD: Final = Phase.DISCARD
_AFTER_CLAIM: Final = Phase.DISCARD_AFTER_CLAIM
_FLOWER_DRAW: Final = Phase.FLOWER_DRAW
_CHOW: Final = MeldKind.CHOW
_CLAIM_CHOW: Final = ClaimKind.CHOW


def _after(ev: Event, clause: str, *values: object) -> Message:
    """A chow's or a flower's illegal-move message (see ``table._after``)."""
    return Message("{e:event}{r:after_event}", describe_event(ev), Message(clause, *values))


# ---------------------------------------------------------------------- chow
def check_chow(t: Table, ev: Chow) -> Violation | None:
    """The violation a chow would be now, or None."""
    seat = ev.seat
    if t._phase is not _CLAIM:
        return t._v(_C.ILLEGAL_CHOW, seat, _after(ev, " but there is no discard to claim ({phase})",
                                                      t._describe_phase()))
    d, tile = t._disc.seat, t._disc.tile
    tiles = ev.tiles
    if ev.from_seat != d or tile not in tiles:
        return t._v(_C.ILLEGAL_CHOW, seat,
                    _after(ev, " but the last discard is {tile} by seat {seat}", tile, d))
    nxt = t._next[d]
    if seat != nxt:
        return t._v(_C.ILLEGAL_CHOW, seat,
                    _after(ev, " but only the discarder's next player (seat {seat}) may chow", nxt))
    wall = t._wend
    if wall is not None and t._mech.kong_dice_locks_claims and wall.locked[seat]:
        return t._v(_C.LOCKED_HAND, seat, _after(ev, " but threw the dice after a kong: it claims "
                                                     "no discard until it wins "
                                                     "(mechanics.kong_dice_locks_claims)"))
    if not _is_run(tiles):
        return t._v(_C.ILLEGAL_CHOW, seat,
                    _after(ev, ": a chow is three tiles in rank order of one suit "
                               "(万 筒 条; honours never chow)"))
    hand = t._hands[seat]
    rest = list(tiles)
    rest.remove(tile)
    for x in rest:
        if not hand[x]:
            return t._v(_C.ILLEGAL_CHOW, seat,
                        _after(ev, " without {tile}: {held}", Tile(x), t.summary(seat)))
    return check_declared_chow(t, ev)


def _is_run(tiles: tuple[Tile, ...]) -> bool:
    """Three suited tiles of one suit in rank order, each one rank above the last."""
    if len(tiles) != 3:
        return False
    a, b, c = int(tiles[0]), int(tiles[1]), int(tiles[2])
    return c < NUM_SUITED and b == a + 1 and c == b + 1 and a // 9 == c // 9


def apply_chow(t: Table, ev: Chow) -> None:
    seat = ev.seat
    hand = t._hands[seat]
    tile = t._disc.tile
    for x in ev.tiles:
        if x != tile:
            hand[x] -= 1
    t._melds[seat].append(_meld(_CHOW, ev.tiles[0], ev.from_seat, False))
    _claim_discard(t, seat, _CLAIM_CHOW)
    t._turn = seat
    t._phase = _AFTER_CLAIM
    t._claimed_any = True
    t._last_draw = -1
    t._kong_turn = False
    t._waits[seat] = None


def chow_candidates(t: Table) -> list[Event]:
    """The chows the discarder's next player could make of the last discard (by their
    lowest tile), for ``legal_actions`` (each still goes through the check)."""
    tile = int(t._disc.tile)
    if tile >= NUM_SUITED:
        return []
    seat = t._next[t._disc.seat]
    hand = t._hands[seat]
    rank = tile % 9
    out: list[Event] = []
    for low in (tile - 2, tile - 1, tile):
        if low < tile - rank or low + 2 > tile - rank + 8:
            continue
        run = (Tile(low), Tile(low + 1), Tile(low + 2))
        if all(hand[x] for x in run if x != tile):
            out.append(Chow(seat, run, t._disc.seat))
    return out


# ---------------------------------------------------------------------- flowers
def _state(t: Table) -> ClaimsState:
    state = t._claims
    assert state is not None
    return state


def _opening(t: Table) -> bool:
    """Before the dealer's first discard and any claim: dealt flowers may be shown by any
    seat."""
    return not t._rivers[t._dealer] and not t._claimed_any


def check_flower(t: Table, ev: Flower) -> Violation | None:
    """The violation showing a flower would be now, or None."""
    seat, tile = ev.seat, int(ev.tile)
    if tile < _FIRST_FLOWER:
        return t._v(_C.BAD_FLOWER, seat, _after(ev, " but {tile} is not a flower", ev.tile))
    hand = t._hands[seat]
    if tile >= len(hand) or not hand[tile]:
        return t._v(_C.BAD_FLOWER, seat, _after(ev, " but {held}", t.summary(seat)))
    if t._phase is not _DISCARD or (t._turn != seat and not _opening(t)):
        return t._v(_C.BAD_FLOWER, seat,
                    _after(ev, " but a flower is shown by the player to act, or on the dealt hand "
                               "before the dealer's first discard ({phase})", t._describe_phase()))
    return None


def apply_flower(t: Table, ev: Flower) -> None:
    seat = ev.seat
    t._hands[seat][ev.tile] -= 1
    state = _state(t)
    state.shown[seat].append(ev.tile)
    state.flower_seat = seat
    t._waits[seat] = None
    t._phase = _FLOWER_DRAW


def apply_flower_draw(t: Table, ev: Draw) -> None:
    """The replacement draw after a flower, from the back (the check found it due)."""
    seat = ev.seat
    t._back -= 1
    if seat == t._turn:
        t._last_draw = ev.tile  # the player to act: the replacement is its drawn tile
    _state(t).flower_seat = -1
    t._phase = _DISCARD


def flower_candidates(t: Table) -> list[Event]:
    """The flowers that may be shown now (the player to act's, and in the opening every
    seat's), for ``legal_actions``."""
    seats = range(t._n) if _opening(t) else (t._turn,)
    out: list[Event] = []
    for s in seats:
        hand = t._hands[s]
        out.extend(Flower(s, f) for f in FLOWER_TILES if f < len(hand) and hand[f])
    return out


def flower_draw_candidates(t: Table) -> list[Event]:
    """The replacement draw due after a flower (or the exhaustive draw, the wall empty)."""
    if t._back <= t._front:
        return [ExhaustiveDraw()]
    return t._draw_candidates(_state(t).flower_seat, back=True)


class ClaimsState(MechanicState):
    """What the table keeps for chow and flowers (the flowers each seat has shown, the seat
    whose replacement is due), and the hooks: the candidates of ``legal_actions`` and the
    replacement draw after a flower."""

    def __init__(self, mech: Mechanics, n: int) -> None:
        self.chow = mech.chow
        self.flowers = mech.flowers
        self.shown: list[list[Tile]] = [[] for _ in range(n)] if mech.flowers else []
        self.flower_seat = -1  # the seat whose flower replacement is due

    def turn_candidates(self, t: Table, out: list[Event]) -> None:
        if self.flowers and t._phase is _DISCARD:
            out.extend(flower_candidates(t))

    def claim_candidates(self, t: Table, out: list[Event]) -> None:
        if self.chow:
            out.extend(chow_candidates(t))

    def phase_candidates(self, t: Table) -> list[Event] | None:
        return flower_draw_candidates(t) if t._phase is _FLOWER_DRAW else None

    def apply_flower_draw(self, t: Table, ev: Draw) -> None:
        apply_flower_draw(t, ev)


_CHOW_KIND = Kind(_not_plain, check_chow, apply_chow)
_FLOWER_KIND = Kind(_not_plain, check_flower, apply_flower)


def _kinds(mech: Mechanics) -> dict[type, Kind]:
    out: dict[type, Kind] = {}
    if mech.chow:
        out[Chow] = _CHOW_KIND
    if mech.flowers:
        out[Flower] = _FLOWER_KIND
    return out


def _new_state(t: Table, record: HandRecord) -> ClaimsState:
    state = t._claims = ClaimsState(t._mech, t._n)
    return state


MECHANIC = Mechanic("claims", ("chow", "flowers"), _kinds, _new_state)
"""Chow and flowers."""
