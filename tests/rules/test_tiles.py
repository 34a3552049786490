"""Compact tile notation: :func:`format_tiles` (sorted) and :func:`format_runs` (in the
order given) against a plain tile-by-tile writer, and their round trips."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from hypothesis import given
from hypothesis import strategies as st

from rules.tiles import (
    ALL_TILES,
    TILE_TEXT,
    Tile,
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
