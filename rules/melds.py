"""Melds (exposed or declared sets): pong, the three kinds of kong, and chow (a family
that plays it)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from zhuoji.rules.frozen import quick_init
from zhuoji.rules.tiles import Tile


class MeldKind(StrEnum):
    PONG = "pong"
    EXPOSED_KONG = "exposed_kong"  # 点豆
    ADDED_KONG = "added_kong"  # 转弯豆
    CONCEALED_KONG = "concealed_kong"  # 闷豆
    CHOW = "chow"  # 吃: three in rank order of one suit, ``tile`` the lowest

    @property
    def is_kong(self) -> bool:
        return self is not MeldKind.PONG and self is not MeldKind.CHOW


@dataclass(frozen=True, slots=True)
class Meld:
    kind: MeldKind
    tile: Tile  # a chow's lowest tile
    from_seat: int | None = None  # who discarded the claimed tile (pong, exposed kong, chow)
    delayed: bool = False  # 憨包豆: an added kong not made when the fourth tile was drawn

    @property
    def size(self) -> int:
        return 4 if self.kind.is_kong else 3

    @property
    def is_kong(self) -> bool:
        kind = self.kind
        return kind is not MeldKind.PONG and kind is not MeldKind.CHOW

    @property
    def tiles(self) -> tuple[Tile, ...]:
        """The meld's tiles in rank order."""
        if self.kind is MeldKind.CHOW:
            return (self.tile, Tile(self.tile + 1), Tile(self.tile + 2))
        return (self.tile,) * self.size

    def __init__(
        self,
        kind: MeldKind,
        tile: Tile,
        from_seat: int | None = None,
        delayed: bool = False,
    ) -> None:
        # compiled: native stores (past the frozen __setattr__); interpreted: see quick_init
        self.kind = kind  # type: ignore[misc]
        self.tile = tile  # type: ignore[misc]
        self.from_seat = from_seat  # type: ignore[misc]
        self.delayed = delayed  # type: ignore[misc]


quick_init(Meld)
