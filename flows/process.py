"""The workers' side of the ingest: one file (or a chunk of files) to rows and shards.

:func:`audit_file` parses a log file, bridges and audits every hand and adds the rows to
a :class:`~flows.rows.RowBuffer`; :func:`process_files` does so for a chunk of files into
one set of Parquet shards in the run's staging folder, and returns a small
:class:`~flows.rows.FileOutcome` per file; it never opens the database.
:data:`process_files_task` is the Prefect task over a chunk that :mod:`flows.ingest`
submits.

This module is what a worker imports to run that task (a process of the local pool, or
a Dask worker), so it imports only what the work needs: Prefect's task machinery, the
parsers, the engine and ``pyarrow``, not DuckDB, polars or the flow.
"""

from __future__ import annotations

import gc
import hashlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

import orjson
from prefect import task
from prefect.cache_policies import NO_CACHE

from flows.bridge import hand_records
from flows.discover import ContentDigest, FileDigest, digest_file
from flows.rows import FileError, FileOutcome, FileStatus, RowBuffer
from parsers.errors import MalformedLogError
from parsers.fast import Game
from parsers.read import generate_fast_games, parse_encoding
from rules.audit import audit_game
from rules.presets import resolve_ruleset
from rules.ruleset import Ruleset

__all__ = [
    "FLUSH_HANDS",
    "GC_THRESHOLD",
    "FileChangedError",
    "audit_file",
    "process_file",
    "process_files",
    "process_files_task",
    "rare_collections",
    "shard_dir_for",
]

FLUSH_HANDS = 20_000
"""Rows of this many hands are written out as one Parquet row group."""


class FileChangedError(ValueError):
    """The file's content changed between hashing and processing (the task retries)."""

    def __init__(self, path: str) -> None:
        super().__init__(f"{path}: the file changed while it was being read")
        self.path = path


@lru_cache(maxsize=64)
def _ruleset(name: str, overrides_json: str) -> Ruleset:
    overrides = orjson.loads(overrides_json)
    return resolve_ruleset(name, overrides or None)


def _game_ruleset(game: Game) -> Ruleset:
    overrides = orjson.dumps(game.rule_overrides or {}, option=orjson.OPT_SORT_KEYS).decode()
    return _ruleset(game.ruleset, overrides)


def _file_error(exc: MalformedLogError) -> FileError:
    return FileError(
        sentence=str(exc),
        message=exc.reason,
        line=exc.line,
        json_path=exc.json_path,
        game_id=exc.game_id,
    )


def _game_error(path: str, game: Game, reason: str, json_path: str | None = None) -> FileError:
    where = f"{path}, game {game.game_id!r}" + (f", field {json_path}" if json_path else "")
    return FileError(
        sentence=f"{where}: {reason}", message=reason, json_path=json_path, game_id=game.game_id
    )


def _hand_no_error(path: str, game: Game) -> FileError | None:
    seen: set[int] = set()
    for i, hand in enumerate(game.hands):
        if hand.hand_no in seen:
            return _game_error(
                path, game, f"hand_no {hand.hand_no} appears twice", f"hands[{i}].hand_no"
            )
        seen.add(hand.hand_no)
    return None


def shard_dir_for(staging_dir: str | Path, path: str) -> Path:
    """Where the shards of a task go in a run's staging folder: named after the first
    file of its chunk (a run processes a path once, in one task)."""
    return Path(staging_dir) / hashlib.sha256(path.encode("utf-8")).hexdigest()[:32]


def process_file(path: str, sha256: str | None, staging_dir: str) -> FileOutcome:
    """:func:`process_files` for one file: its own shards, or its quarantine."""
    (outcome,) = process_files([FileDigest(path, sha256, 0)], staging_dir)
    return outcome


