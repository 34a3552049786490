"""Compact tile notation: :func:`format_tiles` (sorted) and :func:`format_runs` (in the
order given) against a plain tile-by-tile writer, and their round trips; the honours, the
flowers and the tile sets of the families."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zhuoji.rules.tiles import (
    ALL_TILES,
    EVERY_TILE,
    FLOWER_TILES,
    HONOUR_TILES,
    NUM_KINDS,
    NUM_SUITED,
    NUM_TILE_KINDS,
    SUITED_TILES,
    TILE_TEXT,
    Suit,
    Tile,
    TileSet,
    format_runs,
    format_sorted_codes,
    format_tiles,
    parse_tiles,
)

tile_lists = st.lists(st.sampled_from(ALL_TILES), max_size=24)


def plain_runs(tiles: Iterable[int]) -> str:
    """Tile by tile: ranks, and the suit letter each time a run of one suit ends."""
    out = ""
    for i, tile in enumerate(tiles := list(tiles)):
        text = TILE_TEXT[tile]
        if text == "W":
            out += "W"
            continue
        out += text[0]
        following = TILE_TEXT[tiles[i + 1]] if i + 1 < len(tiles) else ""
        if following[1:] != text[1]:
            out += text[1]
    return out


@given(tile_lists)
def test_format_tiles_writes_each_suit_once_in_tile_order(tiles: list[Tile]) -> None:
    text = format_tiles(tiles)
    assert text == plain_runs(sorted(tiles))
    assert parse_tiles(text) == sorted(tiles)
    assert format_tiles(tuple(tiles)) == text
    assert format_tiles(t for t in tiles) == text  # any iterable, read once
    assert format_sorted_codes(bytes(sorted(tiles))) == text


@given(tile_lists)
def test_format_runs_keeps_the_order(tiles: list[Tile]) -> None:
    text = format_runs(bytes(tiles))
    assert text == plain_runs(tiles)
    assert parse_tiles(text) == tiles


def test_examples() -> None:
    assert format_tiles(parse_tiles("55p123m W 9s")) == "123m55p9sW"
    assert format_tiles([]) == ""
    assert format_tiles([Tile.W, Tile.W]) == "WW"
    assert format_runs(bytes(parse_tiles("1s9m55pW3s4s"))) == "1s9m55pW34s"
    assert format_runs(b"") == ""


def test_values_that_are_not_tiles_are_left_out_as_before() -> None:
    # Plain integers are tiles too; values outside 0..42 are left out (never an error).
    assert format_tiles([4, 0, 27]) == "15mW"
    assert format_tiles([43, -1, 3, 300]) == "4m"
    assert format_tiles([28, -1, 3, 300, 42]) == "4m1z8f"

    def once() -> Iterator[int]:
        yield from (50, 9, 9)

    assert format_tiles(once()) == "11p"


# --- honours and flowers -----------------------------------------------------------------


def test_honours_and_flowers_follow_the_wildcard() -> None:
    assert [t.text for t in HONOUR_TILES] == [f"{r}z" for r in range(1, 8)]
    assert [t.text for t in FLOWER_TILES] == [f"{r}f" for r in range(1, 9)]
    assert HONOUR_TILES[0] == Tile.EAST == 28 and FLOWER_TILES[-1] == Tile.CHRYSANTHEMUM == 42
    assert "".join(t.chinese for t in HONOUR_TILES) == "东南西北白发中"
    assert "".join(t.chinese for t in FLOWER_TILES) == "春夏秋冬梅兰竹菊"
    assert Tile.M5.chinese == "五万" and Tile.S1.chinese == "一条" and Tile.W.chinese == "万能鸡"
    assert (Tile.RED.suit, Tile.RED.rank) == (Suit.HONOURS, 7)
    assert (Tile.PLUM.suit, Tile.PLUM.rank) == (Suit.FLOWERS, 5)
    assert (Tile.W.rank, Tile.S9.rank, Tile.M1.rank) == (0, 9, 1)
    assert Tile.EAST.is_honour and not Tile.EAST.is_suited and not Tile.EAST.is_flower
    assert Tile.SPRING.is_flower and not Tile.SPRING.is_honour and not Tile.SPRING.is_wild
    assert all(t.is_suited for t in SUITED_TILES) and not Tile.W.is_suited
    assert (*SUITED_TILES, Tile.W, *HONOUR_TILES, *FLOWER_TILES) == EVERY_TILE
    assert [Tile.parse(t.text) for t in EVERY_TILE] == list(EVERY_TILE)


def test_honours_and_flowers_have_no_successor() -> None:
    for tile in (Tile.W, Tile.EAST, Tile.RED, Tile.SPRING):
        with pytest.raises(ValueError, match="not a suited tile"):
            tile.next_in_suit()


def test_compact_notation_reads_and_writes_honours_and_flowers() -> None:
    tiles = parse_tiles("1234567z 12345678f 5m W")
    assert tiles == [*HONOUR_TILES, *FLOWER_TILES, Tile.M5, Tile.W]
    assert format_tiles(tiles) == "5mW1234567z12345678f"
    assert parse_tiles(format_tiles(tiles)) == sorted(tiles)
    for bad in ("8z", "9f", "0z", "z"):
        with pytest.raises(ValueError):
            parse_tiles(bad)


@pytest.mark.parametrize(
    ("tile_set", "size", "kinds"),
    [(TileSet.SUITED, 108, 27), (TileSet.HONOURS, 136, 34), (TileSet.FLOWERS, 144, 42)],
)
def test_a_tile_set_holds_its_tiles(tile_set: TileSet, size: int, kinds: int) -> None:
    wall = tile_set.wall()
    assert len(wall) == size == tile_set.value and len(tile_set.kinds) == kinds
    assert all(tile_set.has(t) for t in wall)
    assert all(wall.count(t) == (1 if t.is_flower else 4) for t in tile_set.kinds)
    assert not tile_set.has(Tile.W)  # wildcards are a setting of their own
    assert tile_set.has(Tile.EAST) is (tile_set is not TileSet.SUITED)
    assert tile_set.has(Tile.SPRING) is (tile_set is TileSet.FLOWERS)


def test_the_count_vector_stays_the_suited_kinds_and_the_wildcard() -> None:
    assert (NUM_KINDS, NUM_SUITED, len(ALL_TILES)) == (28, 27, 28)
    assert NUM_TILE_KINDS == 43 == len(EVERY_TILE) == len(TILE_TEXT)
