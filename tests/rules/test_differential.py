"""Differential test: our complete/ready verdicts against the ``mahjong`` package.

The ``mahjong`` package implements riichi rules over 34-kind arrays; with the seven honour
kinds left empty its shape rules are ours, with one known difference: its seven pairs
need seven *distinct* pairs, while ours count a four of a kind as two pairs (龙七对). Every
disagreement must be of that kind, and that kind must occur (so the accounting is real).

Hands are random but seeded: uniform draws from the wall, built complete hands (sets and
a pair within one to three suits, or pairs), and built hands with a tile moved, with zero
to four melds (pongs and kongs, passed to ``Agari`` as open sets).

The package is used through instances (``Agari()``, ``Shanten()``) and a ready hand is
shanten 0: its 1.x releases have instance methods only and no ``TENPAI_STATE``, its 2.x
releases static methods, which an instance calls the same way.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from mahjong.agari import Agari
from mahjong.shanten import Shanten

from tests.support.hands import built_hand, drop_tile, move_tile, uniform_hand
from zhuoji.rules.hand import is_complete, is_ready, is_standard_complete, waiting_tiles
from zhuoji.rules.tiles import Tile

HANDS = 20_000
TENPAI = 0  # the shanten number of a ready hand
AGARI = Agari()
SHANTEN = Shanten()
Meld = tuple[int, int]  # (tile, size 3 or 4)


def _random_melds(rng: random.Random) -> list[Meld]:
    count = rng.choice([0, 0, 0, 0, 1, 1, 2, 3, 4])
    return [(rng.randrange(27), rng.choice([3, 3, 3, 4])) for _ in range(count)]


def _build(rng: random.Random, melds: list[Meld], size: int) -> list[int] | None:
    """A concealed part of ``size`` tiles next to ``melds``, or None if it overflows."""
    used = [0] * 27
    for t, n in melds:
        used[t] += n
    if max(used) > 4:
        return None
    style = rng.random()
    suits = rng.sample(range(3), rng.choice([1, 2, 2, 3]))
    if style < 0.25:  # uniform draw from what is left of the wall
        return uniform_hand(rng, size, used=used)
    # pairs (fours allowed), or sets and a pair
    pairs = style < 0.45 and not melds
    h = built_hand(rng, suits, sets=4 - len(melds), pung=0.4, seven_pairs=pairs)
    if size % 3 == 1:  # a waiting hand: one tile less
        drop_tile(rng, h)
    if rng.random() < 0.4:  # move one tile
        move_tile(rng, h, lambda _: 9 * rng.choice(suits) + rng.randrange(9))
    if any(h[t] + used[t] > 4 for t in range(27)):
        return None
    return h


def _cases(seed: int, complete: bool) -> list[tuple[list[int], list[Meld]]]:
    rng = random.Random(seed)
    out: list[tuple[list[int], list[Meld]]] = []
    while len(out) < HANDS:
        melds = _random_melds(rng)
        size = (14 if complete else 13) - 3 * len(melds)
        h = _build(rng, melds, size)
        if h is not None:
            out.append((h, melds))
    return out


def _full34(counts: Sequence[int], melds: list[Meld]) -> list[int]:
    tiles = list(counts[:27]) + [0] * 7
    for t, n in melds:
        tiles[t] += n
    return tiles


def _open_sets(melds: list[Meld]) -> list[list[int]]:
    return [[t] * n for t, n in melds]


def _is_four_seven_pairs(counts: Sequence[int]) -> bool:
    """The known difference, checked independently: 14 tiles, all even, a four among them."""
    suited = counts[:27]
    return sum(suited) == 14 and all(c % 2 == 0 for c in suited) and max(suited) == 4


@pytest.fixture(scope="module")
def complete_cases() -> list[tuple[list[int], list[Meld]]]:
    return _cases(20261101, complete=True)


@pytest.fixture(scope="module")
def waiting_cases() -> list[tuple[list[int], list[Meld]]]:
    return _cases(20261102, complete=False)


def test_complete_verdicts_agree(complete_cases: list[tuple[list[int], list[Meld]]]) -> None:
    agree_true = known = 0
    for h, melds in complete_cases:
        ours = is_complete(h, len(melds))
        theirs = AGARI.is_agari(_full34(h, melds), _open_sets(melds) or None)
        if ours == theirs:
            agree_true += ours
            continue
        assert ours and not melds and _is_four_seven_pairs(h), (h, melds, ours, theirs)
        assert not is_standard_complete(h)
        known += 1
    assert agree_true > HANDS // 5  # complete hands are well represented
    assert known > 0  # the four-in-seven-pairs difference was met


def test_ready_verdicts_agree(waiting_cases: list[tuple[list[int], list[Meld]]]) -> None:
    agree_true = known = 0
    for h, melds in waiting_cases:
        ours = is_ready(h, len(melds))
        theirs = SHANTEN.calculate_shanten(list(h[:27]) + [0] * 7, use_kokushi=False) == TENPAI
        if ours == theirs:
            agree_true += ours
            continue
        # only ours may be ready, and only through seven pairs holding a four
        assert ours and not theirs and not melds, (h, melds)
        for t in waiting_tiles(h):
            more = list(h)
            more[t] += 1
            assert _is_four_seven_pairs(more) and not AGARI.is_agari(_full34(more, melds))
        known += 1
    assert agree_true > HANDS // 5
    assert known > 0


def test_waits_agree(waiting_cases: list[tuple[list[int], list[Meld]]]) -> None:
    """Waits: the tiles (held fewer than four times) that Agari completes, plus the known
    four-in-seven-pairs wins."""
    ready = 0
    for h, melds in waiting_cases[:2500]:
        full = _full34(h, melds)
        expected = []
        for t in range(27):
            if h[t] >= 4:  # held four times in hand (copies in melds are not consulted)
                continue
            full[t] += 1
            more = list(h)
            more[t] += 1
            if AGARI.is_agari(full, _open_sets(melds) or None) or (
                not melds and _is_four_seven_pairs(more)
            ):
                expected.append(Tile(t))
            full[t] -= 1
        assert waiting_tiles(h, len(melds)) == tuple(expected), (h, melds)
        ready += bool(expected)
    assert ready > 500
