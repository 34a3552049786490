"""The ingest's plain part: what both ways of running it share, without Prefect.

An ingest runs either as a Prefect flow (:mod:`zhuoji.flows.ingest.prefect_run`) or, when it is
small and no
Prefect server is configured, as plain calls in this process (:mod:`zhuoji.flows.ingest.local_run`).
Both run the same steps (:func:`ingest_steps`) over the same plain functions, and give
the same rows and summary:

* :func:`prepare_run` (the caller's process): the paths walked once
  (:func:`zhuoji.flows.ingest.discover.find_log_paths`), their size, the arguments and the database
  checked, before anything starts;
* :func:`plan_files`: the files found, and those of them the ``files`` table already
  holds hashed: unchanged files are skipped, changed ones are processed, and so are new
  ones (not hashed here);
* :func:`zhuoji.flows.ingest.worker.process_files` (a worker, or this process): parse, bridge, audit
  every hand, write the rows as Parquet shards in the staging folder, return a small
  :class:`~zhuoji.flows.warehouse.rows.FileOutcome` per file; one task takes a chunk of consecutive
  files
  (:func:`plan_chunks`, about :data:`CHUNK_BYTES`);
* :func:`load_outcomes` (this process, the only writer): settle game-id clashes, then
  load a batch's shards and bookkeeping rows in one transaction.

:func:`run_ingest` chooses the way (:func:`takes_flow_path`) and runs it.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, suppress
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import duckdb

from zhuoji.flows.ingest.discover import (
    FileDigest,
    InputPathError,
    LogPaths,
    find_log_paths,
    generate_log_paths,
    hash_file,
    is_glob,
    unhashed_file,
)
from zhuoji.flows.ingest.worker import ruleset_use_of
from zhuoji.flows.warehouse import store as warehouse
from zhuoji.flows.warehouse.rows import FileError, FileOutcome, FileStatus, remove_shards
from zhuoji.flows.warehouse.store import KnownFile
from zhuoji.parsers.read import parse_encoding
from zhuoji.rules.version import ENGINE_VERSION


@dataclass(frozen=True, slots=True)
class FilePlan:
    """The files of a run: what to process (new, changed or re-audited), what was skipped,
    what moved and what vanished.

    ``reaudited`` are unchanged files processed again (``(path, reason)``, also in
    ``to_process``); ``renamed`` are ``(old, new)`` paths of content found at a new path
    whose old path is gone (its rows move, nothing is processed); ``pruned`` are files
    under the run's folders that are gone (``--prune``: their rows are dropped).
    """

    seen: int
    to_process: tuple[FileDigest, ...]
    skipped: int
    renamed: tuple[tuple[str, str], ...] = ()
    reaudited: tuple[tuple[str, str], ...] = ()
    pruned: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class RunSummary:
    run_id: int
    db: str
    runner: str
    workers: int
    files_seen: int
    files_loaded: int
    files_skipped: int
    files_quarantined: int
    games: int
    hands: int
    violations: int
    mismatches: int
    seconds: float
    quarantined: tuple[tuple[str, str], ...]  # (path, first reason) per quarantined file
    renamed: tuple[tuple[str, str], ...] = ()  # (old path, new path): rows moved
    reaudited: tuple[tuple[str, str], ...] = ()  # (path, reason): unchanged, audited again
    pruned: tuple[str, ...] = ()  # vanished files whose rows were dropped (--prune)
    engine_version: str = ""

    @property
    def files_renamed(self) -> int:
        return len(self.renamed)

    @property
    def files_reaudited(self) -> int:
        return len(self.reaudited)

    @property
    def files_pruned(self) -> int:
        return len(self.pruned)

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.seconds if self.seconds > 0 else 0.0



# --- plain functions -------------------------------------------------------------------------


FULL_REFRESH = "--full-refresh"
"""The re-audit reason of every unchanged file of a ``--full-refresh`` run."""


def plan_files(
    paths: Sequence[str],
    known: Mapping[str, KnownFile],
    hasher: Callable[[str], FileDigest] = hash_file,
    *,
    stale: Mapping[str, str] | None = None,
    full_refresh: bool = False,
    prune: bool = False,
    exists: Callable[[str], bool] = os.path.exists,
    found: Sequence[str] | None = None,
) -> FilePlan:
    """Discover the files; keep those new, changed or to be audited again.

    ``found``: the log files ``paths`` name, already walked (:func:`prepare_run`: absolute
    paths, sorted, each once); without it, ``paths`` are walked here.

    Only files seen before are hashed (to tell an unchanged file from a changed one),
    and new files of the size of a file the database holds that is gone: one with that
    file's hash and a name read the same way (encoding, compression) is that file
    renamed, its rows move to the new path (a quarantined one is processed again, since
    its reasons name its path). Any other new file is processed whatever its hash, which
    the worker computes as it reads it.

    An unchanged file is processed again when ``stale`` gives a reason (``path ->
    reason``: a new engine or ruleset fingerprint, :func:`stale_files`), with
    ``full_refresh``, or when it was quarantined for clashing with a file that is being
    processed again or that the database no longer holds. With ``prune``, the files the
    database holds under the folders of ``paths`` (for a glob, its leading folder) that
    are gone are listed in ``pruned``.
    """
    stale = stale or {}
    if found is None:
        found = [p.as_posix() for p in generate_log_paths(paths)]
    found_set = set(found)
    new = [path for path in found if path not in known]
    vanished: dict[str, KnownFile] = {}
    if new or prune:
        vanished = {
            p: k for p, k in sorted(known.items()) if p not in found_set and not exists(p)
        }
    by_content: dict[tuple[int, str], list[str]] = {}
    for old, k in vanished.items():
        by_content.setdefault((k.size, k.sha256), []).append(old)
    sizes = {size for size, _ in by_content}
    renamed: list[tuple[str, str]] = []
    digests: dict[str, FileDigest] = {}
    for path in new:
        if sizes and os.stat(path).st_size in sizes:
            try:
                digest = hasher(path)
            except OSError:  # unreadable: processed as a new file (and quarantined)
                continue
            digests[path] = digest
            olds = by_content.get((digest.size, digest.sha256 or ""), [])
            match = next((o for o in olds if _reads_alike(o, path)), None)
            if match is not None:
                olds.remove(match)
                renamed.append((match, path))
    moved_to = dict(renamed)
    moved_from = {new_path: old for old, new_path in renamed}
    pruned = _vanished_under(paths, vanished, moved_to) if prune else []

    todo: list[FileDigest] = []
    reaudited: list[tuple[str, str]] = []
    retry: list[tuple[str, FileDigest, tuple[str, ...]]] = []
    skipped = 0
    for path in found:
        record = known.get(path)
        if record is None and path in moved_from:
            record = known[moved_from[path]]
            digest = digests[path]
        elif record is None:
            todo.append(digests.get(path) or unhashed_file(path))
            continue
        else:
            try:
                digest = hasher(path)
            except OSError:  # unreadable now: processed again, and quarantined with the reason
                todo.append(unhashed_file(path))
                continue
        if record.sha256 != digest.sha256 or (
            path in moved_from and record.status is FileStatus.QUARANTINED
        ):
            # (a quarantined file's reasons name its path: it is processed again when renamed)
            todo.append(digest)
            continue
        reason = FULL_REFRESH if full_refresh else stale.get(record.path)
        if reason is not None:
            todo.append(digest)
            reaudited.append((path, reason))
        elif record.clashes_with:
            retry.append((path, digest, record.clashes_with))
        else:
            skipped += 1
    # A file quarantined for a clash is retried once the file it clashed with is processed
    # again (now) or leaves the database (pruned now, or forgotten since).
    released = {d.path for d in todo} | set(pruned)
    for path, digest, owners in retry:
        owners = tuple(moved_to.get(o, o) for o in owners)
        if any(o in released or (o not in known and o not in moved_from) for o in owners):
            todo.append(digest)
            reaudited.append((path, "the file it clashed with changed or was forgotten"))
        else:
            skipped += 1
    todo.sort(key=lambda d: d.path)
    return FilePlan(
        seen=len(found),
        to_process=tuple(todo),
        skipped=skipped,
        renamed=tuple(renamed),
        reaudited=tuple(sorted(reaudited)),
        pruned=tuple(pruned),
    )


def _reads_alike(old: str, new: str) -> bool:
    """Whether two file names are read the same way (encoding, compression): only then is
    the same content under the new name the same games."""
    try:
        return parse_encoding(old) == parse_encoding(new)
    except ValueError:
        return False


def _vanished_under(
    paths: Sequence[str], vanished: Mapping[str, KnownFile], moved_to: Mapping[str, str]
) -> list[str]:
    """The vanished files (not renamed) under the folders of the run's arguments."""
    roots: list[str] = []
    for arg in paths:
        text = os.fspath(arg)
        if is_glob(text) and not os.path.exists(text):
            text = _glob_root(text)
        if os.path.isdir(text):
            roots.append(Path(text).resolve().as_posix().rstrip("/") + "/")
    return [
        p
        for p in vanished
        if p not in moved_to and any(p.startswith(root) for root in roots)
    ]


