"""The local workers of ``zhuoji ingest``: Prefect's process pool, forked from a fork server.

Prefect's :class:`~prefect.task_runners.ProcessPoolTaskRunner` starts its workers with
``multiprocessing``'s *spawn* method: each worker is a new interpreter that imports Prefect,
the engine and the parsers before its first task, about 2.4 s of CPU a worker on this
project's 2-core machine, spent by both workers at once while the run waits for them.

:class:`ForkServerTaskRunner` is that pool with two changes. Its workers come from
``multiprocessing``'s *fork server*, a process that imports :data:`WORKER_PRELOAD` once and
forks a worker, already holding those modules, whenever the pool asks for one. The fork
server lives as long as the process that started it (:func:`flows.fork_server.start_fork_server`),
so a second ingest in the same process forks its workers at once; ``zhuoji ingest``
starts it before it imports the flow, so that it imports while the command does.

Forking is safe here because the fork server runs nothing but those imports: no Prefect
client, no event loop, and no thread (``tests/flows/test_pool.py`` checks that importing
:data:`WORKER_PRELOAD` starts none). Modules that start threads when imported (``pyarrow``
and ``polars`` start allocator and clean-up threads) are left for the worker to import
after the fork.

And it hands the tasks to the pool in the order they were submitted
(:meth:`ForkServerTaskRunner._dispatch_in_order`): Prefect's pool may pass two of them on
in either order, and one batch's chunk overtaking another's delays that batch's load.

Where ``multiprocessing`` has no fork server (Windows), or where Prefect no longer takes
its start method as this module expects, the workers are spawned as Prefect does.
"""

from __future__ import annotations

import sys
import types
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import prefect.task_runners
from prefect.task_runners import ProcessPoolTaskRunner

from flows.fork_server import METHOD, WORKER_PRELOAD, fork_server_available, start_fork_server

__all__ = ["WORKER_PRELOAD", "ForkServerTaskRunner", "fork_server_available", "start_fork_server"]


class _StartMethod(types.ModuleType):
    """``multiprocessing`` as :mod:`prefect.task_runners` sees it while a runner starts:
    every start method it asks for is the fork server."""

    def __init__(self, real: types.ModuleType) -> None:
        super().__init__(real.__name__)
        self._real = real

    def get_context(self, method: str | None = None) -> Any:
        return self._real.get_context(METHOD)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


class ForkServerTaskRunner(ProcessPoolTaskRunner):
    """Prefect's process pool with its workers forked from the fork server.

    Prefect's pool asks ``multiprocessing`` for the spawn context when it starts; while
    it starts, this one hands it the fork server's instead. Everything else (the
    workers' initializer, context and settings passed with each task, the forwarding of
    their logs and events) is Prefect's. The fork server itself is started by
    :func:`start_fork_server` in the process that runs the flow; a runner entered
    elsewhere (Prefect enters a copy in each worker, for the task's context) starts
    no process of its own.
    """

    def __enter__(self) -> ForkServerTaskRunner:
        real = getattr(prefect.task_runners, "multiprocessing", None)
        if not fork_server_available() or real is not sys.modules["multiprocessing"]:
            super().__enter__()  # Prefect's pool as it is
        else:
            # (for the few lines of Prefect's __enter__; a runner is entered by the thread
            # running its flow, and no other one starts a pool meanwhile)
            prefect.task_runners.multiprocessing = _StartMethod(real)  # type: ignore[attr-defined]
            try:
                super().__enter__()
            finally:
                prefect.task_runners.multiprocessing = real  # type: ignore[attr-defined]
        self._dispatch_in_order()
        return self

    def _dispatch_in_order(self) -> None:
        """Hand the submitted tasks to the pool in the order they were submitted.

        Prefect passes each submission to the process pool from a thread pool of
        ``max_workers`` threads (which first waits for the futures the task depends on),
        so two submissions close together can reach the pool in either order. The ingest
        submits a batch's chunks and then the next batch's: a chunk of the next batch
        overtaking one of the current batch leaves the current batch (and its load)
        waiting for a whole chunk more. With one thread they keep their order. The
        ingest's tasks depend on no futures, so none waits behind another's
        dependencies."""
        resolver = getattr(self, "_resolver_executor", None)
        if isinstance(resolver, ThreadPoolExecutor):
            resolver.shutdown(wait=False)
            self._resolver_executor = ThreadPoolExecutor(
                max_workers=1, thread_name_prefix="zhuoji-task-dispatch"
            )
