"""The ingest's steps, whichever way runs them.

An ingest runs either as a Prefect flow (:mod:`zhuoji.flows.ingest.prefect_run`) or, when it
is small and no Prefect server is configured, as plain calls in this process
(:mod:`zhuoji.flows.ingest.local_run`). Both run the same steps (:func:`ingest_steps`) over
the same plain functions, and give the same rows and summary:

* :func:`prepare_run` (the caller's process): the paths walked once
  (:func:`zhuoji.flows.ingest.discover.find_log_paths`), their size, the arguments and the
  database checked, before anything starts;
* :func:`zhuoji.flows.ingest.planning.plan_files`: the files found, and those of them the
  ``files`` table already holds hashed: unchanged files are skipped, changed ones are
  processed, and so are new ones (not hashed here);
* :func:`zhuoji.flows.ingest.worker.process_files` (a worker, or this process): parse,
  bridge, audit every hand, write the rows as Parquet shards in the staging folder, return
  a small :class:`~zhuoji.flows.warehouse.rows.FileOutcome` per file; one task takes a chunk
  of consecutive files (:func:`zhuoji.flows.ingest.planning.plan_chunks`, about
  :data:`zhuoji.flows.ingest.planning.CHUNK_BYTES`);
* :func:`zhuoji.flows.ingest.load.load_outcomes` (this process, the only writer): settle
  game-id clashes, then load a batch's shards and bookkeeping rows in one transaction.

:func:`zhuoji.flows.ingest.run.run_ingest` chooses the way and runs it.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import duckdb

from zhuoji.flows.ingest.discover import FileDigest, InputPathError, LogPaths, find_log_paths
from zhuoji.flows.ingest.interrupt import interrupted, watch_interrupts
from zhuoji.flows.ingest.planning import FilePlan, plan_batches, stale_files
from zhuoji.flows.warehouse import store as warehouse
from zhuoji.flows.warehouse.rows import FileOutcome, FileStatus
from zhuoji.flows.warehouse.store import KnownFile
from zhuoji.rules.messages import Message
from zhuoji.rules.version import ENGINE_VERSION


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
    mismatches: int  # settlement findings (hands.mismatches summed)
    seconds: float
    quarantined: tuple[tuple[str, str], ...]  # (path, first reason) per quarantined file
    renamed: tuple[tuple[str, str], ...] = ()  # (old path, new path): rows moved
    reaudited: tuple[tuple[str, str], ...] = ()  # (path, reason): unchanged, audited again
    pruned: tuple[str, ...] = ()  # vanished files whose rows were dropped (--prune)
    engine_version: str = ""
    disputed_hands: int = 0  # hands with a settlement finding (hands.disputed)

    @property
    def settlement_findings(self) -> int:
        """The settlement findings in the run's hands (the older name: ``mismatches``)."""
        return self.mismatches

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