def _glob_root(pattern: str) -> str:
    """The folder a glob pattern searches: its parts before the first with a glob character."""
    parts: list[str] = []
    for part in Path(pattern).parts:
        if is_glob(part):
            break
        parts.append(part)
    return os.path.join(*parts) if parts else "."


def stale_files(
    con: duckdb.DuckDBPyConnection,
    known: Mapping[str, KnownFile],
    engine_version: str = ENGINE_VERSION,
) -> dict[str, str]:
    """``path -> reason`` for the files the database holds whose results this engine would
    compute differently: processed by another engine version (or by one that recorded
    none), or holding games whose ruleset now resolves to another fingerprint (a preset's
    values changed) or no longer resolves. Nothing is parsed: the ``games`` table holds
    each game's preset name, overrides and fingerprint.
    """
    stale: dict[str, str] = {}
    for path, record in known.items():
        if record.engine_version != engine_version:
            before = record.engine_version or "an engine that recorded no version"
            stale[path] = f"engine changed: {before} -> {engine_version}"
    changed: list[warehouse.StoredRuleset] = []
    now: dict[tuple[str, str | None], str] = {}
    for stored in warehouse.stored_rulesets(con):
        try:
            fingerprint = ruleset_use_of(stored.ruleset, stored.rule_overrides).fingerprint
        except ValueError:
            fingerprint = "none (it no longer resolves)"
        if fingerprint != stored.fingerprint:
            changed.append(stored)
            now[(stored.ruleset, stored.rule_overrides)] = fingerprint
    for path, stored in warehouse.files_of_rulesets(con, changed):
        if path in stale:
            continue
        before = stored.fingerprint or "unrecorded"
        after = now[(stored.ruleset, stored.rule_overrides)]
        stale[path] = f"ruleset {stored.ruleset} changed: {before} -> {after}"
    return stale


