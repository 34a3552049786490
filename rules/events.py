"""The rules engine's own event values (frozen, slotted).

These mirror the log format's events with tiles as :class:`~zhuoji.rules.tiles.Tile`; the
replayer never sees the parsers' models, a bridge in ``flows/`` converts. Each event kind
(its log name, fields, token, snapshot and text) is declared once, in
:mod:`zhuoji.rules.event_kinds` for the core and its mechanics and in a family's folder for
the family's own kinds (``flip``, ``small_win``): the values here are what the declarations
build.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from zhuoji.rules.frozen import quick_init
from zhuoji.rules.tiles import Tile


class KongKind(StrEnum):
    EXPOSED = "exposed"  # 点豆 / 明杠: on the last discard
    ADDED = "added"  # 转弯豆 / 爬坡豆: onto an own pong
    CONCEALED = "concealed"  # 闷豆 / 暗杠: four in hand


@dataclass(frozen=True, slots=True)
class Draw:
    seat: int
    tile: Tile

    def __init__(self, seat: int, tile: Tile) -> None:
        # compiled: native stores (past the frozen __setattr__); interpreted: see quick_init
        self.seat = seat  # type: ignore[misc]
        self.tile = tile  # type: ignore[misc]


quick_init(Draw)


@dataclass(frozen=True, slots=True)
class Discard:
    seat: int
    tile: Tile

    def __init__(self, seat: int, tile: Tile) -> None:
        # compiled: native stores (past the frozen __setattr__); interpreted: see quick_init
        self.seat = seat  # type: ignore[misc]
        self.tile = tile  # type: ignore[misc]


quick_init(Discard)


@dataclass(frozen=True, slots=True)
class Pong:
    seat: int
    tile: Tile
    from_seat: int

    def __init__(self, seat: int, tile: Tile, from_seat: int) -> None:
        # compiled: native stores (past the frozen __setattr__); interpreted: see quick_init
        self.seat = seat  # type: ignore[misc]
        self.tile = tile  # type: ignore[misc]
        self.from_seat = from_seat  # type: ignore[misc]


quick_init(Pong)


@dataclass(frozen=True, slots=True)
class Kong:
    seat: int
    tile: Tile
    kind: KongKind
    from_seat: int | None = None  # exposed kongs only

    def __init__(self, seat: int, tile: Tile, kind: KongKind, from_seat: int | None = None) -> None:
        # compiled: native stores (past the frozen __setattr__); interpreted: see quick_init
        self.seat = seat  # type: ignore[misc]
        self.tile = tile  # type: ignore[misc]
        self.kind = kind  # type: ignore[misc]
        self.from_seat = from_seat  # type: ignore[misc]


quick_init(Kong)


@dataclass(frozen=True, slots=True)
class Ready:
    seat: int

    def __init__(self, seat: int) -> None:
        # compiled: native stores (past the frozen __setattr__); interpreted: see quick_init
        self.seat = seat  # type: ignore[misc]


quick_init(Ready)


@dataclass(frozen=True, slots=True)
class Win:
    seat: int
    tile: Tile
    from_seat: int | None = None  # None on self-draw

    def __init__(self, seat: int, tile: Tile, from_seat: int | None = None) -> None:
        # compiled: native stores (past the frozen __setattr__); interpreted: see quick_init
        self.seat = seat  # type: ignore[misc]
        self.tile = tile  # type: ignore[misc]
        self.from_seat = from_seat  # type: ignore[misc]


quick_init(Win)


@dataclass(frozen=True, slots=True)
class Flip:
    tile: Tile

    def __init__(self, tile: Tile) -> None:
        # compiled: native stores (past the frozen __setattr__); interpreted: see quick_init
        self.tile = tile  # type: ignore[misc]


quick_init(Flip)


@dataclass(frozen=True, slots=True)
class ExhaustiveDraw:
    pass

    def __init__(self) -> None:
        # compiled: native stores (past the frozen __setattr__); interpreted: see quick_init
        pass


quick_init(ExhaustiveDraw)


@dataclass(frozen=True, slots=True)
class Chow:
    seat: int
    tiles: tuple[Tile, ...]
    from_seat: int

    def __init__(self, seat: int, tiles: tuple[Tile, ...], from_seat: int) -> None:
        # compiled: native stores (past the frozen __setattr__); interpreted: see quick_init
        self.seat = seat  # type: ignore[misc]
        self.tiles = tiles  # type: ignore[misc]
        self.from_seat = from_seat  # type: ignore[misc]


quick_init(Chow)


# --- chow and flowers: the flower shown (rules/claims.py)


@dataclass(frozen=True, slots=True)
class Flower:
    """A flower shown and set aside; the seat's next event is its replacement draw."""

    seat: int
    tile: Tile

    def __init__(self, seat: int, tile: Tile) -> None:
        # compiled: native stores (past the frozen __setattr__); interpreted: see quick_init
        self.seat = seat  # type: ignore[misc]
        self.tile = tile  # type: ignore[misc]


