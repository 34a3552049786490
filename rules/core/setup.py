"""The mechanics before the first discard: the exchange and the declared suits
(``docs/rules/families.md``, ``docs/rules/legality.md``).

* ``exchange`` (换三张): after the deal every seat passes ``exchange`` tiles of its hand to
  one seat, all in the same direction (``exchange_to``: the next seat, the one before,
  the one across, or any way the dice chose); a seat receives once, and the tiles arrive
  when every seat has passed (a seat never passes on what it received).
* ``declare_suit`` (定缺): then every seat declares a suit once, before the dealer's first
  discard; a seat discards its declared suit's tiles before any other tile, never pongs
  or kongs one, and cannot win while it holds one.

A table whose family plays either keeps a :class:`SetupState` (:data:`MECHANIC`): the
checks and applies of ``exchange`` and ``declare_suit`` are here, and its hooks add the
declared suit's rules to the core's discard, claims and win.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from zhuoji.rules.core.mechanic import Mechanic, MechanicState
from zhuoji.rules.core.state import Kind, Phase, Table, _after, _not_plain, suit_name
from zhuoji.rules.event_registry import describe_event
from zhuoji.rules.events import DeclareSuit, Event, Exchange, HandRecord, Suit
from zhuoji.rules.frozen import quick_init
from zhuoji.rules.mechanics import Mechanics
from zhuoji.rules.messages import Message
from zhuoji.rules.tiles import ALL_TILES, NUM_SUITED, Tile, format_tiles
from zhuoji.rules.violations import Violation, ViolationCode

__all__ = ["MECHANIC", "ExchangeFact", "SetupState"]

_C = ViolationCode
_SETUP: Final = Phase.SETUP
_SUITS = (Suit.CHARACTERS, Suit.DOTS, Suit.BAMBOO)
_DECLARE_QUOTE = ("seed 003: 若摸牌结束只有两门花色，则以第三门花色作为定缺花色；"
                  "若为一门花色，则可以在其他两门花色中选择")
_LACKS_ONE = (" but holds no {s:suit}: a hand lacking a suit declares one it lacks ("
              + _DECLARE_QUOTE + "); {held}")
_LACKS_TWO = (" but holds no {s:suit} or {s2:suit}: a hand lacking a suit declares one it "
              "lacks (" + _DECLARE_QUOTE + "); {held}")


# ---------------------------------------------------------------------- facts
@dataclass(frozen=True, slots=True)
class ExchangeFact:
    """One seat's part of the exchange: the tiles it passed, to whom, at which event."""

    seat: int
    tiles: tuple[Tile, ...]
    to: int
    event_index: int

    def __init__(self, seat: int, tiles: tuple[Tile, ...], to: int, event_index: int) -> None:
        # compiled: native stores (past the frozen __setattr__); interpreted: see quick_init
        self.seat = seat  # type: ignore[misc]
        self.tiles = tiles  # type: ignore[misc]
        self.to = to  # type: ignore[misc]
        self.event_index = event_index  # type: ignore[misc]


quick_init(ExchangeFact)


# ---------------------------------------------------------------------- the state
class SetupState(MechanicState):
    """What the table keeps for the exchange and the declared suits: the exchange and the
    declarations made so far."""

    def __init__(self, mech: Mechanics, n: int) -> None:
        self.exchange: int = mech.exchange  # tiles each seat passes, 0 for none
        self.one_suit: bool = mech.exchange_one_suit
        self.to: str = mech.exchange_to  # the direction: any, next, previous or across
        self.declare: bool = mech.declare_suit
        self.any_suit: bool = mech.declare_any_suit
        self.passed: list[ExchangeFact | None] = [None] * n
        self.exchanged: bool = mech.exchange == 0  # every seat has passed (or none passes)
        self.voids: list[int] = [-1] * n  # the declared suit by seat (0 m, 1 p, 2 s), -1
        self.declared_at: list[int] = [-1] * n

    @property
    def in_setup(self) -> bool:
        """The exchange or the declarations are still under way."""
        return not self.exchanged or (self.declare and -1 in self.declared_at)

    def exchanges(self) -> tuple[ExchangeFact, ...]:
        done = [p for p in self.passed if p is not None]
        return tuple(sorted(done, key=_event_index))

    def declared_suits(self) -> tuple[Suit | None, ...]:
        return tuple([_SUITS[v] if v >= 0 else None for v in self.voids])

    # ------------------------------------------------------------------ the hooks
    def gate(self, t: Table, ev: Event, seat: int | None) -> Violation | None:
        """While the setup is under way only its events may come."""
        if t._phase is _SETUP and not isinstance(ev, (Exchange, DeclareSuit)):
            return setup_unfinished(t, describe_event(ev), seat)
        return None

    def check_discard(self, t: Table, seat: int, tile: int) -> Violation | None:
        return check_discard(t, seat, tile)

    def check_meld(self, t: Table, seat: int, tile: int, code: ViolationCode,
                   what: str) -> Violation | None:
        return check_meld(t, seat, tile, code, what)

    def check_win(self, t: Table, seat: int, counts: list[int], what: str) -> Violation | None:
        return check_win(t, seat, counts, what)

    def describe_phase(self, t: Table) -> str | None:
        return describe_setup(t) if t._phase is _SETUP else None

    def finish(self, t: Table) -> Violation | None:
        return setup_unfinished(t, None, None) if t._phase is _SETUP else None

    def phase_candidates(self, t: Table) -> list[Event] | None:
        return setup_candidates(t) if t._phase is _SETUP else None


