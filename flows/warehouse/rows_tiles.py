"""Each seat's tiles at the end of a hand as warehouse rows (table ``hand_tiles``).

Tiles are stored as compact notation text (``zhuoji.rules.tiles``): the concealed hand sorted
(``"123m55p"``), the discards in play order with consecutive tiles of one suit sharing
the suit letter (``"1s9m55p"`` is 1s, 9m, 5p, 5p: :func:`zhuoji.rules.tiles.parse_tiles` reads
it back in order), the melds as ``kind:tile`` items in the order they were made
(``"pong:5p,concealed_kong:1s"``). :func:`parse_melds` and :func:`parse_discards` are the
inverses the dashboard uses.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from zhuoji.rules.audit import HandAudit
from zhuoji.rules.facts import RiverRow
from zhuoji.rules.melds import Meld, MeldKind
from zhuoji.rules.tiles import (
    NUM_KINDS,
    TILE_TEXT,
    Tile,
    format_runs,
    format_sorted_codes,
    format_tiles,
    parse_tiles,
)

if TYPE_CHECKING:  # polars is imported when a frame is built: a worker never needs it
    import polars as pl

__all__ = [
    "HAND_TILES_ARROW_SCHEMA",
    "HAND_TILES_COLUMNS",
    "MeldTextError",
    "extend_hand_tiles",
    "format_discards",
    "format_melds",
    "hand_tiles_row_tuples",
    "hand_tiles_rows",
    "hand_tiles_schema",
    "parse_discards",
    "parse_melds",
]

HAND_TILES_ARROW_SCHEMA = pa.schema(
    [
        ("game_id", pa.string()),
        ("hand_no", pa.int32()),
        ("seat", pa.int16()),
        ("concealed", pa.string()),
        ("melds", pa.string()),
        ("discards", pa.string()),
        ("win_tile", pa.string()),
    ]
)
"""The columns of ``sql/schema/010_hand_tiles.sql``, in order (the shards'
``hand_tiles`` schema, :data:`zhuoji.flows.warehouse.rows.SCHEMAS`)."""

HAND_TILES_COLUMNS: tuple[str, ...] = tuple(HAND_TILES_ARROW_SCHEMA.names)


def hand_tiles_schema() -> dict[str, pl.DataType]:
    """:data:`HAND_TILES_ARROW_SCHEMA` as polars types."""
    import polars as pl

    frame = pl.from_arrow(HAND_TILES_ARROW_SCHEMA.empty_table())
    assert isinstance(frame, pl.DataFrame)  # a table gives a frame, not a series
    return dict(frame.schema)


class MeldTextError(ValueError):
    """A ``melds`` text that is not ``kind:tile`` items separated by commas."""

    def __init__(self, text: str, reason: str) -> None:
        # a programming error, never a user's: not translated
        super().__init__(f"melds {text!r}: {reason}")
        self.text = text


def format_discards(tiles: Iterable[int]) -> str:
    """Tiles in the order given, compact: a suit letter closes each run of one suit."""
    values = tiles if isinstance(tiles, (list, tuple)) else list(tiles)
    try:
        codes = bytes(values)
    except (TypeError, ValueError):  # not all small integers
        return _format_discards_checked(values)
    if codes and max(codes) >= NUM_KINDS:
        return _format_discards_checked(values)
    return format_runs(codes)


def _format_discards_checked(tiles: Iterable[int]) -> str:
    """:func:`format_discards` tile by tile (values that are not tiles raise as indexes
    of :data:`~zhuoji.rules.tiles.TILE_TEXT`)."""
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


_MELD_TEXT: dict[tuple[MeldKind, int], str] = {
    (kind, tile): f"{kind.value}:{TILE_TEXT[tile]}" for kind in MeldKind for tile in Tile
}
"""``"pong:5p"``: each meld's text, by kind and tile."""


def format_melds(melds: Iterable[Meld]) -> str:
    return ",".join([_MELD_TEXT.get((m.kind, m.tile)) or _meld_text(m) for m in melds])


def _meld_text(meld: Meld) -> str:
    return f"{meld.kind.value}:{TILE_TEXT[meld.tile]}"


