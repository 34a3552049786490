"""Tiles: 3 suits x 9 ranks (x 4 copies), the 暗麻将 wildcard, 7 honours (x 4) and 8 flowers.

A tile is a small integer so that hands are count vectors indexed by tile:
``0-8`` are 1m-9m (万), ``9-17`` 1p-9p (筒), ``18-26`` 1s-9s (条) and ``27`` is the
wildcard ``W`` (万能鸡); then ``28-34`` the honours ``1z``-``7z`` (东 南 西 北 白 发 中) and
``35-42`` the flowers ``1f``-``8f`` (春 夏 秋 冬 梅 兰 竹 菊, one copy each). Only canonical text
(``"5m"``, ``"W"``, ``"1z"``, ``"1f"``) is handled here; Chinese names and glyphs are the
parsers' business.

A family plays with one :class:`TileSet`: 108 suited tiles (the three suits alone), 136 with
the honours, or 144 with the flowers too. The hand analysis works on count vectors of
:data:`NUM_KINDS` (the suited kinds and the wildcard); the tiles after the wildcard never
enter those vectors, so the 108-tile games pay nothing for them.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from enum import IntEnum, StrEnum
from typing import Final


class Suit(StrEnum):
    CHARACTERS = "m"  # 万
    DOTS = "p"  # 筒
    BAMBOO = "s"  # 条
    WILD = "W"  # 万能鸡
    HONOURS = "z"  # 字牌: winds 东南西北, dragons 白发中
    FLOWERS = "f"  # 花牌: seasons 春夏秋冬, plants 梅兰竹菊


class Tile(IntEnum):
    M1 = 0
    M2 = 1
    M3 = 2
    M4 = 3
    M5 = 4
    M6 = 5
    M7 = 6
    M8 = 7
    M9 = 8
    P1 = 9
    P2 = 10
    P3 = 11
    P4 = 12
    P5 = 13
    P6 = 14
    P7 = 15
    P8 = 16
    P9 = 17
    S1 = 18
    S2 = 19
    S3 = 20
    S4 = 21
    S5 = 22
    S6 = 23
    S7 = 24
    S8 = 25
    S9 = 26
    W = 27
    EAST = 28  # 1z 东
    SOUTH = 29  # 2z 南
    WEST = 30  # 3z 西
    NORTH = 31  # 4z 北
    WHITE = 32  # 5z 白
    GREEN = 33  # 6z 发
    RED = 34  # 7z 中
    SPRING = 35  # 1f 春
    SUMMER = 36  # 2f 夏
    AUTUMN = 37  # 3f 秋
    WINTER = 38  # 4f 冬
    PLUM = 39  # 5f 梅
    ORCHID = 40  # 6f 兰
    BAMBOO = 41  # 7f 竹
    CHRYSANTHEMUM = 42  # 8f 菊

    @property
    def suit(self) -> Suit:
        return _SUIT_OF[self]

    @property
    def rank(self) -> int:
        """1-9 for suited tiles, 0 for the wildcard, 1-7 for honours, 1-8 for flowers."""
        return self % 9 + 1 if self < 27 else _HIGH_RANKS[self - 27]

    @property
    def is_wild(self) -> bool:
        return self == 27

    @property
    def is_suited(self) -> bool:
        """One of the 27 kinds of 万, 筒 and 条."""
        return self < 27

    @property
    def is_honour(self) -> bool:
        return 28 <= self <= 34

    @property
    def is_flower(self) -> bool:
        return self >= 35

    @property
    def chinese(self) -> str:
        """The tile's Chinese name (``五万``, ``东``, ``春``; ``万能鸡`` for the wildcard)."""
        return TILE_CHINESE[self]

    @property
    def text(self) -> str:
        return TILE_TEXT[self]

    def __str__(self) -> str:
        return TILE_TEXT[self]

    def __repr__(self) -> str:
        return f"Tile({TILE_TEXT[self]!r})"

    @classmethod
    def parse(cls, text: str) -> Tile:
        """Canonical text (``"5m"``, ``"W"``) to a tile; raises ``ValueError`` otherwise."""
        try:
            return TILE_BY_TEXT[text]
        except KeyError:
            raise ValueError(f"not a canonical tile: {text!r}") from None

    def next_in_suit(self) -> Tile:
        """The tile one rank higher in the same suit, 9 wrapping to 1 (the 翻鸡 rule)."""
        if self >= 27:
            raise ValueError(f"{TILE_TEXT[self]} is not a suited tile: it has no successor")
        base = self - self % 9
        return Tile(base + (self % 9 + 1) % 9)


