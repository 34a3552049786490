"""Winning-hand patterns (番型): one small unit per pattern, metadata beside its check.

A pattern is either a SHAPE pattern, decided by the tiles of the winning hand (and the
waits it had before the winning tile), or a SITUATIONAL one, decided by the table (who
won how, and when). Shape checks read :class:`~zhuoji.rules.hand.ShapeFacts`, which the core's
hand analysis computes once per winning hand; situational patterns carry no check here.
:func:`shape_patterns` and :func:`generate_wins` give the Guizhou shape patterns of a
winning hand and of each wait of a waiting one.

Values are not here: each ruleset gives its own value per pattern, and settlement picks
the highest-valued pattern among those a hand qualifies for. A hand therefore qualifies
for every pattern whose check holds (a flush seven pairs is also a seven pairs and a full
flush), so that a preset lacking one name still finds the next one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Final

from zhuoji.rules.frozen import quick_init
from zhuoji.rules.hand import ShapeFacts, shape_facts, shape_facts_of_complete, waiting_tiles
from zhuoji.rules.melds import Meld
from zhuoji.rules.tiles import Tile


class PatternKind(StrEnum):
    SHAPE = "shape"  # decided by the tiles
    SITUATIONAL = "situational"  # decided by the table


class Pattern(StrEnum):
    """The project's pattern names (RULES.md), in their canonical order."""

    PLAIN = "plain"
    ALL_PUNGS = "all_pungs"
    SEVEN_PAIRS = "seven_pairs"
    DRAGON_SEVEN_PAIRS = "dragon_seven_pairs"
    FULL_FLUSH = "full_flush"
    FLUSH_ALL_PUNGS = "flush_all_pungs"
    FLUSH_SEVEN_PAIRS = "flush_seven_pairs"
    FLUSH_DRAGON_SEVEN_PAIRS = "flush_dragon_seven_pairs"
    SINGLE_WAIT = "single_wait"
    FLUSH_SINGLE_WAIT = "flush_single_wait"
    HEAVENLY = "heavenly"
    EARTHLY = "earthly"
    KONG_BLOOM = "kong_bloom"
    HOT_DISCARD = "hot_discard"
    ROBBING_KONG = "robbing_kong"
    DECLARED_READY = "declared_ready"
    EDGE_WAIT = "edge_wait"
    WIDE_WAIT = "wide_wait"

    @property
    def unit(self) -> PatternUnit:
        return PATTERN_UNITS[self]

    @property
    def chinese(self) -> str:
        return PATTERN_UNITS[self].chinese

    @property
    def kind(self) -> PatternKind:
        return PATTERN_UNITS[self].kind

    @property
    def is_shape(self) -> bool:
        return PATTERN_UNITS[self].kind is PatternKind.SHAPE




ShapeCheck = Callable[[ShapeFacts], bool]


@dataclass(frozen=True, slots=True)
class PatternUnit:
    """One pattern: its name, Chinese names, kind, the seed defining it, and its check."""

    pattern: Pattern
    chinese: str
    kind: PatternKind
    summary: str
    seed: str  # seed file and article the definition follows (see docs/rules/hands.md)
    aliases: tuple[str, ...] = ()  # other Chinese names the seeds use
    check: ShapeCheck | None = None  # shape patterns only

    def __init__(
        self,
        pattern: Pattern,
        chinese: str,
        kind: PatternKind,
        summary: str,
        seed: str,
        aliases: tuple[str, ...] = (),
        check: ShapeCheck | None = None,
    ) -> None:
        # compiled: native stores (past the frozen __setattr__); interpreted: see quick_init
        self.pattern = pattern  # type: ignore[misc]
        self.chinese = chinese  # type: ignore[misc]
        self.kind = kind  # type: ignore[misc]
        self.summary = summary  # type: ignore[misc]
        self.seed = seed  # type: ignore[misc]
        self.aliases = aliases  # type: ignore[misc]
        self.check = check  # type: ignore[misc]


quick_init(PatternUnit)


def _is_wide(waits: tuple[Tile, ...]) -> bool:
    """Exactly the three tiles r, r+3, r+6 of one suit (1-4-7, 2-5-8 or 3-6-9)."""
    if len(waits) != 3:
        return False
    low = waits[0]
    return low.rank <= 3 and waits[1] == low + 3 and waits[2] == low + 6


