"""The workers' fork server (see :mod:`flows.pool`), in a module that imports nothing
heavy: ``zhuoji ingest`` starts it before it imports Prefect and the flow, so that the
fork server's imports and the command's run at the same time."""

from __future__ import annotations

import multiprocessing

__all__ = ["METHOD", "WORKER_PRELOAD", "fork_server_available", "start_fork_server"]

WORKER_PRELOAD: tuple[str, ...] = (
    "prefect",
    "prefect.context",
    "prefect.flow_engine",
    "prefect.task_engine",
    "prefect.task_runners",
    "prefect_dask",  # a Prefect collection: every task run's context loads it
    "rules.audit",
    "rules.presets",
    "parsers.read",
    "flows.bridge",
    "flows.discover",
)
"""What the fork server imports before it forks any worker: Prefect's task engine and the
thread-free part of the work (the worker imports ``flows.ingest``, and with it
``pyarrow``, ``polars`` and ``duckdb``, after the fork)."""

METHOD = "forkserver"
"""``multiprocessing``'s name for the fork server start method."""


def fork_server_available() -> bool:
    """Whether this platform's ``multiprocessing`` has a fork server."""
    return METHOD in multiprocessing.get_all_start_methods()


def start_fork_server() -> bool:
    """Start this process's fork server (with :data:`WORKER_PRELOAD`) unless it runs
    already; False where there is none. Returns at once: the fork server imports in the
    background, and the first fork waits for it."""
    if not fork_server_available():
        return False
    from multiprocessing import forkserver

    context = multiprocessing.get_context(METHOD)
    context.set_forkserver_preload(list(WORKER_PRELOAD))  # only read when it starts
    forkserver.ensure_running()
    return True
