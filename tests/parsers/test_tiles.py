from __future__ import annotations

import pytest

from parsers.errors import TileNotationError
from parsers.tiles import (
    CANONICAL_TILES,
    EXTENDED_TILES,
    TILE_SPELLINGS,
    is_canonical_tile,
    parse_tile_text,
)
from rules.tiles import NUM_KINDS, TILE_TEXT


def test_canonical_tiles_match_the_engine_order() -> None:
    assert EXTENDED_TILES == TILE_TEXT
    assert TILE_TEXT[:NUM_KINDS] == CANONICAL_TILES


@pytest.mark.parametrize("text", CANONICAL_TILES)
def test_canonical_text_is_kept(text: str) -> None:
    assert parse_tile_text(text) == text
    assert is_canonical_tile(text)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("五万", "5m"),
        ("五萬", "5m"),
        ("5万", "5m"),
        ("一条", "1s"),
        ("一條", "1s"),
        ("幺鸡", "1s"),
        ("幺雞", "1s"),
        ("么鸡", "1s"),
        ("9筒", "9p"),
        ("九筒", "9p"),
        ("三饼", "3p"),
        ("三餅", "3p"),
        ("乌骨鸡", "8p"),
        ("烏骨雞", "8p"),
        ("挖挖鸡", "7p"),
        ("二索", "2s"),
        ("万能鸡", "W"),
        ("萬能雞", "W"),
        ("5M", "5m"),
        (" 5m ", "5m"),
    ],
)
def test_chinese_names_normalise(text: str, canonical: str) -> None:
    assert parse_tile_text(text) == canonical


@pytest.mark.parametrize(
    ("code", "canonical"),
    [
        (0x1F007, "1m"),
        (0x1F00B, "5m"),
        (0x1F00F, "9m"),
        (0x1F010, "1s"),
        (0x1F018, "9s"),
        (0x1F019, "1p"),
        (0x1F021, "9p"),
        (0x1F02A, "W"),
    ],
)
def test_glyphs_normalise(code: int, canonical: str) -> None:
    assert parse_tile_text(chr(code)) == canonical
    assert parse_tile_text(chr(code) + "\ufe0f") == canonical


def test_every_glyph_of_the_three_suits_is_known() -> None:
    glyphs = {chr(c) for c in range(0x1F007, 0x1F022)}
    assert glyphs <= TILE_SPELLINGS.keys()
    assert sorted(TILE_SPELLINGS[g] for g in glyphs) == sorted(CANONICAL_TILES[:27])


@pytest.mark.parametrize("text", ["10m", "0m", "", "m5", "5x", "东", "\U0001f000", "五", "1s1s"])
def test_unknown_spellings_raise(text: str) -> None:
    with pytest.raises(TileNotationError, match="unknown tile"):
        parse_tile_text(text)
