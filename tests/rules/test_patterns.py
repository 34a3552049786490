"""The pattern registry (zhuoji.rules.families.guizhou.patterns) and the shape patterns of wins."""

from __future__ import annotations

import itertools
import random

import pytest

from tests.support.hands import built_hand, to_wildcards
from zhuoji.rules.families.guizhou.patterns import (
    PATTERN_UNITS,
    SHAPE_PATTERNS,
    SITUATIONAL_PATTERNS,
    Pattern,
    PatternKind,
    generate_shape_patterns,
    in_pattern_order,
    parse_pattern,
    shape_patterns,
)
from zhuoji.rules.hand import HandError, IncompleteHandError, ShapeFacts, is_complete, waiting_tiles
from zhuoji.rules.melds import Meld, MeldKind
from zhuoji.rules.tiles import Tile, counts_of, format_tiles, parse_tiles

P = Pattern

# --- the registry ---------------------------------------------------------------------

RULES_NAMES = [  # docs/design RULES.md "Pattern names", in order
    ("plain", "平胡"), ("all_pungs", "大对子"), ("seven_pairs", "七对"),
    ("dragon_seven_pairs", "龙七对"), ("full_flush", "清一色"), ("flush_all_pungs", "清大对"),
    ("flush_seven_pairs", "清七对"), ("flush_dragon_seven_pairs", "青龙背"),
    ("single_wait", "单钓"), ("flush_single_wait", "清单钓"), ("heavenly", "天胡"),
    ("earthly", "地胡"), ("kong_bloom", "杠上开花"), ("hot_discard", "热炮"),
    ("robbing_kong", "抢杠胡"), ("declared_ready", "报听"), ("edge_wait", "边卡吊"),
    ("wide_wait", "大宽张"),
]  # fmt: skip

SITUATIONAL = {"heavenly", "earthly", "kong_bloom", "hot_discard", "robbing_kong",
               "declared_ready"}  # fmt: skip


def test_names_and_chinese_names_follow_rules_md() -> None:
    assert [(p.value, p.chinese) for p in Pattern] == RULES_NAMES


def test_every_pattern_has_one_unit_with_its_kind() -> None:
    assert list(PATTERN_UNITS) == list(Pattern)
    for p, unit in PATTERN_UNITS.items():
        assert unit.pattern is p
        assert unit.seed
        expected = PatternKind.SITUATIONAL if p.value in SITUATIONAL else PatternKind.SHAPE
        assert p.kind is expected
        assert p.is_shape is (expected is PatternKind.SHAPE)
        assert (unit.check is not None) is p.is_shape
    assert set(SHAPE_PATTERNS) | set(SITUATIONAL_PATTERNS) == set(Pattern)
    assert not set(SHAPE_PATTERNS) & set(SITUATIONAL_PATTERNS)
    assert {p.value for p in SITUATIONAL_PATTERNS} == SITUATIONAL


@pytest.mark.parametrize(
    ("text", "pattern"),
    [("plain", P.PLAIN), ("清大对", P.FLUSH_ALL_PUNGS), ("对对胡", P.ALL_PUNGS),
     ("小七对", P.SEVEN_PAIRS), ("暗七对", P.SEVEN_PAIRS), ("龙猛山七对", P.DRAGON_SEVEN_PAIRS),
     ("青龙对", P.FLUSH_DRAGON_SEVEN_PAIRS), ("杠上炮", P.HOT_DISCARD), ("杠开", P.KONG_BLOOM),
     ("天和", P.HEAVENLY), ("大吊车", P.SINGLE_WAIT)],
)  # fmt: skip
def test_parse_pattern(text: str, pattern: Pattern) -> None:
    assert parse_pattern(text) is pattern


def test_parse_pattern_rejects_unknown_names() -> None:
    with pytest.raises(ValueError, match="not a pattern"):
        parse_pattern("十三幺")


def test_chinese_names_and_aliases_are_unambiguous() -> None:
    names = [u.chinese for u in PATTERN_UNITS.values()]
    names += [a for u in PATTERN_UNITS.values() for a in u.aliases]
    assert len(names) == len(set(names))


def test_in_pattern_order() -> None:
    assert in_pattern_order([P.WIDE_WAIT, P.PLAIN, P.FULL_FLUSH, P.PLAIN]) == (
        P.PLAIN, P.FULL_FLUSH, P.WIDE_WAIT,
    )


def _facts(
    waits: str = "", *, all_pungs: bool = False, flush: bool = False, melds_count: int = 0
) -> ShapeFacts:
    return ShapeFacts(
        standard=True, seven_pairs=False, dragon=False, all_pungs=all_pungs, flush=flush,
        melds_count=melds_count, waits=tuple(sorted(parse_tiles(waits))),
    )