quick_init(Flower)


@dataclass(frozen=True, slots=True)
class RecordedItem:
    payer: int
    payee: int
    amount: int
    reason: str

    def __init__(self, payer: int, payee: int, amount: int, reason: str) -> None:
        # compiled: native stores (past the frozen __setattr__); interpreted: see quick_init
        self.payer = payer  # type: ignore[misc]
        self.payee = payee  # type: ignore[misc]
        self.amount = amount  # type: ignore[misc]
        self.reason = reason  # type: ignore[misc]


quick_init(RecordedItem)


@dataclass(frozen=True, slots=True)
class RecordedResult:
    """What the server recorded for a hand (the log's ``result``)."""

    deltas: tuple[int, ...]
    next_dealer: int | None = None
    items: tuple[RecordedItem, ...] | None = None

    def __init__(
        self,
        deltas: tuple[int, ...],
        next_dealer: int | None = None,
        items: tuple[RecordedItem, ...] | None = None,
    ) -> None:
        # compiled: native stores (past the frozen __setattr__); interpreted: see quick_init
        self.deltas = deltas  # type: ignore[misc]
        self.next_dealer = next_dealer  # type: ignore[misc]
        self.items = items  # type: ignore[misc]


quick_init(RecordedResult)


@dataclass(frozen=True, slots=True)
class HandRecord:
    """One hand as the replayer takes it: the log's hand plus the game facts it needs."""

    hand_no: int
    n_players: int
    dealer: int
    dealer_streak: int
    deal: tuple[tuple[Tile, ...], ...]
    events: tuple[Event, ...]
    wall: tuple[Tile, ...] | None = None
    result: RecordedResult | None = None
    base_stake: int = 1
    set_aside: tuple[Tile, ...] | None = None  # tiles kept out of play (暗麻将's two)
    carry: tuple[tuple[str, int], ...] | None = None  # the log's ``carry``, by name

    def __init__(
        self,
        hand_no: int,
        n_players: int,
        dealer: int,
        dealer_streak: int,
        deal: tuple[tuple[Tile, ...], ...],
        events: tuple[Event, ...],
        wall: tuple[Tile, ...] | None = None,
        result: RecordedResult | None = None,
        base_stake: int = 1,
        set_aside: tuple[Tile, ...] | None = None,
        carry: tuple[tuple[str, int], ...] | None = None,
    ) -> None:
        # compiled: native stores (past the frozen __setattr__); interpreted: see quick_init
        self.hand_no = hand_no  # type: ignore[misc]
        self.n_players = n_players  # type: ignore[misc]
        self.dealer = dealer  # type: ignore[misc]
        self.dealer_streak = dealer_streak  # type: ignore[misc]
        self.deal = deal  # type: ignore[misc]
        self.events = events  # type: ignore[misc]
        self.wall = wall  # type: ignore[misc]
        self.result = result  # type: ignore[misc]
        self.base_stake = base_stake  # type: ignore[misc]
        self.set_aside = set_aside  # type: ignore[misc]
        self.carry = carry  # type: ignore[misc]