_NOT_TILES = bytes([NUM_KINDS])
"""Stands for values that are not all small integers (formatted by the checked path)."""
_TILE_OF_ROW = itemgetter(0)
_SEAT_OF = attrgetter("seat")


def _river_text(river: Sequence[RiverRow]) -> str:
    """:func:`format_discards` of a seat's discard rows."""
    try:
        codes = bytes(map(_TILE_OF_ROW, river))
    except (TypeError, ValueError):  # not all small integers
        return format_discards([row[0] for row in river])
    if not codes or max(codes) >= NUM_KINDS:
        return format_discards([row[0] for row in river])
    return format_runs(codes)


def parse_melds(text: str) -> list[tuple[MeldKind, Tile]]:
    """``"pong:5p,concealed_kong:1s"`` to ``[(PONG, 5p), (CONCEALED_KONG, 1s)]``."""
    if not text:
        return []
    melds: list[tuple[MeldKind, Tile]] = []
    for item in text.split(","):
        kind_text, sep, tile_text = item.partition(":")
        if not sep:
            # a programming error, never a user's: not translated
            raise MeldTextError(text, f"item {item!r} has no ':'")
        try:
            kind = MeldKind(kind_text)
        except ValueError:
            # a programming error, never a user's: not translated
            raise MeldTextError(text, f"unknown meld kind {kind_text!r}") from None
        try:
            tile = Tile.parse(tile_text)
        except ValueError as exc:
            raise MeldTextError(text, str(exc)) from None
        if kind is MeldKind.CHOW and not (tile < 27 and tile % 9 <= 6):
            # a programming error, never a user's: not translated
            raise MeldTextError(text, f"a chow from {tile_text} has no three tiles in rank order")
        melds.append((kind, tile))
    return melds


HandTilesRow = tuple[str, int, int, str, str, str, str | None]
"""A ``hand_tiles`` row: the :data:`HAND_TILES_COLUMNS` in order."""


def hand_tiles_row_tuples(game_id: str, audit: HandAudit) -> list[HandTilesRow]:
    """One audited hand's ``hand_tiles`` rows, one per seat in seat order (the tiles where
    the replay ended)."""
    replay = audit.replay
    hand_no = audit.record.hand_no
    winners = replay.winners
    won_on = {w.seat: TILE_TEXT[w.tile] for w in winners} if winners else {}
    rows: list[HandTilesRow] = []
    for facts in sorted(replay.seats, key=_SEAT_OF):
        seat = facts.seat
        concealed = facts.concealed
        melds = facts.melds
        river = facts.river
        # The common case inline: tiles that are all tile values (else the checked paths).
        try:
            codes = bytes(sorted(bytes(concealed)))
        except (TypeError, ValueError):
            codes = _NOT_TILES
        if not codes:
            concealed_text = ""
        elif codes[-1] < NUM_KINDS:
            concealed_text = format_sorted_codes(codes)
        else:
            concealed_text = format_tiles(concealed)
        rows.append((
            game_id,
            hand_no,
            seat,
            concealed_text,
            format_melds(melds) if melds else "",
            _river_text(river) if river else "",
            won_on.get(seat),
        ))
    return rows


def extend_hand_tiles(
    columns: dict[str, list[Any]], game_id: str, audits: Sequence[HandAudit]
) -> None:
    """Append one row per seat per audited hand (the tiles where the replay ended) to
    ``columns``, a dict of lists keyed by :data:`HAND_TILES_COLUMNS`."""
    targets = [columns[name] for name in HAND_TILES_COLUMNS]
    for audit in audits:
        for row in hand_tiles_row_tuples(game_id, audit):
            for target, value in zip(targets, row, strict=True):
                target.append(value)


def hand_tiles_rows(game_id: str, audits: Sequence[HandAudit]) -> pl.DataFrame:
    """:func:`extend_hand_tiles` as a frame."""
    import polars as pl

    columns: dict[str, list[Any]] = {name: [] for name in HAND_TILES_COLUMNS}
    extend_hand_tiles(columns, game_id, audits)
    return pl.DataFrame(columns, schema=hand_tiles_schema())
