"""Shanten (向听数): how many tile exchanges a hand is from ready.

``-1`` is a complete hand, ``0`` ready (one tile away), ``1`` two tiles away, and so on.
The simulator's players evaluate it for every candidate discard, so it is built for speed:

- a suit's nine counts are encoded as a base-5 integer key (:func:`suit_keys`);
- each suit key is decomposed once into its Pareto-best ``(sets, partials, pair)``
  options (memoised on the smaller keys left after its first rank is used up), and the
  option set is interned as a small integer;
- three interned option sets (and the number of open groups) are combined once and the
  value cached, so a repeated evaluation is a few dictionary look-ups.

Counts are length-28 vectors as in :mod:`zhuoji.rules.hand` (index 27 = wildcard count).
``melds`` is the number of declared sets (pongs and kongs; a kong counts as one set).
Seven pairs count a four-of-a-kind as two pairs (龙七对) and need no declared sets.
A wildcard fills any missing tile, so each one lowers the shanten by one (down to -1);
this is exact unless a hand is so short of tiles that it lacks the single tiles the
formula assumes as starts of sets, which no hand of 13 or 14 tiles with at most four
wildcards is.
"""

from __future__ import annotations

from collections.abc import Sequence

from zhuoji.rules.memo import Memo

_POW5: tuple[int, ...] = tuple(5**r for r in range(9))
_TILE_SUIT: tuple[int, ...] = tuple(t // 9 for t in range(27))
_TILE_STEP: tuple[int, ...] = tuple(_POW5[t % 9] for t in range(27))

Option = tuple[int, int, int]
"""``(sets, partials, pair)`` of one suit's decomposition; ``pair`` is 0 or 1."""

_LIMIT = 1 << 18  # entries per table before it is emptied (zhuoji.rules.memo's policy)
_NO_OPTIONS: tuple[Option, ...] = ((0, 0, 0),)  # the options of an empty suit

# suit key -> its Pareto-best options
_OPTIONS_MEMO: Memo[int, tuple[Option, ...]] = Memo("shanten.options", _LIMIT)
# suit key -> (interned option-set id, pairs, singles)
_SUITS_MEMO: Memo[int, tuple[int, int, int]] = Memo("shanten.suits", _LIMIT)
# (id0, id1, id2, groups) packed into one int -> best value
_COMBOS_MEMO: Memo[int, int] = Memo("shanten.combos", _LIMIT)
# suit key -> per rank, the suit's entry with one tile of that rank discarded
_DROPS_MEMO: Memo[int, tuple[tuple[int, int, int] | None, ...]] = Memo("shanten.drops", _LIMIT)
# option set -> id, and id -> option set: the tables above that hold ids are emptied with it
_OPTION_IDS_MEMO: Memo[tuple[Option, ...], int] = Memo(
    "shanten.option_ids", 1 << 16, (_SUITS_MEMO, _COMBOS_MEMO, _DROPS_MEMO)
)
_OPTION_SETS: list[tuple[Option, ...]] = []
_OPTION_IDS_MEMO.on_clear(_OPTION_SETS.clear)
_OPTIONS = _OPTIONS_MEMO.data  # the tables read directly (emptied in place, never replaced)
_SUITS = _SUITS_MEMO.data
_OPTION_IDS = _OPTION_IDS_MEMO.data
_COMBOS = _COMBOS_MEMO.data
_DROPS = _DROPS_MEMO.data


def suit_key(counts: Sequence[int], suit: int) -> int:
    """The base-5 key of one suit's nine counts (``suit`` 0 = m, 1 = p, 2 = s)."""
    base = 9 * suit
    key = 0
    for r in range(9):
        key += counts[base + r] * _POW5[r]
    return key


def suit_keys(counts: Sequence[int]) -> tuple[int, int, int]:
    """The three suit keys of a count vector."""
    return suit_key(counts, 0), suit_key(counts, 1), suit_key(counts, 2)


def key_delta(tile: int) -> tuple[int, int]:
    """``(suit, step)``: adding ``tile`` adds ``step`` to that suit's key."""
    return tile // 9, _POW5[tile % 9]


def _options(key: int) -> tuple[Option, ...]:
    """The Pareto-best decompositions of one suit's key, memoised.

    The first rank still held is used up in every way it can be (a pung, a chow, a pair as
    a partial set or as the hand's pair, a two-tile partial, or left on its own), and the
    rest of the suit, a smaller key, is looked up the same way.
    """
    got = _OPTIONS.get(key)
    if got is not None:
        return got
    if key == 0:
        return _NO_OPTIONS
    i = 0
    while (key // _POW5[i]) % 5 == 0:
        i += 1
    p = _POW5[i]
    c0 = (key // p) % 5
    c1 = (key // _POW5[i + 1]) % 5 if i <= 7 else 0
    c2 = (key // _POW5[i + 2]) % 5 if i <= 6 else 0
    found: list[Option] = []

    def add(rest: int, dm: int, dt: int, dq: int) -> None:
        for m, t, q in _options(rest):
            if q + dq <= 1:
                found.append((m + dm, t + dt, q + dq))

    if c0 >= 3:
        add(key - 3 * p, 1, 0, 0)
    if c1 and c2:
        add(key - p - _POW5[i + 1] - _POW5[i + 2], 1, 0, 0)
    if c0 >= 2:
        add(key - 2 * p, 0, 1, 0)
        add(key - 2 * p, 0, 0, 1)
    if c1:
        add(key - p - _POW5[i + 1], 0, 1, 0)
    if c2:
        add(key - p - _POW5[i + 2], 0, 1, 0)
    add(key - p, 0, 0, 0)
    return _OPTIONS_MEMO.put(key, _pareto(set(found)))


def _pareto(found: set[Option]) -> tuple[Option, ...]:
    best = [
        a
        for a in found
        if not any(b != a and b[0] >= a[0] and b[1] >= a[1] and b[2] >= a[2] for b in found)
    ]
    return tuple(sorted(best))


def _suit(key: int) -> tuple[int, int, int]:
    got = _SUITS.get(key)
    if got is not None:
        return got
    options = _options(key)
    option_id = _OPTION_IDS.get(options)
    if option_id is None:
        # Combination keys pack ids in 16 bits; a suit has far fewer distinct option sets,
        # but were the bound reached, the ids and every table holding one start afresh.
        if len(_OPTION_IDS) >= _OPTION_IDS_MEMO.limit:
            _OPTION_IDS_MEMO.clear()  # and the tables holding ids
        option_id = _OPTION_IDS_MEMO.put(options, len(_OPTION_SETS))
        _OPTION_SETS.append(options)
    c = [(key // _POW5[r]) % 5 for r in range(9)]
    pairs = sum(n >> 1 for n in c)
    singles = sum(n & 1 for n in c)
    return _SUITS_MEMO.put(key, (option_id, pairs, singles))


def _combine(i0: int, i1: int, i2: int, groups: int) -> int:
    """Max of ``2 * sets + min(partials, room) + pair`` over the suits' options."""
    combo = (((i0 << 16) | i1) << 16 | i2) << 3 | groups
    got = _COMBOS.get(combo)
    if got is not None:
        return got
    best = 0
    for m0, t0, q0 in _OPTION_SETS[i0]:
        for m1, t1, q1 in _OPTION_SETS[i1]:
            if q0 + q1 > 1:
                continue
            for m2, t2, q2 in _OPTION_SETS[i2]:
                q = q0 + q1 + q2
                if q > 1:
                    continue
                m = min(m0 + m1 + m2, groups)
                room = groups - m
                value = 2 * m + min(t0 + t1 + t2, room) + q
                if value > best:
                    best = value
    return _COMBOS_MEMO.put(combo, best)


def shanten_of_keys(k0: int, k1: int, k2: int, wild: int = 0, melds: int = 0) -> int:
    """Shanten from suit keys: the lower of standard and (no declared sets) seven pairs."""
    i0, p0, s0 = _SUITS.get(k0) or _suit(k0)
    i1, p1, s1 = _SUITS.get(k1) or _suit(k1)
    i2, p2, s2 = _SUITS.get(k2) or _suit(k2)
    groups = 4 - melds
    combo = _COMBOS.get((((i0 << 16) | i1) << 16 | i2) << 3 | groups)
    if combo is None:
        combo = _combine(i0, i1, i2, groups)
    best = 2 * groups - combo - wild
    if best <= -1:
        return -1
    if melds == 0:
        singles = s0 + s1 + s2
        matched = wild if wild < singles else singles
        seven = 6 - (p0 + p1 + p2) - matched - (wild - matched) // 2
        if seven < best:
            return seven if seven > -1 else -1
    return best


def standard_shanten(counts: Sequence[int], melds: int = 0) -> int:
    """Shanten toward four sets and a pair (``melds`` of the sets already declared)."""
    groups = 4 - melds
    value = _combine(
        _suit(suit_key(counts, 0))[0],
        _suit(suit_key(counts, 1))[0],
        _suit(suit_key(counts, 2))[0],
        groups,
    )
    wild = counts[27] if len(counts) > 27 else 0
    return max(-1, 2 * groups - value - wild)


def seven_pairs_shanten(counts: Sequence[int]) -> int:
    """Shanten toward seven pairs (a four-of-a-kind is two pairs); no declared sets."""
    pairs = 0
    singles = 0
    for c in counts[:27]:
        pairs += c >> 1
        singles += c & 1
    wild = counts[27] if len(counts) > 27 else 0
    matched = min(wild, singles)
    pairs += matched + (wild - matched) // 2
    return max(-1, 6 - pairs)


def shanten(counts: Sequence[int], melds: int = 0) -> int:
    """The lower of the standard and (with no declared sets) seven-pairs shanten."""
    wild = counts[27] if len(counts) > 27 else 0
    return shanten_of_keys(*suit_keys(counts), wild=wild, melds=melds)


def _drops(key: int) -> tuple[tuple[int, int, int] | None, ...]:
    """Per rank of a suit key: the suit's entry once one tile of that rank is gone
    (None for ranks not held)."""
    got = _DROPS.get(key)
    if got is None:
        got = tuple(
            (_SUITS.get(key - _POW5[r]) or _suit(key - _POW5[r]))
            if (key // _POW5[r]) % 5 else None
            for r in range(9)
        )
        _DROPS_MEMO.put(key, got)
    return got


def discard_shanten(
    keys: Sequence[int], tiles: Sequence[int], wild: int = 0, melds: int = 0
) -> list[int]:
    """Shanten after discarding each of ``tiles`` (suited, held) from the hand of ``keys``.

    The hot path of a player choosing a discard: only the discarded tile's suit changes,
    so each candidate is a tuple index and one combination look-up.
    """
    groups = 4 - melds
    suits = _SUITS
    combos = _COMBOS
    k0, k1, k2 = keys
    b0 = suits.get(k0) or _suit(k0)
    b1 = suits.get(k1) or _suit(k1)
    b2 = suits.get(k2) or _suit(k2)
    d0 = _DROPS.get(k0) or _drops(k0)
    d1 = _DROPS.get(k1) or _drops(k1)
    d2 = _DROPS.get(k2) or _drops(k2)
    seven_pairs = melds == 0
    out: list[int] = []
    for tile in tiles:
        suit = _TILE_SUIT[tile]
        if suit == 0:
            i0, p0, s0 = d0[tile] or _missing(tile)
            i1, p1, s1 = b1
            i2, p2, s2 = b2
        elif suit == 1:
            i0, p0, s0 = b0
            i1, p1, s1 = d1[tile - 9] or _missing(tile)
            i2, p2, s2 = b2
        else:
            i0, p0, s0 = b0
            i1, p1, s1 = b1
            i2, p2, s2 = d2[tile - 18] or _missing(tile)
        combo = combos.get((((i0 << 16) | i1) << 16 | i2) << 3 | groups)
        if combo is None:
            combo = _combine(i0, i1, i2, groups)
        best = 2 * groups - combo - wild
        if best < -1:
            best = -1
        if seven_pairs and best > -1:
            singles = s0 + s1 + s2
            matched = wild if wild < singles else singles
            seven = 6 - (p0 + p1 + p2) - matched - (wild - matched) // 2
            if seven < best:
                best = seven if seven > -1 else -1
        out.append(best)
    return out


def _missing(tile: int) -> tuple[int, int, int]:
    raise ValueError(f"tile {tile} is not in the hand: it cannot be discarded")


def drop_shanten(keys: Sequence[int], tile: int, wild: int = 0, melds: int = 0) -> int:
    """Shanten after discarding one ``tile`` (suited, held) from the hand of ``keys``."""
    k = list(keys)
    k[_TILE_SUIT[tile]] -= _TILE_STEP[tile]
    return shanten_of_keys(k[0], k[1], k[2], wild, melds)
