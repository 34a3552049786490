"""The workers' side of the ingest: one file (or a chunk of files) to rows and shards.

:func:`audit_file` parses a log file, bridges and audits every hand and adds the rows to
a :class:`~zhuoji.flows.warehouse.rows.RowBuffer`; :func:`process_files` does so for a chunk of
files into
one set of Parquet shards in the run's staging folder, and returns a small
:class:`~zhuoji.flows.warehouse.rows.FileOutcome` per file; it never opens the database.
:data:`zhuoji.flows.ingest.worker_task.process_files_task` is the Prefect task over a chunk that
:mod:`zhuoji.flows.ingest.prefect_run` submits; a run without Prefect
(:mod:`zhuoji.flows.ingest.local_run`) calls
:func:`process_files` itself.

This module is what a worker imports to run that task (a process of the local pool, or
a Dask worker), so it imports only what the work needs: the parsers, the engine and
``pyarrow``, not Prefect, DuckDB, polars or the flow.
"""

from __future__ import annotations

import gc
import hashlib
import os
import signal
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from zhuoji.flows.audit.rulesets import resolve_stored
from zhuoji.flows.audit.service import (
    AuditOptions,
    FileFault,
    GameAudit,
    GameFault,
    generate_audits,
)
from zhuoji.flows.ingest.discover import ContentDigest, FileDigest, digest_file
from zhuoji.flows.ingest.progress import progress_address, report_file
from zhuoji.flows.warehouse.rows import FileError, FileOutcome, FileStatus, RowBuffer, RulesetUse
from zhuoji.parsers.errors import MalformedLogError
from zhuoji.parsers.models import INT32_MAX, INT32_MIN
from zhuoji.parsers.read import parse_encoding
from zhuoji.rules.audit import HandAudit
from zhuoji.rules.messages import Message
from zhuoji.rules.settings import RulesetError
from zhuoji.rules.version import ENGINE_VERSION

__all__ = [
    "CHANGED_TRIES",
    "FLUSH_HANDS",
    "GC_THRESHOLD",
    "HOLD_UNTIL",
    "HOLD_WORKER_ON",
    "INGEST_AUDIT",
    "KILL_WORKER_ON",
    "FileChangedError",
    "audit_file",
    "failed_outcome",
    "game_error",
    "process_file",
    "process_files",
    "rare_collections",
    "ruleset_use_of",
    "shard_dir_for",
    "warehouse_range",
]

FLUSH_HANDS = 20_000
"""Rows of this many hands are written out as one Parquet row group."""


class FileChangedError(ValueError):
    """The file's content changed between hashing and processing (the task retries)."""

    def __init__(self, path: str) -> None:
        super().__init__(Message("{path:any}: the file changed while it was being read", path))
        self.path = path


def ruleset_use_of(name: str, overrides: str | None) -> RulesetUse:
    """A ruleset as the ``games`` table stores it (preset name, overrides as JSON text or
    ``None``), the fingerprint it resolves to and its family; raises ``ValueError`` if it
    does not resolve (:func:`zhuoji.flows.audit.rulesets.resolve_stored`, which caches)."""
    resolved = resolve_stored(name, overrides)
    if resolved.fingerprint is None or resolved.family is None:  # no ruleset to audit under
        raise RulesetError(resolved.replay_error or "")
    return RulesetUse(name, overrides, resolved.fingerprint, resolved.family.name)


def _file_error(exc: MalformedLogError) -> FileError:
    return FileError(
        sentence=str(exc),
        message=exc.reason,
        line=exc.line,
        json_path=exc.json_path,
        game_id=exc.game_id,
    )


def game_error(item: GameAudit) -> FileError:
    """The reason a game without an audit quarantines its file (:data:`INGEST_AUDIT`)."""
    reason = item.error or ""
    if item.fault is GameFault.RULESET:
        reason = Message("no usable ruleset: {why:said}", reason)
    json_path = item.error_at
    game = repr(item.game.game_id)
    where = (Message("{p:any}, game {g:quoted}, field {f:any}", item.path, game, json_path)
             if json_path else Message("{p:any}, game {g:quoted}", item.path, game))
    return FileError(
        sentence=Message("{w:where}: {r:said}", where, reason), message=reason,
        json_path=json_path, game_id=item.game.game_id,
    )


