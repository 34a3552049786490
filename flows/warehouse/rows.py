"""Audited games to warehouse rows: columnar buffers, Arrow tables, Parquet shards.

A worker audits a file's games and adds each game to a :class:`RowBuffer`; the buffer
writes one Parquet shard per table (in row groups, so memory stays bounded however large
the file is). The Arrow schemas here mirror the DDL in ``sql/schema/`` column for column.
:class:`FileOutcome` is what the worker sends back: counts, game ids and where the shards
are, or the reasons the file is quarantined.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from enum import StrEnum
from operator import attrgetter
from pathlib import Path
from typing import Any

import orjson
import pyarrow as pa
import pyarrow.parquet as pq

from zhuoji.flows.warehouse.rows_tiles import (
    HAND_TILES_ARROW_SCHEMA,
    format_discards,
    hand_tiles_row_tuples,
)
from zhuoji.parsers import fast
from zhuoji.parsers.models import Game
from zhuoji.rules.audit import HandAudit
from zhuoji.rules.events import KongKind
from zhuoji.rules.facts import Outcome, WinFact
from zhuoji.rules.families import Family
from zhuoji.rules.ledger import WinValue
from zhuoji.rules.replay import HandReplay
from zhuoji.rules.tiles import TILE_TEXT
from zhuoji.rules.violations import SETTLEMENT_CODES, ViolationCode

DATA_TABLES: tuple[str, ...] = (
    "games",
    "players",
    "hands",
    "hand_players",
    "hand_tiles",
    "ledger",
    "violations",
    "wins",
    "seat_choices",
)
"""The tables a loaded file contributes rows to, parents first."""

_I16 = pa.int16()
_I32 = pa.int32()
_I64 = pa.int64()
_STR = pa.string()
_BOOL = pa.bool_()

CHICKEN_KINDS: tuple[str, ...] = ("standing", "flipped", "gold", "charging", "responsibility")
"""The kinds of chicken ``hand_players`` counts, one column each (``sql/schema/005_*``): what a
chicken-scoring family's :attr:`~zhuoji.rules.families.Family.chicken_counts` names."""
CHICKEN_COLUMNS: tuple[tuple[str, str], ...] = tuple(
    (kind, f"chickens_{kind}") for kind in CHICKEN_KINDS
)
KONG_COLUMNS: tuple[tuple[KongKind, str], ...] = (
    (KongKind.EXPOSED, "exposed_kongs"),
    (KongKind.ADDED, "added_kongs"),
    (KongKind.CONCEALED, "concealed_kongs"),
)

