"""The local workers of ``zhuoji ingest``: Prefect's process pool, forked from a fork server.

Prefect's :class:`~prefect.task_runners.ProcessPoolTaskRunner` starts its workers with
``multiprocessing``'s *spawn* method: each worker is a new interpreter that imports Prefect,
the engine and the parsers before its first task, about 2.4 s of CPU a worker on this
project's 2-core machine, spent by both workers at once while the run waits for them.

:class:`ForkServerTaskRunner` is that pool with two changes. Its workers come from
``multiprocessing``'s *fork server*, a process that imports :data:`WORKER_PRELOAD` once and
forks a worker, already holding those modules, whenever the pool asks for one. The fork
server lives as long as the process that started it
(:func:`zhuoji.flows.runtime.fork_server.start_fork_server`),
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

A worker that dies mid-task (the kernel's out-of-memory killer, a ``kill -9``) breaks a
``concurrent.futures`` process pool for good: every task in it fails with
``BrokenProcessPool`` and so does every later submission. :meth:`ForkServerTaskRunner.repair`
replaces a broken pool with a fresh one (the ingest then retries each failed chunk once,
alone, and quarantines its files: :mod:`zhuoji.flows.ingest.recovery`). Each worker dies
with the fork server, and the fork server with the process that started it
(:func:`zhuoji.flows.runtime.fork_server.die_with_parent`), so killing ``zhuoji ingest``
leaves none. The copy of the runner Prefect enters in a worker for each task's context
starts no pool there.

Works around: Prefect's :class:`~prefect.task_runners.ProcessPoolTaskRunner` takes no start
method (it asks ``multiprocessing`` for *spawn*, so this module swaps the module Prefect
sees while it starts), no initializer of the caller's (the pool's ``_initializer`` is set
by hand; https://github.com/PrefectHQ/prefect/issues/22589 asks for one), hands its tasks
on from several threads in any order, and never replaces a pool a dead worker broke. The
upstream change that would remove it: ``ProcessPoolTaskRunner`` taking an ``mp_context``
(or start method) and an initializer, submitting in order, and replacing a broken
executor itself.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import types
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import suppress
from typing import Any

import prefect.task_runners
from prefect.task_runners import ProcessPoolTaskRunner, TaskRunner

from zhuoji.flows.runtime.fork_server import (
    METHOD,
    WORKER_PRELOAD,
    fork_server_available,
    fork_server_pid,
    in_pool_worker,
    init_pool_worker,
    start_fork_server,
)

__all__ = [
    "WORKER_PRELOAD",
    "ForkServerTaskRunner",
    "current_pool_repair",
    "fork_server_available",
    "release_semaphores",
    "start_fork_server",
]


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
        if in_pool_worker():
            # Prefect enters a copy of the flow's runner in the worker for each task's
            # context; the ingest's tasks submit none, so it needs no pool (nor the
            # queues and thread Prefect's pool would make, per task, in every worker).
            TaskRunner.__enter__(self)
            return self
        real = getattr(prefect.task_runners, "multiprocessing", None)
        if not fork_server_available() or real is not sys.modules["multiprocessing"]:
            super().__enter__()  # Prefect's pool as it is
        else:
            # each worker dies with the fork server (its parent), which dies with this process
            self._initializer = init_pool_worker
            self._initargs = (fork_server_pid(),)
            # (for the few lines of Prefect's __enter__; a runner is entered by the thread
            # running its flow, and no other one starts a pool meanwhile)
            prefect.task_runners.multiprocessing = _StartMethod(real)  # type: ignore[attr-defined]
            try:
                super().__enter__()
            finally:
                prefect.task_runners.multiprocessing = real  # type: ignore[attr-defined]
        self._dispatch_in_order()
        return self

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        """Prefect's end of the pool (it waits for every running task) once the flow
        ended or failed; once it was interrupted (Ctrl-C: a ``KeyboardInterrupt``, or any
        other exception that is not an ``Exception``), :meth:`stop_workers` instead."""
        if exc_type is None or issubclass(exc_type, Exception) or in_pool_worker():
            super().__exit__(exc_type, exc_value, traceback)
            return
        self.stop_workers()
        TaskRunner.__exit__(self, exc_type, exc_value, traceback)

    def stop_workers(self) -> None:
        """End the pool at once, for a run that was interrupted: its workers are killed
        (they ignore Ctrl-C, see :mod:`zhuoji.flows.runtime.fork_server_guard`), and with
        them the fork server, its tasks are cancelled, and nothing waits for them.

        Prefect's own end waits for each running task to finish (a task is about 15,000
        hands: half a minute and more), then for the thread that forwards the workers'
        logs (up to 5 s, and for ever on a queue a killed worker left locked). Killing a
        worker mid-task loses nothing: its shards are in the staging folder, which the
        next run clears, and its batch was not loaded. The fork server goes too: a worker
        the pool was still asking it for (the pool forks its workers as the first tasks
        are submitted, and the fork answers only once the fork server's imports are done,
        seconds after the start) would otherwise be forked after the others were killed,
        and the interpreter's exit would wait for its task. The next run in this process
        starts a new one (:func:`start_fork_server`). The thread forwarding the workers'
        logs is a daemon, left to end with the process; the queue it reads is not joined
        at exit (``cancel_join_thread``), nor is the pool's result thread waited for: it
        ends as soon as it sees the workers gone."""
        resolver = getattr(self, "_resolver_executor", None)
        if isinstance(resolver, ThreadPoolExecutor):
            resolver.shutdown(wait=False, cancel_futures=True)
            self._resolver_executor = None
        executor = self._executor
        self._executor = None
        if getattr(self, "_initializer", None) is init_pool_worker:  # (forked workers)
            server = fork_server_pid()
            if server is not None:
                with suppress(OSError):  # (gone already)
                    os.kill(server, signal.SIGKILL)
        if executor is not None:
            _kill(executor)
            # (it waits for a worker being forked, which the fork server's end fails)
            executor.shutdown(wait=False, cancel_futures=True)
            _kill(executor)
        queue = self._subprocess_message_queue
        if queue is not None:
            queue.cancel_join_thread()

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

    def repair(self) -> bool:
        """Replace the process pool with a fresh one if a dead worker broke it; True if so.

        The broken pool's other workers are ended and its queues closed by
        ``concurrent.futures``; its tasks have failed with ``BrokenProcessPool``. The
        queue the workers send their logs and events on is replaced too: a worker killed
        while writing to it may have left it locked.
        """
        executor = self._executor
        if executor is None or not getattr(executor, "_broken", False):
            return False
        executor.shutdown(wait=True, cancel_futures=True)
        old_queue = self._subprocess_message_queue
        if old_queue is not None:
            old_queue.cancel_join_thread()
        fork_server = fork_server_available() and self._initializer is init_pool_worker
        context = multiprocessing.get_context(METHOD if fork_server else "spawn")
        if fork_server:
            start_fork_server()  # (it runs on; it is started again only if it died)
            self._initargs = (fork_server_pid(),)
        self._subprocess_message_queue = context.Queue()
        self._message_forwarding_thread = threading.Thread(
            target=self._forward_subprocess_messages,
            name="ProcessPoolTaskRunnerMessageForwarder",
            daemon=True,
        )
        self._message_forwarding_thread.start()
        self._executor = ProcessPoolExecutor(
            max_workers=self._max_workers,
            mp_context=context,
            initializer=prefect.task_runners._initialize_process_pool_worker,
            initargs=(self._subprocess_message_queue, self._initializer, self._initargs),
        )
        return True


def _kill(executor: ProcessPoolExecutor) -> None:
    """Kill the worker processes of ``executor`` and reap them."""
    workers = list((getattr(executor, "_processes", None) or {}).values())
    for worker in workers:
        with suppress(Exception):  # (gone already, or never started)
            worker.kill()
    for worker in workers:
        with suppress(Exception):
            worker.join(timeout=5)


def current_pool_repair() -> Callable[[], object]:
    """What repairs the current flow run's task runner after a task failed: a local pool
    broken by a dead worker is replaced (:meth:`ForkServerTaskRunner.repair`); any other
    runner (Dask replaces lost workers itself) needs nothing."""
    from prefect.context import FlowRunContext

    context = FlowRunContext.get()
    runner = None if context is None else context.task_runner
    if isinstance(runner, ForkServerTaskRunner):
        return runner.repair
    return lambda: None


def release_semaphores() -> None:
    """Unlink the named semaphores of this process's pools and queues now (each
    ``multiprocessing`` lock is one), for a process about to end at once (``os._exit``)
    without its clean-ups: otherwise the resource tracker, left to clean up after it,
    warns on standard error of "leaked semaphore objects"."""
    from multiprocessing import synchronize, util

    for finalizer in list(util._finalizer_registry.values()):  # type: ignore[attr-defined]
        if getattr(finalizer, "_callback", None) is synchronize.SemLock._cleanup:  # type: ignore[attr-defined]
            with suppress(Exception):
                finalizer()
