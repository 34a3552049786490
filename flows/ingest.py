"""The ingest: log files into the DuckDB warehouse, as a Prefect flow.

Plain functions do the work and the Prefect tasks are thin wrappers over them:

* :func:`plan_files` (main process): discover the files and hash those the ``files``
  table already holds: unchanged files are skipped, changed ones are processed, and so
  are new ones (not hashed here).
* :func:`flows.process.process_file` (a worker: a process of the pool or a Dask worker):
  parse, bridge, audit every hand, write the rows as Parquet shards in the staging folder,
  return a small :class:`~flows.rows.FileOutcome`. The file is read once: its hash is
  computed from the bytes as they are parsed. Any malformed game quarantines the whole
  file. The worker imports only :mod:`flows.process`, not this module. One task takes a
  chunk of consecutive files (:func:`plan_chunks`, about :data:`CHUNK_BYTES`), so that a
  task's fixed orchestration cost stays small beside its work; each file still has its
  own outcome.
* :func:`load_outcomes` (main process, the only writer): settle game-id clashes, then load
  a batch's shards and bookkeeping rows in one transaction.

Batches are pipelined: the workers process batch ``i + 1`` while the main process loads
batch ``i``. A crash or kill leaves the database as it was after the last committed
batch; the next run skips what that batch loaded and redoes the rest.
"""

from __future__ import annotations

import inspect
import os
import shutil
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
from prefect import flow, task
from prefect.cache_policies import NO_CACHE
from prefect.context import refresh_global_settings_context
from prefect.futures import PrefectFuture
from prefect.settings import (
    PREFECT_API_URL,
    PREFECT_FLOWS_HEARTBEAT_FREQUENCY,
    PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS,
    temporary_settings,
)
from prefect.task_runners import TaskRunner
from prefect.utilities.asyncutils import run_coro_as_sync

from flows import warehouse
from flows.discover import FileDigest, generate_log_paths, hash_file, unhashed_file
from flows.pool import ForkServerTaskRunner, start_fork_server
from flows.prefect_server import LocalPrefectServer
from flows.process import process_files_task
from flows.rows import FileError, FileOutcome, FileStatus, remove_shards


@dataclass(frozen=True, slots=True)
class FilePlan:
    """The files of a run: what to process (new or changed) and how many were skipped."""

    seen: int
    to_process: tuple[FileDigest, ...]
    skipped: int


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

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.seconds if self.seconds > 0 else 0.0


# --- plain functions -------------------------------------------------------------------------