SCHEMAS: dict[str, pa.Schema] = {
    "hand_tiles": HAND_TILES_ARROW_SCHEMA,
    "games": pa.schema(
        [
            ("game_id", _STR),
            ("path", _STR),
            ("ruleset", _STR),
            ("rule_overrides", _STR),
            ("base_stake", _I32),
            ("started_at", pa.timestamp("us")),
            ("n_players", _I16),
            ("n_hands", _I32),
        ]
    ),
    "players": pa.schema([("game_id", _STR), ("seat", _I16), ("player_id", _STR), ("name", _STR)]),
    "hands": pa.schema(
        [
            ("game_id", _STR),
            ("hand_no", _I32),
            ("dealer", _I16),
            ("dealer_streak", _I32),
            ("n_events", _I32),
            ("events_applied", _I32),
            ("has_wall", _BOOL),
            ("wall_left", _I32),
            ("outcome", _STR),
            ("winners", _I16),
            ("self_drawn", _BOOL),
            ("discarder", _I16),
            ("flip_tile", _STR),
            ("settled", _BOOL),
            ("next_dealer", _I16),
            ("recorded", _BOOL),
            ("recorded_next_dealer", _I16),
            ("violations", _I32),
            ("fatal", _BOOL),
            ("fatal_code", _STR),
            ("mismatches", _I32),
            ("disputed", _BOOL),
        ]
    ),
    "hand_players": pa.schema(
        [
            ("game_id", _STR),
            ("hand_no", _I32),
            ("seat", _I16),
            ("player_id", _STR),
            ("delta", _I32),
            ("recorded_delta", _I32),
            ("winner", _BOOL),
            ("self_drawn", _BOOL),
            ("dealt_in", _BOOL),
            ("ready", _BOOL),
            ("declared_ready", _BOOL),
            *((column, _I16) for _, column in KONG_COLUMNS),
            *((column, _I16) for _, column in CHICKEN_COLUMNS),
            ("win_value", _I32),
            ("patterns", pa.list_(_STR)),
            ("scored_patterns", pa.list_(_STR)),
        ]
    ),
    "ledger": pa.schema(
        [
            ("game_id", _STR),
            ("hand_no", _I32),
            ("item_no", _I32),
            ("payer_seat", _I16),
            ("payee_seat", _I16),
            ("payer_id", _STR),
            ("payee_id", _STR),
            ("amount", _I32),
            ("reason", _STR),
            ("detail", _STR),
            ("event_index", _I32),
        ]
    ),
    "violations": pa.schema(
        [
            ("game_id", _STR),
            ("hand_no", _I32),
            ("item_no", _I32),
            ("event_index", _I32),
            ("seat", _I16),
            ("player_id", _STR),
            ("code", _STR),
            ("settlement", _BOOL),
            ("message", _STR),
            ("fatal", _BOOL),
        ]
    ),
    "wins": pa.schema(
        [
            ("game_id", _STR),
            ("hand_no", _I32),
            ("win_no", _I16),
            ("seat", _I16),
            ("player_id", _STR),
            ("source", _STR),
            ("discarder", _I16),
            ("discarder_id", _STR),
            ("tile", _STR),
            ("value", _I32),
            ("patterns", pa.list_(_STR)),
            ("scored_patterns", pa.list_(_STR)),
        ]
    ),
    "seat_choices": pa.schema(
        [
            ("game_id", _STR),
            ("hand_no", _I32),
            ("seat", _I16),
            ("player_id", _STR),
            ("declared_suit", _STR),
            ("passed", _STR),
            ("passed_to", _I16),
            ("received", _STR),
            ("received_from", _I16),
        ]
    ),
}

FILES_SCHEMA = pa.schema(
    [
        ("path", _STR),
        ("sha256", _STR),
        ("size", _I64),
        ("status", _STR),
        ("games", _I32),
        ("hands", _I32),
        ("run_id", _I32),
        ("engine_version", _STR),
    ]
)
_ERROR_TYPE = pa.struct([("line", _I32), ("json_path", _STR), ("game_id", _STR), ("message", _STR)])
QUARANTINE_SCHEMA = pa.schema(
    [
        ("path", _STR),
        ("sha256", _STR),
        ("size", _I64),
        ("n_errors", _I32),
        ("reason", _STR),
        ("errors", pa.list_(_ERROR_TYPE)),
        ("run_id", _I32),
        ("clashes_with", pa.list_(_STR)),
    ]
)
RULESETS_SCHEMA = pa.schema(
    [
        ("path", _STR),
        ("ruleset", _STR),
        ("rule_overrides", _STR),
        ("ruleset_fingerprint", _STR),
        ("engine_version", _STR),
        ("family", _STR),
    ]
)
"""The rulesets a batch's games were audited under, per file: the loader joins it to the
games shards for the ``games`` columns the worker's shards leave out."""



# --- outcomes --------------------------------------------------------------------------------


class FileStatus(StrEnum):
    LOADED = "loaded"
    QUARANTINED = "quarantined"


@dataclass(frozen=True, slots=True)
class FileError:
    """One reason a file is quarantined. ``sentence`` is the full readable text."""

    sentence: str
    message: str
    line: int | None = None
    json_path: str | None = None
    game_id: str | None = None
    clashes_with: str | None = None  # the file already holding ``game_id`` (a clash)