quick_init(HandRecord)


# --- the wall mechanics' events: the end of the wall and kong draws (rules/wall_events.py)
@dataclass(frozen=True, slots=True)
class Roll:
    """Dice thrown during the hand (开杠: the kong's replacement is counted by them)."""

    seat: int
    dice: tuple[int, ...]

    def __init__(self, seat: int, dice: tuple[int, ...]) -> None:
        # compiled: native stores (past the frozen __setattr__); interpreted: see quick_init
        self.seat = seat  # type: ignore[misc]
        self.dice = dice  # type: ignore[misc]


quick_init(Roll)


@dataclass(frozen=True, slots=True)
class Seabed:
    """The last tile of the wall offered to a seat (海底漫游): taken or declined."""

    seat: int
    take: bool

    def __init__(self, seat: int, take: bool) -> None:
        # compiled: native stores (past the frozen __setattr__); interpreted: see quick_init
        self.seat = seat  # type: ignore[misc]
        self.take = take  # type: ignore[misc]


quick_init(Seabed)


@dataclass(frozen=True, slots=True)
class Bird:
    """扎鸟: the tiles turned up after the win(s) to score."""

    tiles: tuple[Tile, ...]

    def __init__(self, tiles: tuple[Tile, ...]) -> None:
        # compiled: native stores (past the frozen __setattr__); interpreted: see quick_init
        self.tiles = tiles  # type: ignore[misc]


quick_init(Bird)

WallEvent = Roll | Seabed | Bird
"""The events of the wall mechanics (``roll``, ``seabed``, ``bird``)."""

# --- the exchange and the declared suit (rules/continuing.py)
@dataclass(frozen=True, slots=True)
class Exchange:
    """换三张: ``seat`` passes ``tiles`` (from its dealt hand) to seat ``to``."""

    seat: int
    tiles: tuple[Tile, ...]
    to: int

    def __init__(self, seat: int, tiles: tuple[Tile, ...], to: int) -> None:
        # compiled: native stores (past the frozen __setattr__); interpreted: see quick_init
        self.seat = seat  # type: ignore[misc]
        self.tiles = tiles  # type: ignore[misc]
        self.to = to  # type: ignore[misc]


quick_init(Exchange)


class Suit(StrEnum):
    """A suit by its letter, as ``declare_suit`` names it."""

    CHARACTERS = "m"
    DOTS = "p"
    BAMBOO = "s"


@dataclass(frozen=True, slots=True)
class DeclareSuit:
    """定缺: ``seat`` declares the suit it will play without."""

    seat: int
    suit: Suit

    def __init__(self, seat: int, suit: Suit) -> None:
        # compiled: native stores (past the frozen __setattr__); interpreted: see quick_init
        self.seat = seat  # type: ignore[misc]
        self.suit = suit  # type: ignore[misc]


quick_init(DeclareSuit)


# --- the small win shown on the dealt hand (a family's own kind, declared in its folder)
@dataclass(frozen=True, slots=True)
class SmallWin:
    """起手小胡: ``seat`` shows ``tiles`` of its dealt hand as a small win of ``kind``
    (``four_of_a_kind`` 四喜, ``no_258`` 板板胡, ``missing_suit`` 缺一色, ``two_triplets``
    六六顺); play goes on."""

    seat: int
    kind: str
    tiles: tuple[Tile, ...]

    def __init__(self, seat: int, kind: str, tiles: tuple[Tile, ...]) -> None:
        # compiled: native stores (past the frozen __setattr__); interpreted: see quick_init
        self.seat = seat  # type: ignore[misc]
        self.kind = kind  # type: ignore[misc]
        self.tiles = tiles  # type: ignore[misc]


quick_init(SmallWin)


# --- every event kind (each mechanic's block adds its kinds to the union)
Event = (Draw | Discard | Pong | Kong | Ready | Win | Flip | ExhaustiveDraw | Chow | WallEvent
         | Flower | Exchange | DeclareSuit | SmallWin)
