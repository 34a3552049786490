"""Dead flow runs marked Crashed without waiting for anyone: heartbeats and an automation.

A flow run whose process dies (``kill -9``, the out-of-memory killer, a lost machine)
cannot say so, and Prefect marks it Crashed only when a process watching it sees it end:
the run's own engine, or the runner that started it (``flow.serve``, which marks the run
it started but not that run's subflows, and is gone too when its machine is). Otherwise
the run stays Running.

Works around: Prefect's documented remedy on a self-hosted server
(https://docs.prefect.io/v3/advanced/detect-zombie-flows) is the flow runs' heartbeat
events (``prefect.flow-run.heartbeat``, every ``PREFECT_FLOWS_HEARTBEAT_FREQUENCY``
seconds, 30 at least) and an automation, created by hand, that sets a run Crashed when
its heartbeats stop; Prefect Cloud has it built in ("Unresponsive run detection"), the
open-source server does not. :func:`ensure_crash_automation` creates that automation for
the runs carrying one tag; :func:`crash_subflows` marks a crashed run's subflows at once.
The upstream change that would remove it: the managed automation in the open-source
server, and a runner that marks the subflows of a run it found crashed.

Nothing here imports Prefect until it is called.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Mapping

__all__ = [
    "DEFAULT_CRASHED_AFTER",
    "DEFAULT_HEARTBEAT",
    "EVALUATION_SECONDS",
    "HEARTBEAT_ENV",
    "MINIMUM_HEARTBEAT",
    "HeartbeatSettingError",
    "crash_automation_name",
    "crash_subflows",
    "ensure_crash_automation",
    "glob_escape",
    "heartbeat_seconds",
    "least_crashed_after",
]

HEARTBEAT_ENV = "PREFECT_FLOWS_HEARTBEAT_FREQUENCY"
"""Prefect's setting: the seconds between a flow run's heartbeat events."""
_LEGACY_HEARTBEAT_ENV = "PREFECT_RUNNER_HEARTBEAT_FREQUENCY"

MINIMUM_HEARTBEAT = 30
"""Prefect refuses a heartbeat under 30 s (the setting's validation and the engine's floor)."""

DEFAULT_HEARTBEAT = MINIMUM_HEARTBEAT
"""The heartbeat of the runs ``zhuoji deploy`` serves when the environment sets none
(Prefect's own default is 180 s)."""

DEFAULT_CRASHED_AFTER = 90
"""How long a run may send no heartbeat before it is marked Crashed, by default: three
heartbeats, the figure of Prefect's guide."""

HEARTBEAT_MARGIN = 10
"""The least time a run's next heartbeat is given beyond the heartbeat itself: a loaded
machine delays a heartbeat by seconds, and a healthy run must not be marked Crashed."""

EVALUATION_SECONDS = 5
"""How often the Prefect server evaluates the automation (its setting
``PREFECT_SERVER_EVENTS_PROACTIVE_GRANULARITY``, 5 s by default): a dead run is marked
Crashed at most this much, and the moment the action takes, after its window ends."""

_TERMINAL_EVENTS = (
    "prefect.flow-run.Completed",
    "prefect.flow-run.Failed",
    "prefect.flow-run.Cancelled",
    "prefect.flow-run.Crashed",
)


class HeartbeatSettingError(ValueError):
    """The heartbeat in the environment, or the crash window, cannot be used (raised with
    a :class:`~zhuoji.rules.messages.Message`)."""


def heartbeat_seconds(environ: Mapping[str, str] | None = None) -> int:
    """The flow runs' heartbeat the environment asks for (:data:`HEARTBEAT_ENV`, or its
    older name ``PREFECT_RUNNER_HEARTBEAT_FREQUENCY``), else :data:`DEFAULT_HEARTBEAT`.

    Read before Prefect is imported: Prefect refuses to import with a value that is no
    whole number of seconds of at least 30, with a traceback; here it is one error."""
    env = os.environ if environ is None else environ
    for name in (HEARTBEAT_ENV, _LEGACY_HEARTBEAT_ENV):
        value = env.get(name, "").strip()
        if not value:
            continue
        try:
            seconds = int(value)
        except ValueError:
            seconds = 0
        if seconds < MINIMUM_HEARTBEAT:
            from zhuoji.rules.messages import Message

            raise HeartbeatSettingError(Message(
                "{name:any}={value:any}: a flow run's heartbeat is a whole number of seconds, "
                "30 or more (zhuoji deploy needs heartbeats to see a run die)",
                name,
                value,
            ))
        return seconds
    return DEFAULT_HEARTBEAT


def least_crashed_after(heartbeat: int) -> int:
    """The shortest crash window for runs that beat every ``heartbeat`` seconds."""
    return heartbeat + HEARTBEAT_MARGIN


def check_crashed_after(crashed_after: float, heartbeat: int) -> None:
    """Refuse a crash window that a healthy run's heartbeat could miss."""
    least = least_crashed_after(heartbeat)
    if crashed_after < least:
        from zhuoji.rules.messages import Message

        raise HeartbeatSettingError(Message(
            "--crashed-after {after:any} s is too short for a heartbeat every {heartbeat:any} s: "
            "give {least:any} s or more",
            f"{crashed_after:g}",
            heartbeat,
            least,
        ))


def glob_escape(text: str) -> str:
    """``text`` as a pattern of Prefect's resource matching (``fnmatch``) that matches
    only itself."""
    return "".join(f"[{ch}]" if ch in "*?[" else ch for ch in text)


def crash_automation_name(tag: str) -> str:
    """The automation's name for the runs tagged ``tag`` (one automation per tag)."""
    return f"zhuoji: mark runs tagged {tag} crashed when their heartbeats stop"


def ensure_crash_automation(tag: str, crashed_after: float, heartbeat: int) -> uuid.UUID:
    """Create, or update, the automation that marks a flow run tagged ``tag`` Crashed once
    it sent nothing for ``crashed_after`` seconds since it started running or since its
    last heartbeat; its id. With the API of the current settings.

    Only runs tagged ``tag`` are watched: another program's runs, and the runs of
    ``zhuoji ingest`` (which beat no heartbeat), are left alone. A run that ends
    (Completed, Failed, Cancelled, Crashed) sends no more heartbeats and is not marked."""
    from datetime import timedelta

    from prefect.client.orchestration import get_client
    from prefect.client.schemas.objects import StateType
    from prefect.events.actions import ChangeFlowRunState
    from prefect.events.schemas.automations import AutomationCore, EventTrigger, Posture
    from prefect.events.schemas.events import ResourceSpecification

    check_crashed_after(crashed_after, heartbeat)
    name = crash_automation_name(tag)
    automation = AutomationCore(
        name=name,
        description=(
            f"Flow runs tagged {tag} send a heartbeat every {heartbeat} s (zhuoji deploy); "
            f"one that sent none for {crashed_after:g} s has died with its process: "
            "it is marked Crashed."
        ),
        enabled=True,
        trigger=EventTrigger(
            after={"prefect.flow-run.Running", "prefect.flow-run.heartbeat"},
            expect={"prefect.flow-run.heartbeat", *_TERMINAL_EVENTS},
            match=ResourceSpecification({"prefect.resource.id": "prefect.flow-run.*"}),
            match_related=ResourceSpecification(
                {
                    "prefect.resource.id": f"prefect.tag.{glob_escape(tag)}",
                    "prefect.resource.role": "tag",
                }
            ),
            for_each={"prefect.resource.id"},
            posture=Posture.Proactive,
            threshold=1,
            within=timedelta(seconds=crashed_after),
        ),
        actions=[
            ChangeFlowRunState(
                state=StateType.CRASHED,
                message=(
                    f"no heartbeat for {crashed_after:g} s: the run's process ended without "
                    "saying so (killed, or its machine lost); marked crashed by the "
                    f"automation '{name}'"
                ),
            )
        ],
    )
    with get_client(sync_client=True) as client:
        found = client.read_automations_by_name(name)
        if not found:
            return client.create_automation(automation)
        first, *others = found
        client.update_automation(first.id, automation)
        for other in others:  # two serving processes started at once
            client.delete_automation(other.id)
        return first.id


def crash_subflows(parent_id: uuid.UUID, message: str) -> list[str]:
    """Mark Crashed, with ``message``, every subflow run of the flow run ``parent_id``
    (and theirs) not yet in a final state; their names. With the API of the current
    settings."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterParentFlowRunId
    from prefect.states import Crashed

    marked: list[str] = []
    with get_client(sync_client=True) as client:
        parents = [parent_id]
        while parents:
            children = client.read_flow_runs(
                flow_run_filter=FlowRunFilter(
                    parent_flow_run_id=FlowRunFilterParentFlowRunId(any_=parents)
                )
            )
            parents = []
            for child in children:
                parents.append(child.id)
                if child.state is not None and child.state.is_final():
                    continue
                client.set_flow_run_state(child.id, Crashed(message=message), force=True)
                marked.append(child.name)
    return marked