def plan_files(
    paths: Sequence[str], known: Mapping[str, str], hasher: Callable[[str], FileDigest] = hash_file
) -> FilePlan:
    """Discover the files; keep those new or changed since they were last seen.

    Only files seen before are hashed (to tell an unchanged file from a changed one): a
    new file is processed whatever its hash, which the worker computes as it reads it.
    """
    found = [p.as_posix() for p in generate_log_paths(paths)]
    todo: list[FileDigest] = []
    skipped = 0
    for path in found:
        if path not in known:
            todo.append(unhashed_file(path))
            continue
        digest = hasher(path)
        if known[path] == digest.sha256:
            skipped += 1
        else:
            todo.append(digest)
    return FilePlan(seen=len(found), to_process=tuple(todo), skipped=skipped)


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
                clashes.append(
                    FileError(
                        sentence=f"{outcome.path}, game {game_id!r}: {reason}",
                        message=reason,
                        game_id=game_id,
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
    con: duckdb.DuckDBPyConnection, outcomes: Sequence[FileOutcome], run_id: int
) -> list[FileOutcome]:
    """Load one batch (one transaction); returns the outcomes as loaded (clashes settled)."""
    final = settle_clashes(con, outcomes)
    warehouse.load_batch(con, final, run_id)
    for outcome in final:
        remove_shards(outcome)
    return final


def default_workers() -> int:
    return os.cpu_count() or 1


def staging_dir_for(db: str | Path) -> Path:
    path = Path(db).resolve()
    return path.with_name(path.name + ".staging")


# --- Prefect tasks (thin wrappers) -----------------------------------------------------------


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


@task(name="plan-files", retries=2, retry_delay_seconds=1, cache_policy=NO_CACHE)
def plan_files_task(paths: list[str], known: dict[str, str]) -> FilePlan:
    return plan_files(paths, known)


@task(name="load-batch", retries=2, retry_delay_seconds=2, cache_policy=NO_CACHE)
def load_batch_task(
    con: duckdb.DuckDBPyConnection, outcomes: list[FileOutcome], run_id: int
) -> list[FileOutcome]:
    return load_outcomes(con, outcomes, run_id)


# --- the flow --------------------------------------------------------------------------------


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
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        self._progress = self._stack.enter_context(
            Progress(
                TextColumn("[bold]ingest[/]"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("files"),
                TextColumn("{task.fields[hands]:,} hands  {task.fields[rate]:,.0f} hands/s"),
                TimeElapsedColumn(),
                console=Console(stderr=True),
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

    def add(self, outcome: FileOutcome) -> None:
        if outcome.status is FileStatus.QUARANTINED:
            self.quarantined.append((outcome.path, outcome.errors[0].sentence))
            return
        self.loaded += 1
        self.games += outcome.games
        self.hands += outcome.hands
        self.violations += outcome.violations
        self.mismatches += outcome.mismatches


def _runner_label(dask_address: str | None) -> str:
    return f"dask {dask_address}" if dask_address else "process-pool"


@flow(name="zhuoji-ingest", validate_parameters=False)
def ingest_flow(
    paths: list[str],
    db: str,
    workers: int,
    batch_size: int | None,
    runner_label: str,
    progress: bool = False,
    writer_threads: int | None = None,
) -> RunSummary:
    """Ingest ``paths`` into the database ``db`` (the flow's task runner does the work;
    ``writer_threads`` caps the loader's DuckDB threads)."""
    started = time.perf_counter()
    started_at = datetime.now(UTC).replace(tzinfo=None)
    con = warehouse.open_writer(db, threads=writer_threads)
    display = _Display(progress)
    try:
        known = warehouse.known_files(con)
        plan = plan_files_task(list(paths), known)
        warehouse.forget_files(con, [d.path for d in plan.to_process if d.path in known])
        run_id = warehouse.begin_run(
            con, started_at=started_at, workers=workers, runner=runner_label
        )
        staging_root = staging_dir_for(db)
        shutil.rmtree(staging_root, ignore_errors=True)  # shards of a killed run
        staging = staging_root / f"run-{run_id}"
        staging.mkdir(parents=True, exist_ok=True)
        files = plan.to_process
        batches = (
            plan_batches(files, workers)
            if batch_size is None
            else [list(files[i : i + batch_size]) for i in range(0, len(files), batch_size)]
        )
        display.start(len(files))
        totals = _Totals()

        def submit(batch: Sequence[FileDigest]) -> list[PrefectFuture[list[FileOutcome]]]:
            return [
                process_files_task.submit(chunk, staging.as_posix())
                for chunk in plan_chunks(batch, workers)
            ]

        pending = submit(batches[0]) if batches else []
        for index in range(len(batches)):
            current = pending
            pending = submit(batches[index + 1]) if index + 1 < len(batches) else []
            outcomes: list[FileOutcome] = []
            for future in current:
                for outcome in future.result():
                    display.advance(outcome)
                    outcomes.append(outcome)
            for outcome in load_batch_task(con, outcomes, run_id):
                totals.add(outcome)
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
                "games": totals.games,
                "hands": totals.hands,
                "violations": totals.violations,
                "mismatches": totals.mismatches,
            },
        )
        shutil.rmtree(staging_root, ignore_errors=True)
    finally:
        display.close()
        con.close()
    return RunSummary(
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
    )


# --- running it ------------------------------------------------------------------------------


@contextmanager
def prefect_api() -> Iterator[str]:
    """Make sure a Prefect API is configured for this process and its workers.

    With ``PREFECT_API_URL`` set, that server is used. Otherwise one temporary local
    server is started here (Prefect's ephemeral mode, :mod:`flows.prefect_server`) and
    its address is set as ``PREFECT_API_URL`` for the whole process while it runs: in
    the environment and Prefect's process-wide settings, which Prefect's own threads
    read, and in the current settings context. The pool's worker processes inherit it
    and talk to this server; nothing starts a server of its own.
    """
    url = PREFECT_API_URL.value()
    if url:
        yield url
        return
    server = LocalPrefectServer(timeout=PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS.value())
    with server as address, _process_api_url(address):
        yield address


async def _drain_prefect_workers() -> None:
    """Send the logs and events Prefect still holds (it sends them in batches), before the
    server they go to stops (as ``prefect_test_harness`` does)."""
    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker

    with suppress(RuntimeError):  # no log worker was started
        drained = APILogWorker.instance().drain()
        if inspect.isawaitable(drained):
            await drained
    events = EventsWorker.drain_all()
    if inspect.isawaitable(events):
        await events


@contextmanager
def _process_api_url(url: str) -> Iterator[None]:
    """``PREFECT_API_URL`` is ``url`` in this process (every thread) until the block ends."""
    prior = os.environ.get("PREFECT_API_URL")
    os.environ["PREFECT_API_URL"] = url
    refresh_global_settings_context()
    try:
        with temporary_settings(updates={PREFECT_API_URL: url}):
            try:
                yield
            finally:
                run_coro_as_sync(_drain_prefect_workers())
    finally:
        if prior is None:
            del os.environ["PREFECT_API_URL"]
        else:
            os.environ["PREFECT_API_URL"] = prior
        refresh_global_settings_context()


LOCAL_WRITER_THREADS = 1
"""DuckDB threads of the loader when the workers are a local process pool. The pool
already has a process per core; the loader's work per batch (about 0.04 CPU ms a hand)
is small beside theirs, and a second DuckDB thread only takes CPU time from the
workers: on 2 cores, runs of 100,000 hands went from 2,983-3,462 hands/s with
DuckDB's default (a thread per core) to 3,540-3,888 with one thread. With a Dask
cluster the workers are elsewhere and DuckDB keeps its default."""


def make_task_runner(workers: int, dask_address: str | None) -> TaskRunner[Any]:
    if dask_address:
        require_dask_extra()
        from prefect_dask.task_runners import DaskTaskRunner

        runner: TaskRunner[Any] = DaskTaskRunner(address=dask_address)
        return runner
    return ForkServerTaskRunner(max_workers=workers)


class MissingExtraError(RuntimeError):
    """An option needs an optional part of zhuoji that is not installed."""


def require_dask_extra() -> None:
    """Raise a clear error when the ``dask`` extra (prefect-dask, distributed) is missing."""
    import importlib.util

    missing = [m for m in ("prefect_dask", "distributed") if importlib.util.find_spec(m) is None]
    if missing:
        raise MissingExtraError(
            f"--dask-address needs {' and '.join(missing)}, which are not installed: "
            "install zhuoji with the dask extra (pip install 'zhuoji[dask]')"
        )


def dask_worker_count(dask_address: str) -> int:
    require_dask_extra()
    from distributed import Client

    with Client(dask_address, timeout="30s") as client:  # type: ignore[no-untyped-call]
        return len(client.scheduler_info(n_workers=-1)["workers"])


def run_ingest(
    paths: Sequence[str],
    db: str | Path = "zhuoji.duckdb",
    *,
    workers: int | None = None,
    dask_address: str | None = None,
    batch_size: int | None = None,
    progress: bool = False,
) -> RunSummary:
    """Run the ingest flow (the command line's ``zhuoji ingest``).

    The arguments and the database are checked before the flow starts, so that a path
    naming nothing (:class:`~flows.discover.InputPathError`) or a database another ingest
    holds (:class:`~flows.warehouse.DatabaseBusyError`) is one clear error, not a failed
    flow run.
    """
    for _ in generate_log_paths(paths):
        pass
    warehouse.check_writable(db)
    if dask_address:
        n_workers = dask_worker_count(dask_address)
    else:
        n_workers = workers if workers is not None else default_workers()
    if n_workers < 1:
        raise ValueError("at least one worker is needed")
    if batch_size is not None and batch_size < 1:
        raise ValueError("the batch size must be at least 1")
    runner = make_task_runner(n_workers, dask_address)
    if not dask_address:
        # Its imports run while a temporary Prefect server starts. The workers need no
        # API address from its environment: Prefect sends each task its settings.
        start_fork_server()
    with ExitStack() as stack:
        stack.enter_context(prefect_api())
        stack.enter_context(temporary_settings(updates={PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}))
        configured = ingest_flow.with_options(task_runner=runner)
        summary: RunSummary = configured(
            paths=[os.fspath(p) for p in paths],
            db=os.fspath(db),
            workers=n_workers,
            batch_size=batch_size,
            runner_label=_runner_label(dask_address),
            progress=progress,
            writer_threads=None if dask_address else LOCAL_WRITER_THREADS,
        )
    return summary
