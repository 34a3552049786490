"""A Dask cluster as a run's workers: checked before the run, watched while it waits.

Before a run submits anything, :func:`check_dask_cluster` makes sure that the scheduler
answers, that it has workers, and that every worker imports the same zhuoji as this
process (within seconds, as one :class:`DaskClusterError`). Without that check a worker
that lacks the code dies unpickling its first task, the scheduler hands the task to the
next worker, and the run waits for ever.

While the run waits for a task, :meth:`DaskWatch.wait` keeps it from hanging: a cluster
left with no worker for :data:`NO_WORKER_SECONDS` fails the run with a clear error; a
task that killed the workers that ran it (Dask gives up after
``distributed.scheduler.allowed-failures`` tries, raising ``KilledWorker``) is the
caller's to handle (the ingest quarantines its files:
:mod:`zhuoji.flows.ingest.recovery`). A task that raises fails the run as it does locally.

The probe a worker runs is sent as text (:data:`_PROBE`) for :func:`eval`, a built-in
that every worker has: a function of this package would itself fail to unpickle on a
worker without the code, which is what the probe is there to find.

Works around: ``distributed`` waits for ever on a task no worker can run (a worker that
cannot unpickle it dies, the task moves to the next one; with no worker left a future
never resolves: https://github.com/dask/distributed/issues/301), and ``prefect-dask``'s
task runner neither checks the workers' environment nor sends the workers' Prefect logs
and events before the run's temporary server stops (:func:`drain_workers`). The upstream
change that would remove it: a ``distributed`` client wait that fails when the cluster has
no worker for a given time, and a check of the workers' packages
(``prefect-dask`` comparing the workers' versions to the client's, and flushing the
workers' log and event queues as its runner exits).
"""
from __future__ import annotations

import importlib.metadata
import time
from typing import Any

from zhuoji.rules.messages import Message

CONNECT_SECONDS = 10.0
"""How long to wait for the scheduler to answer."""

WORKER_WAIT_SECONDS = 5.0
"""How long a scheduler with no workers is given for one to join before the run starts."""

NO_WORKER_SECONDS = 60.0
"""How long a running ingest waits for a worker when the cluster has none left."""

DRAIN_SECONDS = 5.0
"""How long the end of a run tries to reach the scheduler to have the workers send their
logs and events."""

POLL_SECONDS = 1.0
"""How often a run waiting for a task looks at the cluster."""

_PROBE = (
    "(__import__({module!r}), "
    "__import__('importlib.metadata').metadata.version('zhuoji'))[1]"
)
"""What each worker evaluates: import the module of the tasks (``module``), return
zhuoji's version."""


_API_PROBE = (
    "__import__('urllib.request').request.build_opener("
    "__import__('urllib.request').request.ProxyHandler({{}})"
    ").open({url!r}, timeout=5).status"
)
"""What each worker evaluates to reach the Prefect API's health check (no proxy)."""

_DRAIN = """\
import inspect
from prefect.events.worker import EventsWorker
from prefect.logging.handlers import APILogWorker
from prefect.utilities.asyncutils import run_coro_as_sync

async def _drain():
    try:
        drained = APILogWorker.instance().drain()
    except RuntimeError:
        drained = None
    if inspect.isawaitable(drained):
        await drained
    events = EventsWorker.drain_all()
    if inspect.isawaitable(events):
        await events

run_coro_as_sync(_drain())
"""
"""What each worker runs at the end of a run (as a task, in a worker thread): send the
logs and events of its task runs that Prefect still holds, before a temporary server
stops."""


class DaskClusterError(RuntimeError):
    """A Dask cluster the ingest cannot run on; the one-line message says why and what to do."""

    def __init__(self, address: str, reason: str) -> None:
        super().__init__(Message("Dask cluster {a:any}: {why:said}", address, reason))
        self.address = address
        self.reason = reason


def local_version() -> str | None:
    """This process's zhuoji version (``None`` when it runs from a source tree not installed)."""
    try:
        return importlib.metadata.version("zhuoji")
    except importlib.metadata.PackageNotFoundError:
        return None


def first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def connect(address: str, timeout: float = CONNECT_SECONDS) -> Any:
    """A ``distributed.Client`` of the scheduler at ``address``, or :class:`DaskClusterError`."""
    from distributed import Client

    try:
        return Client(address, timeout=f"{timeout}s", set_as_default=False)  # type: ignore[no-untyped-call]
    except Exception as exc:
        raise DaskClusterError(
            address,
            Message("the scheduler does not answer within {s:any} s ({d:external}); "
                    "check the address (tcp://host:8786) and that `dask scheduler` runs there",
                    f"{timeout:g}", first_line(exc)),
        ) from None


def check_dask_cluster(
    address: str,
    worker_module: str,
    *,
    connect_seconds: float = CONNECT_SECONDS,
    worker_wait_seconds: float = WORKER_WAIT_SECONDS,
) -> int:
    """Check the cluster before a run; returns its number of workers.

    Raises :class:`DaskClusterError` when the scheduler does not answer, has no worker
    after ``worker_wait_seconds``, or has a worker that cannot import zhuoji (the tasks'
    module ``worker_module``) or imports another version of it than this process.
    """
    client = connect(address, connect_seconds)
    try:
        workers = _wait_for_workers(client, worker_wait_seconds)
        if not workers:
            raise DaskClusterError(
                address,
                Message("the scheduler has no workers (none joined within {s:any} s); "
                        "start them with `dask worker {a:any}` where zhuoji is installed",
                        f"{worker_wait_seconds:g}", address),
            )
        try:
            answers: dict[str, Any] = client.run(
                eval, _PROBE.format(module=worker_module), on_error="return"
            )
        except Exception as exc:
            raise DaskClusterError(
                address, Message("the workers did not answer ({d:external})", first_line(exc))
            ) from None
        _check_answers(address, answers)
        return len(answers)
    finally:
        client.close()


