"""The ingest's entry (the command line's ``zhuoji ingest`` and ``zhuoji deploy`` call it):
:func:`run_ingest` checks the run (:func:`zhuoji.flows.ingest.steps.prepare_run`), chooses the
way (:func:`takes_flow_path`) and runs it, as a Prefect flow
(:func:`zhuoji.flows.ingest.prefect_run.run_flow`) or as plain calls in this process
(:func:`zhuoji.flows.ingest.local_run.run_local`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from zhuoji.flows.ingest.discover import LogPaths
from zhuoji.flows.ingest.steps import RunRequest, RunSummary, prepare_run
from zhuoji.rules.messages import Message

if TYPE_CHECKING:
    from zhuoji.flows.runtime.temporary_server import ServerStart

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
    raise ValueError(Message("{name:any}={v:any}: expected 1 or 0", FLOW_PATH_ENV, repr(value)))


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
    on_server_start: Callable[[ServerStart], None] | None = None,
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
    should its local Prefect server go away (:func:`zhuoji.flows.runtime.prefect_api.prefect_api`);
    ``on_server_start``: told when a local Prefect server is started for the flow run, and
    when it answers (:class:`~zhuoji.flows.runtime.temporary_server.ServerStart`).

    The summary's ``seconds`` is the wall time from ``started`` (a
    :func:`time.perf_counter` reading: the command's start,
    :func:`~zhuoji.flows.ingest.steps.command_started`) or from this call, to the end of
    the run: what the user waited for, the imports and a Prefect server's start included.

    With no ``workers`` given and at most
    :data:`~zhuoji.flows.ingest.steps.SMALL_RUN_BYTES` of logs, the work runs in this process
    (the runner ``in-process``): a worker pool's start costs more than their work. The
    arguments and the database are checked before anything runs (:func:`prepare_run`)."""
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

        summary = run_flow(request, on_server_lost, on_server_start)
    else:
        from zhuoji.flows.ingest.local_run import run_local

        summary = run_local(request)
    return replace(summary, seconds=time.perf_counter() - origin)
