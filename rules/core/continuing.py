"""The core mechanics before the first discard and after a win, and what one hand leaves
to the next (``docs/rules/families.md``, ``docs/rules/legality.md``).

* ``exchange`` (换三张): after the deal every seat passes ``exchange`` tiles of its hand to
  one seat, all in the same direction; a seat receives once, and the tiles arrive when
  every seat has passed (a seat never passes on what it received).
* ``declare_suit`` (定缺): then every seat declares a suit once, before the dealer's first
  discard; a seat discards its declared suit's tiles before any other tile, never pongs
  or kongs one, and cannot win while it holds one.
* ``play_after_win`` (血战到底): a win does not end the hand; the seat after the winner
  (after the last of several winners on one discard) draws next, a seat that has won
  takes no further part, and the hand ends when one seat is left without a win or the
  wall ends.
* ``carry``: the state one hand leaves to the next within a game (荒番 multipliers, 连庄),
  recomputed from the earlier hands by the family's hook and compared with a hand's
  recorded ``carry``.

The table (:mod:`zhuoji.rules.table`) keeps a :class:`Continuing` in its ``_cont`` slot when its
family plays any of the first three (``None`` otherwise, and the Guizhou table never calls
in here); the checks and applies of ``exchange`` and ``declare_suit`` are here, the table's
own handlers call the checks that a mechanic adds to theirs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from zhuoji.rules.core.state import Phase, Table, _describe, suit_name
from zhuoji.rules.events import DeclareSuit, Event, Exchange, Suit
from zhuoji.rules.frozen import quick_init
from zhuoji.rules.mechanics import Mechanics
from zhuoji.rules.tiles import ALL_TILES, NUM_SUITED, Tile, format_tiles
from zhuoji.rules.violations import Violation, ViolationCode

__all__ = [
    "Carry",
    "Continuing",
    "ExchangeFact",
    "carry_findings",
    "sequence_finding",
]

_C = ViolationCode
_SUITS = (Suit.CHARACTERS, Suit.DOTS, Suit.BAMBOO)
_DECLARE_QUOTE = ("seed 003: 若摸牌结束只有两门花色，则以第三门花色作为定缺花色；"
                  "若为一门花色，则可以在其他两门花色中选择")


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


@dataclass(frozen=True, slots=True)
class Carry:
    """State carried into a hand from the earlier hands of its game, by name, in name
    order (e.g. ``draw_multiplier`` for 荒番, ``dealer_streak`` for 连庄)."""

    values: tuple[tuple[str, int], ...]

    def __init__(self, values: tuple[tuple[str, int], ...]) -> None:
        # compiled: native stores (past the frozen __setattr__); interpreted: see quick_init
        self.values = values  # type: ignore[misc]

    def get(self, name: str, default: int = 0) -> int:
        for key, value in self.values:
            if key == name:
                return value
        return default

    def as_dict(self) -> dict[str, int]:
        return dict(self.values)


quick_init(Carry)


def carry_of(values: Mapping[str, int]) -> Carry:
    """A :class:`Carry` of a mapping (names sorted: the same state is the same value)."""
    return Carry(tuple(sorted(values.items())))


# ---------------------------------------------------------------------- the state
class Continuing:
    """What the table keeps for these mechanics: the exchange and the declarations made
    so far, and where play resumes after a win."""

    def __init__(self, mech: Mechanics, n: int) -> None:
        self.exchange: int = mech.exchange  # tiles each seat passes, 0 for none
        self.one_suit: bool = mech.exchange_one_suit
        self.declare: bool = mech.declare_suit
        self.any_suit: bool = mech.declare_any_suit
        self.play_on: bool = mech.play_after_win
        self.passed: list[ExchangeFact | None] = [None] * n
        self.exchanged: bool = mech.exchange == 0  # every seat has passed (or none passes)
        self.voids: list[int] = [-1] * n  # the declared suit by seat (0 m, 1 p, 2 s), -1
        self.declared_at: list[int] = [-1] * n
        self.round_winners: list[int] = []  # the winners on the tile last won
        self.resume: int = -1  # after a win: the seat that draws next

    @property
    def in_setup(self) -> bool:
        """The exchange or the declarations are still under way."""
        return not self.exchanged or (self.declare and -1 in self.declared_at)

    def exchanges(self) -> tuple[ExchangeFact, ...]:
        done = [p for p in self.passed if p is not None]
        return tuple(sorted(done, key=_event_index))

    def declared_suits(self) -> tuple[Suit | None, ...]:
        return tuple([_SUITS[v] if v >= 0 else None for v in self.voids])

    # ------------------------------------------------------------------ what the table calls
    def check_active(self, t: Table, seat: int, what: str) -> Violation | None:
        return check_active(t, seat, what)

    def setup_unfinished(self, t: Table, what: str | None, seat: int | None) -> Violation:
        return setup_unfinished(t, what, seat)

    def setup_candidates(self, t: Table) -> list[Event]:
        return setup_candidates(t)

    def describe_setup(self, t: Table) -> str:
        return describe_setup(t)

    def describe_play_on(self, t: Table) -> str:
        return describe_play_on(t)

    def check_discard(self, t: Table, seat: int, tile: int) -> Violation | None:
        return check_discard(t, seat, tile)

    def check_meld(self, t: Table, seat: int, tile: int, code: ViolationCode,
                   what: str) -> Violation | None:
        return check_meld(t, seat, tile, code, what)

    def check_win(self, t: Table, seat: int, counts: list[int], what: str) -> Violation | None:
        return check_win(t, seat, counts, what)

    def after_win(self, t: Table, seat: int, first: bool) -> None:
        after_win(t, seat, first)


def _event_index(fact: ExchangeFact) -> int:
    return fact.event_index


def start(mech: Mechanics, n: int) -> Continuing | None:
    """The state of a table whose family plays any of these mechanics, else ``None``."""
    if not (mech.exchange or mech.declare_suit or mech.play_after_win):
        return None
    return Continuing(mech, n)


def _state(t: Table) -> Continuing:
    c = t._cont
    assert c is not None
    return c


def _suit_name(suit: int) -> str:
    return suit_name(suit)


def _missing(seats: list[int]) -> str:
    return ", ".join(str(s) for s in seats)


# ---------------------------------------------------------------------- before play
def describe_setup(t: Table) -> str:
    """The phase while the exchange or the declarations are under way."""
    c = _state(t)
    if not c.exchanged:
        waiting = [s for s, p in enumerate(c.passed) if p is None]
        return f"the exchange (换三张) is under way, seats {_missing(waiting)} have not passed"
    waiting = [s for s, at in enumerate(c.declared_at) if at < 0]
    return f"the suits are being declared (定缺), seats {_missing(waiting)} have not declared"


def setup_unfinished(t: Table, what: str | None, seat: int | None) -> Violation:
    """``what`` (an event, or the end of the log when ``None``) while the exchange or the
    declarations are not over: ``bad_exchange`` or ``bad_declaration``."""
    c = _state(t)
    code = _C.BAD_EXCHANGE if not c.exchanged else _C.BAD_DECLARATION
    if what is None:
        return t._v(code, None, f"the log ends while {describe_setup(t)}", at_event=False)
    return t._v(code, seat, f"{what} while {describe_setup(t)}; every seat passes its tiles "
                            f"and declares its suit before the dealer's first discard")


def check_exchange(t: Table, ev: Exchange) -> Violation | None:
    c = _state(t)  # a family without the exchange has no such event kind
    seat = ev.seat
    if c.exchanged or t._phase is not _setup_phase():
        return t._v(_C.BAD_EXCHANGE, seat,
                    f"{describe(ev)} after the exchange was over ({t._describe_phase()})")
    earlier = c.passed[seat]
    if earlier is not None:
        return t._v(_C.BAD_EXCHANGE, seat, f"{describe(ev)} but seat {seat} already passed "
                                           f"{format_tiles(earlier.tiles)} at event "
                                           f"{earlier.event_index}")
    if len(ev.tiles) != c.exchange:
        return t._v(_C.BAD_EXCHANGE, seat, f"{describe(ev)}: {len(ev.tiles)} tiles, each "
                                           f"seat passes {c.exchange}")
    n = t._n
    to = ev.to
    if not 0 <= to < n or to == seat:
        where = "itself" if to == seat else f"seat {to}, not at a {n}-player table"
        return t._v(_C.BAD_EXCHANGE, seat, f"{describe(ev)}: a seat passes to another seat, "
                                           f"not to {where}")
    hand = t._hands[seat]
    for tile in set(ev.tiles):
        if ev.tiles.count(tile) > hand[tile]:
            return t._v(_C.BAD_EXCHANGE, seat,
                        f"{describe(ev)} but {t.summary(seat)} (the tiles passed come from "
                        f"the dealt hand)")
    if c.one_suit and len({tile // 9 for tile in ev.tiles}) > 1:
        return t._v(_C.BAD_EXCHANGE, seat, f"{describe(ev)}: the tiles passed are of one suit "
                                           f"(mechanics.exchange_one_suit)")
    if any(tile >= NUM_SUITED for tile in ev.tiles):
        return t._v(_C.BAD_EXCHANGE, seat, f"{describe(ev)}: only suited tiles are passed")
    for other in c.passed:
        if other is None:
            continue
        if other.to == to:
            return t._v(_C.BAD_EXCHANGE, seat,
                        f"{describe(ev)} but seat {to} already receives from seat "
                        f"{other.seat} (event {other.event_index}); each seat receives once")
        if (other.to - other.seat) % n != (to - seat) % n:
            return t._v(_C.BAD_EXCHANGE, seat,
                        f"{describe(ev)} but seat {other.seat} passed to seat {other.to} "
                        f"(event {other.event_index}): every seat passes the same way")
    return None


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
                    f"{describe(ev)} but seat {seat} declared "
                    f"{_suit_name(c.voids[seat])} at event {at}; a seat declares once")
    if t._phase is not _setup_phase():
        return t._v(_C.BAD_DECLARATION, seat,
                    f"{describe(ev)} after play began ({t._describe_phase()}); the suits are "
                    f"declared before the dealer's first discard")
    if not c.exchanged:
        return setup_unfinished(t, describe(ev), seat)
    suit = "mps".index(ev.suit.value)
    if not c.any_suit:
        hand = t._hands[seat]
        lacking = [s for s in range(3) if not any(hand[9 * s:9 * s + 9])]
        if lacking and suit not in lacking:
            names = " or ".join(_suit_name(s) for s in lacking)
            return t._v(_C.BAD_DECLARATION, seat,
                        f"{describe(ev)} but holds no {names}: a hand lacking a suit "
                        f"declares one it lacks ({_DECLARE_QUOTE}); {t.summary(seat)}")
    return None


def apply_declare(t: Table, ev: DeclareSuit) -> None:
    c = _state(t)
    c.voids[ev.seat] = "mps".index(ev.suit.value)
    c.declared_at[ev.seat] = t._index
    _end_setup(t, c)


def _end_setup(t: Table, c: Continuing) -> None:
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
                f"seat {seat} discards {ALL_TILES[tile]} but declared {_suit_name(void)} and "
                f"still holds {format_tiles(_suit_tiles(held, void))}: the declared suit is "
                f"discarded before any other tile (定缺); {t.summary(seat)}")


def check_meld(t: Table, seat: int, tile: int, code: ViolationCode,
               what: str) -> Violation | None:
    """No pong or kong (``what``) of a tile of the seat's declared suit."""
    c = _state(t)
    void = c.voids[seat]
    if void < 0 or tile // 9 != void:
        return None
    return t._v(code, seat, f"{what} but seat {seat} declared {_suit_name(void)} (定缺): "
                            f"no meld of that suit")


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
                f"{what} holding {format_tiles(_suit_tiles(held, void))} of its "
                f"declared suit {_suit_name(void)} (定缺: a hand holding it cannot win)")