def _check_plain(f: ShapeFacts) -> bool:
    return f.standard or f.seven_pairs


def _check_all_pungs(f: ShapeFacts) -> bool:
    return f.all_pungs


def _check_seven_pairs(f: ShapeFacts) -> bool:
    return f.seven_pairs


def _check_dragon(f: ShapeFacts) -> bool:
    return f.dragon


def _check_flush(f: ShapeFacts) -> bool:
    return f.flush


def _check_flush_all_pungs(f: ShapeFacts) -> bool:
    return f.flush and f.all_pungs


def _check_flush_seven_pairs(f: ShapeFacts) -> bool:
    return f.flush and f.seven_pairs


def _check_flush_dragon(f: ShapeFacts) -> bool:
    return f.flush and f.dragon


def _check_single_wait(f: ShapeFacts) -> bool:
    return f.standard and f.melds_count == 4


def _check_flush_single_wait(f: ShapeFacts) -> bool:
    return f.flush and f.standard and f.melds_count == 4


def _check_edge_wait(f: ShapeFacts) -> bool:
    return len(f.waits) == 1


def _check_wide_wait(f: ShapeFacts) -> bool:
    return _is_wide(f.waits)


_SHAPE: Final = PatternKind.SHAPE
_SITUATIONAL: Final = PatternKind.SITUATIONAL

_UNITS: tuple[PatternUnit, ...] = (
    PatternUnit(
        Pattern.PLAIN, "平胡", _SHAPE,
        "any complete hand: four sets and a pair, or seven pairs",
        "002 §1", (), _check_plain,
    ),
    PatternUnit(
        Pattern.ALL_PUNGS, "大对子", _SHAPE,
        "four pungs or kongs (melds included) and a pair",
        "002 §4", ("对对胡", "大对", "对对和"), _check_all_pungs,
    ),
    PatternUnit(
        Pattern.SEVEN_PAIRS, "七对", _SHAPE,
        "seven pairs in a concealed hand, a four of a kind counting as two pairs",
        "002 §5", ("小七对", "暗七对", "七小对"), _check_seven_pairs,
    ),
    PatternUnit(
        Pattern.DRAGON_SEVEN_PAIRS, "龙七对", _SHAPE,
        "seven pairs holding at least one four of a kind",
        "002 §6", ("龙猛山七对",), _check_dragon,
    ),
    PatternUnit(
        Pattern.FULL_FLUSH, "清一色", _SHAPE,
        "a complete hand whose tiles, melds included, are all of one suit",
        "002 §7", (), _check_flush,
    ),
    PatternUnit(
        Pattern.FLUSH_ALL_PUNGS, "清大对", _SHAPE,
        "all pungs and full flush",
        "002 §8", (), _check_flush_all_pungs,
    ),
    PatternUnit(
        Pattern.FLUSH_SEVEN_PAIRS, "清七对", _SHAPE,
        "seven pairs and full flush",
        "002 §9", ("青七对",), _check_flush_seven_pairs,
    ),
    PatternUnit(
        Pattern.FLUSH_DRAGON_SEVEN_PAIRS, "青龙背", _SHAPE,
        "dragon seven pairs and full flush",
        "002 §10", ("清龙背", "青龙对"), _check_flush_dragon,
    ),
    PatternUnit(
        Pattern.SINGLE_WAIT, "单钓", _SHAPE,
        "four melds and one concealed tile, won by pairing it",
        "001 (name), 003 大吊车 (shape)", ("单吊", "大吊车"), _check_single_wait,
    ),
    PatternUnit(
        Pattern.FLUSH_SINGLE_WAIT, "清单钓", _SHAPE,
        "single wait and full flush",
        "001 (name)", (), _check_flush_single_wait,
    ),
    PatternUnit(
        Pattern.HEAVENLY, "天胡", _SITUATIONAL,
        "the dealer wins on the dealt hand",
        "004 遵义 §8, 001 (name)", ("天和",),
    ),
    PatternUnit(
        Pattern.EARTHLY, "地胡", _SITUATIONAL,
        "a non-dealer wins in the first go-round",
        "004 遵义 §9, 001 (name)", ("地和",),
    ),
    PatternUnit(
        Pattern.KONG_BLOOM, "杠上开花", _SITUATIONAL,
        "self-drawn win on a kong's replacement draw",
        "002 §3", ("杠上花", "杠开", "杠上胡"),
    ),
    PatternUnit(
        Pattern.HOT_DISCARD, "热炮", _SITUATIONAL,
        "win on the discard that follows the discarder's kong",
        "002 §16", ("杠上炮",),
    ),
    PatternUnit(
        Pattern.ROBBING_KONG, "抢杠胡", _SITUATIONAL,
        "win on the tile of another player's added kong",
        "002 §17", ("抢杠",),
    ),
    PatternUnit(
        Pattern.DECLARED_READY, "报听", _SITUATIONAL,
        "the winner declared ready at the start of the hand",
        "002 §11", ("硬报", "软听"),
    ),
    PatternUnit(
        Pattern.EDGE_WAIT, "边卡吊", _SHAPE,
        "the hand waited on exactly one tile",
        "004 遵义 §2", ("边或老卡吊",), _check_edge_wait,
    ),
    PatternUnit(
        Pattern.WIDE_WAIT, "大宽张", _SHAPE,
        "the hand waited on exactly 1-4-7, 2-5-8 or 3-6-9 of one suit",
        "004 遵义 §4", (), _check_wide_wait,
    ),
)