def warehouse_range(audits: Sequence[HandAudit]) -> tuple[str, str | None] | None:
    """The first recomputed amount of a game beyond the warehouse's 32-bit columns
    (``delta``, ``amount``, ``win_value``) and the hand it is in: huge stakes or
    ``rule_overrides`` multipliers can push a settlement past them although every value of
    the log is in range."""
    for i, audit in enumerate(audits):
        settlement = audit.settlement
        if settlement is None:
            continue
        values: list[tuple[str, int]] = [("delta", d) for d in settlement.deltas]
        values.extend(("amount", item[2]) for item in settlement.items)
        values.extend(("win_value", w.value) for w in settlement.wins)
        for column, value in values:
            if not INT32_MIN <= value <= INT32_MAX:
                return (
                    f"hand {audit.record.hand_no}: the recomputed settlement has a {column} "
                    f"of {value}, beyond the warehouse's 32-bit range ({INT32_MIN} .. "
                    f"{INT32_MAX})"
                ), f"hands[{i}]"
    return None


INGEST_AUDIT = AuditOptions(
    explain=False, as_stored=True, bound=warehouse_range, catch=True, after_fault=False
)
"""How the ingest audits a file (:func:`zhuoji.flows.audit.service.generate_audits`): the
warehouse stores no explanation; each game's ruleset is resolved from the overrides as
stored; a defect of the engine is the game's fault, not the run's; the amounts must fit the
warehouse's columns; at the file's first fault (it is quarantined) the rest of it is read
only to report every malformed game."""


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
    must still have that hash (else :class:`FileChangedError`).

    Any other exception while the file is processed (an unreadable file, ``MemoryError``
    on a file that expands beyond memory, a defect anywhere on the way) quarantines the
    file with the exception as its reason (:func:`failed_outcome`), its buffered rows
    taken back: one file's fault never costs the others of its chunk or run.
    """
    try:
        return _audit_file(path, sha256, buffer)
    except FileChangedError:
        raise
    except Exception as exc:
        return failed_outcome(path, exc)


def failed_outcome(path: str, exc: BaseException, size: int | None = None) -> FileOutcome:
    """``path`` quarantined because processing it raised ``exc``.

    The outcome's hash and size are those of the file's bytes when they can still be
    read; when not (the file is unreadable), the hash of no bytes and the size on disk
    (or ``size``, or 0): a later run then sees a changed file and tries it again.
    """
    gc.collect()  # after a MemoryError: free what the failed attempt still held
    if isinstance(exc, MemoryError):
        reason = "ran out of memory while processing the file (MemoryError)"
    elif isinstance(exc, OSError):
        reason = f"the file could not be read: {exc.strerror or exc}"
    else:
        reason = f"processing the file failed: {type(exc).__name__}: {exc}"
    try:
        digest = digest_file(path)
        sha256, actual_size = digest.hexdigest(), digest.size
    except Exception:
        sha256 = hashlib.sha256().hexdigest()
        try:
            actual_size = os.stat(path).st_size
        except OSError:
            actual_size = size or 0
    error = FileError(sentence=f"{path}: {reason}", message=reason)
    return FileOutcome(
        path=path,
        sha256=sha256,
        size=actual_size,
        status=FileStatus.QUARANTINED,
        errors=(error,),
        engine_version=ENGINE_VERSION,
    )


def _audit_file(path: str, sha256: str | None, buffer: RowBuffer) -> FileOutcome:
    try:
        parse_encoding(path)
    except ValueError as exc:
        digest = digest_file(path)
        base = FileOutcome(
            path=path,
            sha256=digest.hexdigest(),
            size=digest.size,
            status=FileStatus.LOADED,
            engine_version=ENGINE_VERSION,
        )
        error = FileError(sentence=str(exc), message="not a log file name")
        return base.quarantine([error])
    content = ContentDigest()
    errors: list[FileError] = []
    game_ids: list[str] = []
    uses: set[RulesetUse] = set()
    hands = violations = mismatches = disputed = 0
    try:
        for item in generate_audits(path, INGEST_AUDIT, sink=content):
            if isinstance(item, FileFault):
                errors.append(_file_error(item.error))
                continue
            # A game id twice in the file, a hand_no twice in a game: the reader has
            # already turned them into MalformedLogError (zhuoji.parsers.read.find_game_fault).
            if item.error is not None:
                errors.append(game_error(item))
                continue
            # after a fault (the file is quarantined) only faults come: INGEST_AUDIT
            game = item.game
            resolved = item.resolved
            assert resolved is not None and resolved.family is not None
            counts = buffer.add_game(game, path, item.hands, chickens=resolved.family.chickens,
                                     family=resolved.family)
            uses.add(ruleset_use_of(game.ruleset, item.overrides))
            game_ids.append(game.game_id)
            hands += counts.hands
            violations += counts.violations
            mismatches += counts.mismatches
            disputed += counts.disputed_hands
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
        base = FileOutcome(
            path=path,
            sha256=actual,
            size=actual_size,
            status=FileStatus.LOADED,
            engine_version=ENGINE_VERSION,
        )
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
        disputed_hands=disputed,
        game_ids=tuple(game_ids),
        engine_version=ENGINE_VERSION,
        rulesets=tuple(sorted(uses, key=_use_key)),
    )


def _use_key(use: RulesetUse) -> tuple[str, str]:
    return (use.ruleset, use.rule_overrides or "")


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


CHANGED_TRIES = 3
"""How many times a file whose content changes while it is read is tried before it is
quarantined (a log still being written settles between tries, or waits for the next run)."""

KILL_WORKER_ON = "ZHUOJI_TEST_KILL_WORKER_ON"
"""Fault injection for the tests: a worker SIGKILLs itself when it is about to process a
file whose name (last path component) is this environment variable's value, as the
kernel's out-of-memory killer would kill it. Unset, nothing happens."""