def settle_clashes(
    con: duckdb.DuckDBPyConnection, outcomes: Sequence[FileOutcome]
) -> list[FileOutcome]:
    """Quarantine loaded files whose game ids another file already holds.

    A game id belongs to the first file that loaded it: a file of the database not being
    replaced now, or an earlier file (in path order) of the same batch.
    """
    ordered = sorted(outcomes, key=lambda o: o.path)
    replaced = [o.path for o in ordered]
    ids = sorted({g for o in ordered for g in o.game_ids})
    owners = warehouse.find_game_owners(con, ids, replaced)
    result: list[FileOutcome] = []
    for outcome in ordered:
        if outcome.status is FileStatus.QUARANTINED:
            result.append(outcome)
            continue
        clashes: list[FileError] = []
        for game_id in outcome.game_ids:
            owner = owners.get(game_id)
            if owner is not None:
                reason = f"game id {game_id!r} is already loaded from {owner}"
                if not os.path.exists(owner):
                    reason += (
                        ", which no longer exists (`zhuoji forget` or `zhuoji ingest"
                        " --prune` drops its rows)"
                    )
                clashes.append(
                    FileError(
                        sentence=f"{outcome.path}, game {game_id!r}: {reason}",
                        message=reason,
                        game_id=game_id,
                        clashes_with=owner,
                    )
                )
        if clashes:
            result.append(outcome.quarantine(clashes))
            continue
        for game_id in outcome.game_ids:
            owners[game_id] = outcome.path
        result.append(outcome)
    return result


def load_outcomes(
    con: duckdb.DuckDBPyConnection,
    outcomes: Sequence[FileOutcome],
    run_id: int,
    counts: Mapping[str, int] | None = None,
) -> list[FileOutcome]:
    """Load one batch (one transaction); returns the outcomes as loaded (clashes settled).

    ``counts`` (the run's counts before this batch, :data:`RUN_COUNTS`) are stored with
    the batch, plus its own, in the run's ``ingest_runs`` row. Should the warehouse refuse
    a row of the batch (a value its column cannot hold, a broken constraint), its files
    are loaded one by one instead and each one refused is quarantined with the loader's
    error: one file never costs the batch. Any other failure (a shard gone missing, a
    full disk) leaves the database as it was and is raised (the task retries).
    """
    final = settle_clashes(con, outcomes)
    try:
        warehouse.load_batch(con, final, run_id, add_counts(counts, final))
    except _REFUSED:
        final = _load_one_by_one(con, final, run_id, counts)
    remove_shards(outcomes)  # as the workers sent them: clashes keep no shard folder
    return final


_REFUSED = (duckdb.DataError, duckdb.IntegrityError)
"""What the warehouse raises for a row it refuses (a conversion, a range, a constraint)."""

RUN_COUNTS: tuple[str, ...] = (
    "files_seen",
    "files_loaded",
    "files_skipped",
    "files_quarantined",
    "games",
    "hands",
    "violations",
    "mismatches",
)
"""The counts of an ``ingest_runs`` row."""


def add_counts(
    counts: Mapping[str, int] | None, outcomes: Sequence[FileOutcome]
) -> dict[str, int] | None:
    """``counts`` (:data:`RUN_COUNTS`) with the files of ``outcomes`` added."""
    if counts is None:
        return None
    total = {name: counts.get(name, 0) for name in RUN_COUNTS}
    for o in outcomes:
        if o.status is FileStatus.QUARANTINED:
            total["files_quarantined"] += 1
            continue
        total["files_loaded"] += 1
        total["games"] += o.games
        total["hands"] += o.hands
        total["violations"] += o.violations
        total["mismatches"] += o.mismatches
    return total