NUM_KINDS: Final = 28
"""Length of a count vector (27 suited kinds plus the wildcard)."""
NUM_SUITED: Final = 27
NUM_HONOURS: Final = 7
NUM_FLOWERS: Final = 8
NUM_TILE_KINDS: Final = NUM_KINDS + NUM_HONOURS + NUM_FLOWERS
"""Every tile kind: the count vector's kinds, the honours and the flowers (43)."""
COPIES: Final = 4
SUITS: tuple[Suit, Suit, Suit] = (Suit.CHARACTERS, Suit.DOTS, Suit.BAMBOO)

TILE_TEXT: tuple[str, ...] = tuple(
    [f"{r}{s}" for s in "mps" for r in range(1, 10)]
    + ["W"]
    + [f"{r}z" for r in range(1, NUM_HONOURS + 1)]
    + [f"{r}f" for r in range(1, NUM_FLOWERS + 1)]
)
TILE_BY_TEXT: dict[str, Tile] = {t: Tile(i) for i, t in enumerate(TILE_TEXT)}
_HIGH_RANKS: tuple[int, ...] = (0, *range(1, NUM_HONOURS + 1), *range(1, NUM_FLOWERS + 1))
_SUIT_OF: tuple[Suit, ...] = tuple(
    [Suit(s) for s in "mps" for _ in range(9)]
    + [Suit.WILD]
    + [Suit.HONOURS] * NUM_HONOURS
    + [Suit.FLOWERS] * NUM_FLOWERS
)
_RANK_NAMES = "一二三四五六七八九"
TILE_CHINESE: tuple[str, ...] = tuple(
    [f"{_RANK_NAMES[r]}{s}" for s in "万筒条" for r in range(9)]
    + ["万能鸡"]
    + list("东南西北白发中")
    + list("春夏秋冬梅兰竹菊")
)
"""Each tile's Chinese name, by tile value."""
ALL_TILES: tuple[Tile, ...] = tuple(Tile(i) for i in range(NUM_KINDS))
"""The kinds of a count vector: the suited tiles and the wildcard."""
SUITED_TILES: tuple[Tile, ...] = ALL_TILES[:NUM_SUITED]
HONOUR_TILES: tuple[Tile, ...] = tuple(Tile(i) for i in range(NUM_KINDS, NUM_KINDS + 7))
FLOWER_TILES: tuple[Tile, ...] = tuple(Tile(i) for i in range(NUM_KINDS + 7, NUM_TILE_KINDS))
EVERY_TILE: tuple[Tile, ...] = tuple(Tile(i) for i in range(NUM_TILE_KINDS))


class TileSet(IntEnum):
    """The tiles a family plays with, by their number (wildcards are a setting apart)."""

    SUITED = 108  # 万 筒 条 x 4
    HONOURS = 136  # and 东 南 西 北 白 发 中 x 4
    FLOWERS = 144  # and 春 夏 秋 冬 梅 兰 竹 菊 x 1

    @property
    def kinds(self) -> tuple[Tile, ...]:
        """The tile kinds of the set, in tile order."""
        if self is TileSet.SUITED:
            return SUITED_TILES
        if self is TileSet.HONOURS:
            return SUITED_TILES + HONOUR_TILES
        return SUITED_TILES + HONOUR_TILES + FLOWER_TILES

    def has(self, tile: Tile) -> bool:
        """Whether ``tile`` is one of the set (the wildcard is not: it is a setting)."""
        if tile < 27:
            return True
        if tile.is_honour:
            return self is not TileSet.SUITED
        return tile.is_flower and self is TileSet.FLOWERS

    def wall(self) -> list[Tile]:
        """Every tile of the set, each copy once, in tile order (``len`` is the set's number)."""
        out: list[Tile] = []
        for tile in self.kinds:
            out.extend([tile] * (1 if tile.is_flower else COPIES))
        return out


_RANKS_OF: dict[str, int] = {"m": 9, "p": 9, "s": 9, "z": NUM_HONOURS, "f": NUM_FLOWERS}


