"""Tile notation of the log format: canonical text, Chinese names and Unicode glyphs.

Canonical text is a rank digit and a suit letter (``"5m"`` 万, ``"5p"`` 筒, ``"5s"`` 条) or
``"W"`` for the wildcard 万能鸡. Logs may also write Chinese names (``五万``, ``9筒``,
``幺鸡``, traditional ``五萬``/``一條``) or the Unicode mahjong glyphs U+1F007-U+1F021 (and
U+1F02A, the joker, for ``W``); :func:`parse_tile_text` turns any of them into canonical
text. The table of accepted spellings is data built once at import.
"""

from __future__ import annotations

from collections.abc import Iterator

from parsers.errors import TileNotationError

CANONICAL_TILES: tuple[str, ...] = tuple(
    [f"{rank}{suit}" for suit in "mps" for rank in range(1, 10)] + ["W"]
)
"""The 28 canonical tile texts, in the order of ``rules.tiles.Tile``."""

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


TILE_SPELLINGS: dict[str, str] = dict(_generate_spellings())
"""Every accepted spelling of a tile, mapped to its canonical text."""


def is_canonical_tile(text: str) -> bool:
    return text in _CANONICAL_SET


_CANONICAL_SET = frozenset(CANONICAL_TILES)


def parse_tile_text(text: str) -> str:
    """Any accepted spelling of one tile to canonical text; raises ``TileNotationError``.

    Surrounding whitespace and emoji variation selectors are ignored.
    """
    found = TILE_SPELLINGS.get(text)
    if found is not None:
        return found
    cleaned = "".join(ch for ch in text.strip() if ch not in _IGNORED_CHARS)
    found = TILE_SPELLINGS.get(cleaned)
    if found is None:
        raise TileNotationError(text)
    return found
