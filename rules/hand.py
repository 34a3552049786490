"""Hand analysis: complete hands, waits (ready / 叫牌) and the shape facts of a win.

Everything works on *count vectors*: a sequence of 28 ints, ``counts[t]`` the number of
tile ``t`` held (index 27 counts the wildcards ``W``), holding only the concealed part of a
hand. Melds (pongs and kongs) are passed as a number of melds, or as
:class:`~zhuoji.rules.melds.Meld` values where their tiles matter; a kong counts as one set like a
pong. A complete concealed part therefore holds ``14 - 3 * melds`` tiles, a waiting one
``13 - 3 * melds``.

Speed: what a suit decomposes into (sets only, sets and a pair, all counts even, its tile
count) is precomputed for every arrangement of its nine counts, as an automaton read one
count at a time (:func:`_suit_automaton`, built on first use); :func:`is_complete` is three
walks of nine indexings combined by a few integer operations, with no search and no
allocation. The waits come from tables keyed by a suit's nine counts that also hold which
added tile would complete the suit, filled on first use by a small memoised search; the
entries met so far are also kept in a trie indexed by the counts, so that a later look-up
is nine indexings per suit instead of building and hashing a key. Hands holding wildcards
use a third table giving, per suit, which numbers of wildcards it can absorb.

Conventions (see ``docs/rules/hands.md`` for the reasons):

* A vector that is not a hand (a count outside 0-4, more than :data:`MAX_WILDCARDS`
  wildcards, or the wrong number of tiles for the melds) is simply not complete and has no
  waits; these functions never raise on it.
* Seven pairs needs a concealed hand (no melds); a four of a kind counts as two pairs.
* A tile the hand already holds four of is never a wait (there is no fifth copy).
* A wildcard stands for any suited tile, but never makes a fifth copy of a tile within the
  concealed hand. Waits list suited tiles only: a drawn wildcard completes every ready hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, Final

from zhuoji.rules.frozen import quick_init
from zhuoji.rules.melds import Meld
from zhuoji.rules.memo import Memo, clear_all, on_clear_all
from zhuoji.rules.tiles import (
    COPIES,
    NUM_KINDS,
    NUM_SUITED,
    SUITED_TILES,
    Tile,
    format_tiles,
    tiles_of,
)

MAX_WILDCARDS: Final = 4
"""The most wildcards one hand can hold (a ruleset has at most four)."""


@dataclass(frozen=True, slots=True)
class ShapeFacts:
    """The tile facts of one complete (winning) hand, as :func:`shape_facts` finds them; a
    family names its shape patterns from these (a family's pattern checks read them).

    With wildcards each flag holds when *some* assignment of the wildcards makes it hold.
    """

    standard: bool  # four sets (melds included) and a pair
    seven_pairs: bool  # seven pairs, no melds; a four of a kind counts as two pairs
    dragon: bool  # seven pairs holding at least one four of a kind (龙)
    all_pungs: bool  # standard with every set a pung or kong
    flush: bool  # every tile, melds included, of one suit
    melds_count: int
    waits: tuple[Tile, ...]  # the hand's waits before the winning tile, in tile order

    def __init__(
        self,
        standard: bool,
        seven_pairs: bool,
        dragon: bool,
        all_pungs: bool,
        flush: bool,
        melds_count: int,
        waits: tuple[Tile, ...],
    ) -> None:
        # compiled: native stores (past the frozen __setattr__); interpreted: see quick_init
        self.standard = standard  # type: ignore[misc]
        self.seven_pairs = seven_pairs  # type: ignore[misc]
        self.dragon = dragon  # type: ignore[misc]
        self.all_pungs = all_pungs  # type: ignore[misc]
        self.flush = flush  # type: ignore[misc]
        self.melds_count = melds_count  # type: ignore[misc]
        self.waits = waits  # type: ignore[misc]


quick_init(ShapeFacts)


class HandError(ValueError):
    """A hand given to pattern analysis does not fit the request."""


class IncompleteHandError(HandError):
    """Shape facts were asked for a hand that is not complete."""


# --------------------------------------------------------------------------------------
# Per-suit tables
# --------------------------------------------------------------------------------------
#
# A suit's *info* is an int whose fields add up across the three suits without carrying:
# bits 0-3 hold 1 when the suit splits into sets only and 4 when it splits into sets and
# one pair (three suits make a standard hand exactly when these sum to 1 + 1 + 4 = 6),
# bits 4-5 count suits whose counts are all even (3: seven pairs), and the bits from 6 on
# hold the suit's tile count. The last suit is looked up together with the wildcard count
# (its key has ten entries); any wildcard there gives ``_WILD_INFO`` and the wildcard path.

_SETS: Final = 1
_PAIR: Final = 4
_EVEN: Final = 16
_FLAGS: Final = _SETS | _PAIR | _EVEN
_CODE: Final = 15  # the set/pair field
_SHIFT: Final = 6  # the tile-count field
_INVALID: Final = 63 << _SHIFT  # a count outside 0-4: no flag, a tile count no hand has
_WILD_INFO: Final = 1 << 20  # the last suit's entry when the hand holds wildcards

_STD_MASK: Final = ~(3 << 4)  # every field but the even count: a standard hand sums to
_STD_CODES: Final = _SETS + _SETS + _PAIR  # ... these codes and 14 - 3 * melds tiles
_SEVEN_MASK: Final = ~_CODE
_SEVEN_TARGET: Final = (14 << _SHIFT) | (3 * _EVEN)

_TABLE_LIMIT: Final = 1 << 18  # entries per table before it is emptied (zhuoji.rules.memo's policy)
_TRIE_LIMIT: Final = 1 << 15  # suit arrangements in a trie before it is emptied (the same policy)

# The suit keys of a count vector, cut with prebuilt slices (or all three in one call).
_FIRST_KEY: Final = slice(0, 9)
_SECOND_KEY: Final = slice(9, 18)
_LAST_KEY: Final = slice(18, 28)
_ALL_KEYS: Final = itemgetter(_FIRST_KEY, _SECOND_KEY, _LAST_KEY)

Key = tuple[int, ...]


_DECOMPOSES: Memo[tuple[Key, bool], bool] = Memo("hand.decomposes", 1 << 17)


def _decomposes(key: Key, pair: bool) -> bool:
    """Whether the nine counts split into sets (and one pair when ``pair``): the search."""
    hit = _DECOMPOSES.data.get((key, pair))
    if hit is not None:
        return hit
    return _DECOMPOSES.put((key, pair), _search(key, pair))


def _search(key: Key, pair: bool) -> bool:
    rank = 0
    while rank < 9 and not key[rank]:
        rank += 1
    if rank == 9:
        return not pair
    count = key[rank]
    rest = list(key)
    if count >= 3:
        rest[rank] -= 3
        if _decomposes(tuple(rest), pair):
            return True
        rest[rank] += 3
    if pair and count >= 2:
        rest[rank] -= 2
        if _decomposes(tuple(rest), False):
            return True
        rest[rank] += 2
    if rank <= 6 and key[rank + 1] and key[rank + 2]:
        rest[rank] -= 1
        rest[rank + 1] -= 1
        rest[rank + 2] -= 1
        return _decomposes(tuple(rest), pair)
    return False


def _is_valid_key(key: Key) -> bool:
    return len(key) == 9 and all(0 <= c <= COPIES for c in key)


def _suit_info(key: Key) -> int:
    """The info of one suit's nine counts (see the field layout above)."""
    if not _is_valid_key(key):
        return _INVALID
    total = sum(key)
    info = total << _SHIFT
    if total % 3 == 0 and _decomposes(key, False):
        info |= _SETS
    elif total % 3 == 2 and _decomposes(key, True):
        info |= _PAIR
    if all(c % 2 == 0 for c in key):
        info |= _EVEN
    return info


_INFO_MEMO: Memo[Key, int] = Memo("hand.info", _TABLE_LIMIT)  # suits m, p: nine counts
_INFO_LAST_MEMO: Memo[Key, int] = Memo("hand.info_last", _TABLE_LIMIT)  # s and the wildcards
_INFO: Final = _INFO_MEMO.data  # read directly on the hot path (emptied in place, never replaced)
_INFO_LAST: Final = _INFO_LAST_MEMO.data


def _info_miss(key: Key) -> int:
    return _INFO_MEMO.put(key, _suit_info(key))


def _info_last_miss(key: Key) -> int:
    return _INFO_LAST_MEMO.put(key, _WILD_INFO if key[9] else _suit_info(key[0:9]))


# A suit's wait entry: (info, sets_mask, pair_mask, odd_mask, odd_count). Bit r of
# sets_mask (pair_mask) is set when adding rank r+1 (held fewer than four times) leaves
# sets only (sets and one pair); odd_mask marks the ranks held an odd number of times.
WaitEntry = tuple[int, int, int, int, int]
_WILD_ENTRY: WaitEntry = (_WILD_INFO, 0, 0, 0, 0)


def _suit_waits(key: Key) -> WaitEntry:
    info = _suit_info(key)
    if info == _INVALID:
        return (_INVALID, 0, 0, 0, 0)
    sets_mask = pair_mask = odd_mask = 0
    residue = (info >> _SHIFT) % 3
    more = list(key)
    for rank in range(9):
        if key[rank] % 2:
            odd_mask |= 1 << rank
        if key[rank] >= COPIES or residue == 0:
            continue
        more[rank] += 1
        if residue == 2 and _decomposes(tuple(more), False):
            sets_mask |= 1 << rank
        elif residue == 1 and _decomposes(tuple(more), True):
            pair_mask |= 1 << rank
        more[rank] -= 1
    return (info, sets_mask, pair_mask, odd_mask, odd_mask.bit_count())


_WAITS_MEMO: Memo[Key, WaitEntry] = Memo("hand.waits", _TABLE_LIMIT)
_WAITS_LAST_MEMO: Memo[Key, WaitEntry] = Memo("hand.waits_last", _TABLE_LIMIT)
_WAITS: Final = _WAITS_MEMO.data
_WAITS_LAST: Final = _WAITS_LAST_MEMO.data


def _waits_miss(key: Key) -> WaitEntry:
    return _WAITS_MEMO.put(key, _suit_waits(key))


def _waits_last_miss(key: Key) -> WaitEntry:
    return _WAITS_LAST_MEMO.put(key, _WILD_ENTRY if key[9] else _suit_waits(key[0:9]))


_ABSORBS: Memo[tuple[Key, int], tuple[int, int]] = Memo("hand.absorbs", 1 << 16)


def _absorbs(key: Key, depth: int) -> tuple[int, int]:
    """Which numbers of wildcards (0..depth) the suit can absorb (see :func:`_absorb`)."""
    hit = _ABSORBS.data.get((key, depth))
    if hit is not None:
        return hit
    return _ABSORBS.put((key, depth), _absorb(key, depth))


def _absorb(key: Key, depth: int) -> tuple[int, int]:
    """Which numbers of wildcards (0..depth) the suit can absorb: (sets bits, pair bits).

    Bit ``w`` of the first (second) mask is set when the suit's tiles plus ``w`` wildcards,
    each standing for a tile of this suit held fewer than four times, split into sets only
    (sets and one pair).
    """
    sets_bits = 1 if _decomposes(key, False) else 0
    pair_bits = 1 if _decomposes(key, True) else 0
    if depth:
        more = list(key)
        for rank in range(9):
            if more[rank] < COPIES:
                more[rank] += 1
                sets_more, pair_more = _absorbs(tuple(more), depth - 1)
                more[rank] -= 1
                sets_bits |= sets_more << 1
                pair_bits |= pair_more << 1
    return sets_bits, pair_bits


def _sumset(left: int, right: int, limit: int) -> int:
    """Bit masks of wildcard counts: every i + j (up to ``limit``) with i in left, j in right."""
    out = 0
    for i in range(limit + 1):
        if left >> i & 1:
            out |= right << i
    return out & ((2 << limit) - 1)


def clear_tables() -> None:
    """Empty every memo table of the engine and drop the suit automaton (results never
    depend on them; benchmarks measure cold runs): :func:`zhuoji.rules.memo.clear_all`."""
    clear_all()


def _reset_structures() -> None:
    """The suit automaton and the wait trie, dropped by :func:`zhuoji.rules.memo.clear_all`."""
    global _SUITS, _WAIT_TRIE_LEAVES
    _WAIT_TRIE[:] = [None] * (COPIES + 1)
    _WAIT_TRIE_LEAVES = 0
    _SUITS = None


# --------------------------------------------------------------------------------------
# The suit automaton
# --------------------------------------------------------------------------------------
#
# Reading a suit's counts rank by rank, what decides its info is a small state: the tiles
# and the evenness so far, and the set of ways the ranks read so far can be cut into sets
# (and at most one pair) up to chows still open. A way is (x, y, p): x chows started two
# ranks back and y started one rank back still need this rank, p counts the pair taken.
# The automaton has one node per (rank, state): a tuple of five children, indexed by the
# count held at that rank, the ninth level holding the suit's info (0 when it has no flag:
# such a suit never completes a hand, whatever its tile count). Equal states share their
# node, so every one of the 5 ** 9 arrangements is covered by about 2,600 tuples.

SuitNode = tuple[Any, ...]
_Ways = frozenset[tuple[int, int, int]]
_SUITS: SuitNode | None = None


def _next_ways(ways: _Ways, rank: int, count: int) -> _Ways:
    """The ways after reading ``count`` tiles at ``rank``: the open chows take their tile,
    the rest starts chows (not from rank 7 on), forms pungs, and perhaps the pair."""
    out = set()
    for x, y, p in ways:
        left = count - x - y
        if left < 0:
            continue
        for z in range(left + 1 if rank <= 6 else 1):
            for q in ((0, 1) if p == 0 else (0,)):
                rest = left - z - 2 * q
                if rest >= 0 and rest % 3 == 0:
                    out.add((y, z, p + q))
    return frozenset(out)


def _automaton_info(tiles: int, even: bool, ways: _Ways) -> int:
    info = tiles << _SHIFT
    if (0, 0, 0) in ways:
        info |= _SETS
    elif (0, 0, 1) in ways:
        info |= _PAIR
    if even:
        info |= _EVEN
    return info if info & _FLAGS else 0


def _suit_automaton() -> SuitNode:
    """The suit automaton (see above), built on first use and kept until
    :func:`clear_tables`. ``_suit_automaton()[c0][c1]...[c8]`` is the info of the suit
    holding counts ``c0..c8`` (each 0-4), or 0 when that info has no flag."""
    global _SUITS
    if _SUITS is not None:
        return _SUITS
    nodes: dict[tuple[int, int, bool, _Ways], SuitNode] = {}

    def node(rank: int, tiles: int, even: bool, ways: _Ways) -> SuitNode:
        state = (rank, tiles, even, ways)
        hit = nodes.get(state)
        if hit is None:
            if rank == 8:
                hit = tuple(_automaton_info(tiles + n, even and n % 2 == 0,
                                            _next_ways(ways, rank, n)) for n in range(COPIES + 1))
            else:
                hit = tuple(node(rank + 1, tiles + n, even and n % 2 == 0,
                                 _next_ways(ways, rank, n)) for n in range(COPIES + 1))
            nodes[state] = hit
        return hit

    _SUITS = node(0, 0, True, frozenset({(0, 0, 0)}))
    return _SUITS


_W: Final = Tile.W
_TILE_OF: dict[int, Tile] = {tile.value: tile for tile in Tile}  # what Tile(value) gives
_SUIT_CUTS: Final = (slice(0, 9), slice(9, 18), slice(18, 27))

_MASK_TILES: tuple[tuple[tuple[Tile, ...], ...], ...] = tuple(
    tuple(
        tuple(SUITED_TILES[9 * suit + r] for r in range(9) if mask >> r & 1)
        for mask in range(512)
    )
    for suit in range(3)
)


# --------------------------------------------------------------------------------------
# Complete hands
# --------------------------------------------------------------------------------------


def is_complete(counts: Sequence[int], melds_count: int = 0) -> bool:
    """Whether the concealed ``counts`` with ``melds_count`` melds form a complete hand.

    Complete: ``4 - melds_count`` sets (pungs or chows in hand) and one pair, or, with no
    melds, seven pairs (a four of a kind counting as two pairs). Wildcards substitute.
    """
    # Three walks of the suit automaton. A count above 4 (or below -5) fails the indexing;
    # one from -5 to -1 indexes from the end and so reads as that count + 5, making
    # ``counts`` sum to less than the tiles the walks saw: the sum is checked before
    # answering True, and any doubt goes to the keyed tables.
    try:
        if counts[27]:
            return _is_complete_wild(tuple(counts), melds_count)
        s: Any = _SUITS
        c = s[counts[18]][counts[19]][counts[20]][counts[21]][counts[22]][counts[23]][
            counts[24]][counts[25]][counts[26]]
        if not c:
            return False
        a = s[counts[0]][counts[1]][counts[2]][counts[3]][counts[4]][counts[5]][counts[6]][
            counts[7]][counts[8]]
        if not a:
            return False
        total = a + c + s[counts[9]][counts[10]][counts[11]][counts[12]][counts[13]][
            counts[14]][counts[15]][counts[16]][counts[17]]
        tiles = 14 - 3 * melds_count
        if total & _STD_MASK != (tiles << _SHIFT) | _STD_CODES and (
                melds_count != 0 or total & _SEVEN_MASK != _SEVEN_TARGET):
            return False
        if len(counts) == NUM_KINDS and sum(counts) == tiles:
            return True
    except (IndexError, TypeError):  # no automaton yet, or counts that are no hand
        return _is_complete_checked(counts, melds_count)
    return _is_complete_keyed(counts, melds_count)


def _is_complete_checked(counts: Sequence[int], melds_count: int) -> bool:
    """:func:`is_complete` outside its fast path: builds the automaton if it is missing."""
    if _SUITS is None:
        _suit_automaton()
        return is_complete(counts, melds_count)
    return _is_complete_keyed(counts, melds_count)


def _is_complete_keyed(counts: Sequence[int], melds_count: int) -> bool:
    """:func:`is_complete` by the keyed suit tables (any sequence, whatever its counts)."""
    key = tuple(counts[_LAST_KEY])
    try:
        c = _INFO_LAST[key]
        if not c & _FLAGS:
            return c == _WILD_INFO and _is_complete_wild(tuple(counts), melds_count)
        a = _INFO[tuple(counts[_FIRST_KEY])]
        if not a & _FLAGS:
            return False
        total = a + _INFO[tuple(counts[_SECOND_KEY])] + c
    except KeyError:  # a suit arrangement seen for the first time
        total = _info_last_miss(key)
        if total == _WILD_INFO:
            return _is_complete_wild(tuple(counts), melds_count)
        total += _info_miss(tuple(counts[_FIRST_KEY])) + _info_miss(tuple(counts[_SECOND_KEY]))
    if total & _STD_MASK == ((14 - 3 * melds_count) << _SHIFT) | _STD_CODES:
        return True
    return melds_count == 0 and total & _SEVEN_MASK == _SEVEN_TARGET


def is_standard_complete(counts: Sequence[int], melds_count: int = 0) -> bool:
    """Complete as ``4 - melds_count`` sets and a pair (seven pairs not considered)."""
    t = tuple(counts)
    if t[27]:
        return _standard_wild(t, melds_count)
    total = _lookup_info(t[0:9]) + _lookup_info(t[9:18]) + _lookup_info(t[18:27])
    return total & _STD_MASK == ((14 - 3 * melds_count) << _SHIFT) | _STD_CODES


def is_seven_pairs(counts: Sequence[int], melds_count: int = 0) -> bool:
    """Seven pairs: 14 concealed tiles, no melds, a four of a kind counting as two pairs."""
    if melds_count:
        return False
    wild = counts[27]
    if wild < 0 or wild > MAX_WILDCARDS or sum(counts) != 14:
        return False
    suited = counts[0:NUM_SUITED]
    if any(c < 0 or c > COPIES for c in suited):
        return False
    return sum(c % 2 for c in suited) <= wild


def _lookup_info(key: Key) -> int:
    try:
        return _INFO[key]
    except KeyError:
        return _info_miss(key)


def _wild_keys(counts: Key, tiles: int) -> tuple[Key, Key, Key] | None:
    """The three suit keys of a wildcard hand of ``tiles`` tiles, or None if it is no hand."""
    wild = counts[27]
    if wild < 0 or wild > MAX_WILDCARDS or sum(counts) != tiles:
        return None
    keys = (counts[0:9], counts[9:18], counts[18:27])
    if not all(_is_valid_key(k) for k in keys):
        return None
    return keys


def _standard_wild(counts: Key, melds_count: int) -> bool:
    keys = _wild_keys(counts, 14 - 3 * melds_count)
    if keys is None:
        return False
    wild = counts[27]
    masks = [_absorbs(k, wild) for k in keys]
    for i in range(3):
        j, k = (i + 1) % 3, (i + 2) % 3
        combined = _sumset(_sumset(masks[i][1], masks[j][0], wild), masks[k][0], wild)
        if combined >> wild & 1:
            return True
    return False


def _is_complete_wild(counts: Key, melds_count: int) -> bool:
    return _standard_wild(counts, melds_count) or is_seven_pairs(counts, melds_count)


# --------------------------------------------------------------------------------------
# Waits
# --------------------------------------------------------------------------------------


def _wait_masks(counts: Sequence[int], melds_count: int) -> tuple[int, int, int]:
    """Per suit, the bit mask of ranks that complete the hand."""
    # The suits' wait entries come from the trie (see ``_wait_entry_of``), as the keyed
    # tables would give them. A count from -5 to -1 indexes from the end and reads as that
    # count + 5: a hand found waiting must also sum to the tiles the walks saw.
    try:
        if counts[27]:
            return _wait_masks_wild(tuple(counts), melds_count)
        w: Any = _WAIT_TRIE
        a, sa, pa, oa, na = w[counts[0]][counts[1]][counts[2]][counts[3]][counts[4]][
            counts[5]][counts[6]][counts[7]][counts[8]]
        b, sb, pb, ob, nb = w[counts[9]][counts[10]][counts[11]][counts[12]][counts[13]][
            counts[14]][counts[15]][counts[16]][counts[17]]
        c, sc, pc, oc, nc = w[counts[18]][counts[19]][counts[20]][counts[21]][counts[22]][
            counts[23]][counts[24]][counts[25]][counts[26]]
    except (IndexError, TypeError):  # a suit arrangement not in the trie yet, or no hand
        return _wait_masks_keyed(counts, melds_count)
    tiles = 13 - 3 * melds_count
    if (a + b + c) >> _SHIFT != tiles:
        return 0, 0, 0
    a &= _CODE
    b &= _CODE
    c &= _CODE
    m0 = (pa if b + c == 2 else 0) | (sa if b + c == 5 else 0)
    m1 = (pb if a + c == 2 else 0) | (sb if a + c == 5 else 0)
    m2 = (pc if a + b == 2 else 0) | (sc if a + b == 5 else 0)
    if melds_count == 0 and na + nb + nc == 1:
        m0 |= oa
        m1 |= ob
        m2 |= oc
    if (m0 or m1 or m2) and not (len(counts) == NUM_KINDS and sum(counts) == tiles):
        return _wait_masks_keyed(counts, melds_count)
    return m0, m1, m2


def _combine_waits(a: int, sa: int, pa: int, oa: int, na: int,
                   b: int, sb: int, pb: int, ob: int, nb: int,
                   c: int, sc: int, pc: int, oc: int, nc: int,
                   melds_count: int) -> tuple[int, int, int]:
    """The wait masks of three suits' entries whose tile counts fit the melds."""
    a &= _CODE
    b &= _CODE
    c &= _CODE
    # The suit taking the tile becomes sets + pair while the other two are sets only
    # (codes summing to 1 + 1), or becomes sets only while the others are one of each
    # (1 + 4).
    m0 = (pa if b + c == 2 else 0) | (sa if b + c == 5 else 0)
    m1 = (pb if a + c == 2 else 0) | (sb if a + c == 5 else 0)
    m2 = (pc if a + b == 2 else 0) | (sc if a + b == 5 else 0)
    if melds_count == 0 and na + nb + nc == 1:  # six pairs and one odd kind: seven pairs
        m0 |= oa
        m1 |= ob
        m2 |= oc
    return m0, m1, m2


def _wait_masks_keyed(counts: Sequence[int], melds_count: int) -> tuple[int, int, int]:
    """:func:`_wait_masks` by the keyed tables (any sequence, whatever its counts); puts
    the suits it looks up into the trie."""
    t = tuple(counts)
    key_a, key_b, key_c = _ALL_KEYS(t)
    try:
        c, sc, pc, oc, nc = _WAITS_LAST[key_c]
        if c == _WILD_INFO:
            return _wait_masks_wild(t, melds_count)
        a, sa, pa, oa, na = _WAITS[key_a]
        b, sb, pb, ob, nb = _WAITS[key_b]
    except KeyError:  # a suit arrangement seen for the first time
        c, sc, pc, oc, nc = _waits_last_miss(key_c)
        if c == _WILD_INFO:
            return _wait_masks_wild(t, melds_count)
        a, sa, pa, oa, na = _waits_miss(key_a)
        b, sb, pb, ob, nb = _waits_miss(key_b)
    _trie_insert(key_a, (a, sa, pa, oa, na))
    _trie_insert(key_b, (b, sb, pb, ob, nb))
    _trie_insert(key_c[0:9], (c, sc, pc, oc, nc))
    if (a + b + c) >> _SHIFT != 13 - 3 * melds_count:
        return 0, 0, 0
    return _combine_waits(a, sa, pa, oa, na, b, sb, pb, ob, nb, c, sc, pc, oc, nc,
                          melds_count)


# The wait entries of the suit arrangements met so far, as a trie indexed by the nine
# counts (``_WAIT_TRIE[c0][c1]...[c8]``, None where nothing was put yet): nine indexings
# instead of building and hashing a key. It holds only what the keyed tables computed.
_WAIT_TRIE: list[Any] = [None] * (COPIES + 1)
_WAIT_TRIE_LEAVES = 0
on_clear_all(_reset_structures)


def _trie_insert(key: Key, entry: WaitEntry) -> None:
    """Put a suit's wait entry into the trie (only a valid arrangement of plain ints)."""
    global _WAIT_TRIE_LEAVES
    if len(key) != 9 or not all(type(n) is int and 0 <= n <= COPIES for n in key):
        return
    if _WAIT_TRIE_LEAVES >= _TRIE_LIMIT:
        _WAIT_TRIE[:] = [None] * (COPIES + 1)
        _WAIT_TRIE_LEAVES = 0
    node = _WAIT_TRIE
    for n in key[:8]:
        child = node[n]
        if child is None:
            child = node[n] = [None] * (COPIES + 1)
        node = child
    if node[key[8]] is None:
        _WAIT_TRIE_LEAVES += 1
    node[key[8]] = entry


def _wait_masks_wild(counts: Key, melds_count: int) -> tuple[int, int, int]:
    if _wild_keys(counts, 13 - 3 * melds_count) is None:
        return 0, 0, 0
    more = list(counts)
    masks = [0, 0, 0]
    for tile in range(NUM_SUITED):
        if more[tile] >= COPIES:
            continue
        more[tile] += 1
        if _is_complete_wild(tuple(more), melds_count):
            masks[tile // 9] |= 1 << (tile % 9)
        more[tile] -= 1
    return masks[0], masks[1], masks[2]


def waiting_tiles(counts: Sequence[int], melds_count: int = 0) -> tuple[Tile, ...]:
    """The suited tiles that would complete the hand, in tile order (empty: not ready).

    ``counts`` holds ``13 - 3 * melds_count`` tiles. A tile the hand holds four of is not
    a wait. A drawn wildcard, when the ruleset has them, completes every ready hand.
    """
    m0, m1, m2 = _wait_masks(counts, melds_count)
    return _MASK_TILES[0][m0] + _MASK_TILES[1][m1] + _MASK_TILES[2][m2]


def _waiting_tiles_of_valid(counts: Sequence[int], melds_count: int) -> tuple[Tile, ...]:
    """:func:`waiting_tiles` of a vector known to be a hand: 28 counts, each 0-4, at most
    :data:`MAX_WILDCARDS` wildcards (a table's hands); it skips the checks such a vector
    needs no more."""
    if not counts[27]:
        w: Any = _WAIT_TRIE
        try:
            a, sa, pa, oa, na = w[counts[0]][counts[1]][counts[2]][counts[3]][counts[4]][
                counts[5]][counts[6]][counts[7]][counts[8]]
            b, sb, pb, ob, nb = w[counts[9]][counts[10]][counts[11]][counts[12]][counts[13]][
                counts[14]][counts[15]][counts[16]][counts[17]]
            c, sc, pc, oc, nc = w[counts[18]][counts[19]][counts[20]][counts[21]][
                counts[22]][counts[23]][counts[24]][counts[25]][counts[26]]
        except TypeError:  # a suit arrangement not in the trie yet
            pass
        else:
            if (a + b + c) >> _SHIFT != 13 - 3 * melds_count:
                return ()
            a &= _CODE
            b &= _CODE
            c &= _CODE
            m0 = (pa if b + c == 2 else 0) | (sa if b + c == 5 else 0)
            m1 = (pb if a + c == 2 else 0) | (sb if a + c == 5 else 0)
            m2 = (pc if a + b == 2 else 0) | (sc if a + b == 5 else 0)
            if melds_count == 0 and na + nb + nc == 1:
                m0 |= oa
                m1 |= ob
                m2 |= oc
            return _MASK_TILES[0][m0] + _MASK_TILES[1][m1] + _MASK_TILES[2][m2]
    return waiting_tiles(counts, melds_count)


def live_waits(counts: Sequence[int], melds: Sequence[Meld]) -> tuple[Tile, ...]:
    """The waits of a hand with its melds, less the tiles whose four copies the player holds
    between hand and melds (a pong of 7p and a 7p in hand leave no 7p to win on).

    :func:`waiting_tiles` sees the concealed part only; this also reads the melds.
    """
    waits = waiting_tiles(counts, len(melds))
    if not melds:
        return waits
    held = list(counts)
    for meld in melds:
        held[meld.tile] += meld.size
    return tuple(t for t in waits if held[t] < COPIES)


def is_ready(counts: Sequence[int], melds_count: int = 0) -> bool:
    """Ready (叫牌 / tenpai): at least one suited tile completes the hand."""
    m0, m1, m2 = _wait_masks(counts, melds_count)
    return bool(m0 or m1 or m2)


# --------------------------------------------------------------------------------------
# Shape facts
# --------------------------------------------------------------------------------------


def _is_all_pungs(counts: Sequence[int], wild: int) -> bool:
    """Every concealed set a pung (wildcards filling them): melds are pungs or kongs."""
    need = 0
    pairable = False
    for c in counts[0:NUM_SUITED]:
        if not c:
            continue
        if c >= COPIES:
            return False
        need += 3 - c
        if c <= 2:
            pairable = True
    # The pair is a held kind (one wildcard fewer) or two wildcards of their own; the
    # tile count fixes the residue, so the rest of the wildcards form whole pungs.
    return (pairable and wild >= need - 1) or wild >= need + 2


def _is_dragon(counts: Sequence[int], wild: int) -> bool:
    """Seven pairs with a four of a kind (the hand being seven pairs already)."""
    suited = counts[0:NUM_SUITED]
    spare = wild - sum(c % 2 for c in suited)  # wildcards left once every odd kind paired
    if any(c >= 3 for c in suited):
        return True  # a held four, or a three its pairing wildcard makes four
    if spare >= 4:
        return True  # four wildcards as a four of their own
    return spare >= 2 and any(suited)


def _flush_suit(counts: Sequence[int], melds: Sequence[Meld]) -> int | None:
    """The one suit all real tiles (concealed and melds) share, or None."""
    found: int | None = None
    for suit, cut in enumerate(_SUIT_CUTS):
        if any(counts[cut]):
            if found is not None:
                return None
            found = suit
    for m in melds:
        suit = m.tile // 9
        if suit != found:
            if found is not None:
                return None
            found = suit
    return 0 if found is None else found


def _is_flush(counts: Sequence[int], melds: Sequence[Meld], fits: bool) -> bool:
    """All real tiles of one suit, and the concealed ones (wildcards included) split into
    sets and a pair within it; ``fits``: the caller knows they do (seven pairs, whose
    leftover wildcard pairs always find room within the suit, or a standard hand without
    wildcards, whose one suit holding tiles is the one holding the sets and the pair)."""
    suit = _flush_suit(counts, melds)
    if suit is None:
        return False
    if fits:
        return True
    wild = counts[27]
    key = tuple(counts[9 * suit : 9 * suit + 9])
    return _absorbs(key, wild)[1] >> wild & 1 == 1


def _standard_and_seven(counts: Sequence[int], melds_count: int) -> tuple[bool, bool]:
    """:func:`is_standard_complete` and :func:`is_seven_pairs` of a hand
    :func:`is_complete` accepted (so every count is 0-4); without wildcards both come from
    one walk of the suit automaton."""
    if len(counts) == NUM_KINDS and not counts[27]:
        s: Any = _suit_automaton()
        try:
            total: int = (
                s[counts[0]][counts[1]][counts[2]][counts[3]][counts[4]][counts[5]][counts[6]][
                    counts[7]][counts[8]]
                + s[counts[9]][counts[10]][counts[11]][counts[12]][counts[13]][counts[14]][
                    counts[15]][counts[16]][counts[17]]
                + s[counts[18]][counts[19]][counts[20]][counts[21]][counts[22]][counts[23]][
                    counts[24]][counts[25]][counts[26]])
        except (IndexError, TypeError):
            pass
        else:
            # A complete hand's three suits all have a flag (each splits, or each is even),
            # so ``total`` is the sum of their full infos, as the keyed tables give it.
            return (
                total & _STD_MASK == ((14 - 3 * melds_count) << _SHIFT) | _STD_CODES,
                melds_count == 0 and total & _SEVEN_MASK == _SEVEN_TARGET,
            )
    return is_standard_complete(counts, melds_count), is_seven_pairs(counts, melds_count)


def _as_tiles(waits: Sequence[Tile]) -> tuple[Tile, ...]:
    """``tuple(sorted(Tile(t) for t in waits))``, without the enum call per tile."""
    try:
        return tuple(sorted(map(_TILE_OF.__getitem__, waits)))
    except (KeyError, TypeError):
        return tuple(sorted(Tile(t) for t in waits))


def shape_facts(
    counts: Sequence[int], melds: Sequence[Meld], win_tile: Tile, waits: Sequence[Tile]
) -> ShapeFacts:
    """The tile facts of a winning hand: ``counts`` is its concealed part with ``win_tile``.

    ``waits`` are the hand's waits before the winning tile (:func:`waiting_tiles`).
    Raises :class:`IncompleteHandError` if the hand is not complete and :class:`HandError`
    if the winning tile is not in the hand or not among the waits.
    """
    melds_count = len(melds)
    if not is_complete(counts, melds_count):
        raise IncompleteHandError(
            f"not a complete hand: {format_tiles(tiles_of(counts))} with {melds_count} melds"
        )
    return shape_facts_of_complete(counts, melds, win_tile, waits)


def shape_facts_of_complete(
    counts: Sequence[int], melds: Sequence[Meld], win_tile: Tile, waits: Sequence[Tile]
) -> ShapeFacts:
    """:func:`shape_facts` of a hand :func:`is_complete` accepted."""
    if counts[win_tile] < 1:
        raise HandError(f"winning tile {win_tile} is not in {format_tiles(tiles_of(counts))}")
    if win_tile != _W and win_tile not in waits:
        raise HandError(f"winning tile {win_tile} is not among the waits {format_tiles(waits)}")
    melds_count = len(melds)
    wild = counts[27]
    standard, seven = _standard_and_seven(counts, melds_count)
    return ShapeFacts(
        standard=standard,
        seven_pairs=seven,
        dragon=seven and _is_dragon(counts, wild),
        all_pungs=standard and _is_all_pungs(counts, wild),
        flush=_is_flush(counts, melds, seven or (standard and not wild)),
        melds_count=melds_count,
        waits=_as_tiles(waits),
    )
