"""The Prefect API a run talks to: configured for the whole process, drained before it stops.

Works around: Prefect reads ``PREFECT_API_URL`` once per settings context, so an address
chosen at run time must be put in the environment, in Prefect's process-wide settings
(:func:`prefect.context.refresh_global_settings_context`) and in the current settings
context for every thread (Prefect's own log and event workers) and every worker process
to see it; and the logs and events Prefect still holds are sent only at interpreter exit,
after a temporary server has stopped, unless drained by hand (as ``prefect_test_harness``
does). The upstream change that would remove it: a documented way to point a running
process at another API and reload its settings
(https://github.com/PrefectHQ/prefect/issues/16290), and a public flush of the log and
event workers.

:func:`mark_flow_run_crashed` is the one API call a run makes outside a flow run: marking
the flow run of a killed process crashed (Prefect marks a flow run crashed only when its
own process sees it end).
"""

from __future__ import annotations

import inspect
import os
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager, suppress

from prefect.context import refresh_global_settings_context
from prefect.settings import (
    PREFECT_API_URL,
    PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS,
    temporary_settings,
)
from prefect.utilities.asyncutils import run_coro_as_sync

from zhuoji.flows.runtime.prefect_server import (
    ReusedPrefectServer,
    ServerWatch,
    idle_seconds,
    process_alive,
    reuse_available,
    reused_alive,
)
from zhuoji.flows.runtime.temporary_server import LocalPrefectServer, ServerStart

__all__ = ["mark_flow_run_crashed", "prefect_api"]


@contextmanager
def prefect_api(
    on_lost: Callable[[str], None] | None = None,
    announce: Callable[[ServerStart], None] | None = None,
) -> Iterator[str]:
    """Make sure a Prefect API is configured for this process and its workers.

    With ``PREFECT_API_URL`` set, that server is used. Otherwise the machine's reused
    local server (:class:`~zhuoji.flows.runtime.prefect_server.ReusedPrefectServer`: started by the
    first run, kept until idle for ``ZHUOJI_SERVER_IDLE_SECONDS``), or with that set to
    0 a temporary local server started here for this run (Prefect's ephemeral mode,
    :mod:`zhuoji.flows.runtime.temporary_server`); its address is set as ``PREFECT_API_URL`` for the
    whole process meanwhile: in the environment and Prefect's process-wide settings,
    which Prefect's own threads read, and in the current settings context. The pool's
    worker processes inherit it and talk to this server; nothing starts a server of its
    own.

    ``on_lost``: called (from a thread) should the local server go away meanwhile
    (:class:`~zhuoji.flows.runtime.prefect_server.ServerWatch`: its process ends, or it stops
    answering), with what happened; a server of ``PREFECT_API_URL`` is not watched.
    ``announce``: told when a local server is started for the run, and when it answers
    (:class:`~zhuoji.flows.runtime.temporary_server.ServerStart`); a server found running is
    not announced.
    """
    url = PREFECT_API_URL.value()
    if url:
        yield url
        return
    timeout = PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS.value()
    idle = idle_seconds()
    with ExitStack() as stack:
        if idle > 0 and reuse_available():
            reused = ReusedPrefectServer(timeout, idle)
            reused.announce = announce
            address = stack.enter_context(reused.use())
            assert reused.record is not None
            alive = reused_alive(reused.record.pid)
        else:
            temporary = LocalPrefectServer(timeout)
            temporary.announce = announce
            address = stack.enter_context(temporary)
            assert temporary.process is not None
            alive = process_alive(temporary.process)
        if on_lost is not None:  # (it watches the sending of the run's last events too)
            watch = stack.enter_context(ServerWatch(address, alive, on_lost))
            stack.enter_context(watch.on_interrupt())
        stack.enter_context(_process_api_url(address))
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


def mark_flow_run_crashed(run_id: uuid.UUID, message: str) -> bool:
    """Set the flow run ``run_id`` of this API to Crashed with ``message``; False when the
    API does not know it (a run of another Prefect server) or it is already in a final
    state."""
    from prefect.client.orchestration import get_client
    from prefect.exceptions import ObjectNotFound
    from prefect.states import Crashed

    with get_client(sync_client=True) as client:
        try:
            run = client.read_flow_run(run_id)
        except ObjectNotFound:  # a run of another Prefect server
            return False
        if run.state is not None and run.state.is_final():
            return False
        client.set_flow_run_state(run_id, Crashed(message=message), force=True)
    return True
