"""Tile notation of the log format: canonical text, Chinese names and Unicode glyphs.

Canonical text is a rank digit and a suit letter (``"5m"`` 万, ``"5p"`` 筒, ``"5s"`` 条) or
``"W"`` for the wildcard 万能鸡. Logs may also write Chinese names (``五万``, ``9筒``,
``幺鸡``, traditional ``五萬``/``一條``) or the Unicode mahjong glyphs U+1F007-U+1F021 (and
U+1F02A, the joker, for ``W``); :func:`parse_tile_text` turns any of them into canonical
text. The table of accepted spellings is data built once at import.

The 136- and 144-tile sets add the honours ``1z``-``7z`` (东 南 西 北 白 发 中, U+1F000-U+1F006)
and flowers ``1f``-``8f`` (春 夏 秋 冬 梅 兰 竹 菊, U+1F026-U+1F029 and U+1F022-U+1F025):
``parse_tile_text(text, extended=True)`` reads them. Without ``extended`` an honour or a
flower is an unknown tile, and the message says which it is.

Which tiles a game may hold is its family's business, not the format's: a reader is given
a :data:`TileSetOf` (the ruleset's name to the canonical texts of its tiles), and without
one it holds every game to :data:`SUITED_TILE_SET`, the 108-tile notation of the suited
games. ``docs/log-format.md`` ("Honours and flowers") says why.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from zhuoji.parsers.errors import TileNotationError
from zhuoji.rules.messages import Message

CANONICAL_TILES: tuple[str, ...] = tuple(
    [f"{rank}{suit}" for suit in "mps" for rank in range(1, 10)] + ["W"]
)
"""The 28 canonical tile texts of the 108-tile games and the wildcard, in the order of
``zhuoji.rules.tiles.Tile``."""

HONOUR_TILES: tuple[str, ...] = tuple(f"{rank}z" for rank in range(1, 8))
"""The honours 东 南 西 北 白 发 中, in the order of ``zhuoji.rules.tiles.Tile`` (after ``W``)."""
FLOWER_TILES: tuple[str, ...] = tuple(f"{rank}f" for rank in range(1, 9))
"""The flowers 春 夏 秋 冬 梅 兰 竹 菊, in the order of ``zhuoji.rules.tiles.Tile`` (after the
honours)."""
EXTENDED_TILES: tuple[str, ...] = CANONICAL_TILES + HONOUR_TILES + FLOWER_TILES
"""Every canonical tile text, in the order of ``zhuoji.rules.tiles.Tile``."""

SUITED_TILE_SET: frozenset[str] = frozenset(CANONICAL_TILES)
"""The tiles of the 108-tile games (and the wildcard): what a reader given no
:data:`TileSetOf` accepts, as every reader did before the honours and flowers were read."""
FULL_TILE_SET: frozenset[str] = frozenset(EXTENDED_TILES)
"""Every tile of the format's notation (144 tiles and the wildcard)."""

TileSetOf = Callable[[str], frozenset[str]]
"""A game's ``ruleset`` (a preset name) to the canonical texts of the tiles its games may
hold. The readers take one from their caller, who knows the rules (``zhuoji.flows.audit.bridge``):
the
parsers never resolve a ruleset themselves."""

