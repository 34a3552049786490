"""The end of the wall and kong draws: dice after a kong, the last tile's offers, birds.

Three core mechanics a family switches on in its ``mechanics`` section
(:class:`~zhuoji.rules.mechanics.Mechanics`), each off by default:

* ``kong_dice`` (开杠): after a kong its player may throw the dice (a ``roll`` event); the
  replacement tile is then counted by the dice from the back of the wall, by stacks
  (:func:`dice_stack`). ``kong_dice_needs_ready``: only a ready hand may throw;
  ``kong_dice_locks_hand``: after throwing, every tile the player draws must be discarded
  until it wins.
* ``seabed`` (海底漫游): when the wall is down to its last tile, the tile is offered to each
  seat in turn from the player due to draw (``seabed`` events, ``take`` true or false); a
  taker draws it, and unless it wins must discard (show) it, on which the others may win.
  A kong replacement that finds only the last tile takes it, and the hand has no offer.
* ``birds`` (扎鸟): after the win(s) a ``bird`` event shows the next ``birds`` tiles of the
  wall; ``seabed_tile_is_bird``: after a win on the last tile, that tile is the bird. Each
  bird counts to a seat from the dealer by its rank (:func:`bird_seat`).

The table (:mod:`zhuoji.rules.table`) hands a family that plays any of them a :class:`WallState`
and this module's event kinds (:data:`WALL_KINDS`): the three new events, and the core's
draw, discard, claims, win and exhaustive draw with this module's rules checked first and
the core's rule after, each rule written once. ``docs/rules/legality.md`` ("The end of the
wall") describes every rule and the seed each follows.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import product
from typing import Any, Final

from zhuoji.rules.core.mechanic import Mechanic, MechanicState
from zhuoji.rules.core.play import (
    CORE_KINDS,
    _apply_exhaustive,
    _apply_kong,
    _apply_win,
    _check_discard,
    _check_draw,
    _check_exhaustive,
    _check_kong,
    _check_pong,
    _check_win,
)
from zhuoji.rules.core.state import (
    Kind,
    Phase,
    Table,
    _after,
    _apply_discard,
    _apply_draw,
    _apply_pong,
    _not_plain,
)
from zhuoji.rules.events import (
    Bird,
    Discard,
    Draw,
    Event,
    ExhaustiveDraw,
    HandRecord,
    Kong,
    KongKind,
    Pong,
    Roll,
    Seabed,
    Win,
)
from zhuoji.rules.facts import RollFact, SeabedOffer, WallFacts
from zhuoji.rules.mechanics import Mechanics
from zhuoji.rules.messages import Message
from zhuoji.rules.tiles import ALL_TILES, Tile, format_tiles
from zhuoji.rules.violations import Violation, ViolationCode

__all__ = ["DICE_FACES", "MECHANIC", "WALL_KINDS", "WallState", "bird_seat", "dice_stack"]

_C = ViolationCode
DICE_FACES = (1, 2, 3, 4, 5, 6)
"""The faces of one die."""


def dice_stack(total: int, stacks: int) -> int:
    """The stack a dice ``total`` counts to, from the back of the wall (1: the last stack),
    among ``stacks`` stacks left: the ``total``-th, or, when the total is greater than the
    stacks left, the last stack (seed 003: "如果投掷骰子出来的数目大于牌局上墩数,则在最后一墩牌
    上取牌补")."""
    return total if total <= stacks else 1


def bird_seat(tile: Tile, dealer: int, n_players: int) -> int:
    """The seat a bird counts to: from the dealer by the tile's rank, 1 the dealer, 2 the
    next seat, 3 the one after, 4 the one before it, 5 the dealer again (seed 003: "以庄家
    为起点 ... 一表示庄家，二表示下家，三为对家，四为上家，依此类推")."""
    return (dealer + tile.rank - 1) % n_players


class WallState(MechanicState):
    """What the wall mechanics keep beside the table during one hand (the table's
    ``_wend``), and their hooks: the phase of the last tile's offers, the birds due after a
    win, the end of the log, the candidates."""

    __slots__ = (
        "birds", "declined", "last_draw_at", "last_drawer", "last_tile", "length",
        "locked", "offers", "origin", "replaced_by", "roll_pending", "rolls", "seabed_win",
        "shown_at", "taker", "taker_drew",
    )

    def __init__(self, t: Table, record: HandRecord) -> None:
        wall = record.wall
        self.length = len(wall) if wall is not None else 0
        # each wall place's position in the recorded wall (the stacks are counted on it)
        self.origin: list[int] = list(range(self.length))
        self.rolls: list[RollFact] = []
        self.roll_pending = False  # dice thrown for the kong whose replacement is due
        self.locked = [False] * t._n
        self.offers: list[SeabedOffer] = []
        self.taker = -1
        self.taker_drew = False
        self.declined = False  # every seat declined the last tile
        self.shown_at = -1  # the taker's discard of the last tile
        self.replaced_by = -1  # the seat whose kong replacement was the last tile
        self.last_tile: Tile | None = None  # the last tile, once drawn
        self.last_drawer = -1
        self.last_draw_at = -1
        self.seabed_win = False
        self.birds: tuple[Tile, ...] | None = None

    # ------------------------------------------------------------------ read access
    def facts(self, t: Table) -> WallFacts:
        birds = self.birds or ()
        return WallFacts(
            tuple(self.rolls), tuple(self.offers),
            self.taker if self.taker >= 0 else None, self.last_tile,
            self.replaced_by if self.replaced_by >= 0 else None, self.seabed_win, birds,
            tuple([bird_seat(b, t._dealer, t._n) for b in birds]),
            tuple([s for s in range(t._n) if self.locked[s]]),
        )

    def bird_due(self, t: Table) -> bool:
        """After the win(s), the birds are still to be shown."""
        return (t._mech.birds > 0 and self.birds is None and bool(t._winners)
                and bool(self.expected_birds(t)))

    def expected_birds(self, t: Table) -> tuple[Tile, ...] | int:
        """The bird tiles due (a known wall), or how many (no wall recorded)."""
        mech = t._mech
        if mech.seabed_tile_is_bird and self.seabed_win:
            assert self.last_tile is not None
            return (self.last_tile,)
        count = min(mech.birds, t._back - t._front)
        if t._wall is None:
            return count
        return t._wall[t._front:t._front + count]

    def describe(self, t: Table) -> str:
        if self.taker >= 0:
            return Message("seat {seat} took the last tile and draws it next", self.taker)
        if self.declined:
            return "every seat declined the last tile: the hand ends drawn (exhaustive draw)"
        return Message("the last tile is offered to seat {seat} next", self.next_offer(t))

    def next_offer(self, t: Table) -> int:
        if self.offers:
            return t._next[self.offers[-1].seat]
        return t._next[t._disc.seat]

    def seabed_due(self, t: Table) -> bool:
        """After a discard, the wall holds only its last tile: it is offered, not drawn."""
        return t._mech.seabed and t._phase is Phase.CLAIM and t._back - t._front == 1

    def finish(self, t: Table) -> Violation | None:
        if t._phase is Phase.SEABED and self.taker >= 0:
            return t._v(_C.BAD_SEABED, self.taker,
                        Message("the log ends after seat {seat} took the last tile, without its "
                                "draw", self.taker), at_event=False)
        if t._phase is Phase.WON and self.bird_due(t):
            return t._v(_C.BAD_BIRD, None, Message("the log ends without the birds after the win "
                                                   "({b:birdsdue})",
                                                   _expected_text(self.expected_birds(t))),
                        at_event=False)
        return None

    # ------------------------------------------------------------------ the hooks
    def describe_phase(self, t: Table) -> str | None:
        return self.describe(t) if t._phase is Phase.SEABED else None

    def due_after_win(self, t: Table) -> bool:
        return self.bird_due(t)

    def phase_candidates(self, t: Table) -> list[Event] | None:
        """The candidates while the last tile is offered."""
        if t._phase is not Phase.SEABED:
            return None
        if self.taker >= 0:
            return t._draw_candidates(self.taker, back=False)
        if self.declined:
            return [ExhaustiveDraw()]
        seat = self.next_offer(t)
        return [Seabed(seat, True), Seabed(seat, False)]

    def more_candidates(self, t: Table, out: list[Event]) -> None:
        """The wall events that may come beside the core's candidates."""
        ph = t._phase
        mech = t._mech
        if self.seabed_due(t):
            seat = self.next_offer(t)
            out.extend((Seabed(seat, True), Seabed(seat, False)))
        elif ph is Phase.KONG_DRAW and mech.kong_dice and not self.roll_pending:
            out.extend(Roll(t._turn, (a, b)) for a, b in product(DICE_FACES, DICE_FACES))
        elif ph is Phase.WON and self.bird_due(t):
            want = self.expected_birds(t)
            if isinstance(want, tuple):
                out.append(Bird(want))


def _expected_text(want: tuple[Tile, ...] | int) -> Message:
    if isinstance(want, int):
        return Message("{n} tile due" if want == 1 else "{n} tiles due", want)
    if not want:
        return Message("none due")
    return Message("{t:tiles} due", format_tiles(want))


def _state(t: Table) -> WallState:
    w = t._wend
    assert w is not None
    return w


def _seabed_gate(t: Table, ev: Event) -> Violation | None:
    """While the last tile is offered, only the offers, the taker's draw and (every seat
    having declined) the exhaustive draw may come."""
    w = _state(t)
    if t._phase is not Phase.SEABED:
        return None
    seat = getattr(ev, "seat", None)
    if w.taker >= 0:
        if isinstance(ev, Draw):
            return None
        return t._v(_C.BAD_SEABED, seat,
                    _after(ev, " but seat {seat} took the last tile and must draw it first",
                               w.taker))
    if w.declined:
        if isinstance(ev, ExhaustiveDraw):
            return None
        return t._v(_C.BAD_SEABED, seat,
                    _after(ev, " but every seat declined the last tile: the hand ends drawn "
                               "(exhaustive draw)"))
    if isinstance(ev, Seabed):
        return None
    return t._v(_C.BAD_SEABED, seat,
                _after(ev, " but the last tile is being offered: seat {seat} takes or declines it "
                           "next", w.next_offer(t)))


# ---------------------------------------------------------------------- roll
def _check_roll(t: Table, ev: Roll) -> Violation | None:
    seat = ev.seat
    mech = t._mech
    v = _seabed_gate(t, ev)
    if v is not None:
        return v
    if t._phase is not Phase.KONG_DRAW:
        return t._v(_C.BAD_ROLL, seat, _after(ev, " but no kong replacement is due ({phase})",
                                                  t._describe_phase()))
    if seat != t._turn:
        return t._v(_C.OUT_OF_TURN, seat, _after(ev, " but seat {seat} made the kong and throws "
                                                     "for its replacement", t._turn))
    w = _state(t)
    if w.roll_pending:
        return t._v(_C.BAD_ROLL, seat,
                    _after(ev, " but the dice were already thrown for this kong"))
    dice = ev.dice
    if len(dice) != 2 or any(d not in DICE_FACES for d in dice):
        return t._v(_C.BAD_ROLL, seat, _after(ev, ": two dice are thrown, each 1-6"))
    if mech.kong_dice_needs_ready and not t.is_ready(seat):
        return t._v(_C.BAD_ROLL, seat,
                    _after(ev, " but only a ready hand may throw the dice after a kong "
                               "(mechanics.kong_dice_needs_ready); {held}", t.summary(seat)))
    return None


def _apply_roll(t: Table, ev: Roll) -> None:
    w = _state(t)
    front, back = t._front, t._back
    kong = t._pending_kong
    assert kong is not None
    total = sum(ev.dice)
    wall = t._wall
    if wall is None:
        stack = dice_stack(total, (back - front + 1) // 2)
    else:
        # the stacks left, from the back: a stack is two places of the recorded wall
        # (its top the later one), and it is left while one of them is
        last = w.length - 1
        origin = w.origin
        left = sorted({(last - origin[i]) // 2 for i in range(front, back)})
        stack = dice_stack(total, len(left))
        chosen = left[stack - 1]
        # its top (the later place) if it is there, else its bottom
        at = max((i for i in range(front, back) if (last - origin[i]) // 2 == chosen),
                 key=lambda i: origin[i])
        # the counted tile moves to the wall's back: the replacement draw takes it there
        t._wall = (*wall[:at], *wall[at + 1:back], wall[at], *wall[back:])
        origin.insert(back - 1, origin.pop(at))
    w.rolls.append(RollFact(ev.seat, ev.dice, t._index, kong.event_index, stack))
    w.roll_pending = True
    if t._mech.kong_dice_locks_hand or t._mech.kong_dice_locks_claims:
        w.locked[ev.seat] = True


# ---------------------------------------------------------------------- seabed
def _check_seabed(t: Table, ev: Seabed) -> Violation | None:
    seat = ev.seat
    v = _seabed_gate(t, ev)
    if v is not None:
        return v
    w = _state(t)
    ph = t._phase
    if ph is not Phase.SEABED and not w.seabed_due(t):
        left = t._back - t._front
        if ph is Phase.KONG_DRAW and left == 1:
            why = _after(ev, " but the last tile is not offered now: the kong's replacement "
                             "takes the last tile (no offer this hand)")
        elif ph is Phase.CLAIM:
            why = _after(ev, " but the last tile is not offered now: {n} tiles are left in the "
                             "wall", left)
        else:
            why = _after(ev, " but the last tile is not offered now: no draw is due ({phase})",
                         t._describe_phase())
        return t._v(_C.BAD_SEABED, seat, why)
    due = w.next_offer(t)
    if seat != due:
        return t._v(_C.BAD_SEABED, seat,
                    _after(ev, " but the last tile is offered in turn: seat {seat} next", due))
    return None


def _apply_seabed(t: Table, ev: Seabed) -> None:
    w = _state(t)
    t._phase = Phase.SEABED
    w.offers.append(SeabedOffer(ev.seat, ev.take, t._index))
    if ev.take:
        w.taker = ev.seat
        t._turn = ev.seat
    elif len(w.offers) == t._n:
        w.declined = True


# ---------------------------------------------------------------------- bird
def _check_bird(t: Table, ev: Bird) -> Violation | None:
    mech = t._mech
    v = _seabed_gate(t, ev)
    if v is not None:
        return v
    w = _state(t)
    if w.birds is not None:
        return t._v(_C.BAD_BIRD, None, _after(ev, " but the birds were already shown ({t:tiles})",
                                                  format_tiles(w.birds)))
    if t._phase is not Phase.WON:
        return t._v(_C.BAD_BIRD, None, _after(ev, " but there was no win ({phase})",
                                                  t._describe_phase()))
    want = w.expected_birds(t)
    if isinstance(want, tuple):
        if not want:
            return t._v(_C.BAD_BIRD, None, _after(ev, " but no tile is left in the wall"))
        if ev.tiles != want:
            if mech.seabed_tile_is_bird and w.seabed_win:
                wrong = _after(ev, " but the birds are {t:tiles} (the last tile, won on, is the "
                                   "bird)", format_tiles(want))
            else:
                wrong = _after(ev, " but the birds are {t:tiles} (the next {n} at the wall's "
                                   "front)", format_tiles(want), len(want))
            return t._v(_C.BAD_BIRD, None, wrong)
        return None
    if len(ev.tiles) != want:
        return t._v(_C.BAD_BIRD, None,
                    _after(ev, " but {n} birds are due (mechanics.birds = {m:n}, {k:n} tiles "
                               "left)" if want != 1 else " but {n} bird is due (mechanics.birds "
                               "= {m:n}, {k:n} tiles left)", want, mech.birds,
                           t._back - t._front))
    shown = [0] * len(t._taken)
    for tile in ev.tiles:
        shown[tile] += 1
        if t._taken[tile] + shown[tile] > t._copies[tile]:
            return t._v(_C.BAD_BIRD, None,
                        _after(ev, " but all {n} copies of {tile} are out", t._copies[tile],
                                   ALL_TILES[tile]))
    return None


def _apply_bird(t: Table, ev: Bird) -> None:
    w = _state(t)
    w.birds = ev.tiles
    if not (t._mech.seabed_tile_is_bird and w.seabed_win):
        t._front += len(ev.tiles)
        if t._wall is None:
            for tile in ev.tiles:
                t._taken[tile] += 1
    if not t._closing_due():
        t._phase = Phase.ENDED


# ---------------------------------------------------------------------- the core's kinds
_Check = Callable[[Table, Any], Violation | None]


def _checks(*rules: _Check) -> _Check:
    """One check of several rules: the first violation found, in their order (the wall's
    rules, then the core's)."""
    def check(t: Table, ev: Any) -> Violation | None:
        for rule in rules:
            v = rule(t, ev)
            if v is not None:
                return v
        return None
    return check


def _offered_first(t: Table, ev: Draw) -> Violation | None:
    w = _state(t)
    if w.seabed_due(t) and ev.seat == t._next[t._disc.seat]:
        return t._v(_C.BAD_SEABED, ev.seat,
                    _after(ev, " but the wall holds only its last tile: it is offered first (a "
                               "`seabed` event by seat {seat})", w.next_offer(t)))
    return None


def _apply_wall_draw(t: Table, ev: Draw) -> None:
    w = _state(t)
    ph = t._phase
    _apply_draw(t, ev)
    empty = t._back <= t._front
    if ph is Phase.KONG_DRAW:
        if w.roll_pending:
            w.rolls[-1] = w.rolls[-1]._replace(tile=ev.tile)
            w.roll_pending = False
        if empty and t._mech.seabed:
            w.replaced_by = ev.seat  # the last tile was the replacement: no offer
            w.last_tile = ev.tile
        return
    if ph is Phase.SEABED:
        w.taker_drew = True  # the taker stays recorded (the facts name it)
    if empty:
        w.last_tile = ev.tile
        w.last_drawer = ev.seat
        w.last_draw_at = t._index


def _keeps_drawn_tile(t: Table, ev: Discard | Kong) -> bool:
    """In its turn, the player uses another tile than the one it just drew."""
    last = t._last_draw
    return (t._turn == ev.seat and t._phase is Phase.DISCARD and last >= 0
            and (isinstance(ev, Kong) or ev.tile != last))


def _locked(t: Table, ev: Discard | Kong) -> Violation | None:
    if (t._mech.kong_dice_locks_hand and _state(t).locked[ev.seat]
            and _keeps_drawn_tile(t, ev)
            and not (isinstance(ev, Kong) and ev.kind is KongKind.EXPOSED)):
        return t._v(_C.LOCKED_HAND, ev.seat,
                    _after(ev, " but threw the dice after a kong: every tile it draws is "
                               "discarded until it wins (mechanics.kong_dice_locks_hand); it drew "
                               "{tile}", ALL_TILES[t._last_draw]))
    return None


LOCKED_CLAIM: Final = ("threw the dice after a kong: it claims no discard until it wins "
                       "(mechanics.kong_dice_locks_claims)")
"""Why a claim by a player locked by the dice is refused (the chow's check says it too)."""


def _locked_claim(t: Table, ev: Pong | Kong) -> Violation | None:
    """Under ``kong_dice_locks_claims``, a player that threw the dice claims no discard (a
    pong, an exposed kong) until it wins: its hand stays as it was when it threw."""
    if ((isinstance(ev, Pong) or ev.kind is KongKind.EXPOSED)
            and t._mech.kong_dice_locks_claims and _state(t).locked[ev.seat]):
        return t._v(_C.LOCKED_HAND, ev.seat, _after(ev, " but " + LOCKED_CLAIM))
    return None


def _shows_last_tile(t: Table, ev: Discard) -> Violation | None:
    w = _state(t)
    if w.taker == ev.seat and w.taker_drew and w.shown_at < 0 and _keeps_drawn_tile(t, ev):
        return t._v(_C.BAD_SEABED, ev.seat,
                    _after(ev, " but took the last tile ({tile}): unless it wins, it shows that "
                               "tile", ALL_TILES[t._last_draw]))
    return None


def _apply_wall_discard(t: Table, ev: Discard) -> None:
    w = _state(t)
    shows = w.taker == ev.seat and w.taker_drew and w.shown_at < 0
    _apply_discard(t, ev)
    if shows:
        w.shown_at = t._index


def _shown_claim(t: Table, ev: Pong | Kong) -> Violation | None:
    w = _state(t)
    if w.shown_at >= 0 and t._phase is Phase.CLAIM and t._disc.event_index == w.shown_at:
        return t._v(_C.BAD_SEABED, ev.seat,
                    _after(ev, " but the shown last tile may only be won on"))
    return None


def _after_birds(t: Table, ev: Win) -> Violation | None:
    if _state(t).birds is not None:
        return t._v(_C.EVENT_AFTER_END, ev.seat, _after(ev, " after the birds were shown"))
    return None


def _robbed_after_dice(t: Table, ev: Win) -> Violation | None:
    if t._phase is Phase.KONG_DRAW and _state(t).roll_pending and ev.from_seat is not None:
        return t._v(_C.INVALID_WIN, ev.seat,
                    _after(ev, " but the kong's player threw the dice for its replacement: the "
                               "kong stands (a robbing win comes before the dice)"))
    return None


def _apply_wall_win(t: Table, ev: Win) -> None:
    w = _state(t)
    ph = t._phase
    _apply_win(t, ev)
    if w.last_tile is None or w.replaced_by >= 0 or ev.tile != w.last_tile:
        return
    if ev.from_seat is None:
        on_last = ph is Phase.DISCARD and ev.seat == w.last_drawer
    else:
        disc = t._disc
        on_last = disc.seat == w.last_drawer and disc.event_index == w.last_draw_at + 1
    if on_last:
        w.seabed_win = True


def _check_wall_exhaustive(t: Table, ev: ExhaustiveDraw) -> Violation | None:
    if t._phase is Phase.SEABED:
        return None  # every seat declined the last tile (the gate let only that through)
    return _check_exhaustive(t, ev)


def _wrapped(event_type: type, check: _Check, apply: Callable[[Table, Any], None]) -> Kind:
    """The core's kind of ``event_type`` with the wall's check and apply (its flags kept;
    no plain case: the table takes every event through the check)."""
    return CORE_KINDS[event_type]._replace(plain=_not_plain, check=check, apply=apply)


WALL_KINDS: dict[type, Kind] = {
    Draw: _wrapped(Draw, _checks(_seabed_gate, _offered_first, _check_draw), _apply_wall_draw),
    Discard: _wrapped(Discard, _checks(_seabed_gate, _check_discard, _locked, _shows_last_tile),
                      _apply_wall_discard),
    Pong: _wrapped(Pong, _checks(_seabed_gate, _shown_claim, _locked_claim, _check_pong),
                   _apply_pong),
    Kong: _wrapped(Kong, _checks(_seabed_gate, _shown_claim, _locked_claim, _locked,
                                 _check_kong),
                   _apply_kong),
    Win: _wrapped(Win, _checks(_seabed_gate, _after_birds, _robbed_after_dice, _check_win),
                  _apply_wall_win),
    ExhaustiveDraw: _wrapped(ExhaustiveDraw, _checks(_seabed_gate, _check_wall_exhaustive),
                             _apply_exhaustive),
}
"""The core's kinds as a table playing any of the wall mechanics plays them: the draw,
discard, claims, win and exhaustive draw with the wall's rules checked first."""

OWN_KINDS: dict[str, tuple[type, Kind]] = {
    "kong_dice": (Roll, Kind(_not_plain, _check_roll, _apply_roll)),
    "seabed": (Seabed, Kind(_not_plain, _check_seabed, _apply_seabed)),
    "birds": (Bird, Kind(_not_plain, _check_bird, _apply_bird, seated=False, after_win=True,
                         after_end=True)),
}
"""Each mechanic's own event kind (a family not playing it has no such event:
``event_not_in_family``)."""



def _kinds(mech: Mechanics) -> dict[type, Kind]:
    """The kinds a table plays for the wall mechanics switched on: each one's own event
    kind, and the core's kinds as the wall's rules wrap them (:data:`WALL_KINDS`)."""
    out: dict[type, Kind] = {}
    for mechanic, (event_type, kind) in OWN_KINDS.items():
        if getattr(mech, mechanic):
            out[event_type] = kind
            out.update(WALL_KINDS)
    return out


def _new_state(t: Table, record: HandRecord) -> WallState:
    state = t._wend = WallState(t, record)
    return state


MECHANIC = Mechanic("wall", ("kong_dice", "seabed", "birds"), _kinds, _new_state,
                    plain_cases=False)
"""The end of the wall and kong draws (every event takes the full check: the wall's rules
wrap the core's kinds)."""