def _event_index(fact: ExchangeFact) -> int:
    return fact.event_index


def _state(t: Table) -> SetupState:
    c = t._setup
    assert c is not None
    return c


def _suit_name(suit: int) -> Message:
    """A suit's name as a clause of the glossary's ``[message.suit]``."""
    return Message(suit_name(suit))


def _following(what: str, clause: str, *values: object) -> Message:
    """An illegal event's message when the event comes as its description (``what``, a
    message of the glossary's ``[message.event]``): the event, then what is wrong with it
    (a template of ``[message.after_event]``)."""
    return Message("{e:event}{r:after_event}", what, Message(clause, *values))


# ---------------------------------------------------------------------- before play
def describe_setup(t: Table) -> str:
    """The phase while the exchange or the declarations are under way."""
    c = _state(t)
    if not c.exchanged:
        waiting = [s for s, p in enumerate(c.passed) if p is None]
        return Message("the exchange (换三张) is under way, seats {s:seat*, } have not passed",
                       waiting)
    waiting = [s for s, at in enumerate(c.declared_at) if at < 0]
    return Message("the suits are being declared (定缺), seats {s:seat*, } have not declared",
                   waiting)


def setup_unfinished(t: Table, what: str | None, seat: int | None) -> Violation:
    """``what`` (an event, or the end of the log when ``None``) while the exchange or the
    declarations are not over: ``bad_exchange`` or ``bad_declaration``."""
    c = _state(t)
    code = _C.BAD_EXCHANGE if not c.exchanged else _C.BAD_DECLARATION
    if what is None:
        return t._v(code, None, Message("the log ends while {phase}", describe_setup(t)),
                    at_event=False)
    return t._v(code, seat, _following(what, " while {phase}; every seat passes its tiles and "
                                             "declares its suit before the dealer's first "
                                             "discard", describe_setup(t)))


