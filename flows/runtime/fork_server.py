"""The workers' fork server (see :mod:`zhuoji.flows.runtime.pool`), in a module that imports
nothing heavy: ``zhuoji ingest`` starts it before it imports Prefect and the flow, so that
the fork server's imports and the command's run at the same time.

Works around: Prefect's process pool spawns each worker, a new interpreter importing
Prefect and the engine before its first task (:mod:`zhuoji.flows.runtime.pool`); and
CPython's fork server imports its preload modules with the current folder first on the
path (:func:`_this_import_path`) and outlives a parent killed with ``SIGKILL`` until its
pipe closes (:func:`die_with_parent`). The upstream change that would remove it:
``ProcessPoolTaskRunner`` accepting the fork server as its start method (with a preload
list), and the fork server importing its preloads with its parent's path.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = [
    "METHOD",
    "PARENT_ENV",
    "WORKER_PRELOAD",
    "die_with_parent",
    "fork_server_available",
    "fork_server_pid",
    "in_pool_worker",
    "init_pool_worker",
    "start_fork_server",
]

PARENT_ENV = "ZHUOJI_FORK_SERVER_PARENT"
"""Set, while the fork server starts, to the pid of the process starting it: the fork
server's first import (:mod:`zhuoji.flows.runtime.fork_server_guard`) ties its life to that
process."""

WORKER_PRELOAD: tuple[str, ...] = (
    "zhuoji.flows.runtime.fork_server_guard",  # first: the fork server dies with its parent
    "prefect",
    "prefect.context",
    "prefect.flow_engine",
    "prefect.task_engine",
    "prefect.task_runners",
    "prefect_dask",  # a Prefect collection: every task run's context loads it
    "zhuoji.rules.audit",
    "zhuoji.rules.presets",
    "zhuoji.parsers.read",
    "zhuoji.flows.audit.service",  # the worker's audit loop (with the bridge and rulesets)
    "zhuoji.flows.ingest.discover",
)
"""What the fork server imports before it forks any worker: Prefect's task engine and the
thread-free part of the work (the worker imports ``zhuoji.flows.ingest.prefect_run``, and with it
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
    names = ("PYTHONSAFEPATH", "PYTHONPATH", PARENT_ENV)
    saved = {name: os.environ.get(name) for name in names}
    os.environ["PYTHONSAFEPATH"] = "1"
    os.environ[PARENT_ENV] = str(os.getpid())
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


def fork_server_pid() -> int | None:
    """The pid of this process's fork server, if it started one."""
    from multiprocessing import forkserver

    pid = getattr(forkserver._forkserver, "_forkserver_pid", None)
    return pid if isinstance(pid, int) else None


_PR_SET_PDEATHSIG = 1
_IN_POOL_WORKER = False


def init_pool_worker(parent: int | None) -> None:
    """The pool's initializer in each worker: it dies with ``parent`` (the fork server,
    :func:`die_with_parent`), ignores Ctrl-C (``SIGINT``: the ingest process ends its
    workers, see :mod:`zhuoji.flows.runtime.fork_server_guard`) and knows itself a worker
    (:func:`in_pool_worker`)."""
    global _IN_POOL_WORKER
    _IN_POOL_WORKER = True
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(parent)


def in_pool_worker() -> bool:
    """Whether this process is a worker of the ingest's pool (see :func:`init_pool_worker`)."""
    return _IN_POOL_WORKER


def die_with_parent(parent: int | None) -> None:
    """Have the kernel SIGKILL this process when its parent dies (Linux's
    ``PR_SET_PDEATHSIG``); and die at once if ``parent`` is already gone (this process
    was re-parented before the request took effect).

    The fork server calls it as it starts, and every worker as it starts (the pool's
    initializer): a ``kill -9`` of ``zhuoji ingest`` then ends the fork server, which
    ends the workers, and the resource tracker, left with no process to serve, exits
    after removing their semaphores. Without ``prctl`` (not Linux) it does nothing: the
    fork server still exits when its parent dies (``multiprocessing`` watches a pipe),
    the workers when their task queue closes.
    """
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            return
    if parent is not None and os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGKILL)