def audit_file(path: str, sha256: str | None, buffer: RowBuffer) -> FileOutcome:
    """Parse and audit one file, adding its rows to ``buffer``; or say why it is
    quarantined (its rows are then taken back from the buffer).

    Runs in a worker: it never opens the database and returns only a small outcome
    (without ``shard_dir``: the buffer's shards are not written yet). The outcome's hash
    and size are those of the bytes parsed. A file the plan hashed (``sha256`` given)
    must still have that hash (else :class:`FileChangedError`). When this raises, the
    file's rows still buffered are taken back too.
    """
    try:
        parse_encoding(path)
    except ValueError as exc:
        digest = digest_file(path)
        base = FileOutcome(
            path=path, sha256=digest.hexdigest(), size=digest.size, status=FileStatus.LOADED
        )
        error = FileError(sentence=str(exc), message="not a log file name")
        return base.quarantine([error])
    content = ContentDigest()
    errors: list[FileError] = []
    game_ids: list[str] = []
    seen_ids: set[str] = set()
    hands = violations = mismatches = 0
    try:
        for item in generate_fast_games(path, sink=content):
            if isinstance(item, MalformedLogError):
                errors.append(_file_error(item))
                continue
            if errors:
                continue  # the file is quarantined; read on only to report every fault
            if item.game_id in seen_ids:
                errors.append(_game_error(path, item, "the game id appears twice in the file"))
                continue
            seen_ids.add(item.game_id)
            fault = _hand_no_error(path, item)
            if fault is not None:
                errors.append(fault)
                continue
            try:
                ruleset = _game_ruleset(item)
            except ValueError as exc:
                errors.append(_game_error(path, item, f"no usable ruleset: {exc}", "ruleset"))
                continue
            try:
                # The warehouse stores no explanation: `zhuoji audit` writes it on request.
                audits = audit_game(hand_records(item), ruleset, explain=False)
            except Exception as exc:  # a defect in the engine: report it, keep the run going
                reason = f"the audit failed: {type(exc).__name__}: {exc}"
                errors.append(_game_error(path, item, reason))
                continue
            counts = buffer.add_game(item, path, audits)
            game_ids.append(item.game_id)
            hands += counts.hands
            violations += counts.violations
            mismatches += counts.mismatches
            if buffer.pending_hands >= FLUSH_HANDS:
                buffer.flush()
        if not content.complete:  # the file could not be opened: this raises the reason
            content = digest_file(path)
        actual, actual_size = content.hexdigest(), content.size
        if sha256 is not None and actual != sha256:
            raise FileChangedError(path)
    except BaseException:
        buffer.drop_file(path)
        raise
    if errors:
        buffer.drop_file(path)  # rows already written stay, and the loader leaves them out
        base = FileOutcome(path=path, sha256=actual, size=actual_size, status=FileStatus.LOADED)
        return base.quarantine(errors)
    return FileOutcome(
        path=path,
        sha256=actual,
        size=actual_size,
        status=FileStatus.LOADED,
        games=len(game_ids),
        hands=hands,
        violations=violations,
        mismatches=mismatches,
        game_ids=tuple(game_ids),
    )


GC_THRESHOLD = 100_000
"""Allocations between young-generation collections while a worker processes files."""


@contextmanager
def rare_collections(threshold: int = GC_THRESHOLD) -> Iterator[None]:
    """Run the cyclic garbage collector rarely for the duration.

    A worker allocates millions of short-lived objects per file (rows, facts, ledger
    items), nearly all freed by reference counting; at Python's default threshold (700)
    the collector runs thousands of times per file and rescans the long-lived row buffers
    each time it reaches the older generations, a third of the worker's time. Cycles are
    still collected, just less often.
    """
    old = gc.get_threshold()
    gc.set_threshold(max(threshold, old[0]), old[1], old[2])
    try:
        yield
    finally:
        gc.set_threshold(*old)


def process_files(files: Sequence[FileDigest], staging_dir: str) -> list[FileOutcome]:
    """Process a chunk of files in order, into one set of shards for the whole chunk
    (:func:`shard_dir_for` its first file; none when no file of it is loaded), and
    return each file's outcome.

    What costs per file is reading, hashing and auditing it: the Parquet writers, the
    shard folder and the task's set-up are paid once per chunk."""
    if not files:
        return []
    buffer = RowBuffer(shard_dir_for(staging_dir, files[0].path))
    try:
        with rare_collections():
            outcomes = [audit_file(d.path, d.sha256, buffer) for d in files]
        if not any(o.status is FileStatus.LOADED for o in outcomes):
            buffer.abort()
            return outcomes
        buffer.close()
    except BaseException:
        buffer.abort()
        raise
    shard_dir = buffer.shard_dir.as_posix()
    return [
        replace(o, shard_dir=shard_dir) if o.status is FileStatus.LOADED else o
        for o in outcomes
    ]


@task(name="process-files", retries=2, retry_delay_seconds=1, cache_policy=NO_CACHE)
def process_files_task(files: list[FileDigest], staging_dir: str) -> list[FileOutcome]:
    return process_files(files, staging_dir)
