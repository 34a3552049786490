"""Hand analysis with the honours: complete hands, waits and shanten of a family whose tile
set holds 东 南 西 北 白 发 中 (136 or 144 tiles).

The 108-tile games keep :mod:`zhuoji.rules.hand` and :mod:`zhuoji.rules.shanten` on count vectors of
:data:`~zhuoji.rules.tiles.NUM_KINDS` (28) kinds and pay nothing for this module. A family with
honours uses *wide* count vectors: the same 28 entries, then one per honour
(``counts[28]`` = 东 ... ``counts[34]`` = 中, the tile values), and, in a table that plays
flowers, one per flower after them (``counts[35:43]``). Honours form pungs and pairs but
never chows; a flower is no part of any hand (a vector holding one is not complete and has
no waits: a flower is shown and replaced before the hand counts).

The suits are read through :mod:`zhuoji.rules.hand`'s per-suit tables (what nine counts split
into) and :mod:`zhuoji.rules.shanten`'s per-suit options; the honours are counted directly, each
kind on its own (a triplet, a pair, or tiles that fit nowhere). The conventions are those of
:mod:`zhuoji.rules.hand`: seven pairs needs a concealed hand and counts a four of a kind as two
pairs; a tile the hand holds four of is never a wait. The families with honours play no
wildcards (the wildcard belongs to a suited-tiles family): a wide vector holding one is not a hand.
"""

from __future__ import annotations

from collections.abc import Sequence

from zhuoji.rules.hand import _CODE, _PAIR, _SETS, _lookup_info
from zhuoji.rules.shanten import Option, _options, suit_key
from zhuoji.rules.tiles import COPIES, HONOUR_TILES, NUM_KINDS, NUM_SUITED, SUITED_TILES, Tile

__all__ = [
    "WIDE_KINDS",
    "is_complete_wide",
    "is_seven_pairs_wide",
    "is_standard_complete_wide",
    "seven_pairs_shanten_wide",
    "shanten_wide",
    "standard_shanten_wide",
    "waiting_tiles_wide",
]

WIDE_KINDS = NUM_KINDS + len(HONOUR_TILES)
"""The kinds a wide vector's analysis reads: the suited tiles, the wildcard, the honours
(35); a longer vector's further entries are the flowers."""

_HONOURS = range(NUM_KINDS, WIDE_KINDS)
_CANDIDATES: tuple[Tile, ...] = SUITED_TILES + HONOUR_TILES
_ALL_SETS = _SETS + _SETS + _SETS  # three suits of sets only
_SETS_AND_PAIR = _SETS + _SETS + _PAIR  # two suits of sets only, one of sets and the pair


def _is_hand(counts: Sequence[int], tiles: int) -> bool:
    """A wide vector of ``tiles`` tiles, every count 0-4, no wildcard and no flower."""
    if len(counts) < WIDE_KINDS or counts[NUM_SUITED]:
        return False
    total = 0
    for t in range(WIDE_KINDS):
        c = counts[t]
        if c < 0 or c > COPIES:
            return False
        total += c
    if total != tiles:
        return False
    return not any(counts[WIDE_KINDS:])


def _suit_codes(counts: Sequence[int]) -> int:
    """The sum of the three suits' set/pair codes (see :mod:`zhuoji.rules.hand`)."""
    return ((_lookup_info(tuple(counts[0:9])) & _CODE)
            + (_lookup_info(tuple(counts[9:18])) & _CODE)
            + (_lookup_info(tuple(counts[18:27])) & _CODE))


def _standard(counts: Sequence[int]) -> bool:
    """Sets and one pair, the honours as pungs and at most the pair (tiles checked)."""
    pairs = 0
    for t in _HONOURS:
        c = counts[t]
        if c == 2:
            pairs += 1
        elif c == 1 or c == 4:
            return False
    if pairs > 1:
        return False
    return _suit_codes(counts) == (_ALL_SETS if pairs else _SETS_AND_PAIR)