@dataclass(frozen=True, slots=True)
class RulesetUse:
    """A ruleset some games of a file were audited under: the log's preset name and
    overrides (as the ``games`` table stores them), the resolved ruleset's fingerprint and
    its family's name (:func:`zhuoji.rules.families.family_of`)."""

    ruleset: str
    rule_overrides: str | None
    fingerprint: str
    family: str


@dataclass(frozen=True, slots=True)
class FileOutcome:
    """Where one file ended, as a worker reports it (small; pickles cheaply).

    A loaded file's rows wait in ``shard_dir`` (one ``<table>.parquet`` per table of
    :data:`DATA_TABLES`) for the loader: the shards of the task that processed it, which
    hold the rows of the task's other files too, each row with its file's path
    (:data:`SOURCE_COLUMN`). A quarantined file has ``errors`` and no ``shard_dir``.
    ``violations`` counts illegal-move findings, ``mismatches`` the settlement findings
    (``hands.mismatches`` summed) and ``disputed_hands`` the hands with at least one
    (``hands.disputed``).
    """

    path: str
    sha256: str
    size: int
    status: FileStatus
    games: int = 0
    hands: int = 0
    violations: int = 0
    mismatches: int = 0
    disputed_hands: int = 0
    game_ids: tuple[str, ...] = ()
    shard_dir: str | None = None
    errors: tuple[FileError, ...] = ()
    engine_version: str = ""  # zhuoji.rules.version.ENGINE_VERSION of the worker
    rulesets: tuple[RulesetUse, ...] = ()  # a loaded file's, sorted

    def shard(self, table: str) -> str:
        if self.shard_dir is None:
            # a programming error, never a user's: not translated
            raise ValueError(f"{self.path}: a quarantined file has no shards")
        return (Path(self.shard_dir) / f"{table}.parquet").as_posix()

    def quarantine(self, errors: Sequence[FileError]) -> FileOutcome:
        """This outcome turned into a quarantine. The shards stay (other files of its
        task may be loaded from them): the loader leaves out rows of files it does not
        load, and the ingest removes the shards after the batch."""
        return replace(
            self,
            status=FileStatus.QUARANTINED,
            games=0,
            hands=0,
            violations=0,
            mismatches=0,
            disputed_hands=0,
            game_ids=(),
            shard_dir=None,
            errors=tuple(errors),
            rulesets=(),
        )


def remove_shards(outcomes: Sequence[FileOutcome]) -> None:
    """Remove the shard folders of these outcomes (a folder may serve several)."""
    for shard_dir in sorted({o.shard_dir for o in outcomes if o.shard_dir is not None}):
        shutil.rmtree(shard_dir, ignore_errors=True)


def files_table(outcomes: Sequence[FileOutcome], run_id: int) -> pa.Table:
    """The ``files`` rows of a batch."""
    ordered = sorted(outcomes, key=lambda o: o.path)
    return pa.table(
        {
            "path": [o.path for o in ordered],
            "sha256": [o.sha256 for o in ordered],
            "size": [o.size for o in ordered],
            "status": [o.status.value for o in ordered],
            "games": [o.games for o in ordered],
            "hands": [o.hands for o in ordered],
            "run_id": [run_id] * len(ordered),
            "engine_version": [o.engine_version for o in ordered],
        },
        schema=FILES_SCHEMA,
    )


def quarantine_table(outcomes: Sequence[FileOutcome], run_id: int) -> pa.Table:
    """The ``quarantine`` rows of a batch's quarantined files."""
    ordered = sorted(outcomes, key=lambda o: o.path)
    return pa.table(
        {
            "path": [o.path for o in ordered],
            "sha256": [o.sha256 for o in ordered],
            "size": [o.size for o in ordered],
            "n_errors": [len(o.errors) for o in ordered],
            "reason": ["\n".join(e.sentence for e in o.errors) for o in ordered],
            "errors": [
                [
                    {
                        "line": e.line,
                        "json_path": e.json_path,
                        "game_id": e.game_id,
                        "message": e.message,
                    }
                    for e in o.errors
                ]
                for o in ordered
            ],
            "run_id": [run_id] * len(ordered),
            "clashes_with": [
                sorted({e.clashes_with for e in o.errors if e.clashes_with is not None})
                for o in ordered
            ],
        },
        schema=QUARANTINE_SCHEMA,
    )


