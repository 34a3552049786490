"""Each seat's tiles at the end of a hand as warehouse rows (table ``hand_tiles``).

Tiles are stored as compact notation text (``rules.tiles``): the concealed hand sorted
(``"123m55p"``), the discards in play order with consecutive tiles of one suit sharing
the suit letter (``"1s9m55p"`` is 1s, 9m, 5p, 5p: :func:`rules.tiles.parse_tiles` reads
it back in order), the melds as ``kind:tile`` items in the order they were made
(``"pong:5p,concealed_kong:1s"``). :func:`parse_melds` and :func:`parse_discards` are the
inverses the dashboard uses.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import polars as pl

from rules.audit import HandAudit
from rules.melds import Meld, MeldKind
from rules.tiles import TILE_TEXT, Tile, format_tiles, parse_tiles

__all__ = [
    "HAND_TILES_SCHEMA",
    "MeldTextError",
    "extend_hand_tiles",
    "format_discards",
    "format_melds",
    "hand_tiles_rows",
    "parse_discards",
    "parse_melds",
]

HAND_TILES_SCHEMA: dict[str, pl.DataType] = {
    "game_id": pl.String(),
    "hand_no": pl.Int32(),
    "seat": pl.Int16(),
    "concealed": pl.String(),
    "melds": pl.String(),
    "discards": pl.String(),
    "win_tile": pl.String(),
}
"""The columns of ``sql/schema/010_hand_tiles.sql``, in order."""


class MeldTextError(ValueError):
    """A ``melds`` text that is not ``kind:tile`` items separated by commas."""

    def __init__(self, text: str, reason: str) -> None:
        super().__init__(f"melds {text!r}: {reason}")
        self.text = text


def format_discards(tiles: Iterable[int]) -> str:
    """Tiles in the order given, compact: a suit letter closes each run of one suit."""
    out: list[str] = []
    run_suit = ""
    for tile in tiles:
        text = TILE_TEXT[tile]
        if text == "W":
            if run_suit:
                out.append(run_suit)
                run_suit = ""
            out.append("W")
            continue
        rank, suit = text[0], text[1]
        if run_suit and suit != run_suit:
            out.append(run_suit)
        out.append(rank)
        run_suit = suit
    if run_suit:
        out.append(run_suit)
    return "".join(out)


def parse_discards(text: str) -> list[Tile]:
    """The inverse of :func:`format_discards` (order kept)."""
    return parse_tiles(text)


def format_melds(melds: Iterable[Meld]) -> str:
    return ",".join(f"{m.kind.value}:{TILE_TEXT[m.tile]}" for m in melds)


def parse_melds(text: str) -> list[tuple[MeldKind, Tile]]:
    """``"pong:5p,concealed_kong:1s"`` to ``[(PONG, 5p), (CONCEALED_KONG, 1s)]``."""
    if not text:
        return []
    melds: list[tuple[MeldKind, Tile]] = []
    for item in text.split(","):
        kind_text, sep, tile_text = item.partition(":")
        if not sep:
            raise MeldTextError(text, f"item {item!r} has no ':'")
        try:
            kind = MeldKind(kind_text)
        except ValueError:
            raise MeldTextError(text, f"unknown meld kind {kind_text!r}") from None
        try:
            tile = Tile.parse(tile_text)
        except ValueError as exc:
            raise MeldTextError(text, str(exc)) from None
        melds.append((kind, tile))
    return melds


def extend_hand_tiles(
    columns: dict[str, list[Any]], game_id: str, audits: Sequence[HandAudit]
) -> None:
    """Append one row per seat per audited hand (the tiles where the replay ended) to
    ``columns``, a dict of lists keyed by the :data:`HAND_TILES_SCHEMA` names."""
    for audit in audits:
        replay = audit.replay
        hand_no = audit.record.hand_no
        won_on = {w.seat: TILE_TEXT[w.tile] for w in replay.winners}
        for facts in sorted(replay.seats, key=lambda s: s.seat):
            columns["game_id"].append(game_id)
            columns["hand_no"].append(hand_no)
            columns["seat"].append(facts.seat)
            columns["concealed"].append(format_tiles(facts.concealed))
            columns["melds"].append(format_melds(facts.melds))
            columns["discards"].append(format_discards(row[0] for row in facts.river))
            columns["win_tile"].append(won_on.get(facts.seat))


def hand_tiles_rows(game_id: str, audits: Sequence[HandAudit]) -> pl.DataFrame:
    """:func:`extend_hand_tiles` as a frame."""
    columns: dict[str, list[Any]] = {name: [] for name in HAND_TILES_SCHEMA}
    extend_hand_tiles(columns, game_id, audits)
    return pl.DataFrame(columns, schema=HAND_TILES_SCHEMA)
