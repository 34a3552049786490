"""Complete hands, waits and readiness (zhuoji.rules.hand), hands written in compact notation."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import zhuoji.rules.hand as hand
from tests.support.hands import built_hand, move_tile, to_wildcards
from zhuoji.rules.families.guizhou.patterns import Pattern, generate_wins
from zhuoji.rules.hand import (
    is_complete,
    is_ready,
    is_seven_pairs,
    is_standard_complete,
    live_waits,
    waiting_tiles,
)
from zhuoji.rules.melds import Meld, MeldKind
from zhuoji.rules.tiles import Tile, counts_of, format_tiles, parse_tiles


def c(text: str) -> list[int]:
    return counts_of(parse_tiles(text))


# --- complete hands -------------------------------------------------------------------

# (concealed tiles, melds, standard, seven pairs)
COMPLETE_TABLE = [
    ("11122233344455m", 0, True, False),  # 111 222 333 444 55 (or chows)
    ("123m456p789s11155s", 0, True, False),
    ("11123455678999m", 0, True, False),  # nine gates plus 5m
    ("22334455667788m", 0, True, True),  # 234 234 567 567 88, and seven pairs
    ("1133m2255p4477s99s", 0, False, True),
    ("1111m33m22p55p44s99s", 0, False, True),  # a four counts as two pairs
    ("1111m3333m22p55p99s", 0, False, True),  # two fours
    ("11112233445566m", 0, True, True),  # 11 123 123 456 456
    ("123m456p11s", 2, True, False),
    ("55m789p", 3, True, False),
    ("11m", 4, True, False),
    ("111m22p", 3, True, False),
    ("111123m456p789s99s", 0, True, False),  # a four split as 111 + the 1 of 123
]


@pytest.mark.parametrize(("tiles", "melds", "standard", "seven"), COMPLETE_TABLE)
def test_complete_table(tiles: str, melds: int, standard: bool, seven: bool) -> None:
    h = c(tiles)
    assert is_standard_complete(h, melds) is standard
    assert is_seven_pairs(h, melds) is seven
    assert is_complete(h, melds) is (standard or seven)
    assert is_complete(tuple(h), melds) is (standard or seven)


NOT_COMPLETE = [
    ("1112345678999m", 0),  # 13 tiles
    ("123m456p789s1115s", 0),  # 13 tiles: waiting, not complete
    ("123m456p789s11156s", 0),  # 14 tiles, no pair left
    ("11223344556678m", 0),  # six pairs and two singles
    ("1122m3344p5566s79s", 0),
    ("1133m2255p4477s99s", 1),  # seven pairs with a meld is never a hand
    ("123m456p11s", 1),  # right shape, wrong tile count for one meld
    ("11122233344455m", 1),
    ("135m246p789s11155s", 0),  # gaps break the chows
    ("1111m2222m3333m44m", 1),  # a complete-looking 14 tiles, but one meld wants 11
    ("111124m456p789s99s", 0),  # the four cannot help 24m
]


@pytest.mark.parametrize(("tiles", "melds"), NOT_COMPLETE)
def test_not_complete(tiles: str, melds: int) -> None:
    assert not is_complete(c(tiles), melds)


INVALID_VECTORS = [
    [5] + [0] * 26 + [0],  # a fifth copy
    [-1, 3, 3, 3, 3, 3] + [0] * 22,
    [*c("111222333m")[:27], 5],  # five wildcards: more than any hand holds
    [0] * 27 + [-1],
]


@pytest.mark.parametrize("counts", INVALID_VECTORS)
def test_vectors_that_are_no_hand_are_never_complete_nor_ready(counts: list[int]) -> None:
    assert not is_complete(counts)
    assert not is_standard_complete(counts)
    assert not is_seven_pairs(counts)
    assert waiting_tiles(counts) == ()


def test_fifth_copy_in_an_otherwise_complete_shape() -> None:
    h = c("11122233344455m")
    h[0] = 5  # 11111 222 333 444 55: the shape would split, the tiles cannot exist
    h[4] = 1
    assert not is_complete(h)


# --- waits ----------------------------------------------------------------------------

WAITS_TABLE = [
    ("1112345678999m", 0, "123456789m"),  # nine gates
    ("23456m111p222p33s", 0, "147m"),
    ("123m456p789s12s55m", 0, "3s"),  # edge
    ("123m456p789s13s55m", 0, "2s"),  # closed
    ("123m456p789s45s11s", 0, "36s"),  # open
    ("111m222p333s44s55m", 0, "5m4s"),  # either pair
    ("1133m2255p4477s9s", 0, "9s"),  # seven pairs
    ("1111m33m22p55p44s9s", 0, "9s"),  # seven pairs with a four
    ("111m33m22p55p44s99s", 0, "1m"),  # a three becomes a four (two pairs)
    ("112233445566m7s", 0, "7s"),
    ("111122334455m6m", 0, "2356m"),
    ("1111m234p567p888s", 0, ""),  # only the fifth 1m would do: not ready
    ("5m", 4, "5m"),
    ("13p", 3, ""),  # 4 tiles, 3 melds: the wrong size
    ("1399p", 3, "2p"),
    ("4455s", 3, "45s"),
    ("1234567m", 2, "147m"),
    ("123456789m1p", 1, "1p"),
    ("1112345678999m", 1, ""),  # the wrong size for one meld
]


@pytest.mark.parametrize(("tiles", "melds", "waits"), WAITS_TABLE)
def test_waits_table(tiles: str, melds: int, waits: str) -> None:
    h = c(tiles)
    expected = tuple(sorted(parse_tiles(waits)))
    assert waiting_tiles(h, melds) == expected
    assert is_ready(h, melds) is bool(expected)
    assert all(isinstance(t, Tile) for t in waiting_tiles(h, melds))


def test_held_four_is_never_a_wait() -> None:
    # 1111m 2m 456p 789s 11s: 111 + 123 with a 3m; a fifth 1m does not exist
    h = c("11112m456p789s11s")
    assert Tile.M1 not in waiting_tiles(h)
    assert waiting_tiles(h) == (Tile.M3,)


# --- wildcards ------------------------------------------------------------------------

WILD_COMPLETE = [
    ("123456m555s11pWWW", 0, True),  # WWW as a pung
    ("123456m555s789p1pW", 0, True),  # W pairs 1p
    ("123456m555s78p11pW", 0, True),  # W as 6p or 9p
    ("123456m555s79p11pW", 0, True),  # W as 8p
    ("123456m555s79p12pW", 0, False),
    ("1234567m11p22sWW", 0, False),  # 13 tiles: the wrong size
    ("1133m2255p4477s9sW", 0, True),  # seven pairs, W pairing 9s
    ("113m2255p4477s99sW", 0, True),  # seven pairs, W pairing 3m
    ("123m456p789s1sWWWW", 0, True),  # 1s + W pair, WWW pung
    ("WWW11m", 3, True),
    ("WWWW1m", 3, True),
    ("15mWWW", 3, True),  # 1m + W pair, 5m + WW pung
    ("19mWW", 3, False),
    ("1299mW", 3, True),  # 12m + W, 99m
    ("WW", 4, True),
    ("1mW", 4, True),
    ("1m", 4, False),
]


def _brute_complete(counts: list[int], melds: int) -> bool:
    """Try every assignment of the wildcards (a fifth copy never allowed)."""
    wild = counts[27]
    base = list(counts)
    base[27] = 0
    for combo in itertools.combinations_with_replacement(range(27), wild):
        x = list(base)
        for t in combo:
            x[t] += 1
        if max(x) <= 4 and is_complete(x, melds):
            return True
    return False


@pytest.mark.parametrize(("tiles", "melds", "complete"), WILD_COMPLETE)
def test_wild_complete_table(tiles: str, melds: int, complete: bool) -> None:
    h = c(tiles)
    assert is_complete(h, melds) is complete
    assert _brute_complete(h, melds) is complete


def test_wildcard_never_makes_a_fifth_copy() -> None:
    # 5555m + W would need W as a fifth 5m to make 555 + 55
    h = c("5555m123p456p789pW")
    assert not is_complete(h)
    # with 555m the wildcard may be the fourth 5m
    assert is_complete(c("555m1234p456p789pW")) is _brute_complete(c("555m1234p456p789pW"), 0)


def _random_near_complete(rng: random.Random, melds: int, wild: int) -> list[int]:
    """A complete hand (sets + pair or seven pairs), then wildcards replace tiles."""
    while True:
        if melds == 0 and rng.random() < 0.3:
            h = built_hand(rng, None, seven_pairs=True)
        else:
            suits = rng.sample(range(3), rng.randint(1, 3))
            h = built_hand(rng, suits, sets=4 - melds, pung=0.5)
        if max(h) > 4:
            continue
        to_wildcards(rng, h, wild)
        if rng.random() < 0.4:  # move one real tile elsewhere
            move_tile(rng, h, lambda left: rng.choice([t for t in range(27) if left[t] < 4]))
        return h


def test_wildcards_agree_with_trying_every_assignment() -> None:
    rng = random.Random(20261101)
    positives = 0
    for i in range(400):
        melds = rng.choice([0, 0, 1, 2, 3, 4])
        h = _random_near_complete(rng, melds, wild=1 + i % 3)
        expected = _brute_complete(h, melds)
        assert is_complete(h, melds) is expected, format_tiles(
            [t for t in range(28) for _ in range(h[t])]
        )
        positives += expected
    assert 80 < positives < 360  # both verdicts well represented


def test_wild_waits_agree_with_completing_every_tile() -> None:
    rng = random.Random(7)
    ready = 0
    for i in range(100):
        melds = rng.choice([0, 0, 1, 2, 3])
        h = _random_near_complete(rng, melds, wild=1 + i % 2)
        tiles = [t for t in range(27) for _ in range(h[t])]
        if not tiles:
            continue
        h[rng.choice(tiles)] -= 1
        expected = []
        for t in range(27):
            if h[t] < 4:
                h[t] += 1
                if _brute_complete(h, melds):
                    expected.append(Tile(t))
                h[t] -= 1
        assert waiting_tiles(h, melds) == tuple(expected)
        ready += bool(expected)
    assert ready > 25


def test_a_lone_wildcard_waits_on_every_tile() -> None:
    assert waiting_tiles(c("W"), 4) == tuple(Tile(t) for t in range(27))


# --- property: complete(h + t) iff t is a wait of h ------------------------------------


@st.composite
def waiting_hands(draw: st.DrawFn) -> tuple[list[int], int]:
    melds = draw(st.sampled_from([0, 0, 0, 1, 2, 3, 4]))
    wild = draw(st.sampled_from([0, 0, 0, 0, 1, 2]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = random.Random(seed)
    h = _random_near_complete(rng, melds, wild)
    tiles = [t for t in range(28) for _ in range(h[t])]
    h[draw(st.sampled_from(tiles))] -= 1
    return h, melds


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(waiting_hands())
def test_complete_iff_wait(case: tuple[list[int], int]) -> None:
    h, melds = case
    waits = waiting_tiles(h, melds)
    assert is_ready(h, melds) is bool(waits)
    for t in range(27):
        more = list(h)
        more[t] += 1
        if h[t] >= 4:
            assert Tile(t) not in waits
        else:
            assert is_complete(more, melds) is (Tile(t) in waits)


# --- the tables ------------------------------------------------------------------------


def test_results_do_not_depend_on_table_state(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(11)
    hands = [_random_near_complete(rng, 0, 0) for _ in range(300)]
    for h in hands[::2]:  # half of them one tile short, to exercise the waits
        h[min(t for t in range(27) if h[t])] -= 1
    expected = [(is_complete(h), waiting_tiles(h)) for h in hands]
    for memo in (hand._INFO_MEMO, hand._INFO_LAST_MEMO, hand._WAITS_MEMO, hand._WAITS_LAST_MEMO):
        monkeypatch.setattr(memo, "limit", 8)  # emptied every few entries
    hand.clear_tables()
    got = [(is_complete(h), waiting_tiles(h)) for h in hands]
    assert got == expected
    assert len(hand._INFO) <= 8 and len(hand._WAITS) <= 8


def test_live_waits_read_the_melds() -> None:
    h = c("123m456s789s7p")  # waits on a pair for 7p
    assert waiting_tiles(h, 1) == (Tile.P7,)
    pong_7p = Meld(MeldKind.PONG, Tile.P7)
    assert live_waits(h, [pong_7p]) == ()  # the pong and the hand hold all four 7p
    assert live_waits(h, [Meld(MeldKind.PONG, Tile.P5)]) == (Tile.P7,)
    assert live_waits(c("23456m111p222p33s"), []) == tuple(parse_tiles("147m"))


def test_generate_wins_gives_each_wait_its_patterns() -> None:
    wins = list(generate_wins(c("23456m111p222p33s"), []))
    assert wins == [
        (Tile.M1, frozenset({Pattern.PLAIN, Pattern.WIDE_WAIT})),
        (Tile.M4, frozenset({Pattern.PLAIN, Pattern.WIDE_WAIT})),
        (Tile.M7, frozenset({Pattern.PLAIN, Pattern.WIDE_WAIT})),
    ]
    flush = dict(generate_wins(c("1112345678999m"), []))
    assert list(flush) == list(parse_tiles("123456789m"))
    assert all(Pattern.FULL_FLUSH in p for p in flush.values())
    assert list(generate_wins(c("1111m234p567p888s"), [])) == []