def parse_tiles(text: str) -> list[Tile]:
    """Compact notation to tiles: ``"123m55p"`` -> 1m 2m 3m 5p 5p; ``W`` stands alone;
    honours ``1234567z`` and flowers ``12345678f`` as the suits.

    Digits before a suit letter all belong to that suit; spaces are ignored.
    """
    tiles: list[Tile] = []
    pending: list[str] = []
    for ch in text:
        if ch.isspace():
            continue
        if ch.isdigit():
            pending.append(ch)
        elif ch in _RANKS_OF:
            if not pending:
                raise ValueError(f"suit letter {ch!r} with no ranks in {text!r}")
            for d in pending:
                if d == "0" or int(d) > _RANKS_OF[ch]:
                    raise ValueError(f"rank {d} of {ch!r} in {text!r}")
                tiles.append(TILE_BY_TEXT[d + ch])
            pending = []
        elif ch == "W":
            if pending:
                raise ValueError(f"ranks {''.join(pending)!r} with no suit in {text!r}")
            tiles.append(Tile.W)
        else:
            raise ValueError(f"unexpected {ch!r} in tile notation {text!r}")
    if pending:
        raise ValueError(f"ranks {''.join(pending)!r} with no suit in {text!r}")
    return tiles


_END = 28
"""The code after the last tile, in :data:`_RUN_TEXT`."""
_RUN_TEXT: tuple[tuple[str, ...], ...] = tuple(
    tuple(
        "W"
        if t == 27
        else TILE_TEXT[t][0] + ("" if n < 27 and n // 9 == t // 9 else TILE_TEXT[t][1])
        for n in range(_END + 1)
    )
    for t in range(NUM_KINDS)
)
"""``_RUN_TEXT[tile][next]``: a tile's part of compact notation when ``next`` follows it
(``_END``: nothing): its rank, and its suit letter when the run of its suit ends there."""
_END_CODE = bytes([_END])


def format_runs(codes: bytes) -> str:
    """Tiles given as bytes (each a tile value below :data:`NUM_KINDS`), in the order
    given, in compact notation: a suit letter closes each run of one suit, ``W`` stands
    alone. ``format_runs(bytes(sorted(tiles)))`` is :func:`format_tiles`."""
    if not codes:
        return ""
    return "".join([_RUN_TEXT[t][n] for t, n in zip(codes, codes[1:] + _END_CODE, strict=True)])


_RANK_CODES = bytes(ord(TILE_TEXT[t][0]) if t < NUM_KINDS else 0 for t in range(256))
"""``bytes.translate`` table: each tile code to its rank digit (``W`` for the wildcard)."""


def format_tiles(tiles: Iterable[int]) -> str:
    """Tiles to compact notation, sorted: the inverse of :func:`parse_tiles`."""
    values = tiles if isinstance(tiles, (list, tuple)) else list(tiles)
    try:
        codes = bytes(sorted(bytes(values)))
    except (TypeError, ValueError):  # not all small integers
        return _format_tiles_checked(sorted(values))
    if not codes:
        return ""
    if codes[-1] >= NUM_KINDS:
        return _format_tiles_checked(sorted(values))
    return format_sorted_codes(codes)


def format_sorted_codes(codes: bytes) -> str:
    """:func:`format_tiles` of tiles given as bytes in ascending order, each a tile value
    below :data:`NUM_KINDS` (not checked)."""
    # Sorted: the suits follow one another, then the wildcards ("W" as their rank).
    ranks = codes.translate(_RANK_CODES).decode()
    p = bisect_left(codes, 9)
    s = bisect_left(codes, 18, p)
    w = bisect_left(codes, 27, s)
    out = ranks[:p] + "m" if p else ""
    if s > p:
        out += ranks[p:s] + "p"
    if w > s:
        out += ranks[s:w] + "s"
    return out + ranks[w:]


def _format_tiles_checked(ordered: list[int]) -> str:
    """:func:`format_tiles` of sorted values that are not all count-vector kinds: honours
    and flowers after the wildcards, values that are no tile left out."""
    out: list[str] = []
    for suit_index, suit in enumerate("mps"):
        ranks = [str(t - 9 * suit_index + 1) for t in ordered if t // 9 == suit_index and t < 27]
        if ranks:
            out.append("".join(ranks) + suit)
    out.extend("W" for t in ordered if t == 27)
    for suit, first, last in (("z", 28, 34), ("f", 35, 42)):
        ranks = [str(t - first + 1) for t in ordered if first <= t <= last]
        if ranks:
            out.append("".join(ranks) + suit)
    return "".join(out)


def counts_of(tiles: Iterable[int]) -> list[int]:
    """A count vector of length :data:`NUM_KINDS`."""
    counts = [0] * NUM_KINDS
    for t in tiles:
        counts[t] += 1
    return counts


def tiles_of(counts: Iterable[int]) -> list[Tile]:
    """The inverse of :func:`counts_of`, in tile order (a longer vector's honours and
    flowers too)."""
    out: list[Tile] = []
    for i, c in enumerate(counts):
        out.extend([EVERY_TILE[i]] * c)
    return out