_RANK_SPELLINGS: tuple[tuple[int, str], ...] = (
    (1, "1１一壹幺么"),
    (2, "2２二贰貳两兩"),
    (3, "3３三叁參叄"),
    (4, "4４四肆"),
    (5, "5５五伍"),
    (6, "6６六陆陸"),
    (7, "7７七柒"),
    (8, "8８八捌"),
    (9, "9９九玖"),
)
_SUIT_SPELLINGS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("m", ("m", "M", "万", "萬")),
    ("p", ("p", "P", "筒", "饼", "餅")),
    ("s", ("s", "S", "条", "條", "索")),
)
_NAMED_TILES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("1s", ("幺鸡", "么鸡", "幺雞", "么雞", "一鸡", "一雞")),
    ("8p", ("乌骨鸡", "烏骨雞", "乌鸡", "烏雞")),
    ("7p", ("挖挖鸡", "挖挖雞")),
    ("W", ("w", "万能鸡", "萬能雞", "万能", "萬能", "\U0001f02a")),
)
_HONOUR_SPELLINGS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("1z", ("东", "東", "东风", "東風", "\U0001f000")),
    ("2z", ("南", "南风", "南風", "\U0001f001")),
    ("3z", ("西", "西风", "西風", "\U0001f002")),
    ("4z", ("北", "北风", "北風", "\U0001f003")),
    ("5z", ("白", "白板", "\U0001f006")),
    ("6z", ("发", "發", "发财", "發財", "青发", "青發", "\U0001f005")),
    ("7z", ("中", "红中", "紅中", "\U0001f004")),
)
_FLOWER_SPELLINGS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("1f", ("春", "\U0001f026")),
    ("2f", ("夏", "\U0001f027")),
    ("3f", ("秋", "\U0001f028")),
    ("4f", ("冬", "\U0001f029")),
    ("5f", ("梅", "\U0001f022")),
    ("6f", ("兰", "蘭", "\U0001f023")),
    ("7f", ("竹", "\U0001f024")),
    ("8f", ("菊", "\U0001f025")),
)
# Glyph blocks: (first code point, suit letter), nine ranks each.
_GLYPH_BLOCKS: tuple[tuple[int, str], ...] = ((0x1F007, "m"), (0x1F010, "s"), (0x1F019, "p"))
_IGNORED_CHARS = "\ufe0e\ufe0f"  # text / emoji variation selectors after a glyph


def _generate_spellings() -> Iterator[tuple[str, str]]:
    for canonical in CANONICAL_TILES:
        yield canonical, canonical
    for rank, rank_chars in _RANK_SPELLINGS:
        for suit, suit_spellings in _SUIT_SPELLINGS:
            for rank_char in rank_chars:
                for suit_text in suit_spellings:
                    yield rank_char + suit_text, f"{rank}{suit}"
    for canonical, names in _NAMED_TILES:
        for name in names:
            yield name, canonical
    for first, suit in _GLYPH_BLOCKS:
        for offset in range(9):
            yield chr(first + offset), f"{offset + 1}{suit}"


def _generate_extra_spellings() -> Iterator[tuple[str, str]]:
    for canonical, names in _HONOUR_SPELLINGS + _FLOWER_SPELLINGS:
        yield canonical, canonical
        for name in names:
            yield name, canonical


TILE_SPELLINGS: dict[str, str] = dict(_generate_spellings())
"""Every accepted spelling of a suited tile or the wildcard, mapped to its canonical text."""
EXTRA_SPELLINGS: dict[str, str] = dict(_generate_extra_spellings())
"""Every spelling of an honour or a flower, mapped to its canonical text."""
EXTENDED_SPELLINGS: dict[str, str] = {**TILE_SPELLINGS, **EXTRA_SPELLINGS}
"""Every accepted spelling of any tile (suits, wildcard, honours, flowers)."""


def is_canonical_tile(text: str) -> bool:
    return text in _CANONICAL_SET


_CANONICAL_SET = frozenset(CANONICAL_TILES)


def describe_tile(canonical: str) -> str:
    """``"1z"`` as ``"1z, an honour"``, ``"3f"`` as ``"3f, a flower"``, others as they are."""
    if canonical in EXTRA_SPELLINGS:
        return Message("{t:any}, an honour" if canonical.endswith("z") else "{t:any}, a flower",
                       canonical)
    return canonical


def parse_tile_text(text: str, *, extended: bool = False) -> str:
    """Any accepted spelling of one tile to canonical text; raises ``TileNotationError``.

    Surrounding whitespace and emoji variation selectors are ignored. ``extended`` also
    accepts the honours and the flowers (the 136- and 144-tile families); without it they
    are unknown tiles, the error saying what they are.
    """
    spellings = EXTENDED_SPELLINGS if extended else TILE_SPELLINGS
    found = spellings.get(text)
    if found is not None:
        return found
    cleaned = "".join(ch for ch in text.strip() if ch not in _IGNORED_CHARS)
    found = spellings.get(cleaned)
    if found is None:
        extra = EXTRA_SPELLINGS.get(cleaned)
        if extra is not None:
            raise TileNotationError(
                text, Message("{t:any}: not a tile of these logs", describe_tile(extra)))
        raise TileNotationError(text)
    return found
