"""The Changsha patterns: 大胡 (big wins), 小胡 (the small win) and the four 起手小胡
kinds of the dealt hand (``docs/rules/changsha.md``).

The names are plain strings the table puts on a win (``win_patterns``) and the settlement
scores; :func:`shape_patterns` names the shape patterns of a complete hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Final

from zhuoji.rules.melds import Meld, MeldKind
from zhuoji.rules.memo import Memo
from zhuoji.rules.tiles import Tile

_SUITED = 27
"""The suited kinds (万 筒 条): the first 27 places of a count vector."""

__all__ = [
    "ALL_258",
    "BIG_SHAPES",
    "SMALL_WIN_KINDS",
    "AllTwoFiveEight",
    "Pattern",
    "SmallWinKind",
    "has_258_pair",
    "is_258",
    "shape_patterns",
    "small_win_kinds",
]


class Pattern(StrEnum):
    """Every pattern of the family, in canonical order: the 大胡, then 小胡 and the 起手小胡."""

    HEAVENLY = "heavenly"  # 天胡: the dealer's dealt hand is complete
    EARTHLY = "earthly"  # 地胡: a non-dealer wins on the dealer's first discard
    ALL_PONGS = "all_pongs"  # 碰碰胡 (乱将: any pair)
    ALL_258 = "all_258"  # 将将胡: every tile a 2, 5 or 8
    PURE_SUIT = "pure_suit"  # 清一色 (乱将)
    SEABED_DRAW = "seabed_draw"  # 海底捞月: a win drawing the last tile
    SEABED_DISCARD = "seabed_discard"  # 海底炮: a win on the last tile shown by its taker
    SEVEN_PAIRS = "seven_pairs"  # 七小对
    KONG_BLOOM = "kong_bloom"  # 杠上开花: a win on the replacement after the dice
    ROBBING_KONG = "robbing_kong"  # 抢杠胡: a win on an added (明) kong's tile
    KONG_DISCARD = "kong_discard"  # 杠上炮: a win on the replacement the dice thrower discards
    SMALL = "small"  # 小胡: 2-5-8 pair, the rest sets
    FOUR_OF_A_KIND = "four_of_a_kind"  # 四喜 (起手)
    NO_258 = "no_258"  # 板板胡 (起手)
    MISSING_SUIT = "missing_suit"  # 缺一色 (起手)
    TWO_TRIPLETS = "two_triplets"  # 六六顺 (起手)

    @property
    def is_big(self) -> bool:
        """A 大胡."""
        return self in BIG_PATTERNS


BIG_PATTERNS: frozenset[Pattern] = frozenset(
    [Pattern.HEAVENLY, Pattern.EARTHLY, Pattern.ALL_PONGS, Pattern.ALL_258, Pattern.PURE_SUIT,
     Pattern.SEABED_DRAW, Pattern.SEABED_DISCARD, Pattern.SEVEN_PAIRS, Pattern.KONG_BLOOM,
     Pattern.ROBBING_KONG, Pattern.KONG_DISCARD])
"""The 大胡."""

BIG_SHAPES: frozenset[Pattern] = frozenset(
    [Pattern.ALL_PONGS, Pattern.ALL_258, Pattern.PURE_SUIT, Pattern.SEVEN_PAIRS])
"""The big shapes that take any pair (乱将): a hand with one of them needs no 2-5-8 pair."""


class SmallWinKind(StrEnum):
    """The 起手小胡 a player declares on its dealt hand (the ``small_win`` event's ``kind``)."""

    FOUR_OF_A_KIND = "four_of_a_kind"  # 四喜: four of one tile
    NO_258 = "no_258"  # 板板胡: no 2, 5 or 8
    MISSING_SUIT = "missing_suit"  # 缺一色: a suit missing
    TWO_TRIPLETS = "two_triplets"  # 六六顺: two triplets


SMALL_WIN_KINDS: tuple[SmallWinKind, ...] = tuple(SmallWinKind)


def is_258(tile: int) -> bool:
    """A suited tile of rank 2, 5 or 8."""
    return tile < _SUITED and tile % 9 in (1, 4, 7)


def _sets_only(counts: list[int]) -> bool:
    """The nine counts of one suit split into pungs and chows (no pair)."""
    for i in range(9):
        c = counts[i]
        if c == 0:
            continue
        if c >= 3:
            counts[i] -= 3
            ok = _sets_only(counts)
            counts[i] += 3
            if ok:
                return True
        if i <= 6 and counts[i + 1] and counts[i + 2]:
            counts[i] -= 1
            counts[i + 1] -= 1
            counts[i + 2] -= 1
            ok = _sets_only(counts)
            counts[i] += 1
            counts[i + 1] += 1
            counts[i + 2] += 1
            return ok
        return False
    return True


_SETS: Final = 1
"""A suit's flag: its tiles split into sets only."""
_PAIR_258: Final = 2
"""A suit's flag: its tiles split into sets and a pair of its 2, 5 or 8."""
_SUIT_FLAGS: Memo[tuple[int, ...], int] = Memo("changsha.suit_flags", 1 << 16)
"""The flags of each arrangement of one suit's nine counts met so far."""


def _suit_flags(key: tuple[int, ...]) -> int:
    flags = _SUIT_FLAGS.get(key)
    if flags is None:
        work = list(key)
        flags = _SETS if _sets_only(work) else 0
        for rank in (1, 4, 7):  # 2, 5, 8
            if work[rank] >= 2:
                work[rank] -= 2
                ok = _sets_only(work)
                work[rank] += 2
                if ok:
                    flags |= _PAIR_258
                    break
        _SUIT_FLAGS.put(key, flags)
    return flags


def has_258_pair(counts: Sequence[int]) -> bool:
    """The concealed hand (melds apart) splits into sets and a pair of 2, 5 or 8: one suit
    sets and that pair, the others sets only (each suit's answer memoised by its nine
    counts)."""
    pair = False
    for start in (0, 9, 18):
        flags = _suit_flags(tuple(counts[start:start + 9]))
        if flags & _SETS:
            continue
        if flags & _PAIR_258 and not pair:
            pair = True
            continue
        return False
    return pair


def _all_tiles(counts: Sequence[int], melds: Sequence[Meld]) -> list[int]:
    out = list(counts[:_SUITED])
    for m in melds:
        for x in m.tiles:
            out[x] += 1
    return out


def shape_patterns(counts: Sequence[int], melds: Sequence[Meld], seven_pairs: bool,
                   all_pungs: bool) -> tuple[Pattern, ...]:
    """The shape patterns of a complete hand (``counts``: the concealed tiles with the
    winning one; ``seven_pairs``/``all_pungs`` as the core's shape facts give them):
    the big shapes in :class:`Pattern` order, else ``small`` when the hand has a 2-5-8
    pair, else none (the hand is not a Changsha win)."""
    tiles = _all_tiles(counts, melds)
    out: list[Pattern] = []
    if all_pungs and not any(m.kind is MeldKind.CHOW for m in melds):
        out.append(Pattern.ALL_PONGS)
    held = [i for i in range(_SUITED) if tiles[i]]
    if held and all(is_258(i) for i in held) and not any(
            m.kind is MeldKind.CHOW for m in melds):
        out.append(Pattern.ALL_258)
    if held and len({i // 9 for i in held}) == 1:
        out.append(Pattern.PURE_SUIT)
    if seven_pairs:
        out.append(Pattern.SEVEN_PAIRS)
    if not out and has_258_pair(counts):
        out.append(Pattern.SMALL)
    return tuple(out)


class AllTwoFiveEight:
    """将将胡 as a complete hand of its own (the core's :class:`~zhuoji.rules.table.ExtraShapes`):
    every tile, concealed and in the melds, a 2, 5 or 8, the melds pongs or kongs, in any
    arrangement (seed 003: 「玩家手上每一牌都为2、5、8,可碰」: no sets and no pair needed)."""

    def _tiles(self, counts: Sequence[int], melds: Sequence[Meld]) -> list[int] | None:
        """The counts of every tile of the hand, or None when one is not a 2, 5 or 8 (or a
        meld is a chow)."""
        if any(m.kind is MeldKind.CHOW for m in melds):
            return None
        tiles = _all_tiles(counts, melds)
        if any(tiles[i] and not is_258(i) for i in range(_SUITED)) or any(
                counts[_SUITED:]):
            return None
        return tiles

    def complete(self, counts: Sequence[int], melds: Sequence[Meld]) -> bool:
        return (sum(counts[:_SUITED]) + 3 * len(melds) == 14
                and self._tiles(counts, melds) is not None)

    def waits(self, counts: Sequence[int], melds: Sequence[Meld]) -> tuple[Tile, ...]:
        if sum(counts[:_SUITED]) + 3 * len(melds) != 13:
            return ()
        tiles = self._tiles(counts, melds)
        if tiles is None:
            return ()
        return tuple(Tile(i) for i in range(_SUITED) if is_258(i) and tiles[i] < 4)


ALL_258 = AllTwoFiveEight()
"""The 将将胡 shape the Changsha table plays."""


def small_win_kinds(counts: Sequence[int]) -> tuple[SmallWinKind, ...]:
    """The 起手小胡 a dealt hand (its counts) has, in :class:`SmallWinKind` order."""
    held = [i for i in range(_SUITED) if counts[i]]
    out: list[SmallWinKind] = []
    if any(counts[i] >= 4 for i in held):
        out.append(SmallWinKind.FOUR_OF_A_KIND)
    if not any(is_258(i) for i in held):
        out.append(SmallWinKind.NO_258)
    if len({i // 9 for i in held}) < 3:
        out.append(SmallWinKind.MISSING_SUIT)
    if sum(1 for i in held if counts[i] >= 3) >= 2:
        out.append(SmallWinKind.TWO_TRIPLETS)
    return tuple(out)

