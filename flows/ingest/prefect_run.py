"""The ingest as a Prefect flow: the run's steps as a flow run and its task runs.

:func:`zhuoji.flows.ingest.run.run_ingest` runs an ingest this way (:func:`run_flow`)
unless it is small and no Prefect server is configured (then
:mod:`zhuoji.flows.ingest.local_run` runs the same steps as plain calls). The steps are
:func:`zhuoji.flows.ingest.steps.ingest_steps`; here they are Prefect tasks, thin wrappers
over the plain functions:

* ``plan-files`` (:func:`zhuoji.flows.ingest.planning.plan_files`, main process): hash the
  files the ``files`` table already holds: unchanged files are skipped, changed ones are
  processed, and so are new ones (not hashed here);
* ``process-files`` (:data:`zhuoji.flows.ingest.worker_task.process_files_task`, a worker: a
  process of the pool or a Dask worker): parse, bridge, audit every hand of a chunk of
  files, write the rows as Parquet shards in the staging folder, return a small
  :class:`~zhuoji.flows.warehouse.rows.FileOutcome` per file. The worker imports only
  :mod:`zhuoji.flows.ingest.worker_task` and :mod:`zhuoji.flows.ingest.worker`, not this
  module; a chunk whose task was lost is retried, then quarantined
  (:mod:`zhuoji.flows.ingest.recovery`);
* ``load-batch`` (:func:`zhuoji.flows.ingest.load.load_outcomes`, main process, the only
  writer): settle game-id clashes, then load a batch's shards and bookkeeping rows in one
  transaction.

Batches are pipelined: the workers process batch ``i + 1`` while the main process loads
batch ``i``. A crash or kill leaves the database as it was after the last committed
batch; the next run skips what that batch loaded and redoes the rest.

The flow run's parameters hold no list of files: Prefect refuses parameters over 512 kB
(some 7,000 paths), so the paths and the files found go to the flow in a manifest file
(:func:`write_manifest`) whose path is a parameter.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
from prefect import flow, get_run_logger, tags, task
from prefect.artifacts import create_markdown_artifact
from prefect.cache_policies import NO_CACHE
from prefect.context import FlowRunContext
from prefect.futures import PrefectFuture
from prefect.settings import PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings
from prefect.task_runners import TaskRunner, ThreadPoolTaskRunner

from zhuoji.flows.ingest.discover import FileDigest
from zhuoji.flows.ingest.load import load_outcomes
from zhuoji.flows.ingest.planning import FilePlan, default_workers, plan_chunks, plan_files
from zhuoji.flows.ingest.recovery import DaskChunkWatch, collect_chunks
from zhuoji.flows.ingest.steps import (
    IN_PROCESS,
    LOCAL_WRITER_THREADS,
    RunRequest,
    RunSummary,
    ingest_steps,
    mark_crashed_run,
)
from zhuoji.flows.ingest.worker_task import process_files_task
from zhuoji.flows.runtime.dask_cluster import (
    check_dask_cluster,
    check_workers_reach_api,
    drain_workers,
)
from zhuoji.flows.runtime.pool import ForkServerTaskRunner, current_pool_repair, start_fork_server
from zhuoji.flows.runtime.prefect_api import prefect_api
from zhuoji.flows.runtime.temporary_server import ServerStart
from zhuoji.flows.warehouse import store as warehouse
from zhuoji.flows.warehouse.rows import FileOutcome
from zhuoji.flows.warehouse.store import KnownFile
from zhuoji.rules.messages import Message
from zhuoji.rules.version import ENGINE_VERSION

# --- Prefect tasks (thin wrappers) -----------------------------------------------------------


@task(name="plan-files", retries=2, retry_delay_seconds=1, cache_policy=NO_CACHE)
def plan_files_task(
    paths: list[str],
    files: list[str],
    known: dict[str, KnownFile],
    stale: dict[str, str],
    full_refresh: bool,
    prune: bool,
) -> FilePlan:
    return plan_files(
        paths, known, stale=stale, full_refresh=full_refresh, prune=prune, found=files
    )


@task(name="load-batch", retries=2, retry_delay_seconds=2, cache_policy=NO_CACHE)
def load_batch_task(
    con: duckdb.DuckDBPyConnection,
    outcomes: list[FileOutcome],
    run_id: int,
    counts: dict[str, int] | None = None,
) -> list[FileOutcome]:
    return load_outcomes(con, outcomes, run_id, counts)


# --- the flow --------------------------------------------------------------------------------


def _runner_label(dask_address: str | None) -> str:
    return f"dask {dask_address}" if dask_address else "process-pool"



class _FlowSteps:
    """:class:`zhuoji.flows.ingest.steps.RunSteps` as Prefect tasks of the current flow run: the
    plan
    and each load a task run in this process, each chunk of files a task run on the flow's
    task runner (a batch's chunks submitted while the batch before is loaded)."""

    def __init__(self, watch: DaskChunkWatch | None) -> None:
        self.logger = get_run_logger()
        self.watch = watch

    def mark_crashed(self, staging_root: Path) -> str | None:
        return mark_crashed_run(staging_root)

    def plan(
        self,
        args: list[str],
        files: list[str],
        known: dict[str, KnownFile],
        stale: dict[str, str],
        full_refresh: bool,
        prune: bool,
    ) -> FilePlan:
        return plan_files_task(args, files, known, stale, full_refresh, prune)

    def marker(self) -> dict[str, object]:
        from prefect.runtime import flow_run

        return {"flow_run_id": str(flow_run.id), "pid": os.getpid()}

    def process(
        self, batches: Sequence[list[FileDigest]], workers: int, staging: Path
    ) -> Iterator[list[FileOutcome]]:
        Submitted = tuple[list[list[FileDigest]], list[PrefectFuture[list[FileOutcome]]]]

        def submit_chunk(chunk: list[FileDigest]) -> PrefectFuture[list[FileOutcome]]:
            return process_files_task.submit(chunk, staging.as_posix())

        def submit(batch: Sequence[FileDigest]) -> Submitted:
            chunks = plan_chunks(batch, workers)
            return chunks, [submit_chunk(chunk) for chunk in chunks]

        repair = current_pool_repair()
        pending: Submitted = submit(batches[0]) if batches else ([], [])
        for index in range(len(batches)):
            current = pending
            pending = submit(batches[index + 1]) if index + 1 < len(batches) else ([], [])
            if self.watch is None:
                yield collect_chunks(
                    *current, resubmit=submit_chunk, repair=repair, in_flight=pending[1]
                )
            else:  # Dask: a lost worker's chunk is quarantined; no worker left fails the run
                yield [
                    outcome
                    for chunk, future in zip(*current, strict=True)
                    for outcome in self.watch.result(future, chunk)
                ]

    def load(
        self,
        con: duckdb.DuckDBPyConnection,
        outcomes: list[FileOutcome],
        run_id: int,
        counts: dict[str, int],
    ) -> list[FileOutcome]:
        return load_batch_task(con, outcomes, run_id, counts)

    def publish(self, summary: RunSummary) -> None:
        create_markdown_artifact(
            key=artifact_key(summary.db),
            markdown=summary_markdown(summary),
            description=f"zhuoji ingest run {summary.run_id} into {summary.db}",
        )


@flow(name="zhuoji-ingest", validate_parameters=False)
def ingest_flow(
    manifest: str,
    db: str,
    workers: int,
    batch_size: int | None,
    runner_label: str,
    progress: bool = False,
    writer_threads: int | None = None,
    full_refresh: bool = False,
    prune: bool = False,
    dask_address: str | None = None,
    wait: float = 0,
    paths: list[str] | None = None,
) -> RunSummary:
    """Ingest the files of ``manifest`` (:func:`write_manifest`: the command line's paths
    and the log files they name) into the database ``db`` (the flow's task runner does
    the work; ``writer_threads`` caps the loader's DuckDB threads; ``dask_address``: the
    runner's Dask cluster, watched while the run waits for it; ``wait``: how long to
    wait for another process to let go of the database; ``paths``: the command line's
    paths again, for the UI, when they are few: :data:`MANIFEST_INLINE_BYTES`).

    The steps are :func:`zhuoji.flows.ingest.steps.ingest_steps`. What it does is logged through
    Prefect's run logger, and the summary with the quarantined files is published as a
    markdown artifact (:func:`summary_markdown`)."""
    args, files = read_manifest(manifest)
    watch = DaskChunkWatch(dask_address) if dask_address else None
    try:
        return ingest_steps(
            _FlowSteps(watch),
            args=args,
            files=files,
            db=db,
            workers=workers,
            batch_size=batch_size,
            runner_label=runner_label,
            progress=progress,
            writer_threads=writer_threads,
            full_refresh=full_refresh,
            prune=prune,
            wait=wait,
        )
    finally:
        if watch is not None:
            watch.close()


MANIFEST_INLINE_BYTES = 64 * 1024
"""The command line's paths are also a parameter of the flow run (shown in Prefect's UI)
when their JSON takes at most this many bytes; Prefect refuses parameters over 512 kB."""


def write_manifest(folder: Path, args: Sequence[str], files: Sequence[str]) -> Path:
    """A new manifest file in ``folder``: the run's paths and the log files they name
    (JSON), for the flow run to read (:func:`read_manifest`)."""
    handle, name = tempfile.mkstemp(prefix="zhuoji-ingest-", suffix=".json", dir=folder)
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        json.dump({"args": list(args), "files": list(files)}, out)
    return Path(name)


def read_manifest(path: str) -> tuple[list[str], list[str]]:
    """The paths and log files a manifest holds (:func:`write_manifest`)."""
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    return [str(a) for a in data["args"]], [str(f) for f in data["files"]]


# --- Prefect run bookkeeping -----------------------------------------------------------------

ARTIFACT_QUARANTINE_ROWS = 1000
"""The most quarantined files an artifact lists one by one."""


def run_tags(db: str | Path) -> list[str]:
    """The tags of an ingest's flow run: ``zhuoji`` and ``db:`` the database's absolute path."""
    return ["zhuoji", f"db:{Path(db).resolve().as_posix()}"]


def run_name(db: str | Path, moment: datetime) -> str:
    """A flow run's name: the database file's name and the start time (UTC)."""
    return f"{Path(db).name}-{moment:%Y%m%d-%H%M%S}"


def artifact_key(db: str | Path) -> str:
    """The key of a database's run artifacts (Prefect keeps every run's under it):
    ``zhuoji-ingest-`` and the file name in lower case, other characters as dashes."""
    slug = re.sub(r"[^a-z0-9]+", "-", Path(db).name.lower()).strip("-")
    return f"zhuoji-ingest-{slug or 'db'}"


def _cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def summary_markdown(summary: RunSummary) -> str:
    """A run's summary as markdown: the counts, then every quarantined file and its reason."""
    rows = [
        ("files seen", summary.files_seen),
        ("loaded", summary.files_loaded),
        ("skipped (unchanged)", summary.files_skipped),
        ("quarantined", summary.files_quarantined),
        ("games", summary.games),
        ("hands", summary.hands),
        ("violations", summary.violations),
        ("disputed hands", summary.disputed_hands),
        ("settlement findings", summary.settlement_findings),
    ]
    lines = [
        f"# zhuoji ingest run {summary.run_id} into `{summary.db}`",
        "",
        "| what | count |",
        "|---|---:|",
        *(f"| {what} | {count:,} |" for what, count in rows),
        "",
        f"Runner: {summary.runner}, {summary.workers} workers; "
        f"{summary.seconds:.1f} s ({summary.hands_per_second:,.0f} hands/s).",
        "",
    ]
    if summary.quarantined:
        lines += ["## Quarantined files", "", "| file | reason |", "|---|---|"]
        shown = summary.quarantined[:ARTIFACT_QUARANTINE_ROWS]
        lines += [f"| `{_cell(path)}` | {_cell(reason)} |" for path, reason in shown]
        if len(summary.quarantined) > len(shown):
            rest = len(summary.quarantined) - len(shown)
            lines += ["", f"... and {rest:,} more (the `quarantine` table holds them all)."]
    else:
        lines.append("No file was quarantined.")
    return "\n".join(lines) + "\n"


# --- running it ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ForgetSummary:
    """What ``zhuoji forget`` dropped: the files (loaded or quarantined) and their games
    and hands, and the arguments that named no file of the database."""

    run_id: int | None  # None: nothing was forgotten, no run recorded
    db: str
    forgotten: tuple[str, ...]
    games: int
    hands: int
    unknown: tuple[str, ...]


def match_known_paths(
    args: Sequence[str], known: Mapping[str, KnownFile]
) -> tuple[list[str], list[str]]:
    """The known files ``args`` name (a file's path, or a folder: every known file under
    it; the path need not exist any more) and the arguments that name none."""
    matched: set[str] = set()
    unknown: list[str] = []
    for arg in args:
        path = Path(arg).resolve().as_posix()
        if path in known:
            matched.add(path)
            continue
        prefix = path.rstrip("/") + "/"
        under = [p for p in known if p.startswith(prefix)]
        if under:
            matched.update(under)
        else:
            unknown.append(os.fspath(arg))
    return sorted(matched), unknown


def run_forget(paths: Sequence[str], db: str | Path = "zhuoji.duckdb") -> ForgetSummary:
    """Drop every row of the files ``paths`` name (the command line's ``zhuoji forget``),
    in one transaction, recorded as a run of its own (``command`` 'forget'). A file
    quarantined for clashing with a forgotten one is processed again by the next ingest."""
    if not Path(db).exists():
        raise warehouse.DatabaseMissingError(os.fspath(db))
    started_at = datetime.now(UTC).replace(tzinfo=None)
    con = warehouse.open_writer(db)
    try:
        known = warehouse.known_files(con)
        matched, unknown = match_known_paths(paths, known)
        if not matched:
            return ForgetSummary(None, os.fspath(db), (), 0, 0, tuple(unknown))
        games, hands = warehouse.file_totals(con, matched)
        run_id = warehouse.begin_run(
            con,
            started_at=started_at,
            workers=0,
            runner="none",
            command="forget",
            engine_version=ENGINE_VERSION,
        )
        warehouse.forget_files(con, matched)
        warehouse.finish_run(
            con,
            run_id,
            {
                "finished_at": datetime.now(UTC).replace(tzinfo=None),
                "files_seen": 0,
                "files_loaded": 0,
                "files_skipped": 0,
                "files_quarantined": 0,
                "files_forgotten": len(matched),
                "games": 0,
                "hands": 0,
                "violations": 0,
                "mismatches": 0,
                "disputed_hands": 0,
            },
        )
    finally:
        con.close()
    return ForgetSummary(run_id, os.fspath(db), tuple(matched), games, hands, tuple(unknown))


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
        raise MissingExtraError(Message(
            "--dask-address needs {m:any}, which are not installed: "
            "install zhuoji with the dask extra (pip install 'zhuoji[dask]')",
            " and ".join(missing),
        ))


def dask_worker_count(dask_address: str) -> int:
    """The cluster's workers, once :func:`zhuoji.flows.runtime.dask_cluster.check_dask_cluster` has
    found
    the scheduler answering and every worker importing this zhuoji (or raised
    :class:`~zhuoji.flows.runtime.dask_cluster.DaskClusterError`)."""
    require_dask_extra()
    return check_dask_cluster(dask_address, process_files_task.fn.__module__)


def run_flow(
    request: RunRequest,
    on_server_lost: Callable[[str], None] | None = None,
    on_server_start: Callable[[ServerStart], None] | None = None,
) -> RunSummary:
    """Run ``request`` (checked by :func:`zhuoji.flows.ingest.steps.prepare_run`) as the ingest
    flow.

    The Dask cluster is checked before the flow starts, so that a cluster that cannot run
    the tasks is one clear error (:class:`~zhuoji.flows.runtime.dask_cluster.DaskClusterError`),
    not a failed flow run. A small run (:data:`~zhuoji.flows.ingest.steps.SMALL_RUN_BYTES`,
    no ``workers``) runs its task in this process (the runner ``in-process``). The flow run
    is named and tagged after the database (:func:`run_name`, :func:`run_tags`); its paths
    and files go in a manifest in the system's temporary folder, removed at the end.
    ``on_server_lost``: called should the local Prefect server go away during the run (see
    :func:`prefect_api`); the command line ends the process there. ``on_server_start``:
    told when a local Prefect server is started for the run, and when it answers."""
    dask_address = request.dask_address
    if dask_address:
        n_workers = dask_worker_count(dask_address)
    else:
        n_workers = request.workers if request.workers is not None else default_workers()
    if request.small:
        n_workers = 1
        runner: TaskRunner[Any] = ThreadPoolTaskRunner(max_workers=1)
        label = IN_PROCESS
    else:
        runner = make_task_runner(n_workers, dask_address)
        label = _runner_label(dask_address)
    if not dask_address and not request.small:
        # Its imports run while a Prefect server starts. The workers need no API
        # address from its environment: Prefect sends each task its settings.
        start_fork_server()
    manifest = write_manifest(Path(tempfile.gettempdir()), request.args, request.files)
    inline = len(json.dumps(list(request.args))) <= MANIFEST_INLINE_BYTES
    with ExitStack() as stack:
        stack.callback(manifest.unlink, missing_ok=True)
        api_url = stack.enter_context(prefect_api(on_server_lost, on_server_start))
        if dask_address:
            check_workers_reach_api(dask_address, api_url)
            # runs before the temporary server (if any) stops
            stack.callback(drain_workers, dask_address)
        if FlowRunContext.get() is None:
            # no heartbeat (about a second less per run); a subflow of a deployment's run
            # beats as its parent does, to be marked crashed should its process die
            # (zhuoji.flows.runtime.heartbeats)
            stack.enter_context(
                temporary_settings(updates={PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None})
            )
        name = run_name(request.db, datetime.now(UTC))
        stack.enter_context(tags(*run_tags(request.db)))
        configured = ingest_flow.with_options(task_runner=runner, flow_run_name=lambda: name)
        summary: RunSummary = configured(
            manifest=manifest.as_posix(),
            db=request.db,
            workers=n_workers,
            batch_size=request.batch_size,
            runner_label=label,
            progress=request.progress,
            writer_threads=None if dask_address else LOCAL_WRITER_THREADS,
            full_refresh=request.full_refresh,
            prune=request.prune,
            dask_address=dask_address,
            # another ingest may take the database between the check and the flow's open
            wait=request.wait_left,
            paths=list(request.args) if inline else None,
        )
    return summary