def _suit_tiles(held: list[int], suit: int) -> list[Tile]:
    return [ALL_TILES[9 * suit + r] for r in range(9) for _ in range(held[r])]


# ---------------------------------------------------------------------- after a win
def check_active(t: Table, seat: int, what: str) -> Violation | None:
    """血战到底: a seat that has won takes no further part in the hand."""
    c = t._cont
    if c is None or not c.play_on or not t._won[seat]:
        return None
    at = next(w.event_index for w in t._winners if w.seat == seat)
    return t._v(_C.ACTED_AFTER_WIN, seat,
                f"{what} but seat {seat} won at event {at} and takes no further turns "
                f"(血战到底)")


def after_win(t: Table, seat: int, first: bool) -> None:
    """After a win (``first``: the first on its tile): the next seats skip the winners;
    play resumes from the seat after the last winner, unless one seat is left."""
    c = _state(t)
    if first:
        c.round_winners = []
    c.round_winners.append(seat)
    n = t._n
    won = t._won
    active = [s for s in range(n) if not won[s]]
    t._pending_kong = None  # a robbed kong gets no replacement
    if len(active) <= 1:
        t._phase = Phase.WON  # one seat left without a win: the hand is over
        return
    t._next = tuple([_next_active(won, s, n) for s in range(n)])
    won_tile = t._won_tile
    assert won_tile is not None
    origin = won_tile.from_seat if won_tile.from_seat >= 0 else seat
    last = max(c.round_winners, key=lambda w: (w - origin) % n)
    c.resume = _next_active(won, last, n)
    t._phase = Phase.PLAY_ON