def _load_one_by_one(
    con: duckdb.DuckDBPyConnection,
    outcomes: Sequence[FileOutcome],
    run_id: int,
    counts: Mapping[str, int] | None,
) -> list[FileOutcome]:
    final: list[FileOutcome] = []
    for outcome in outcomes:
        try:
            warehouse.load_batch(con, [outcome], run_id, add_counts(counts, [outcome]))
        except _REFUSED as exc:
            if outcome.status is FileStatus.QUARANTINED:
                raise
            # (its task's shards stay until the batch is loaded: they hold other files' rows)
            reason = f"the warehouse refused its rows: {type(exc).__name__}: {exc}"
            outcome = outcome.quarantine(
                [FileError(sentence=f"{outcome.path}: {reason}", message=reason)]
            )
            warehouse.load_batch(con, [outcome], run_id, add_counts(counts, [outcome]))
        counts = add_counts(counts, [outcome])
        final.append(outcome)
    return final


def default_workers() -> int:
    return os.cpu_count() or 1


def staging_dir_for(db: str | Path) -> Path:
    path = Path(db).resolve()
    return path.with_name(path.name + ".staging")



CHUNK_BYTES = 64 * 2**20
"""About how many bytes of logs one task takes (about 15,000 hands). Every task run costs
a fixed amount of orchestration (Prefect clients with their TLS contexts, API calls,
state changes and the server's work on them: about half a second of CPU in all, measured
with py-spy; a worker waits about 0.2 s between two tasks), which seconds of work hide.
On 2 cores, 100,000 hands ran 3 % and 5 % faster with 64 MB than with 32 MB, in two
pairs of runs taken in turns."""


TAIL_SHARE = 0.25
"""The most of a batch's bytes the run's last batch holds (see :func:`plan_batches`)."""


def plan_batches(
    files: Sequence[FileDigest], workers: int, chunk_bytes: int = CHUNK_BYTES
) -> list[list[FileDigest]]:
    """Consecutive files grouped into load batches of about ``workers * chunk_bytes``
    each (at least one file): one chunk per worker, and one transaction per batch.

    The run's last batch is loaded after every worker has finished, with nothing to
    overlap it; so the files at the end of a longer last batch, up to a quarter of a
    batch of bytes (:data:`TAIL_SHARE`), go into a batch of their own. The workers
    process those while the batch before them loads, and the last load has fewer rows."""
    batches: list[list[FileDigest]] = []
    limit = max(1, workers) * chunk_bytes
    size = 0
    for d in files:
        if batches and size + _weight(d) <= limit:
            batches[-1].append(d)
            size += _weight(d)
        else:
            batches.append([d])
            size = _weight(d)
    tail_limit = limit * TAIL_SHARE
    if size > tail_limit:  # ``size``: the last batch's bytes
        last = batches[-1]
        cut = len(last)
        tail = 0
        while cut > 1 and tail + _weight(last[cut - 1]) <= tail_limit:
            cut -= 1
            tail += _weight(last[cut])
        if cut < len(last):
            batches[-1:] = [last[:cut], last[cut:]]
    return batches


def _weight(d: FileDigest) -> int:
    """A file's bytes as the planning counts them: an empty file counts as one byte."""
    return max(d.size, 1)