def rulesets_table(outcomes: Sequence[FileOutcome]) -> pa.Table:
    """The rulesets of a batch's loaded files (:data:`RULESETS_SCHEMA`)."""
    rows = [
        (o.path, use.ruleset, use.rule_overrides, use.fingerprint, o.engine_version, use.family)
        for o in sorted(outcomes, key=lambda o: o.path)
        if o.status is FileStatus.LOADED
        for use in o.rulesets
    ]
    return pa.table(
        {name: [row[i] for row in rows] for i, name in enumerate(RULESETS_SCHEMA.names)},
        schema=RULESETS_SCHEMA,
    )


# --- audited games to rows -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameCounts:
    """A game's hands, its illegal-move findings, its settlement findings (``mismatches``)
    and its disputed hands (those with a settlement finding: ``hands.disputed``)."""

    hands: int
    violations: int
    mismatches: int
    disputed_hands: int


def _utc(moment: datetime | None) -> datetime | None:
    if moment is None or moment.tzinfo is None:
        return moment
    return moment.astimezone(UTC).replace(tzinfo=None)


_HAND_PLAYERS_COLUMNS: tuple[str, ...] = (
    "game_id",
    "hand_no",
    "seat",
    "player_id",
    "delta",
    "recorded_delta",
    "winner",
    "self_drawn",
    "dealt_in",
    "ready",
    "declared_ready",
    *(column for _, column in KONG_COLUMNS),
    *(column for _, column in CHICKEN_COLUMNS),
    "win_value",
    "patterns",
    "scored_patterns",
)
"""The order :meth:`RowBuffer._add_hand` builds a ``hand_players`` row in."""
if tuple(SCHEMAS["hand_players"].names) != _HAND_PLAYERS_COLUMNS:
    # a programming error, never a user's: not translated
    raise RuntimeError("the hand_players row layout does not match its schema")

_KONG_INDEX: dict[KongKind, int] = {kind: i for i, (kind, _) in enumerate(KONG_COLUMNS)}
_CHICKEN_INDEX: dict[str, int] = {kind: i for i, (kind, _) in enumerate(CHICKEN_COLUMNS)}
_SEAT_OF = attrgetter("seat")
_NO_KONGS: tuple[int, ...] = (0,) * len(KONG_COLUMNS)
_NO_CHICKENS: tuple[int, ...] = (0,) * len(CHICKEN_COLUMNS)
_NULL_CHICKENS: tuple[None, ...] = (None,) * len(CHICKEN_COLUMNS)
_TEXT: dict[StrEnum, str] = {
    member: member.value
    for enum in (Outcome, ViolationCode)
    for member in enum
}
"""Each enum member the rows hold, as its plain text value."""
SELF_DRAW, DISCARD, ROBBED_KONG = "self_draw", "discard", "robbed_kong"
"""``wins.source``: how a win was won (``sql/schema/023_wins.sql``)."""
ChickenCounts = Callable[[Any], Iterable[tuple[int, str, int]]]
"""A family's :attr:`~zhuoji.rules.families.Family.chicken_counts`."""


def _family_of(game: Game | fast.Game) -> Family | None:
    """The family of a game's ruleset (cached), None when it does not resolve."""
    from zhuoji.flows.audit.rulesets import resolve  # the engine's presets, when needed

    try:
        return resolve(game.ruleset, game.rule_overrides).family
    except ValueError:
        return None


SOURCE_COLUMN = "source_file"
"""The column a shard has beyond its table's: the path of the file each row comes from.

A worker's task writes one set of shards for all the files it processes, so the loader
keeps a file's rows by this column: those of the batch's loaded files, never those of a
file quarantined after its rows were buffered or written (``sql/load/insert_*``)."""