HOLD_WORKER_ON = "ZHUOJI_TEST_HOLD_WORKER_ON"
"""Fault injection for the tests: a worker about to process a file of this name (last
path component) waits until the file :data:`HOLD_UNTIL` names exists (at most ten
minutes), as a slow file would hold it. Unset, nothing happens."""

HOLD_UNTIL = "ZHUOJI_TEST_HOLD_UNTIL"


def _kill_if_asked(path: str) -> None:
    name = os.environ.get(KILL_WORKER_ON)
    if name and os.path.basename(path) == name:
        os.kill(os.getpid(), signal.SIGKILL)
    name = os.environ.get(HOLD_WORKER_ON)
    gate = os.environ.get(HOLD_UNTIL)
    if name and gate and os.path.basename(path) == name:
        deadline = time.monotonic() + 600
        while not os.path.exists(gate) and time.monotonic() < deadline:
            time.sleep(0.05)


def process_files(files: Sequence[FileDigest], staging_dir: str) -> list[FileOutcome]:
    """Process a chunk of files in order, into one set of shards for the whole chunk
    (:func:`shard_dir_for` its first file; none when no file of it is loaded), and
    return each file's outcome. A file that keeps changing while it is read
    (:data:`CHANGED_TRIES` times) is quarantined with that reason.

    What costs per file is reading, hashing and auditing it: the Parquet writers, the
    shard folder and the task's set-up are paid once per chunk.

    Each file done is also said at once to the run's process, for its progress bar
    (:func:`zhuoji.flows.ingest.progress.report_file`: one datagram, never waited for)."""
    if not files:
        return []
    buffer = RowBuffer(shard_dir_for(staging_dir, files[0].path))
    try:
        outcomes: list[FileOutcome] = []
        listener = progress_address(staging_dir)  # None: nobody listens
        with rare_collections():
            for digest in files:
                outcome = _audit_tries(digest, buffer)
                outcomes.append(outcome)
                report_file(listener, outcome.path, outcome.hands)
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


def _audit_tries(d: FileDigest, buffer: RowBuffer) -> FileOutcome:
    _kill_if_asked(d.path)
    for attempt in range(1, CHANGED_TRIES + 1):
        try:
            return audit_file(d.path, d.sha256, buffer)
        except FileChangedError as exc:
            if attempt == CHANGED_TRIES:
                return failed_outcome(d.path, exc, d.size)
    raise AssertionError("unreachable")
