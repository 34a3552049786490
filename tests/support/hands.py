"""One random-hand generator: the tile counts of a concealed hand, seeded by the caller.

A hand is a count vector over the 27 suited kinds and the wildcard (index 27, length
``NUM_KINDS``), as :mod:`zhuoji.rules.hand` reads it. Two ways to draw one:

* :func:`uniform_hand`: ``size`` tiles drawn at random from the 108 suited tiles (less
  those ``used`` elsewhere, e.g. by melds), with ``wildcards`` wildcards in the wall;
* :func:`built_hand`: a complete hand's concealed part, ``sets`` sets (a pung with
  probability ``pung``, else a chow) and a pair over the given suits, or seven pairs;

and three edits that turn a built hand into a near-complete one: :func:`drop_tile` (a
waiting hand, one tile short), :func:`move_tile` (one tile elsewhere) and
:func:`to_wildcards` (real tiles replaced by wildcards).

Used by the hand-analysis tests (``tests/rules/test_hand.py``, ``test_differential.py``,
``test_patterns.py``, ``test_fast_paths.py``, ``test_simulate.py``) and by
``bench/replay.py``. Each draws from the ``random.Random`` it is given, in a fixed order,
so a seed gives the same hands every time. (Whole hands played at a table are
:func:`tests.support.builders.random_playout`; the simulator's games are the product's
own, ``zhuoji.rules.families.*.simulate``.)
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from zhuoji.rules.tiles import NUM_KINDS, NUM_SUITED

Counts = list[int]
WILDCARD = NUM_SUITED  # the wildcard's index in a count vector


def uniform_hand(
    rng: random.Random, size: int, *, used: Sequence[int] | None = None, wildcards: int = 0
) -> Counts:
    """``size`` tiles drawn uniformly from the suited tiles not ``used`` (a count per kind,
    four of each when None) and ``wildcards`` wildcards."""
    wall = [t for t in range(NUM_SUITED) for _ in range(4 - (used[t] if used else 0))]
    wall += [WILDCARD] * wildcards
    h = [0] * NUM_KINDS
    for t in rng.sample(wall, size):
        h[t] += 1
    return h


def built_hand(
    rng: random.Random,
    suits: Sequence[int] | None,
    *,
    sets: int = 4,
    pung: float = 0.5,
    seven_pairs: bool = False,
) -> Counts:
    """``sets`` sets and a pair, each set a pung with probability ``pung`` (else a chow),
    in ``suits`` (0 characters, 1 dots, 2 bamboo); or, with ``seven_pairs``, seven pairs
    in ``suits`` (None: of any suited kind). A kind may exceed four copies: the caller
    draws again or edits."""
    h = [0] * NUM_KINDS
    if seven_pairs:
        for _ in range(7):
            kind = rng.randrange(27) if suits is None else 9 * rng.choice(suits) + rng.randrange(9)
            h[kind] += 2
        return h
    assert suits, "a hand of sets needs at least one suit"
    for _ in range(sets):
        s = rng.choice(suits)
        if rng.random() < pung:
            h[9 * s + rng.randrange(9)] += 3
        else:
            r = rng.randrange(7)
            for k in range(3):
                h[9 * s + r + k] += 1
    h[9 * rng.choice(suits) + rng.randrange(9)] += 2
    return h


def _real_tiles(h: Counts) -> list[int]:
    return [t for t in range(NUM_SUITED) for _ in range(h[t])]


def drop_tile(rng: random.Random, h: Counts) -> None:
    """One real tile taken out at random (a complete hand becomes a waiting one)."""
    h[rng.choice(_real_tiles(h))] -= 1


def move_tile(rng: random.Random, h: Counts, to: Callable[[Counts], int]) -> None:
    """One real tile taken out at random and one of kind ``to(h)`` put in (``to`` sees the
    hand after the removal); nothing when the hand holds no real tile."""
    tiles = _real_tiles(h)
    if tiles:
        h[rng.choice(tiles)] -= 1
        h[to(h)] += 1


def to_wildcards(rng: random.Random, h: Counts, count: int) -> None:
    """``count`` real tiles (at most all of them), chosen at random, become wildcards."""
    tiles = _real_tiles(h)
    for t in rng.sample(tiles, min(count, len(tiles))):
        h[t] -= 1
        h[WILDCARD] += 1