def shard_schema(table: str) -> pa.Schema:
    """The schema of ``table``'s shards: the table's columns and :data:`SOURCE_COLUMN`."""
    return SCHEMAS[table].append(pa.field(SOURCE_COLUMN, _STR))


SHARD_SCHEMAS: dict[str, pa.Schema] = {table: shard_schema(table) for table in SCHEMAS}


class RowBuffer:
    """Row buffers for every data table, flushed to one Parquet shard per table.

    One buffer takes the rows of any number of files, one file after another (a task's
    chunk): every row keeps its file's path (:data:`SOURCE_COLUMN`), and
    :meth:`drop_file` takes back the rows of the file added last that are not yet
    written. ``add_game`` appends a game's rows; ``flush`` writes the buffered rows as a
    row group (call it when :attr:`pending_hands` grows large); ``close`` flushes,
    closes the shards and moves them to ``shard_dir`` (until then they are written in a
    folder beside it, so a folder named ``shard_dir`` always holds complete shards).
    Rows go out in the order added; the loader orders them by key. Each row is held as a
    tuple of its table's columns in schema order (one append per row), and turned into
    columns when written; the ledger, about ten rows a hand, is held as columns, extended
    hand by hand. List columns hold tuples: a row of immutable values is left alone by
    the garbage collector while it waits for the flush."""

    def __init__(self, shard_dir: Path) -> None:
        self.shard_dir = shard_dir
        self._work_dir = shard_dir.with_name(f"{shard_dir.name}.partial-{os.getpid()}")
        self._rows: dict[str, list[tuple[Any, ...]]] = {
            table: [] for table in SCHEMAS if table != "ledger"
        }
        self._ledger: list[list[Any]] = [[] for _ in SCHEMAS["ledger"].names]
        self._writers: dict[str, pq.ParquetWriter] = {}
        # the buffered files in order: (path, each table's row count before its rows,
        # pending_hands before its rows)
        self._segments: list[tuple[str, dict[str, int], int]] = []
        self.written_files: set[str] = set()
        """Files with rows in the shards already written (:meth:`flush`)."""
        self.pending_hands = 0

    def _lengths(self) -> dict[str, int]:
        lengths = {table: len(rows) for table, rows in self._rows.items()}
        lengths["ledger"] = len(self._ledger[0])
        return lengths

    def _begin(self, path: str) -> None:
        if not self._segments or self._segments[-1][0] != path:
            self._segments.append((path, self._lengths(), self.pending_hands))

    def drop_file(self, path: str) -> bool:
        """Take back the buffered rows of ``path`` (the file added last: it is
        quarantined). False when some of its rows are already written to the shards
        (the loader leaves those out, by :data:`SOURCE_COLUMN`)."""
        if self._segments and self._segments[-1][0] == path:
            _, marks, hands = self._segments.pop()
            for table, rows in self._rows.items():
                del rows[marks[table] :]
            for column in self._ledger:
                del column[marks["ledger"] :]
            self.pending_hands = hands
        elif any(segment[0] == path for segment in self._segments):
            # a programming error, never a user's: not translated
            raise ValueError(f"{path}: only the file added last can be dropped")
        return path not in self.written_files

    def add_game(
        self,
        game: Game | fast.Game,
        path: str,
        audits: Sequence[HandAudit],
        *,
        chickens: bool = True,
        family: Family | None = None,
    ) -> GameCounts:
        """Append the rows of one audited game (either form of the log's game); returns
        its counts. ``chickens``: the game's family scores chickens (``Family.chickens``);
        without, its ``hand_players`` rows have NULL chicken columns (there is nothing to
        count, and an average over the column leaves them out). ``family``: the game's
        family, whose hooks give its own columns (the chickens its settlements paid,
        :attr:`~zhuoji.rules.families.Family.chicken_counts`); resolved from the game's
        ruleset when not given."""
        if family is None:
            family = _family_of(game)
        counts_of = None if family is None else family.chicken_counts
        self._begin(path)
        rows = self._rows
        game_id = game.game_id
        n = len(game.players)
        ids = [""] * n
        for p in game.players:
            ids[p.seat] = p.id
        rows["games"].append((
            game_id,
            path,
            game.ruleset,
            None
            if game.rule_overrides is None
            else orjson.dumps(game.rule_overrides, option=orjson.OPT_SORT_KEYS).decode(),
            game.base_stake,
            _utc(game.started_at),
            n,
            len(audits),
        ))
        players = rows["players"]
        game_players: Sequence[Any] = game.players  # either form's players
        for player in sorted(game_players, key=_SEAT_OF):
            players.append((game_id, player.seat, player.id, player.name))
        violations = 0
        mismatches = 0
        disputed = 0
        tiles = rows["hand_tiles"]
        for audit in audits:
            v, m = self._add_hand(game_id, ids, audit, chickens, counts_of)
            violations += v
            mismatches += m
            disputed += m > 0
            tiles.extend(hand_tiles_row_tuples(game_id, audit))
        self.pending_hands += len(audits)
        return GameCounts(hands=len(audits), violations=violations, mismatches=mismatches,
                          disputed_hands=disputed)

    def _add_hand(
        self,
        game_id: str,
        ids: list[str],
        audit: HandAudit,
        scores_chickens: bool,
        chicken_counts: ChickenCounts | None,
    ) -> tuple[int, int]:
        rows = self._rows
        record = audit.record
        replay = audit.replay
        settlement = audit.settlement
        findings = audit.findings
        hand_no = record.hand_no
        n = record.n_players

        n_settlement = 0
        if findings:
            vi = rows["violations"]
            for item_no, finding in enumerate(findings):
                is_settlement = finding.code in SETTLEMENT_CODES
                n_settlement += is_settlement
                seat = finding.seat
                vi.append((
                    game_id,
                    hand_no,
                    item_no,
                    finding.event_index,
                    seat,
                    ids[seat] if seat is not None and seat < n else None,
                    _TEXT[finding.code],
                    is_settlement,
                    finding.message,
                    finding.fatal,
                ))
        n_violations = len(findings) - n_settlement

        winners = replay.winners
        win_by_seat: dict[int, WinFact] = {}
        dealt_in: set[int] = set()
        any_self_drawn = False
        for w in winners:
            win_by_seat[w.seat] = w
            if w.from_seat is not None:
                dealt_in.add(w.from_seat)
            if w.self_drawn:
                any_self_drawn = True
        violations = replay.violations
        fatal = violations[-1] if violations and violations[-1].fatal else None  # replay.fatal
        recorded = record.result
        rows["hands"].append((
            game_id,
            hand_no,
            record.dealer,
            record.dealer_streak,
            len(record.events),
            replay.events_applied,
            record.wall is not None,
            replay.wall_left,
            _TEXT[replay.outcome],
            len(winners),
            any_self_drawn,
            min(dealt_in) if dealt_in else None,
            None if replay.flip is None else TILE_TEXT[replay.flip],
            settlement is not None,
            None if settlement is None else settlement.next_dealer,
            recorded is not None,
            None if recorded is None else recorded.next_dealer,
            n_violations,
            fatal is not None,
            None if fatal is None else _TEXT[fatal.code],
            n_settlement,
            n_settlement > 0,
        ))

        chickens: dict[int, list[int]] = {}
        values: dict[int, WinValue] = {}
        later_values: dict[int, list[WinValue]] | None = None  # a seat's second win on
        deltas: Sequence[int | None] = (None,) * n
        if settlement is not None:
            deltas = settlement.deltas
            if chicken_counts is not None:
                for seat, kind, count in chicken_counts(settlement):
                    counts = chickens.get(seat)
                    if counts is None:
                        counts = chickens[seat] = [0] * len(CHICKEN_COLUMNS)
                    counts[_CHICKEN_INDEX[kind]] += count
            for win_value in settlement.wins:
                if win_value.seat not in values:
                    values[win_value.seat] = win_value
                else:
                    if later_values is None:
                        later_values = {}
                    later_values.setdefault(win_value.seat, []).append(win_value)
            items = settlement.items
            if items:
                # Column by column: a hand has about ten items.
                k = len(items)
                payers, payees, amounts, reasons, details = zip(*items, strict=True)
                (game_ids, hand_nos, item_nos, payer_seats, payee_seats, payer_ids, payee_ids,
                 amount_column, reason_column, detail_column, event_column) = self._ledger
                game_ids.extend([game_id] * k)
                hand_nos.extend([hand_no] * k)
                item_nos.extend(range(k))
                payer_seats.extend(payers)
                payee_seats.extend(payees)
                payer_ids.extend(map(ids.__getitem__, payers))
                payee_ids.extend(map(ids.__getitem__, payees))
                amount_column.extend(amounts)
                reason_column.extend(map(str, reasons))  # a family's StrEnum: its value
                detail_column.extend(details)
                # the event of each transfer, when the family's settlement places them
                # (``item_events``: a kong's payment at the kong, a win's at the win)
                at: Sequence[int | None] = getattr(settlement, "item_events", ())
                event_column.extend(at if len(at) == k else [None] * k)
        recorded_deltas: Sequence[int | None] = (None,) * n if recorded is None else recorded.deltas

        if winners:
            self._add_wins(game_id, hand_no, ids, winners, values, later_values)
        if replay.exchanges or replay.declared_suits:
            self._add_choices(game_id, hand_no, ids, replay)

        seat_facts = {s.seat: s for s in replay.seats}
        no_chickens: Sequence[int | None] = _NO_CHICKENS if scores_chickens else _NULL_CHICKENS
        hp = rows["hand_players"]
        for seat in range(n):
            win = win_by_seat.get(seat)
            facts = seat_facts.get(seat)
            kongs: Sequence[int] = _NO_KONGS
            if facts is not None and facts.kongs:
                kong_counts = [0] * len(KONG_COLUMNS)
                for kong in facts.kongs:
                    if not kong.robbed:
                        kong_counts[_KONG_INDEX[kong.kind]] += 1
                kongs = kong_counts
            value = values.get(seat)
            hp.append((
                game_id,
                hand_no,
                seat,
                ids[seat],
                deltas[seat],
                recorded_deltas[seat],
                win is not None,
                win is not None and win.self_drawn,
                seat in dealt_in,
                facts is not None and facts.ready,
                facts is not None and facts.declared_ready_at is not None,
                *kongs,
                *chickens.get(seat, no_chickens),
                None if value is None else (-value.value if value.penalty else value.value),
                () if win is None else tuple(map(str, win.patterns)),  # plain text
                () if value is None else value.patterns,
            ))
        return n_violations, n_settlement

    def _add_wins(
        self,
        game_id: str,
        hand_no: int,
        ids: list[str],
        winners: Sequence[WinFact],
        values: dict[int, WinValue],
        later_values: dict[int, list[WinValue]] | None,
    ) -> None:
        """The hand's ``wins`` rows, in win order. A seat's first win takes the first of
        its settlement's :class:`WinValue` values, a later win of the same seat the next."""
        out = self._rows["wins"]
        seen: set[int] | None = None
        for win_no, w in enumerate(winners):
            seat = w.seat
            if later_values is None:
                value = values.get(seat)
            elif seen is None or seat not in seen:
                value = values.get(seat)
                if seen is None:
                    seen = set()
                seen.add(seat)
            else:
                rest = later_values.get(seat)
                value = rest.pop(0) if rest else None
            source = SELF_DRAW if w.self_drawn else ROBBED_KONG if w.robbed_kong else DISCARD
            discarder = None if w.self_drawn else w.from_seat
            out.append((
                game_id,
                hand_no,
                win_no,
                seat,
                ids[seat],
                source,
                discarder,
                None if discarder is None else ids[discarder],
                TILE_TEXT[w.tile],
                None if value is None else (-value.value if value.penalty else value.value),
                tuple(map(str, w.patterns)),  # plain text, in the family's order
                () if value is None else value.patterns,
            ))

    def _add_choices(
        self, game_id: str, hand_no: int, ids: list[str], replay: HandReplay
    ) -> None:
        """The hand's ``seat_choices`` rows (a family with an exchange or a declared suit):
        one per seat."""
        suits = replay.declared_suits
        passed = {e.seat: e for e in replay.exchanges}
        received = {e.to: e for e in replay.exchanges}
        out = self._rows["seat_choices"]
        for seat in range(len(ids)):
            suit = suits[seat] if seat < len(suits) else None
            gave = passed.get(seat)
            got = received.get(seat)
            out.append((
                game_id,
                hand_no,
                seat,
                ids[seat],
                None if suit is None else suit.value,
                None if gave is None else format_discards(gave.tiles),
                None if gave is None else gave.to,
                None if got is None else format_discards(got.tiles),
                None if got is None else got.seat,
            ))

    def arrow(self, table: str) -> pa.Table:
        """The buffered rows of ``table`` as an Arrow table (the buffer is not cleared)."""
        schema = SCHEMAS[table]
        columns: Sequence[Sequence[Any]]
        if table == "ledger":
            columns = self._ledger
        else:
            rows = self._rows[table]
            columns = list(zip(*rows, strict=True)) if rows else [() for _ in schema.names]
        return pa.table(dict(zip(schema.names, columns, strict=True)), schema=schema)

    def shard_arrow(self, table: str) -> pa.Table:
        """:meth:`arrow` with each row's file path (:data:`SOURCE_COLUMN`): what the
        table's shard holds."""
        data = self.arrow(table)
        total = data.num_rows
        pieces: list[pa.Array] = []
        segments = self._segments
        for i, (path, marks, _) in enumerate(segments):
            end = segments[i + 1][1][table] if i + 1 < len(segments) else total
            if end > marks[table]:
                pieces.append(pa.repeat(pa.scalar(path, _STR), end - marks[table]))
        column = pa.chunked_array(pieces, type=_STR) if pieces else pa.chunked_array([], _STR)
        if len(column) != total:
            # a programming error, never a user's: not translated
            raise RuntimeError(f"{table}: rows without a file")
        return data.append_column(pa.field(SOURCE_COLUMN, _STR), column)

    def _clear(self, table: str) -> None:
        if table == "ledger":
            for column in self._ledger:
                column.clear()
        else:
            self._rows[table].clear()

    def flush(self) -> None:
        """Write the buffered rows of every table as a row group and clear the buffers."""
        self._work_dir.mkdir(parents=True, exist_ok=True)
        for table, schema in SHARD_SCHEMAS.items():
            writer = self._writers.get(table)
            if writer is None:
                writer = pq.ParquetWriter(self._work_dir / f"{table}.parquet", schema)
                self._writers[table] = writer
            writer.write_table(self.shard_arrow(table))
        for table in SCHEMAS:
            self._clear(table)
        self.written_files.update(path for path, _, _ in self._segments)
        self._segments.clear()
        self.pending_hands = 0

    def close(self) -> None:
        """Flush what is left, close every shard (each table gets a shard, maybe empty)
        and move them to :attr:`shard_dir`, replacing what a failed attempt left there."""
        self.flush()
        for writer in self._writers.values():
            writer.close()
        self._writers.clear()
        shutil.rmtree(self.shard_dir, ignore_errors=True)
        os.replace(self._work_dir, self.shard_dir)

    def abort(self) -> None:
        """Close the shards and delete them (no file of the buffer is loaded)."""
        for writer in self._writers.values():
            writer.close()
        self._writers.clear()
        shutil.rmtree(self._work_dir, ignore_errors=True)
        shutil.rmtree(self.shard_dir, ignore_errors=True)