@pytest.mark.parametrize(
    ("waits", "edge", "wide"),
    [("147m", False, True), ("258p", False, True), ("369s", False, True),
     ("1m", True, False), ("5s", True, False), ("14m", False, False),
     ("1247m", False, False), ("1m4p7s", False, False), ("47m1p", False, False),
     ("7m14p", False, False), ("", False, False), ("123456789m", False, False)],
)  # fmt: skip
def test_wait_patterns_read_the_waits(waits: str, edge: bool, wide: bool) -> None:
    got = set(generate_shape_patterns(_facts(waits)))
    assert (P.EDGE_WAIT in got) is edge
    assert (P.WIDE_WAIT in got) is wide


def test_generate_shape_patterns_combines_flags_in_order() -> None:
    facts = _facts("9m", all_pungs=True, flush=True, melds_count=4)
    assert tuple(generate_shape_patterns(facts)) == (
        P.PLAIN, P.ALL_PUNGS, P.FULL_FLUSH, P.FLUSH_ALL_PUNGS, P.SINGLE_WAIT,
        P.FLUSH_SINGLE_WAIT, P.EDGE_WAIT,
    )
    assert tuple(generate_shape_patterns(_facts("36s"))) == (P.PLAIN,)


# --- shape patterns of winning hands --------------------------------------------------

_MELD_KINDS = {"p": MeldKind.PONG, "k": MeldKind.EXPOSED_KONG, "c": MeldKind.CONCEALED_KONG,
               "a": MeldKind.ADDED_KONG}  # fmt: skip


def melds_of(text: str) -> list[Meld]:
    """``"p1m c3m"``: pong of 1m, concealed kong of 3m (k exposed, a added)."""
    return [Meld(_MELD_KINDS[w[0]], Tile.parse(w[1:])) for w in text.split()]


def win(hand: str, tile: str, melds: str = "") -> frozenset[Pattern]:
    """Patterns of the winning hand ``hand`` (concealed, with the winning ``tile``)."""
    counts = counts_of(parse_tiles(hand))
    ms = melds_of(melds)
    t = Tile.parse(tile)
    before = list(counts)
    before[t] -= 1
    return shape_patterns(counts, ms, t, waiting_tiles(before, len(ms)))


SEVEN = {P.PLAIN, P.SEVEN_PAIRS}
DRAGON = SEVEN | {P.DRAGON_SEVEN_PAIRS}
FLUSH_PUNGS = {P.PLAIN, P.ALL_PUNGS, P.FULL_FLUSH, P.FLUSH_ALL_PUNGS}

SHAPE_TABLE = [
    ("123m456p789s456s11s", "6s", "", {P.PLAIN}),
    ("111m555m222p345s44s", "5m", "", {P.PLAIN}),  # a chow: not all pungs
    ("111m222p333s444s55m", "4s", "", {P.PLAIN, P.ALL_PUNGS}),
    ("1133m2255p4477s99s", "9s", "", SEVEN | {P.EDGE_WAIT}),
    ("1111m33m22p55p44s99s", "9s", "", DRAGON | {P.EDGE_WAIT}),
    ("1111m3333m22p55p99s", "9s", "", DRAGON | {P.EDGE_WAIT}),  # two fours
    ("1111m33m22p55p44s99s", "1m", "", DRAGON | {P.EDGE_WAIT}),  # waited with three 1m
    ("11123455678999m", "5m", "", {P.PLAIN, P.FULL_FLUSH}),  # waited on all nine
    ("11133355577999m", "9m", "", FLUSH_PUNGS),
    ("22334455667788m", "8m", "", SEVEN | {P.FULL_FLUSH, P.FLUSH_SEVEN_PAIRS, P.WIDE_WAIT}),
    ("11223344557799m", "9m", "", SEVEN | {P.FULL_FLUSH, P.FLUSH_SEVEN_PAIRS, P.EDGE_WAIT}),
    ("11112233445566m", "6m", "",
     DRAGON | {P.FULL_FLUSH, P.FLUSH_SEVEN_PAIRS, P.FLUSH_DRAGON_SEVEN_PAIRS}),
    ("77p", "7p", "p1m p5p k9s p3s", {P.PLAIN, P.ALL_PUNGS, P.SINGLE_WAIT, P.EDGE_WAIT}),
    ("99m", "9m", "p1m c3m p5m a7m",
     FLUSH_PUNGS | {P.SINGLE_WAIT, P.FLUSH_SINGLE_WAIT, P.EDGE_WAIT}),
    ("123m456p789s123s55m", "3s", "", {P.PLAIN, P.EDGE_WAIT}),
    ("123m456p789s123s55m", "2s", "", {P.PLAIN, P.EDGE_WAIT}),  # (13s: closed wait)
    ("234567m111p222p33s", "7m", "", {P.PLAIN, P.WIDE_WAIT}),
    ("11123456789m", "1m", "p5p", {P.PLAIN, P.WIDE_WAIT}),  # a 5p pong: no flush
    ("11123456789m", "1m", "p5m", {P.PLAIN, P.FULL_FLUSH, P.WIDE_WAIT}),
    ("111m999m55m", "1m", "p4m k7m", FLUSH_PUNGS),
    ("111m99m", "1m", "p5m k7m c2p", {P.PLAIN, P.ALL_PUNGS}),  # a 2p kong: no flush
    # wildcards (each checked against every assignment below)
    ("1133m2255p4477s9sW", "9s", "", SEVEN),
    ("111m33m22p55p44s99sW", "9s", "", DRAGON),  # W makes the fourth 1m
    ("12345678m11m999mW", "1m", "", {P.PLAIN, P.FULL_FLUSH}),
    ("WW", "W", "p1m c3m p5m a7m",
     FLUSH_PUNGS | {P.SINGLE_WAIT, P.FLUSH_SINGLE_WAIT}),  # drawn W: waits were all 27
]


