from __future__ import annotations

import pytest

from tests.support.factories import changed, game_dict, stream_bytes
from zhuoji.parsers.errors import MalformedLogError, TileNotationError
from zhuoji.parsers.read import generate_stream_games_from_bytes
from zhuoji.parsers.tiles import (
    CANONICAL_TILES,
    EXTENDED_TILES,
    EXTRA_SPELLINGS,
    FLOWER_TILES,
    HONOUR_TILES,
    TILE_SPELLINGS,
    is_canonical_tile,
    parse_tile_text,
)
from zhuoji.rules.tiles import NUM_KINDS, TILE_TEXT


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


# --- honours and flowers (the families beyond Guizhou) ----------------------------------


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("1z", "1z"), ("东", "1z"), ("東風", "1z"), ("\U0001f000", "1z"), ("北", "4z"),
        ("白", "5z"), ("\U0001f006", "5z"), ("發", "6z"), ("\U0001f005", "6z"),
        ("红中", "7z"), ("\U0001f004\ufe0f", "7z"),
        ("8f", "8f"), ("春", "1f"), ("\U0001f026", "1f"), ("冬", "4f"), ("\U0001f029", "4f"),
        ("梅", "5f"), ("\U0001f022", "5f"), ("蘭", "6f"), ("菊", "8f"), ("\U0001f025", "8f"),
        ("五万", "5m"), ("W", "W"),
    ],
)
def test_extended_notation_reads_honours_and_flowers(text: str, canonical: str) -> None:
    assert parse_tile_text(text, extended=True) == canonical


def test_every_honour_and_flower_has_a_glyph_and_a_chinese_name() -> None:
    glyphs = {chr(c) for c in (*range(0x1F000, 0x1F007), *range(0x1F022, 0x1F02A))}
    assert sorted(EXTRA_SPELLINGS[g] for g in glyphs) == sorted(HONOUR_TILES + FLOWER_TILES)
    names = "东南西北白发中春夏秋冬梅兰竹菊"
    assert [EXTRA_SPELLINGS[n] for n in names] == [*HONOUR_TILES, *FLOWER_TILES]


@pytest.mark.parametrize(("text", "kind"), [("1z", "an honour"), ("东", "an honour"),
                                            ("\U0001f004", "an honour"), ("8f", "a flower")])
def test_without_extended_an_honour_or_flower_is_an_unknown_tile(text: str, kind: str) -> None:
    with pytest.raises(TileNotationError, match=f"unknown tile .*{kind}: not a tile of these"):
        parse_tile_text(text)
    assert text not in TILE_SPELLINGS


def test_a_guizhou_log_with_an_honour_is_malformed_with_file_line_and_field() -> None:
    for tile in ("1z", "东", "\U0001f026"):
        bad = changed(game_dict(), lambda g, t=tile: g["hands"][0]["events"][3].update(tile=t))
        (item,) = generate_stream_games_from_bytes(stream_bytes(bad), path="s.jsonl")
        assert isinstance(item, MalformedLogError)
        assert str(item).startswith("s.jsonl line 6, game 'g-1', field hands[0].events[3].tile: "
                                    f"unknown tile {tile!r}")