def staging_dir_for(db: str | Path) -> Path:
    path = Path(db).resolve()
    return path.with_name(path.name + ".staging")

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
    """The run's progress bar (files, hands, hands/s) on standard error, when wanted.

    It moves as each file is done: the workers say each file they finish
    (:mod:`zhuoji.flows.ingest.progress`), while the batches' outcomes come whole chunks
    at a time; a file no report reached counts when its batch's outcomes come, and each
    file counts once. Where standard error is no terminal, Rich draws no bar (it prints
    the last state once, at the end), and nothing is listened to."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self._stack = ExitStack()
        self._progress: Any = None
        self._task: Any = None
        self._start = time.perf_counter()
        self._lock = threading.Lock()
        self._counted: dict[str, int] = {}  # path: the hands shown for it
        self.hands = 0

    def start(self, total: int, staging: Path | None = None, paths: Sequence[str] = ()) -> None:
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

        from zhuoji.flows.runtime.language import current_lang
        from zhuoji.flows.text.terminal import make_console
        from zhuoji.rules.glossary import text

        lang = current_lang()  # the bar's words in the invocation's language
        console = make_console(stderr=True, decoration=True)  # a closed pipe: quiet
        self._progress = self._stack.enter_context(
            Progress(
                TextColumn(f"[bold]{text('ingest', lang)}[/]"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn(text("files", lang)),
                TextColumn(text("{task.fields[hands]:,} hands  {task.fields[rate]:,.0f} hands/s",
                                lang)),
                TimeElapsedColumn(),
                console=console,
                transient=False,
            )
        )
        self._task = self._progress.add_task("ingest", total=total, hands=0, rate=0.0)
        if staging is not None and console.is_terminal:
            from zhuoji.flows.ingest.progress import ProgressListener

            listener = ProgressListener(staging.as_posix(), set(paths), self._file_done)
            self._stack.enter_context(listener)

    def _show(self, files: int, hands: int) -> None:
        """Add ``files`` done and ``hands`` to the bar (with the lock held)."""
        self.hands += hands
        if self._progress is None:
            return
        elapsed = max(time.perf_counter() - self._start, 1e-9)
        rate = self.hands / elapsed
        self._progress.update(self._task, advance=files, hands=self.hands, rate=rate)

    def _file_done(self, path: str, hands: int) -> None:
        """A worker's report of one file (from the listener's thread)."""
        with self._lock:
            if path in self._counted:
                return
            self._counted[path] = hands
            self._show(1, hands)

    def advance(self, outcome: FileOutcome) -> None:
        """A file's outcome, with its batch's: counted now unless a report counted it
        (then only its hands are made right, should a retry have changed them)."""
        with self._lock:
            shown = self._counted.get(outcome.path)
            self._counted[outcome.path] = outcome.hands
            if shown is None:
                self._show(1, outcome.hands)
            elif shown != outcome.hands:
                self._show(0, outcome.hands - shown)

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
    disputed_hands: int = 0
    quarantined: list[tuple[str, str]] = field(default_factory=list)

    def counts(self, plan: FilePlan) -> dict[str, int]:
        """The run's counts so far (:data:`zhuoji.flows.ingest.load.RUN_COUNTS`)."""
        return {
            "files_seen": plan.seen,
            "files_loaded": self.loaded,
            "files_skipped": plan.skipped,
            "files_quarantined": len(self.quarantined),
            "games": self.games,
            "hands": self.hands,
            "violations": self.violations,
            "mismatches": self.mismatches,
            "disputed_hands": self.disputed_hands,
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
        self.disputed_hands += outcome.disputed_hands



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



def mark_crashed_run(staging_root: Path, by: str | None = None) -> str | None:
    """Mark the flow run a killed ingest left in its marker as crashed; its id, if it was
    not already in a final state. Call it only while holding the database, with a Prefect
    API configured (:func:`zhuoji.flows.runtime.prefect_api.prefect_api`). ``by``: who
    marks it (by default the current flow run)."""
    import uuid

    marked = marked_flow_run(staging_root)
    if marked is None:
        return None
    run_id = uuid.UUID(marked)
    try:
        marker = json.loads((staging_root / RUN_MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        marker = {}
    from prefect.runtime import flow_run

    from zhuoji.flows.runtime.prefect_api import mark_flow_run_crashed

    if str(run_id) == str(flow_run.id):
        return None
    by = by or f"flow run {flow_run.name}"
    message = (
        f"the ingest process (PID {marker.get('pid')}) ended without finishing; "
        f"marked crashed by the next ingest into the same database ({by})"
    )
    return str(run_id) if mark_flow_run_crashed(run_id, message) else None


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
        raise ValueError(Message("the wait must be 0 seconds or more"))
    deadline = time.monotonic() + wait
    warehouse.check_writable(db, wait=wait)
    if workers is not None and workers < 1:
        raise ValueError(Message("at least one worker is needed"))
    if batch_size is not None and batch_size < 1:
        raise ValueError(Message("the batch size must be at least 1"))
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
    interrupted: bool = False  # marked 'interrupted' by this process (:func:`ingest_steps`)


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
            if run.interrupted:
                results.append((run.run_id, "interrupted"))
                continue
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


def last_run_status() -> tuple[int, str] | None:
    """The run this process last wrote, once :func:`ingest_steps` has ended (returned or
    raised): its id and ``completed``, ``interrupted`` (marked so as it was interrupted)
    or ``running`` (not marked: the next run marks it); None when no run was recorded."""
    if not _ACTIVE_RUNS:
        return None
    run = _ACTIVE_RUNS[-1]
    if run.finished:
        return run.run_id, "completed"
    return run.run_id, "interrupted" if run.interrupted else "running"


def _mark_interrupted(con: duckdb.DuckDBPyConnection, run: _ActiveRun) -> None:
    """Mark ``run`` ``interrupted`` in ``ingest_runs`` now, rather than leaving it
    ``running`` for the next run to mark: the run's transaction, if one was open (the
    interrupt came during a batch's load), is rolled back first. A failure, or a second
    interrupt meanwhile, leaves the row to the next run."""
    with suppress(duckdb.Error):
        con.rollback()  # (an error when no transaction is open)
    try:
        con.execute(
            "UPDATE ingest_runs SET status = 'interrupted' "
            "WHERE run_id = $run_id AND status = 'running'",
            {"run_id": run.run_id},
        )
    except (duckdb.Error, KeyboardInterrupt):
        return
    run.interrupted = True


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
        """:func:`zhuoji.flows.ingest.planning.plan_files` of the files found."""

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
        """:func:`zhuoji.flows.ingest.load.load_outcomes` of one batch."""

    def publish(self, summary: RunSummary) -> None:
        """Make the summary known where the run is watched."""


@watch_interrupts()  # (a Ctrl-C that DuckDB turns into an error of its own)
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
        display.start(len(todo), staging, [d.path for d in todo])
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
                "disputed_hands": totals.disputed_hands,
            },
        )
        active.finished = True
        shutil.rmtree(staging_root, ignore_errors=True)
    except BaseException as exc:
        # Interrupted (Ctrl-C, also when DuckDB turned it into an error of its own): the
        # run is marked so now. (A run that failed is marked by the next run, as one
        # killed.)
        stopped = not isinstance(exc, Exception) or interrupted()
        if active is not None and not active.finished and stopped:
            _mark_interrupted(con, active)
        if isinstance(exc, Exception) and interrupted():
            raise KeyboardInterrupt from None
        raise
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
        disputed_hands=totals.disputed_hands,
    )
    logger.info(
        "run %d into %s: %d files seen, %d loaded, %d skipped, %d quarantined; "
        "%d games, %d hands, %d violations, %d disputed hands, %d settlement findings",
        summary.run_id,
        db,
        summary.files_seen,
        summary.files_loaded,
        summary.files_skipped,
        summary.files_quarantined,
        summary.games,
        summary.hands,
        summary.violations,
        summary.disputed_hands,
        summary.mismatches,
    )
    steps.publish(summary)
    return summary