def plan_chunks(
    files: Sequence[FileDigest], workers: int, chunk_bytes: int = CHUNK_BYTES
) -> list[list[FileDigest]]:
    """Consecutive files grouped into tasks of about ``chunk_bytes`` each, and into at
    least ``workers`` tasks when there are that many files, so that no worker idles."""
    if not files:
        return []
    total = sum(map(_weight, files))
    count = min(len(files), max(workers, -(-total // chunk_bytes)))
    chunks: list[list[FileDigest]] = [[] for _ in range(count)]
    seen = 0
    for d in files:
        # the chunk this file's first byte falls in, by cumulative size
        chunks[min(count - 1, seen * count // total)].append(d)
        seen += _weight(d)
    return [chunk for chunk in chunks if chunk]



IN_PROCESS = "in-process"
"""The runner of a small run (:data:`SMALL_RUN_BYTES`): its task runs in a thread of the
ingest process."""

SMALL_RUN_BYTES = 2**20
"""At most this many bytes of logs (about 600 hands of plain JSON), and no ``--workers``
given: the run's task runs in the ingest process. Starting the worker pool (the fork
server's imports, a worker's fork and first task) costs 1.5 to 2.5 s of CPU on this
project's 2-core machine, more than a second worker saves on such a run."""


def command_started() -> float:
    """When this process started, as a :func:`time.perf_counter` reading (Linux:
    ``/proc/self/stat``); elsewhere, now."""
    try:
        stat = Path("/proc/self/stat").read_text(encoding="ascii")
        ticks = int(stat[stat.rindex(")") + 2 :].split()[19])  # field 22: starttime
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return time.perf_counter()
    return time.perf_counter() - max(age, 0.0)



class _Display:
    """The run's progress bar (files, hands, hands/s) on standard error, when wanted."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self._stack = ExitStack()
        self._progress: Any = None
        self._task: Any = None
        self._start = time.perf_counter()
        self.hands = 0

    def start(self, total: int) -> None:
        self._start = time.perf_counter()
        if not self.enabled:
            return
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        from zhuoji.flows.text.terminal import make_console

        self._progress = self._stack.enter_context(
            Progress(
                TextColumn("[bold]ingest[/]"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("files"),
                TextColumn("{task.fields[hands]:,} hands  {task.fields[rate]:,.0f} hands/s"),
                TimeElapsedColumn(),
                console=make_console(stderr=True, decoration=True),  # a closed pipe: quiet
                transient=False,
            )
        )
        self._task = self._progress.add_task("ingest", total=total, hands=0, rate=0.0)

    def advance(self, outcome: FileOutcome) -> None:
        self.hands += outcome.hands
        if self._progress is None:
            return
        elapsed = max(time.perf_counter() - self._start, 1e-9)
        self._progress.update(self._task, advance=1, hands=self.hands, rate=self.hands / elapsed)

    def close(self) -> None:
        self._stack.close()


@dataclass(slots=True)
class _Totals:
    """What a run's loaded batches added up to."""

    loaded: int = 0
    games: int = 0
    hands: int = 0
    violations: int = 0
    mismatches: int = 0
    quarantined: list[tuple[str, str]] = field(default_factory=list)

    def counts(self, plan: FilePlan) -> dict[str, int]:
        """The run's counts so far (:data:`RUN_COUNTS`)."""
        return {
            "files_seen": plan.seen,
            "files_loaded": self.loaded,
            "files_skipped": plan.skipped,
            "files_quarantined": len(self.quarantined),
            "games": self.games,
            "hands": self.hands,
            "violations": self.violations,
            "mismatches": self.mismatches,
        }

    def add(self, outcome: FileOutcome) -> None:
        if outcome.status is FileStatus.QUARANTINED:
            self.quarantined.append((outcome.path, outcome.errors[0].sentence))
            return
        self.loaded += 1
        self.games += outcome.games
        self.hands += outcome.hands
        self.violations += outcome.violations
        self.mismatches += outcome.mismatches



LOCAL_WRITER_THREADS = 1
"""DuckDB threads of the loader when the workers are a local process pool. The pool
already has a process per core; the loader's work per batch (about 0.04 CPU ms a hand)
is small beside theirs, and a second DuckDB thread only takes CPU time from the
workers: on 2 cores, runs of 100,000 hands went from 2,983-3,462 hands/s with
DuckDB's default (a thread per core) to 3,540-3,888 with one thread. With a Dask
cluster the workers are elsewhere and DuckDB keeps its default."""

RUN_MARKER = "flow-run.json"
"""The file in a database's staging folder naming the process (and the Prefect flow run,
on the flow path) that is writing it. A run that finishes removes the folder; one killed
leaves it for the next run to find."""


def marked_flow_run(staging_root: Path) -> str | None:
    """The Prefect flow run a killed ingest named in its marker (:data:`RUN_MARKER`), as
    text; ``None`` when there is no marker or it names none (a run without Prefect)."""
    import uuid

    try:
        marker = json.loads((staging_root / RUN_MARKER).read_text(encoding="utf-8"))
        return str(uuid.UUID(str(marker["flow_run_id"])))
    except (OSError, ValueError, KeyError, TypeError):
        return None


# --- one run, either way ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RunRequest:
    """An ingest's arguments, checked, and the log files they name (walked once).

    ``files``: the log files (absolute paths, sorted, each once); ``size``: their bytes
    as far as counted (counting stops past :data:`SMALL_RUN_BYTES`); ``small``: no
    ``workers`` or Dask cluster given and at most :data:`SMALL_RUN_BYTES` of logs;
    ``deadline``: the :func:`time.monotonic` reading until which the run waits for the
    database."""

    args: tuple[str, ...]
    files: tuple[str, ...]
    db: str
    workers: int | None
    dask_address: str | None
    batch_size: int | None
    progress: bool
    full_refresh: bool
    prune: bool
    deadline: float
    small: bool

    @property
    def wait_left(self) -> float:
        """How long the run may still wait for the database."""
        return max(self.deadline - time.monotonic(), 0.0)


def prepare_run(
    paths: Sequence[str | os.PathLike[str]],
    db: str | os.PathLike[str],
    *,
    workers: int | None = None,
    dask_address: str | None = None,
    batch_size: int | None = None,
    progress: bool = False,
    full_refresh: bool = False,
    prune: bool = False,
    wait: float = 0,
    found: LogPaths | None = None,
) -> RunRequest:
    """Walk the paths (once: ``found``, when the caller already did, is used as it is),
    check the arguments and that the database can be written (waiting up to ``wait``
    seconds for another process to let go of it).

    A path naming nothing raises :class:`~zhuoji.flows.ingest.discover.InputPathError`, a database
    another process holds :class:`~zhuoji.flows.warehouse.store.DatabaseBusyError`, a bad number
    ``ValueError``: one clear error before anything runs."""
    args = tuple(os.fspath(p) for p in paths)
    walked = find_log_paths(args) if found is None else found
    if walked.missing:
        text = walked.missing[0]
        raise InputPathError(text, walked.why(text))
    files = tuple(sorted({p.resolve().as_posix() for p in walked.files}))
    small = workers is None and dask_address is None
    size = 0
    for path in files:
        if not small:
            break
        with suppress(OSError):  # the plan reports a file it cannot read
            size += os.stat(path).st_size
        small = size <= SMALL_RUN_BYTES
    if wait < 0:
        raise ValueError("the wait must be 0 seconds or more")
    deadline = time.monotonic() + wait
    warehouse.check_writable(db, wait=wait)
    if workers is not None and workers < 1:
        raise ValueError("at least one worker is needed")
    if batch_size is not None and batch_size < 1:
        raise ValueError("the batch size must be at least 1")
    return RunRequest(
        args=args,
        files=files,
        db=os.fspath(db),
        workers=workers,
        dask_address=dask_address,
        batch_size=batch_size,
        progress=progress,
        full_refresh=full_refresh,
        prune=prune,
        deadline=deadline,
        small=small,
    )


@dataclass(slots=True)
class _ActiveRun:
    """A run :func:`ingest_steps` is writing: its own connection to the database (a
    cursor of the run's, made before anything else uses it) and its ``ingest_runs`` row."""

    cursor: duckdb.DuckDBPyConnection
    run_id: int
    finished: bool = False
    ended: bool = False  # ingest_steps returned or raised: the cursor is closed


_ACTIVE_RUNS: list[_ActiveRun] = []
"""The run this process is writing (:func:`interrupt_active_runs`), or the last one it
wrote (until its next run starts)."""


def interrupt_active_runs(timeout: float = 5.0) -> list[tuple[int, str]]:
    """For a process about to end without finishing its runs (its Prefect server went
    away): mark each run it is writing ``interrupted`` in ``ingest_runs``, as the next
    run would. Each ``(run_id, status)``: ``interrupted`` (marked now), ``completed``
    (it had finished: nothing to mark) or ``running`` (not marked: the run's own
    transaction holds its row, or the marking took over ``timeout`` seconds; the next
    run marks it). The batches committed stay as they are."""
    import threading

    results: list[tuple[int, str]] = []

    def mark() -> None:
        for run in list(_ACTIVE_RUNS):
            if run.finished or run.ended:
                results.append((run.run_id, "completed" if run.finished else "running"))
                continue
            try:
                run.cursor.execute(
                    "UPDATE ingest_runs SET status = 'interrupted' "
                    "WHERE run_id = $run_id AND status = 'running'",
                    {"run_id": run.run_id},
                )
                results.append((run.run_id, "interrupted"))
            except duckdb.Error:
                results.append((run.run_id, "running"))

    marker = threading.Thread(target=mark, name="zhuoji-mark-interrupted", daemon=True)
    marker.start()
    marker.join(timeout)
    done = {run_id for run_id, _ in results}
    return results + [(r.run_id, "running") for r in _ACTIVE_RUNS if r.run_id not in done]


class RunSteps(Protocol):
    """What differs between the two ways of running :func:`ingest_steps`: a flow run's
    Prefect tasks and run logger (:mod:`zhuoji.flows.ingest.prefect_run`), or plain calls and a
    standard
    logger (:mod:`zhuoji.flows.ingest.local_run`)."""

    @property
    def logger(self) -> Any:
        """Where the run logs (``info``, ``warning`` with ``%`` arguments)."""

    def mark_crashed(self, staging_root: Path) -> str | None:
        """Mark the Prefect flow run a killed ingest left in its marker as crashed."""

    def plan(
        self,
        args: list[str],
        files: list[str],
        known: dict[str, KnownFile],
        stale: dict[str, str],
        full_refresh: bool,
        prune: bool,
    ) -> FilePlan:
        """:func:`plan_files` of the files found."""

    def marker(self) -> dict[str, object]:
        """What the run writes in its staging folder's :data:`RUN_MARKER`."""

    def process(
        self, batches: Sequence[list[FileDigest]], workers: int, staging: Path
    ) -> Iterator[list[FileOutcome]]:
        """Each batch's outcomes, in order (the next batch may be processed while the
        caller loads one)."""

    def load(
        self,
        con: duckdb.DuckDBPyConnection,
        outcomes: list[FileOutcome],
        run_id: int,
        counts: dict[str, int],
    ) -> list[FileOutcome]:
        """:func:`load_outcomes` of one batch."""

    def publish(self, summary: RunSummary) -> None:
        """Make the summary known where the run is watched."""


def ingest_steps(
    steps: RunSteps,
    *,
    args: Sequence[str],
    files: Sequence[str],
    db: str,
    workers: int,
    batch_size: int | None,
    runner_label: str,
    progress: bool = False,
    writer_threads: int | None = None,
    full_refresh: bool = False,
    prune: bool = False,
    wait: float = 0,
) -> RunSummary:
    """Ingest the log files ``files`` (found under ``args``) into the database ``db``:
    the run's steps, whichever way runs them (``steps``); ``writer_threads`` caps the
    loader's DuckDB threads; ``wait``: how long to wait for another process to let go of
    the database.

    Before any file is processed, the rows of renamed files move to their new path and,
    with ``prune``, the rows of vanished files are dropped; then the rows of the files to
    process again are removed (each step its own transaction, each one safe to repeat).
    Batches are pipelined where ``steps`` can: the next batch is processed while this
    process loads one."""
    started = time.perf_counter()
    started_at = datetime.now(UTC).replace(tzinfo=None)
    logger = steps.logger
    con = warehouse.open_writer(db, threads=writer_threads, wait=wait)
    display = _Display(progress)
    active: _ActiveRun | None = None
    _ACTIVE_RUNS.clear()  # (the last run's, ended)
    try:
        staging_root = staging_dir_for(db)
        # This process holds the database: a run that left its marker is gone.
        try:
            crashed = steps.mark_crashed(staging_root)
        except Exception as exc:  # the API's fault must not cost the ingest
            crashed = None
            logger.warning("could not mark the flow run of a killed ingest crashed: %s", exc)
        if crashed:
            logger.warning("flow run %s of a killed ingest of %s marked crashed", crashed, db)
        known = warehouse.known_files(con)
        stale = stale_files(con, known)
        plan = steps.plan(list(args), list(files), known, stale, full_refresh, prune)
        logger.info(
            "%d files seen: %d to process (%d audited again), %d unchanged (skipped), "
            "%d renamed, %d pruned",
            plan.seen,
            len(plan.to_process),
            len(plan.reaudited),
            plan.skipped,
            len(plan.renamed),
            len(plan.pruned),
        )
        run_id = warehouse.begin_run(
            con,
            started_at=started_at,
            workers=workers,
            runner=runner_label,
            engine_version=ENGINE_VERSION,
        )
        active = _ActiveRun(con.cursor(), run_id)
        _ACTIVE_RUNS.append(active)
        warehouse.rename_files(con, plan.renamed)
        warehouse.forget_files(con, plan.pruned)
        moved = {new for _, new in plan.renamed}
        warehouse.forget_files(
            con, [d.path for d in plan.to_process if d.path in known or d.path in moved]
        )
        shutil.rmtree(staging_root, ignore_errors=True)  # shards of a killed run
        staging = staging_root / f"run-{run_id}"
        staging.mkdir(parents=True, exist_ok=True)
        (staging_root / RUN_MARKER).write_text(json.dumps(steps.marker()), encoding="utf-8")
        todo = plan.to_process
        batches = (
            plan_batches(todo, workers)
            if batch_size is None
            else [list(todo[i : i + batch_size]) for i in range(0, len(todo), batch_size)]
        )
        display.start(len(todo))
        totals = _Totals()
        for index, outcomes in enumerate(steps.process(batches, workers, staging)):
            for outcome in outcomes:
                display.advance(outcome)
            loaded = steps.load(con, outcomes, run_id, totals.counts(plan))
            for outcome in loaded:
                totals.add(outcome)
                if outcome.status is FileStatus.QUARANTINED:
                    logger.warning("quarantined %s", outcome.errors[0].sentence)
            logger.info(
                "batch %d of %d loaded: %d files, %d quarantined",
                index + 1,
                len(batches),
                len(loaded),
                sum(o.status is FileStatus.QUARANTINED for o in loaded),
            )
        display.close()
        finished_at = datetime.now(UTC).replace(tzinfo=None)
        warehouse.finish_run(
            con,
            run_id,
            {
                "finished_at": finished_at,
                "files_seen": plan.seen,
                "files_loaded": totals.loaded,
                "files_skipped": plan.skipped,
                "files_quarantined": len(totals.quarantined),
                "files_renamed": len(plan.renamed),
                "files_reaudited": len(plan.reaudited),
                "files_forgotten": len(plan.pruned),
                "games": totals.games,
                "hands": totals.hands,
                "violations": totals.violations,
                "mismatches": totals.mismatches,
            },
        )
        active.finished = True
        shutil.rmtree(staging_root, ignore_errors=True)
    finally:
        display.close()
        if active is not None:  # (it stays in _ACTIVE_RUNS until the next run)
            active.ended = True
            active.cursor.close()
        con.close()
    summary = RunSummary(
        run_id=run_id,
        db=db,
        runner=runner_label,
        workers=workers,
        files_seen=plan.seen,
        files_loaded=totals.loaded,
        files_skipped=plan.skipped,
        files_quarantined=len(totals.quarantined),
        games=totals.games,
        hands=totals.hands,
        violations=totals.violations,
        mismatches=totals.mismatches,
        seconds=time.perf_counter() - started,
        quarantined=tuple(totals.quarantined),
        renamed=plan.renamed,
        reaudited=plan.reaudited,
        pruned=plan.pruned,
        engine_version=ENGINE_VERSION,
    )
    logger.info(
        "run %d into %s: %d files seen, %d loaded, %d skipped, %d quarantined; "
        "%d games, %d hands, %d violations, %d mismatches",
        summary.run_id,
        db,
        summary.files_seen,
        summary.files_loaded,
        summary.files_skipped,
        summary.files_quarantined,
        summary.games,
        summary.hands,
        summary.violations,
        summary.mismatches,
    )
    steps.publish(summary)
    return summary


FLOW_PATH_ENV = "ZHUOJI_PREFECT"
"""Set to ``1`` (``true``, ``yes``): every ingest runs as a Prefect flow, a small one with
no server configured too (what ``zhuoji ingest --prefect`` asks for one run)."""


def flow_path_forced() -> bool:
    """Whether :data:`FLOW_PATH_ENV` asks for the flow path; a value other than the
    documented ones is a ``ValueError`` naming the variable."""
    value = os.environ.get(FLOW_PATH_ENV, "").strip().lower()
    if value in ("", "0", "false", "no"):
        return False
    if value in ("1", "true", "yes"):
        return True
    raise ValueError(f"{FLOW_PATH_ENV}={value!r}: expected 1 or 0")


def takes_flow_path(request: RunRequest, prefect: bool = False) -> bool:
    """Whether the run is a Prefect flow run: always when asked (``prefect``,
    :data:`FLOW_PATH_ENV`), when a Prefect server is configured
    (:func:`zhuoji.flows.runtime.prefect_config.configured_api_url`) or when the run is not small;
    otherwise the steps run as plain calls in this process (:mod:`zhuoji.flows.ingest.local_run`),
    which imports no Prefect and starts no server."""
    from zhuoji.flows.runtime.prefect_config import configured_api_url

    if prefect or flow_path_forced() or not request.small:
        return True
    return configured_api_url() is not None


def run_ingest(
    paths: Sequence[str | os.PathLike[str]],
    db: str | os.PathLike[str] = "zhuoji.duckdb",
    *,
    workers: int | None = None,
    dask_address: str | None = None,
    batch_size: int | None = None,
    progress: bool = False,
    full_refresh: bool = False,
    prune: bool = False,
    wait: float = 0,
    started: float | None = None,
    prefect: bool = False,
    found: LogPaths | None = None,
    on_server_lost: Callable[[str], None] | None = None,
) -> RunSummary:
    """Run an ingest (the command line's ``zhuoji ingest``): as a Prefect flow
    (:func:`zhuoji.flows.ingest.prefect_run.run_flow`) or, when it is small and no Prefect server is
    configured, as plain calls in this process (:func:`zhuoji.flows.ingest.local_run.run_local`);
    ``prefect`` asks for the flow whatever the run (see :func:`takes_flow_path`).
    Both record the run in ``ingest_runs`` and give the same rows and summary.

    ``full_refresh`` audits every file found again, changed or not; ``prune`` drops the
    rows of the files the database holds under the given folders that no longer exist;
    ``found``: the paths already walked (:func:`zhuoji.flows.ingest.discover.find_log_paths` of
    ``paths``), so that they are walked once; ``on_server_lost``: what a flow run does
    should its local Prefect server go away (:func:`zhuoji.flows.ingest.prefect_run.prefect_api`).

    The summary's ``seconds`` is the wall time from ``started`` (a
    :func:`time.perf_counter` reading: the command's start, :func:`command_started`)
    or from this call, to the end of the run: what the user waited for, the imports and
    a Prefect server's start included.

    With no ``workers`` given and at most :data:`SMALL_RUN_BYTES` of logs, the work runs
    in this process (the runner ``in-process``): a worker pool's start costs more than
    their work. The arguments and the database are checked before anything runs
    (:func:`prepare_run`)."""
    origin = time.perf_counter() if started is None else started
    request = prepare_run(
        paths,
        db,
        workers=workers,
        dask_address=dask_address,
        batch_size=batch_size,
        progress=progress,
        full_refresh=full_refresh,
        prune=prune,
        wait=wait,
        found=found,
    )
    if takes_flow_path(request, prefect):
        from zhuoji.flows.ingest.prefect_run import run_flow

        summary = run_flow(request, on_server_lost)
    else:
        from zhuoji.flows.ingest.local_run import run_local

        summary = run_local(request)
    return replace(summary, seconds=time.perf_counter() - origin)