def _all_even(counts: Sequence[int]) -> bool:
    return all(counts[t] % 2 == 0 for t in range(WIDE_KINDS))


def is_standard_complete_wide(counts: Sequence[int], melds_count: int = 0) -> bool:
    """Complete as ``4 - melds_count`` sets and a pair (seven pairs not considered)."""
    return _is_hand(counts, 14 - 3 * melds_count) and _standard(counts)


def is_seven_pairs_wide(counts: Sequence[int], melds_count: int = 0) -> bool:
    """Seven pairs: 14 concealed tiles, no melds, a four of a kind counting as two pairs."""
    return melds_count == 0 and _is_hand(counts, 14) and _all_even(counts)


def is_complete_wide(counts: Sequence[int], melds_count: int = 0) -> bool:
    """Whether the concealed wide ``counts`` with ``melds_count`` melds form a complete
    hand: ``4 - melds_count`` sets (pungs, chows of one suit, pungs of an honour) and a
    pair, or, with no melds, seven pairs."""
    if not _is_hand(counts, 14 - 3 * melds_count):
        return False
    return _standard(counts) or (melds_count == 0 and _all_even(counts))


def waiting_tiles_wide(counts: Sequence[int], melds_count: int = 0) -> tuple[Tile, ...]:
    """The tiles (suited and honours, in tile order) that complete a waiting wide hand of
    ``13 - 3 * melds_count`` tiles; ``()`` for a vector that is no such hand."""
    if not _is_hand(counts, 13 - 3 * melds_count):
        return ()
    more = list(counts[:WIDE_KINDS])
    seven = melds_count == 0
    out: list[Tile] = []
    for tile in _CANDIDATES:
        if more[tile] >= COPIES:
            continue
        more[tile] += 1
        if _standard(more) or (seven and _all_even(more)):
            out.append(tile)
        more[tile] -= 1
    return tuple(out)


def _honour_options(counts: Sequence[int]) -> list[Option]:
    """The honours' ``(sets, partials, pair)`` options: every pung a set, every pair a
    partial set, and each pair (of a pair, a pung or a four) taken as the hand's pair."""
    sets = partials = 0
    for t in _HONOURS:
        c = counts[t]
        if c >= 3:
            sets += 1
        elif c == 2:
            partials += 1
    out: list[Option] = [(sets, partials, 0)]
    for t in _HONOURS:
        c = counts[t]
        if c == 2:
            out.append((sets, partials - 1, 1))
        elif c == 3:
            out.append((sets - 1, partials, 1))
        elif c == 4:
            out.append((sets - 1, partials + 1, 1))
    return out


def standard_shanten_wide(counts: Sequence[int], melds: int = 0) -> int:
    """Shanten toward four sets and a pair (``melds`` of the sets already declared)."""
    groups = 4 - melds
    best = 0
    suits = [_options(suit_key(counts, s)) for s in range(3)]
    for mh, th, qh in _honour_options(counts):
        for m0, t0, q0 in suits[0]:
            for m1, t1, q1 in suits[1]:
                for m2, t2, q2 in suits[2]:
                    q = qh + q0 + q1 + q2
                    if q > 1:
                        continue
                    m = min(mh + m0 + m1 + m2, groups)
                    value = 2 * m + min(th + t0 + t1 + t2, groups - m) + q
                    if value > best:
                        best = value
    return max(-1, 2 * groups - best)


def seven_pairs_shanten_wide(counts: Sequence[int]) -> int:
    """Shanten toward seven pairs (a four of a kind is two pairs); no declared sets."""
    pairs = sum(counts[t] >> 1 for t in range(WIDE_KINDS) if t != NUM_SUITED)
    return max(-1, 6 - pairs)


def shanten_wide(counts: Sequence[int], melds: int = 0) -> int:
    """The lower of the standard and (with no declared sets) seven-pairs shanten."""
    best = standard_shanten_wide(counts, melds)
    if melds == 0:
        best = min(best, seven_pairs_shanten_wide(counts))
    return best