def check_exchange(t: Table, ev: Exchange) -> Violation | None:
    c = _state(t)  # a family without the exchange has no such event kind
    seat = ev.seat
    if c.exchanged or t._phase is not _setup_phase():
        return t._v(_C.BAD_EXCHANGE, seat,
                    _after(ev, " after the exchange was over ({phase})", t._describe_phase()))
    earlier = c.passed[seat]
    if earlier is not None:
        return t._v(_C.BAD_EXCHANGE, seat,
                    _after(ev, " but seat {seat} already passed {t:tiles} at event {n}", seat,
                           format_tiles(earlier.tiles), earlier.event_index))
    if len(ev.tiles) != c.exchange:
        return t._v(_C.BAD_EXCHANGE, seat,
                    _after(ev, ": {n} tiles, each seat passes {m:n}", len(ev.tiles), c.exchange))
    n = t._n
    to = ev.to
    if not 0 <= to < n or to == seat:
        if to == seat:
            return t._v(_C.BAD_EXCHANGE, seat,
                        _after(ev, ": a seat passes to another seat, not to itself"))
        return t._v(_C.BAD_EXCHANGE, seat,
                    _after(ev, ": a seat passes to another seat, not to seat {seat}, not at a "
                               "{n}-player table", to, n))
    v = check_direction(t, c, ev)
    if v is not None:
        return v
    hand = t._hands[seat]
    for tile in set(ev.tiles):
        if ev.tiles.count(tile) > hand[tile]:
            return t._v(_C.BAD_EXCHANGE, seat,
                        _after(ev, " but {held} (the tiles passed come from the dealt hand)",
                               t.summary(seat)))
    if c.one_suit and len({tile // 9 for tile in ev.tiles}) > 1:
        return t._v(_C.BAD_EXCHANGE, seat,
                    _after(ev, ": the tiles passed are of one suit (mechanics.exchange_one_suit)"))
    if any(tile >= NUM_SUITED for tile in ev.tiles):
        return t._v(_C.BAD_EXCHANGE, seat, _after(ev, ": only suited tiles are passed"))
    for other in c.passed:
        if other is None:
            continue
        if other.to == to:
            return t._v(_C.BAD_EXCHANGE, seat,
                        _after(ev, " but seat {seat} already receives from seat {from} (event "
                                   "{n}); each seat receives once", to, other.seat,
                               other.event_index))
        if (other.to - other.seat) % n != (to - seat) % n:
            return t._v(_C.BAD_EXCHANGE, seat,
                        _after(ev, " but seat {seat} passed to seat {to:seat} (event {n}): every "
                                   "seat passes the same way", other.seat, other.to,
                               other.event_index))
    return None


_DIRECTIONS = {"next": "its next seat", "previous": "the seat before it",
               "across": "the seat across"}
"""Each ``mechanics.exchange_to`` in words (the glossary's ``[message.direction]``)."""


def exchange_offset(to: str, n: int) -> int | None:
    """How many seats on a seat passes under ``mechanics.exchange_to`` at an ``n``-player
    table: next 1, previous n - 1, across n / 2 (an even table only: -1 at an odd one);
    None for any way (the same for every seat)."""
    if to == "next":
        return 1
    if to == "previous":
        return n - 1
    if to == "across":
        return n // 2 if n % 2 == 0 else -1
    return None


def check_direction(t: Table, c: SetupState, ev: Exchange) -> Violation | None:
    """``bad_exchange`` for a pass in another direction than ``mechanics.exchange_to``."""
    n = t._n
    offset = exchange_offset(c.to, n)
    if offset is None:
        return None
    seat = ev.seat
    if offset < 0:
        return t._v(_C.BAD_EXCHANGE, seat,
                    _after(ev, ": ruleset {r:ruleset} passes to the seat across "
                               "(mechanics.exchange_to = across), and a {n}-player table has "
                               "none", repr(t._rules.name), n))
    want = (seat + offset) % n
    if ev.to == want:
        return None
    return t._v(_C.BAD_EXCHANGE, seat,
                _after(ev, " but every seat passes to {d:direction} (mechanics.exchange_to = "
                           "{w:word}): seat {seat} passes to seat {to:seat}",
                       Message(_DIRECTIONS[c.to]), c.to, seat, want))


def apply_exchange(t: Table, ev: Exchange) -> None:
    c = _state(t)
    seat = ev.seat
    hand = t._hands[seat]
    for tile in ev.tiles:
        hand[tile] -= 1
    c.passed[seat] = ExchangeFact(seat, ev.tiles, ev.to, t._index)
    if None in c.passed:
        return
    for fact in c.passed:  # every seat has passed: the tiles arrive
        assert fact is not None
        receiver = t._hands[fact.to]
        for tile in fact.tiles:
            receiver[tile] += 1
    for s, counts in enumerate(t._hands):
        t._waits[s] = None
        t._kong_chances[s] = [x for x in range(NUM_SUITED) if counts[x] == 4]
    c.exchanged = True
    _end_setup(t, c)


def check_declare(t: Table, ev: DeclareSuit) -> Violation | None:
    c = _state(t)  # a family without declared suits has no such event kind
    seat = ev.seat
    at = c.declared_at[seat]
    if at >= 0:
        return t._v(_C.BAD_DECLARATION, seat,
                    _after(ev, " but seat {seat} declared {s:suit} at event {n}; a seat declares "
                               "once", seat, _suit_name(c.voids[seat]), at))
    if t._phase is not _setup_phase():
        return t._v(_C.BAD_DECLARATION, seat,
                    _after(ev, " after play began ({phase}); the suits are declared before the "
                               "dealer's first discard", t._describe_phase()))
    if not c.exchanged:
        return setup_unfinished(t, describe_event(ev), seat)
    suit = "mps".index(ev.suit.value)
    if not c.any_suit:
        hand = t._hands[seat]
        lacking = [s for s in range(3) if not any(hand[9 * s:9 * s + 9])]
        if lacking and suit not in lacking:
            if len(lacking) == 1:
                return t._v(_C.BAD_DECLARATION, seat,
                            _after(ev, _LACKS_ONE, _suit_name(lacking[0]), t.summary(seat)))
            return t._v(_C.BAD_DECLARATION, seat,
                        _after(ev, _LACKS_TWO, _suit_name(lacking[0]), _suit_name(lacking[1]),
                               t.summary(seat)))
    return None


def apply_declare(t: Table, ev: DeclareSuit) -> None:
    c = _state(t)
    c.voids[ev.seat] = "mps".index(ev.suit.value)
    c.declared_at[ev.seat] = t._index
    _end_setup(t, c)


def _end_setup(t: Table, c: SetupState) -> None:
    if not c.in_setup:
        t._phase = Phase.DISCARD  # the dealer's first turn


def _setup_phase() -> object:
    return Phase.SETUP


def setup_candidates(t: Table) -> list[Event]:
    """Every exchange or declaration that may be legal now (the table's check prunes)."""
    c = _state(t)
    n = t._n
    out: list[Event] = []
    if not c.exchanged:
        fixed = exchange_offset(c.to, n)
        if fixed is not None:
            offsets = {fixed} if fixed > 0 else set()
            if not offsets:
                return out  # no seat across at an odd table: nothing is legal
        else:
            offsets = {(p.to - p.seat) % n for p in c.passed if p is not None}
        for seat in range(n):
            if c.passed[seat] is not None:
                continue
            held: list[Tile] = []
            for tile in range(NUM_SUITED):
                held.extend([ALL_TILES[tile]] * min(t._hands[seat][tile], c.exchange))
            picks = sorted(set(_choose(tuple(held), c.exchange)))
            for k in sorted(offsets) if offsets else range(1, n):
                out.extend(Exchange(seat, pick, (seat + k) % n) for pick in picks)
        return out
    for seat in range(n):
        if c.declared_at[seat] < 0:
            out.extend(DeclareSuit(seat, suit) for suit in _SUITS)
    return out


def _choose(tiles: tuple[Tile, ...], k: int) -> list[tuple[Tile, ...]]:
    if k == 0:
        return [()]
    out: list[tuple[Tile, ...]] = []
    for i in range(len(tiles) - k + 1):
        out.extend((tiles[i], *rest) for rest in _choose(tiles[i + 1:], k - 1))
    return out


# ---------------------------------------------------------------------- declared suits
def check_discard(t: Table, seat: int, tile: int) -> Violation | None:
    """定缺: the declared suit's tiles go first."""
    c = _state(t)
    void = c.voids[seat]
    if void < 0 or tile // 9 == void:
        return None
    held = t._hands[seat][9 * void:9 * void + 9]
    if not any(held):
        return None
    return t._v(_C.DECLARED_SUIT_FIRST, seat,
                Message("seat {seat} discards {tile} but declared {s:suit} and still holds "
                        "{t:tiles}: the declared suit is discarded before any other tile (定缺); "
                        "{held}", seat, ALL_TILES[tile], _suit_name(void),
                        format_tiles(_suit_tiles(held, void)), t.summary(seat)))


def check_meld(t: Table, seat: int, tile: int, code: ViolationCode,
               what: str) -> Violation | None:
    """No pong or kong (``what``) of a tile of the seat's declared suit."""
    c = _state(t)
    void = c.voids[seat]
    if void < 0 or tile // 9 != void:
        return None
    return t._v(code, seat, _following(what, " but seat {seat} declared {s:suit} (定缺): no meld "
                                             "of that suit", seat, _suit_name(void)))


def check_win(t: Table, seat: int, counts: list[int], what: str) -> Violation | None:
    """No win (``what``) while holding a tile of the declared suit."""
    c = _state(t)
    void = c.voids[seat]
    if void < 0:
        return None
    held = counts[9 * void:9 * void + 9]
    if not any(held):
        return None
    return t._v(_C.MISSING_SUIT, seat,
                _following(what, " holding {t:tiles} of its declared suit {s:suit} (定缺: a hand "
                                 "holding it cannot win)", format_tiles(_suit_tiles(held, void)),
                           _suit_name(void)))


def _suit_tiles(held: list[int], suit: int) -> list[Tile]:
    return [ALL_TILES[9 * suit + r] for r in range(9) for _ in range(held[r])]


def _kinds(mech: Mechanics) -> dict[type, Kind]:
    out: dict[type, Kind] = {}
    if mech.exchange:
        out[Exchange] = Kind(_not_plain, check_exchange, apply_exchange)
    if mech.declare_suit:
        out[DeclareSuit] = Kind(_not_plain, check_declare, apply_declare)
    return out


def _new_state(t: Table, record: HandRecord) -> SetupState:
    state = t._setup = SetupState(t._mech, t._n)
    if state.in_setup:
        t._phase = _SETUP
    return state


MECHANIC = Mechanic("setup", ("exchange", "declare_suit"), _kinds, _new_state, plain_turn=False)
"""The exchange and the declared suits (a discard and a pong always take the full check)."""
