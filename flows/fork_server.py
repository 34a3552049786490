"""The workers' fork server (see :mod:`flows.pool`), in a module that imports nothing
heavy: ``zhuoji ingest`` starts it before it imports Prefect and the flow, so that the
fork server's imports and the command's run at the same time."""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

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
    with _this_import_path():
        forkserver.ensure_running()
    return True


@contextmanager
def _this_import_path() -> Iterator[None]:
    """While the fork server starts: its imports follow this process's ``sys.path``.

    CPython's fork server (3.11 to 3.13 at least) imports its preload modules with
    Python's default path, the current folder first: the parent's path it is handed is
    applied only in the processes it forks. A package in the current folder named like a
    preloaded module (a Prefect project's own ``flows``, say) would be imported, and run,
    in its place. So the fork server starts with the current folder left out
    (``PYTHONSAFEPATH``) and this process's path in ``PYTHONPATH`` (its current folder
    too, where this process imports from there); the environment is restored at once.
    """
    names = ("PYTHONSAFEPATH", "PYTHONPATH")
    saved = {name: os.environ.get(name) for name in names}
    os.environ["PYTHONSAFEPATH"] = "1"
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [os.path.abspath(entry) if entry else os.getcwd() for entry in sys.path]
    )
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