PATTERN_UNITS: Mapping[Pattern, PatternUnit] = MappingProxyType({u.pattern: u for u in _UNITS})
"""Every pattern's unit, in :class:`Pattern` order."""

SHAPE_PATTERNS: tuple[Pattern, ...] = tuple(u.pattern for u in _UNITS if u.kind is _SHAPE)
SITUATIONAL_PATTERNS: tuple[Pattern, ...] = tuple(
    u.pattern for u in _UNITS if u.kind is _SITUATIONAL
)

_ORDER: Mapping[Pattern, int] = MappingProxyType({p: i for i, p in enumerate(Pattern)})


def generate_shape_patterns(facts: ShapeFacts) -> Iterator[Pattern]:
    """Every shape pattern whose check holds for ``facts``, in :class:`Pattern` order."""
    for unit in _UNITS:
        if unit.check is not None and unit.check(facts):
            yield unit.pattern


def in_pattern_order(patterns: Iterable[Pattern]) -> tuple[Pattern, ...]:
    """``patterns`` as a tuple in canonical :class:`Pattern` order (never set order)."""
    return tuple(sorted(set(patterns), key=_ORDER.__getitem__))


def parse_pattern(text: str) -> Pattern:
    """A pattern from its English name, its Chinese name or a Chinese alias."""
    try:
        return Pattern(text)
    except ValueError:
        pass
    for unit in _UNITS:
        if text == unit.chinese or text in unit.aliases:
            return unit.pattern
    raise ValueError(f"not a pattern name: {text!r}")


def shape_patterns(
    counts: Sequence[int], melds: Sequence[Meld], win_tile: Tile, waits: Sequence[Tile]
) -> frozenset[Pattern]:
    """Every shape pattern the winning hand qualifies for (settlement picks the best).

    ``counts`` is the concealed part including ``win_tile``; ``waits`` are the waits before
    it. See :func:`zhuoji.rules.hand.shape_facts` for the errors.
    """
    return frozenset(generate_shape_patterns(shape_facts(counts, melds, win_tile, waits)))


def shape_patterns_of_complete(
    counts: Sequence[int], melds: Sequence[Meld], win_tile: Tile, waits: Sequence[Tile]
) -> frozenset[Pattern]:
    """:func:`shape_patterns` of a hand :func:`zhuoji.rules.hand.is_complete` accepted (a table's
    winning hand, checked just before)."""
    return frozenset(generate_shape_patterns(
        shape_facts_of_complete(counts, melds, win_tile, waits)))


def generate_wins(
    counts: Sequence[int], melds: Sequence[Meld]
) -> Iterator[tuple[Tile, frozenset[Pattern]]]:
    """For a waiting hand, each wait (tile order) with the shape patterns winning on it gives.

    This is what 查叫 at an exhaustive draw values: the best pattern among these.
    """
    waits = waiting_tiles(counts, len(melds))
    more = list(counts)
    for tile in waits:
        more[tile] += 1
        yield tile, shape_patterns(more, melds, tile, waits)
        more[tile] -= 1
