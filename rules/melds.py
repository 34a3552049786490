"""Melds (exposed or declared sets): pong and the three kinds of kong."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from rules.frozen import quick_init
from rules.tiles import Tile


class MeldKind(StrEnum):
    PONG = "pong"
    EXPOSED_KONG = "exposed_kong"  # 点豆
    ADDED_KONG = "added_kong"  # 转弯豆
    CONCEALED_KONG = "concealed_kong"  # 闷豆

    @property
    def is_kong(self) -> bool:
        return self is not MeldKind.PONG


@dataclass(frozen=True, slots=True)
class Meld:
    kind: MeldKind
    tile: Tile
    from_seat: int | None = None  # who discarded the claimed tile (pong, exposed kong)
    delayed: bool = False  # 憨包豆: an added kong not made when the fourth tile was drawn

    @property
    def size(self) -> int:
        return 3 if self.kind is MeldKind.PONG else 4

    @property
    def is_kong(self) -> bool:
        return self.kind is not MeldKind.PONG

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