def _next_active(won: list[bool], seat: int, n: int) -> int:
    for k in range(1, n + 1):
        s = (seat + k) % n
        if not won[s]:
            return s
    return seat


def resume_seat(t: Table) -> int:
    """The seat that draws next after a win (血战到底)."""
    return _state(t).resume


def describe_play_on(t: Table) -> str:
    return f"after the win, seat {resume_seat(t)} draws next (血战到底)"


# ---------------------------------------------------------------------- carry
def carry_findings(hand_no: int, recorded: tuple[tuple[str, int], ...] | None,
                   ours: Carry | None, carries: bool) -> list[Violation]:
    """``carry_mismatch`` for each value of a hand's recorded ``carry`` the engine does not
    recompute the same (non-fatal; the hand is replayed all the same)."""
    if recorded is None:
        return []
    if not carries:
        return [Violation(_C.CARRY_MISMATCH, hand_no, None, None,
                          f"the hand records carry {dict(recorded)} but its ruleset carries "
                          f"no state from hand to hand (mechanics.carry off)", False)]
    if ours is None:
        return []
    out: list[Violation] = []
    mine = ours.as_dict()
    for name, value in recorded:
        if name not in mine:
            known = ", ".join(sorted(mine)) or "nothing"
            out.append(Violation(_C.CARRY_MISMATCH, hand_no, None, None,
                                 f"the hand records carry {name} = {value}, which the family "
                                 f"does not carry (it carries {known})", False))
        elif mine[name] != value:
            out.append(Violation(_C.CARRY_MISMATCH, hand_no, None, None,
                                 f"the hand records carry {name} = {value}, the earlier hands "
                                 f"of the game give {mine[name]}", False))
    return out


def sequence_finding(previous: int | None, hand_no: int) -> Violation | None:
    """``hand_sequence`` when a hand does not follow the one before it in the log (the
    state carried is computed from the hands in log order)."""
    if previous is None or hand_no == previous + 1:
        return None
    return Violation(_C.HAND_SEQUENCE, hand_no, None, None,
                     f"hand {hand_no} follows hand {previous} in the game, hand {previous + 1} "
                     f"expected; the state carried from hand to hand is computed in log order",
                     False)


# ---------------------------------------------------------------------- text
def describe(ev: Exchange | DeclareSuit) -> str:
    return _describe(ev)