@pytest.mark.parametrize(("hand", "tile", "melds", "expected"), SHAPE_TABLE)
def test_shape_table(hand: str, tile: str, melds: str, expected: set[Pattern]) -> None:
    assert win(hand, tile, melds) == frozenset(expected)


def test_every_shape_pattern_has_a_row() -> None:
    covered = set().union(*(row[3] for row in SHAPE_TABLE))
    assert covered == set(SHAPE_PATTERNS)


def test_an_incomplete_hand_raises() -> None:
    counts = counts_of(parse_tiles("123m456p789s45s11s7s"))
    with pytest.raises(IncompleteHandError, match="not a complete hand"):
        shape_patterns(counts, [], Tile.S7, (Tile.S3, Tile.S6))


def test_a_winning_tile_outside_the_waits_or_hand_raises() -> None:
    counts = counts_of(parse_tiles("123m456p789s456s11s"))
    with pytest.raises(HandError, match="not among the waits"):
        shape_patterns(counts, [], Tile.S6, (Tile.S3,))
    with pytest.raises(HandError, match="not in"):
        shape_patterns(counts, [], Tile.M9, (Tile.M9,))


# --- wildcards: the patterns of some assignment ----------------------------------------


def _assignments(counts: list[int]) -> list[list[int]]:
    base = list(counts)
    base[27] = 0
    out = []
    for combo in itertools.combinations_with_replacement(range(27), counts[27]):
        x = list(base)
        for t in combo:
            x[t] += 1
        if max(x) <= 4:
            out.append(x)
    return out


def _union_over_assignments(
    counts: list[int], melds: list[Meld], tile: Tile, waits: tuple[Tile, ...]
) -> frozenset[Pattern]:
    found: set[Pattern] = set()
    for x in _assignments(counts):
        if is_complete(x, len(melds)):
            found |= shape_patterns(x, melds, tile, waits)
    return frozenset(found)


@pytest.mark.parametrize(
    ("hand", "tile", "melds"),
    [(r[0], r[1], r[2]) for r in SHAPE_TABLE if "W" in r[0] and r[1] != "W"],
)
def test_wild_rows_match_every_assignment(hand: str, tile: str, melds: str) -> None:
    counts = counts_of(parse_tiles(hand))
    ms = melds_of(melds)
    t = Tile.parse(tile)
    before = list(counts)
    before[t] -= 1
    waits = waiting_tiles(before, len(ms))
    assert shape_patterns(counts, ms, t, waits) == _union_over_assignments(counts, ms, t, waits)


def _random_winning_hand(rng: random.Random) -> tuple[list[int], list[Meld]]:
    while True:
        suits = rng.sample(range(3), rng.choice([1, 1, 2, 3]))
        melds = [
            Meld(MeldKind.PONG, Tile(9 * rng.choice(suits) + rng.randrange(9)))
            for _ in range(rng.choice([0, 0, 1, 2, 3, 4]))
        ]
        pairs = not melds and rng.random() < 0.35
        h = built_hand(rng, suits, sets=4 - len(melds), pung=0.6, seven_pairs=pairs)
        if max(h) > 4:
            continue
        to_wildcards(rng, h, rng.choice([1, 1, 2]))
        return h, melds


def test_wild_shape_patterns_are_those_of_some_assignment() -> None:
    rng = random.Random(1108)
    seen: set[Pattern] = set()
    checked = 0
    while checked < 150:
        counts, melds = _random_winning_hand(rng)
        real = [t for t in range(27) if counts[t]]
        if not real:
            continue
        tile = Tile(rng.choice(real))
        before = list(counts)
        before[tile] -= 1
        waits = waiting_tiles(before, len(melds))
        if tile not in waits:
            continue
        got = shape_patterns(counts, melds, tile, waits)
        assert got == _union_over_assignments(counts, melds, tile, waits), format_tiles(
            [t for t in range(28) for _ in range(counts[t])]
        )
        seen |= got
        checked += 1
    # the sample reaches the wildcard-sensitive patterns
    assert {P.ALL_PUNGS, P.SEVEN_PAIRS, P.DRAGON_SEVEN_PAIRS, P.FULL_FLUSH} <= seen
