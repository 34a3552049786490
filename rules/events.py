"""The rules engine's own event values (frozen, slotted).

These mirror the log format's events with tiles as :class:`~rules.tiles.Tile`; the
replayer never sees the parsers' models, a bridge in ``flows/`` converts.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from rules.frozen import quick_init
from rules.tiles import Tile


class KongKind(StrEnum):
    EXPOSED = "exposed"  # 点豆 / 明杠: on the last discard
    ADDED = "added"  # 转弯豆 / 爬坡豆: onto an own pong
    CONCEALED = "concealed"  # 闷豆 / 暗杠: four in hand


@quick_init
@dataclass(frozen=True, slots=True)
class Draw:
    seat: int
    tile: Tile


@quick_init
@dataclass(frozen=True, slots=True)
class Discard:
    seat: int
    tile: Tile


@quick_init
@dataclass(frozen=True, slots=True)
class Pong:
    seat: int
    tile: Tile
    from_seat: int


@quick_init
@dataclass(frozen=True, slots=True)
class Kong:
    seat: int
    tile: Tile
    kind: KongKind
    from_seat: int | None = None  # exposed kongs only


@quick_init
@dataclass(frozen=True, slots=True)
class Ready:
    seat: int


@quick_init
@dataclass(frozen=True, slots=True)
class Win:
    seat: int
    tile: Tile
    from_seat: int | None = None  # None on self-draw


@quick_init
@dataclass(frozen=True, slots=True)
class Flip:
    tile: Tile


@quick_init
@dataclass(frozen=True, slots=True)
class ExhaustiveDraw:
    pass


@quick_init
@dataclass(frozen=True, slots=True)
class Chow:
    seat: int
    tiles: tuple[Tile, ...]
    from_seat: int


Event = Draw | Discard | Pong | Kong | Ready | Win | Flip | ExhaustiveDraw | Chow


@quick_init
@dataclass(frozen=True, slots=True)
class RecordedItem:
    payer: int
    payee: int
    amount: int
    reason: str


@quick_init
@dataclass(frozen=True, slots=True)
class RecordedResult:
    """What the server recorded for a hand (the log's ``result``)."""

    deltas: tuple[int, ...]
    next_dealer: int | None = None
    items: tuple[RecordedItem, ...] | None = None


@quick_init
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
