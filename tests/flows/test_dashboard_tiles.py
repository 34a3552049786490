"""``hand_tiles`` rows: each seat's tiles where the hand ended, in compact notation."""

from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from zhuoji.flows.warehouse import store as warehouse
from zhuoji.flows.warehouse.rows_tiles import (
    MeldTextError,
    format_discards,
    format_melds,
    hand_tiles_rows,
    hand_tiles_schema,
    parse_discards,
    parse_melds,
)
from zhuoji.rules.audit import HandAudit, audit_game
from zhuoji.rules.families.guizhou.simulate import generate_games
from zhuoji.rules.melds import Meld, MeldKind
from zhuoji.rules.presets import load_preset
from zhuoji.rules.tiles import ALL_TILES, Tile, parse_tiles

Audited = list[tuple[str, list[HandAudit]]]


@pytest.fixture(scope="module")
def games() -> Audited:
    ruleset = load_preset("guiyang")
    return [
        (f"g{game.game_no}", audit_game(list(game.records), ruleset))
        for game in generate_games(ruleset, seed=7, games=6, hands_per_game=3)
    ]


def all_rows(games: Audited) -> pl.DataFrame:
    return pl.concat([hand_tiles_rows(game_id, audits) for game_id, audits in games])


@given(st.lists(st.sampled_from(ALL_TILES), max_size=30))
def test_discards_keep_their_order(tiles: list[Tile]) -> None:
    text = format_discards(tiles)
    assert parse_discards(text) == tiles
    assert parse_tiles(text) == tiles


def test_discard_notation_groups_runs_of_a_suit() -> None:
    tiles = (
        parse_tiles("1s") + parse_tiles("9m") + parse_tiles("55p") + [Tile.W] + parse_tiles("3s")
    )
    assert format_discards(tiles) == "1s9m55pW3s"
    assert format_discards([]) == ""


def test_meld_notation_round_trip() -> None:
    melds = [Meld(MeldKind.PONG, Tile.P5, from_seat=2), Meld(MeldKind.CONCEALED_KONG, Tile.S1)]
    text = format_melds(melds)
    assert text == "pong:5p,concealed_kong:1s"
    assert parse_melds(text) == [(MeldKind.PONG, Tile.P5), (MeldKind.CONCEALED_KONG, Tile.S1)]
    assert parse_melds("") == []
    assert parse_melds("chow:7s") == [(MeldKind.CHOW, Tile.S7)]  # 7-8-9s, by its lowest tile


@pytest.mark.parametrize(
    "text", ["pong5p", "kong:5p", "chow:8p", "pong:0p", "pong:5p,", "pong:5x"])
def test_bad_meld_text(text: str) -> None:
    with pytest.raises(MeldTextError, match="melds"):
        parse_melds(text)


def test_rows_hold_every_seats_tiles(games: Audited) -> None:
    frame = all_rows(games)
    assert frame.schema == pl.Schema(hand_tiles_schema())
    assert frame.height == sum(a.record.n_players for _, audits in games for a in audits)
    rows = frame.rows(named=True)
    i = 0
    melded = won = discarded = 0
    for game_id, audit in ((g, a) for g, audits in games for a in audits):
        winners = {w.seat: w.tile for w in audit.replay.winners}
        for facts in audit.replay.seats:
            row = rows[i]
            i += 1
            assert (row["game_id"], row["hand_no"], row["seat"]) == (
                game_id,
                audit.record.hand_no,
                facts.seat,
            )
            assert parse_tiles(row["concealed"]) == sorted(facts.concealed)
            assert parse_melds(row["melds"]) == [(m.kind, m.tile) for m in facts.melds]
            assert parse_discards(row["discards"]) == [r[0] for r in facts.river]
            expected_win = winners.get(facts.seat)
            assert row["win_tile"] == (None if expected_win is None else expected_win.text)
            melded += bool(facts.melds)
            won += expected_win is not None
            discarded += bool(facts.river)
    assert melded and won and discarded  # the sample exercises every column


def test_rows_load_into_the_schema(games: Audited, tmp_path: Path) -> None:
    con = warehouse.open_writer(tmp_path / "w.duckdb")
    try:
        frame = all_rows(games)
        con.register("frame", frame.to_arrow())
        con.execute("INSERT INTO hand_tiles SELECT * FROM frame")
        back = con.sql("SELECT * FROM hand_tiles ORDER BY game_id, hand_no, seat").pl()
    finally:
        con.close()
    assert back.rows() == frame.sort("game_id", "hand_no", "seat").rows()
    with pytest.raises(duckdb.ConstraintException):
        con = duckdb.connect(str(tmp_path / "w.duckdb"))
        try:
            con.register("frame", frame.head(1).to_arrow())
            con.execute("INSERT INTO hand_tiles SELECT * FROM frame")
        finally:
            con.close()
