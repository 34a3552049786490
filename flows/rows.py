"""Audited games to warehouse rows: columnar buffers, Arrow tables, Parquet shards.

A worker audits a file's games and adds each game to a :class:`RowBuffer`; the buffer
writes one Parquet shard per table (in row groups, so memory stays bounded however large
the file is). The Arrow schemas here mirror the DDL in ``sql/schema/`` column for column.
:class:`FileOutcome` is what the worker sends back: counts, game ids and where the shards
are, or the reasons the file is quarantined.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

import orjson
import pyarrow as pa
import pyarrow.parquet as pq

from flows.rows_tiles import extend_hand_tiles
from parsers.models import Game
from rules.audit import HandAudit
from rules.events import KongKind
from rules.settlement import ChickenKind, WinValue
from rules.tiles import TILE_TEXT
from rules.violations import SETTLEMENT_CODES

DATA_TABLES: tuple[str, ...] = (
    "games",
    "players",
    "hands",
    "hand_players",
    "hand_tiles",
    "ledger",
    "violations",
)
"""The tables a loaded file contributes rows to, parents first."""

_I16 = pa.int16()
_I32 = pa.int32()
_I64 = pa.int64()
_STR = pa.string()
_BOOL = pa.bool_()

CHICKEN_COLUMNS: tuple[tuple[ChickenKind, str], ...] = tuple(
    (kind, f"chickens_{kind.value}") for kind in ChickenKind
)
KONG_COLUMNS: tuple[tuple[KongKind, str], ...] = (
    (KongKind.EXPOSED, "exposed_kongs"),
    (KongKind.ADDED, "added_kongs"),
    (KongKind.CONCEALED, "concealed_kongs"),
)

SCHEMAS: dict[str, pa.Schema] = {
    "hand_tiles": pa.schema(
        [
            ("game_id", _STR),
            ("hand_no", _I32),
            ("seat", _I16),
            ("concealed", _STR),
            ("melds", _STR),
            ("discards", _STR),
            ("win_tile", _STR),
        ]
    ),
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
    ]
)


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


@dataclass(frozen=True, slots=True)
class FileOutcome:
    """Where one file ended, as a worker reports it (small; pickles cheaply).

    A loaded file's rows wait in ``shard_dir`` (one ``<table>.parquet`` per table of
    :data:`DATA_TABLES`) for the loader; a quarantined file has ``errors`` and no shards.
    ``violations`` counts illegal-move findings, ``mismatches`` the disputed hands.
    """

    path: str
    sha256: str
    size: int
    status: FileStatus
    games: int = 0
    hands: int = 0
    violations: int = 0
    mismatches: int = 0
    game_ids: tuple[str, ...] = ()
    shard_dir: str | None = None
    errors: tuple[FileError, ...] = ()

    def shard(self, table: str) -> str:
        if self.shard_dir is None:
            raise ValueError(f"{self.path}: a quarantined file has no shards")
        return (Path(self.shard_dir) / f"{table}.parquet").as_posix()

    def quarantine(self, errors: Sequence[FileError]) -> FileOutcome:
        """This outcome turned into a quarantine (its shards are removed)."""
        remove_shards(self)
        return replace(
            self,
            status=FileStatus.QUARANTINED,
            games=0,
            hands=0,
            violations=0,
            mismatches=0,
            game_ids=(),
            shard_dir=None,
            errors=tuple(errors),
        )


def remove_shards(outcome: FileOutcome) -> None:
    if outcome.shard_dir is not None:
        shutil.rmtree(outcome.shard_dir, ignore_errors=True)


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
        },
        schema=QUARANTINE_SCHEMA,
    )


# --- audited games to rows -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameCounts:
    hands: int
    violations: int
    mismatches: int


def _utc(moment: datetime | None) -> datetime | None:
    if moment is None or moment.tzinfo is None:
        return moment
    return moment.astimezone(UTC).replace(tzinfo=None)


class RowBuffer:
    """Column buffers for every data table, flushed to one Parquet shard per table.

    ``add_game`` appends a game's rows; ``flush`` writes the buffered rows as a row group
    (call it when :attr:`pending_hands` grows large); ``close`` flushes and closes the
    shards. Rows go out in the order added; the loader orders them by key.
    """

    def __init__(self, shard_dir: Path) -> None:
        self.shard_dir = shard_dir
        self._columns: dict[str, dict[str, list[Any]]] = {
            table: {name: [] for name in schema.names} for table, schema in SCHEMAS.items()
        }
        self._writers: dict[str, pq.ParquetWriter] = {}
        self.pending_hands = 0

    def add_game(self, game: Game, path: str, audits: Sequence[HandAudit]) -> GameCounts:
        """Append the rows of one audited game; returns its counts."""
        cols = self._columns
        game_id = game.game_id
        n = len(game.players)
        ids = [""] * n
        for p in game.players:
            ids[p.seat] = p.id
        g = cols["games"]
        g["game_id"].append(game_id)
        g["path"].append(path)
        g["ruleset"].append(game.ruleset)
        g["rule_overrides"].append(
            None
            if game.rule_overrides is None
            else orjson.dumps(game.rule_overrides, option=orjson.OPT_SORT_KEYS).decode()
        )
        g["base_stake"].append(game.base_stake)
        g["started_at"].append(_utc(game.started_at))
        g["n_players"].append(n)
        g["n_hands"].append(len(audits))
        pl = cols["players"]
        for p in sorted(game.players, key=lambda q: q.seat):
            pl["game_id"].append(game_id)
            pl["seat"].append(p.seat)
            pl["player_id"].append(p.id)
            pl["name"].append(p.name)
        violations = 0
        mismatches = 0
        for audit in audits:
            v, m = self._add_hand(game_id, ids, audit)
            violations += v
            mismatches += m
        self.pending_hands += len(audits)
        extend_hand_tiles(cols["hand_tiles"], game_id, audits)
        return GameCounts(hands=len(audits), violations=violations, mismatches=mismatches)

    def _add_hand(self, game_id: str, ids: list[str], audit: HandAudit) -> tuple[int, int]:
        cols = self._columns
        record = audit.record
        replay = audit.replay
        settlement = audit.settlement
        findings = audit.findings
        hand_no = record.hand_no
        n = record.n_players

        n_settlement = 0
        vi = cols["violations"]
        for item_no, finding in enumerate(findings):
            is_settlement = finding.code in SETTLEMENT_CODES
            n_settlement += is_settlement
            vi["game_id"].append(game_id)
            vi["hand_no"].append(hand_no)
            vi["item_no"].append(item_no)
            vi["event_index"].append(finding.event_index)
            vi["seat"].append(finding.seat)
            vi["player_id"].append(
                ids[finding.seat] if finding.seat is not None and finding.seat < n else None
            )
            vi["code"].append(finding.code.value)
            vi["settlement"].append(is_settlement)
            vi["message"].append(finding.message)
            vi["fatal"].append(finding.fatal)
        n_violations = len(findings) - n_settlement

        winners = replay.winners
        win_by_seat = {w.seat: w for w in winners}
        dealt_in = {w.from_seat for w in winners if w.from_seat is not None}
        discarder = min(dealt_in) if dealt_in else None
        fatal = replay.fatal
        recorded = record.result
        h = cols["hands"]
        h["game_id"].append(game_id)
        h["hand_no"].append(hand_no)
        h["dealer"].append(record.dealer)
        h["dealer_streak"].append(record.dealer_streak)
        h["n_events"].append(len(record.events))
        h["events_applied"].append(replay.events_applied)
        h["has_wall"].append(record.wall is not None)
        h["wall_left"].append(replay.wall_left)
        h["outcome"].append(replay.outcome.value)
        h["winners"].append(len(winners))
        h["self_drawn"].append(any(w.self_drawn for w in winners))
        h["discarder"].append(discarder)
        h["flip_tile"].append(None if replay.flip is None else TILE_TEXT[replay.flip])
        h["settled"].append(settlement is not None)
        h["next_dealer"].append(None if settlement is None else settlement.next_dealer)
        h["recorded"].append(recorded is not None)
        h["recorded_next_dealer"].append(None if recorded is None else recorded.next_dealer)
        h["violations"].append(n_violations)
        h["fatal"].append(fatal is not None)
        h["fatal_code"].append(None if fatal is None else fatal.code.value)
        h["mismatches"].append(n_settlement)
        h["disputed"].append(n_settlement > 0)

        chickens: dict[tuple[int, ChickenKind], int] = {}
        values: dict[int, WinValue] = {}
        if settlement is not None:
            for c in settlement.chickens:
                key = (c.seat, c.kind)
                chickens[key] = chickens.get(key, 0) + c.count
            for value in settlement.wins:
                values.setdefault(value.seat, value)
            le = cols["ledger"]
            for item_no, item in enumerate(settlement.items):
                le["game_id"].append(game_id)
                le["hand_no"].append(hand_no)
                le["item_no"].append(item_no)
                le["payer_seat"].append(item.payer)
                le["payee_seat"].append(item.payee)
                le["payer_id"].append(ids[item.payer])
                le["payee_id"].append(ids[item.payee])
                le["amount"].append(item.amount)
                le["reason"].append(item.reason.value)
                le["detail"].append(item.detail)

        seat_facts = {s.seat: s for s in replay.seats}
        hp = cols["hand_players"]
        for seat in range(n):
            win = win_by_seat.get(seat)
            facts = seat_facts.get(seat)
            hp["game_id"].append(game_id)
            hp["hand_no"].append(hand_no)
            hp["seat"].append(seat)
            hp["player_id"].append(ids[seat])
            hp["delta"].append(None if settlement is None else settlement.deltas[seat])
            hp["recorded_delta"].append(None if recorded is None else recorded.deltas[seat])
            hp["winner"].append(win is not None)
            hp["self_drawn"].append(win is not None and win.self_drawn)
            hp["dealt_in"].append(seat in dealt_in)
            hp["ready"].append(facts is not None and facts.ready)
            hp["declared_ready"].append(facts is not None and facts.declared_ready_at is not None)
            for kind, column in KONG_COLUMNS:
                hp[column].append(0 if facts is None else facts.kong_count(kind))
            for ckind, column in CHICKEN_COLUMNS:
                hp[column].append(chickens.get((seat, ckind), 0))
            value = values.get(seat)
            hp["win_value"].append(
                None if value is None else (-value.value if value.penalty else value.value)
            )
            hp["patterns"].append([] if win is None else [p.value for p in win.patterns])
            hp["scored_patterns"].append([] if value is None else list(value.patterns))
        return n_violations, n_settlement

    def arrow(self, table: str) -> pa.Table:
        """The buffered rows of ``table`` as an Arrow table (the buffer is not cleared)."""
        return pa.table(self._columns[table], schema=SCHEMAS[table])

    def flush(self) -> None:
        """Write the buffered rows of every table as a row group and clear the buffers."""
        self.shard_dir.mkdir(parents=True, exist_ok=True)
        for table, schema in SCHEMAS.items():
            writer = self._writers.get(table)
            if writer is None:
                writer = pq.ParquetWriter(self.shard_dir / f"{table}.parquet", schema)
                self._writers[table] = writer
            writer.write_table(self.arrow(table))
            for column in self._columns[table].values():
                column.clear()
        self.pending_hands = 0

    def close(self) -> None:
        """Flush what is left and close every shard (each table gets a shard, maybe empty)."""
        self.flush()
        for writer in self._writers.values():
            writer.close()
        self._writers.clear()

    def abort(self) -> None:
        """Close the shards and delete them (the file is quarantined)."""
        for writer in self._writers.values():
            writer.close()
        self._writers.clear()
        shutil.rmtree(self.shard_dir, ignore_errors=True)