def check_workers_reach_api(address: str, api_url: str) -> None:
    """Raise :class:`DaskClusterError` unless every worker answers the Prefect API's health
    check at ``api_url`` (the task runs report their states there)."""
    client = connect(address)
    try:
        probe = _API_PROBE.format(url=f"{api_url.rstrip('/')}/health")
        answers: dict[str, Any] = client.run(eval, probe, on_error="return")
    finally:
        client.close()
    bad = sorted(w for w, a in answers.items() if a != 200)
    if bad:
        answer = answers[bad[0]]
        why = first_line(answer) if isinstance(answer, BaseException) else f"status {answer}"
        others = Message(" (and {n:n} more)", len(bad) - 1) if len(bad) > 1 else ""
        raise DaskClusterError(
            address,
            Message("worker {w:any}{o:external} cannot reach the Prefect API at {u:any} "
                    "({d:external}); run a Prefect server the workers can reach (`prefect "
                    "server start --host 0.0.0.0`) and set PREFECT_API_URL to its address",
                    bad[0], others, api_url, why),
        )


def drain_workers(address: str) -> None:
    """Have every worker send the logs and events Prefect holds (see :data:`_DRAIN`).

    Best effort: it runs as a run ends, also when the run failed (a cluster gone, say),
    and must not put its own error in the place of the run's."""
    try:
        client = connect(address, timeout=DRAIN_SECONDS)
    except DaskClusterError:
        return
    try:
        futures = [
            client.submit(exec, _DRAIN, {}, workers=[w], allow_other_workers=False, pure=False)
            for w in client.scheduler_info(n_workers=-1)["workers"]
        ]
        client.gather(futures, errors="skip")
    except Exception:  # the workers' logs are lost, the run's result is not
        pass
    finally:
        client.close()


def _wait_for_workers(client: Any, seconds: float) -> list[str]:
    deadline = time.monotonic() + seconds
    while True:
        workers = sorted(client.scheduler_info(n_workers=-1)["workers"])
        if workers or time.monotonic() >= deadline:
            return workers
        time.sleep(0.2)


def _check_answers(address: str, answers: dict[str, Any]) -> None:
    """A :class:`DaskClusterError` naming the first worker (in address order) that fails."""
    mine = local_version()
    wanted = f"zhuoji {mine}" if mine else "zhuoji"
    install = Message("install the same zhuoji wheel ({w:any}) on every worker (see "
                      "docs/pipeline.md)", wanted)
    bad: list[str] = []
    for worker in sorted(answers):
        answer = answers[worker]
        if isinstance(answer, BaseException):
            bad.append(Message("worker {w:any} cannot import zhuoji ({d:external})", worker,
                               first_line(answer)))
        elif mine is not None and answer != mine:
            bad.append(Message("worker {w:any} runs zhuoji {v:any}, this process {m:any}",
                               worker, answer, mine))
    if bad:
        if len(bad) > 1:
            raise DaskClusterError(address, Message(
                "{b:said} (and {n:n} more); {i:said}", bad[0], len(bad) - 1, install))
        raise DaskClusterError(address, Message("{b:said}; {i:said}", bad[0], install))


class DaskWatch:
    """Waits for the ingest's tasks on a Dask cluster without hanging (see the module)."""

    def __init__(
        self,
        address: str,
        *,
        no_worker_seconds: float = NO_WORKER_SECONDS,
        poll_seconds: float = POLL_SECONDS,
    ) -> None:
        self.address = address
        self.no_worker_seconds = no_worker_seconds
        self.poll_seconds = poll_seconds
        self._client: Any = None
        self._workerless_since: float | None = None

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def wait(self, future: Any, files: int) -> Any:
        """The result of one task (a ``PrefectDaskFuture`` of ``files`` files), waiting
        while the cluster has workers; ``distributed.KilledWorker`` is raised as it
        comes (the task killed the workers that ran it, :func:`dask_tries` times)."""
        while True:
            try:
                result = future.result(timeout=self.poll_seconds)
            except TimeoutError:
                self._check_workers(files)
                continue
            self._workerless_since = None
            return result

    def _check_workers(self, files: int) -> None:
        if self._client is None:
            self._client = connect(self.address)
        try:
            workers = len(self._client.scheduler_info(n_workers=-1)["workers"])
        except Exception as exc:
            raise DaskClusterError(
                self.address, Message("the scheduler stopped answering ({d:external})",
                                      first_line(exc))
            ) from None
        now = time.monotonic()
        if workers:
            self._workerless_since = None
            return
        if self._workerless_since is None:
            self._workerless_since = now
        elif now - self._workerless_since >= self.no_worker_seconds:
            raise DaskClusterError(
                self.address,
                Message("no worker left for {s:any} s with a task of {n:n} file(s) waiting; "
                        "the run stops here (what it loaded stays loaded, the next run does "
                        "the rest)", f"{self.no_worker_seconds:g}", files),
            )


def dask_tries() -> str:
    import dask.config

    allowed = dask.config.get("distributed.scheduler.allowed-failures", default=None)
    return str(int(allowed) + 1) if allowed is not None else "several"
