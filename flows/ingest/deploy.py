"""A Prefect deployment that ingests an inbox folder on a schedule (``zhuoji deploy``).

:func:`serve_inbox` serves :data:`inbox_flow` with Prefect's ``flow.serve``: the process
registers a deployment (``zhuoji-ingest-inbox/NAME``) with the Prefect server that
``PREFECT_API_URL`` names, with its schedule (every ``interval`` seconds, or a cron
expression), and runs each of its flow runs, scheduled or started by hand (``prefect
deployment run``, the UI), in a process of its own, one at a time. It runs until it is
stopped (Ctrl-C, SIGTERM), which pauses the deployment's schedule.

Each run of :data:`inbox_flow` is the ingest of ``zhuoji ingest INBOX --db DB`` as a
subflow (named and tagged after the database, with its own logs and artifact): files
already loaded are skipped, new and changed ones are loaded. A run that finds the
database held by another ingest or a reader waits up to ``wait`` seconds for it.

What an operator watching the serving process sees: each run is named
``ingest-FOLDER-YYYYMMDD-HHMMSS`` (:func:`run_name_for`, the inbox folder's name and the
run's start in UTC) and prints one line as it starts and one as it ends (the files loaded,
quarantined and unchanged, the hands, the seconds), in the command's language, whatever
Prefect's log level (:func:`console_line`). A run whose process dies is marked Crashed: at once
when the serving process sees it end (Prefect's runner marks the run, :func:`report_crash`
its ingest subflow, and prints a line), else by the server's automation once the run's
heartbeats stop (:mod:`zhuoji.flows.runtime.heartbeats`).

The deployment's entry point is this module (``zhuoji.flows.ingest.deploy:inbox_flow``), so the flow
runs from the installed package whatever the folder the server process was started in.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from prefect import flow

from zhuoji.flows.ingest.prefect_run import run_tags
from zhuoji.flows.ingest.run import run_ingest
from zhuoji.flows.runtime.heartbeats import (
    DEFAULT_CRASHED_AFTER,
    HEARTBEAT_ENV,
    HeartbeatSettingError,
    check_crashed_after,
    crash_subflows,
    ensure_crash_automation,
    heartbeat_seconds,
)
from zhuoji.flows.text.terminal import echo, safe
from zhuoji.rules.messages import Message

if TYPE_CHECKING:
    from prefect.client.schemas.objects import FlowRun, State
    from prefect.flows import Flow

    from zhuoji.rules.glossary import Lang

FLOW_NAME = "zhuoji-ingest-inbox"

DEFAULT_WAIT_SECONDS = 3600.0
"""How long a scheduled run waits for the database by default: a run that finds another
ingest writing to it waits for it to finish rather than fail."""

LANG_ENV = "ZHUOJI_DEPLOY_LANG"
"""The language of the runs' console lines (``zh`` or ``en``), set by :func:`serve_inbox`
for the processes it starts; unset, the locale's."""


class DeployError(ValueError):
    """A deployment that cannot be served as asked; the message says why."""


# --- what the console shows ------------------------------------------------------------------


def console_lang() -> Lang:
    """The language of the console lines: :data:`LANG_ENV`, else the locale's."""
    from zhuoji.rules.glossary import default_lang

    value = os.environ.get(LANG_ENV, "").strip().lower()
    if value == "zh":
        return "zh"
    if value == "en":
        return "en"
    return default_lang()


def console_line(english: str, **fields: object) -> None:
    """Print one console line (the glossary's sentence ``english`` in the console's
    language, with the time) on standard output, where the serving process shows it."""
    from zhuoji.rules.glossary import text

    line = text(english, console_lang(), time=f"{datetime.now():%H:%M:%S}", **fields)
    echo(line)


def run_name_for(inbox: str | Path, moment: datetime) -> str:
    """A deployment run's name: ``ingest-``, the inbox folder's name and the start
    (``ingest-inbox-20261206-184500``)."""
    folder = PurePosixPath(Path(inbox).as_posix()).name or "inbox"
    return f"ingest-{folder}-{moment:%Y%m%d-%H%M%S}"


def deployment_run_name() -> str:
    """The name of the current run of :data:`inbox_flow` (Prefect's ``flow_run_name``;
    a run that is only scheduled keeps the name Prefect gave it until it starts)."""
    from prefect.runtime import flow_run

    return run_name_for(str(flow_run.parameters.get("inbox", "")), datetime.now(UTC))


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def report_crash(flow: Flow[Any, Any], flow_run: FlowRun, state: State[Any]) -> None:
    """``on_crashed`` of :data:`inbox_flow`, run by the serving process when a run's
    process ended without finishing (Prefect's runner marked the run Crashed): mark the
    run's ingest subflow Crashed too (else only the server's automation would, once the
    subflow's heartbeats are overdue), and print the line."""
    from prefect.client.orchestration import get_client

    name = flow_run.name
    reason = (state.message or state.name or "crashed").strip()
    subflows: list[str] = []
    try:  # the line is printed even should the API fail (the automation marks them then)
        with get_client(sync_client=True) as client:
            name = client.read_flow_run(flow_run.id).name  # the runner's copy: the old name
        subflows = crash_subflows(flow_run.id, f"its deployment run {name} crashed: {reason}")
    except Exception:
        pass
    if subflows:
        console_line(
            "{time} ERROR {run} crashed: {reason}; marked crashed with it: {subflows}",
            run=safe(name),
            reason=safe(reason),
            subflows=", ".join(safe(s) for s in subflows),
        )
    else:
        console_line("{time} ERROR {run} crashed: {reason}", run=safe(name), reason=safe(reason))


# --- the flow --------------------------------------------------------------------------------


@flow(
    name=FLOW_NAME,
    log_prints=False,
    flow_run_name=deployment_run_name,
    on_crashed=[report_crash],
)
def inbox_flow(
    inbox: str,
    db: str,
    workers: int | None = None,
    dask_address: str | None = None,
    wait: float = DEFAULT_WAIT_SECONDS,
) -> dict[str, Any]:
    """Ingest the folder ``inbox`` into the database ``db``; the run's summary. The run's
    start and end are one console line each (:func:`console_line`); the ingest subflow carries the
    run's tags."""
    from prefect import tags
    from prefect.runtime import flow_run

    name = safe(flow_run.name)
    console_line("{time} INFO {run} started: ingesting {inbox} into {db}", run=name,
        inbox=safe(inbox), db=safe(db))
    started = time.monotonic()
    try:
        with tags(*flow_run.tags):
            summary = run_ingest(  # a subflow of this flow run, however small
                [inbox], db, workers=workers, dask_address=dask_address, wait=wait,
                progress=False, prefect=True,
            )
    except Exception as exc:
        console_line("{time} ERROR {run} failed after {seconds} s: {error}", run=name,
            seconds=f"{time.monotonic() - started:.1f}", error=safe(_first_line(exc)))
        raise
    console_line(
        "{time} INFO {run} completed in {seconds} s: files {loaded} loaded, "
        "{quarantined} quarantined, {skipped} unchanged; {hands} hands",
        run=name,
        seconds=f"{time.monotonic() - started:.1f}",
        loaded=f"{summary.files_loaded:,}",
        quarantined=f"{summary.files_quarantined:,}",
        skipped=f"{summary.files_skipped:,}",
        hands=f"{summary.hands:,}",
    )
    return dataclasses.asdict(summary)


def deployment_parameters(
    inbox: str | Path,
    db: str | Path,
    *,
    workers: int | None = None,
    dask_address: str | None = None,
    wait: float = DEFAULT_WAIT_SECONDS,
) -> dict[str, Any]:
    """The deployment's parameters: the paths made absolute (the runs do not start in the
    folder ``zhuoji deploy`` was started in); the inbox must be a folder."""
    folder = Path(inbox)
    if not folder.is_dir():
        raise DeployError(Message("{inbox:any}: the inbox must be an existing folder", inbox))
    if wait < 0:
        raise DeployError(Message("the wait must be 0 seconds or more"))
    return {
        "inbox": folder.resolve().as_posix(),
        "db": Path(db).resolve().as_posix(),
        "workers": workers,
        "dask_address": dask_address,
        "wait": wait,
    }


def deployment_tag(name: str) -> str:
    """The tag of a deployment's runs and of their ingest subflows, which its crash
    automation watches (:func:`zhuoji.flows.runtime.heartbeats.ensure_crash_automation`)."""
    return f"deployment:{FLOW_NAME}/{name}"


@contextmanager
def _served_environment(heartbeat: int, lang: str | None) -> Iterator[None]:
    """The variables the served runs' processes inherit: their heartbeat and the console
    language; restored at the end (for a caller in the same process)."""
    wanted = {HEARTBEAT_ENV: str(heartbeat)}
    if lang is not None:
        wanted[LANG_ENV] = lang
    prior = {key: os.environ.get(key) for key in wanted}
    os.environ.update(wanted)
    try:
        yield
    finally:
        for key, value in prior.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def serve_inbox(
    inbox: str | Path,
    db: str | Path,
    *,
    name: str | None = None,
    interval: float | None = None,
    cron: str | None = None,
    workers: int | None = None,
    dask_address: str | None = None,
    wait: float = DEFAULT_WAIT_SECONDS,
    crashed_after: float = DEFAULT_CRASHED_AFTER,
    lang: str | None = None,
) -> None:
    """Serve the inbox deployment until stopped (see the module); needs a Prefect server.

    Its runs beat a heartbeat (``PREFECT_FLOWS_HEARTBEAT_FREQUENCY``, 30 s unless the
    environment sets it) and an automation of the server marks a run Crashed that sent
    none for ``crashed_after`` seconds (created or updated here, kept when the serving
    stops: it is most needed when the serving process is gone). ``lang``: the language
    of the console lines (None: the locale's)."""
    from prefect.settings import PREFECT_API_URL
    from prefect.types.entrypoint import EntrypointType

    from zhuoji.flows.warehouse.sqlfiles import WarehouseError
    from zhuoji.flows.warehouse.store import check_database_file

    try:  # a --db that is no DuckDB file (a FIFO, a folder ...) fails now, not every run
        check_database_file(db, missing_ok=True)
    except WarehouseError as exc:
        raise DeployError(exc.args[0] if len(exc.args) == 1 else str(exc)) from None
    if not PREFECT_API_URL.value():
        raise DeployError(Message(
            "zhuoji deploy needs a Prefect server that outlives it: start one with "
            "`prefect server start` and set PREFECT_API_URL (e.g. http://127.0.0.1:4200/api)"
        ))
    if interval is not None and cron is not None:
        raise DeployError(Message("give --interval or --cron, not both"))
    if interval is not None and interval <= 0:
        raise DeployError(Message("the interval must be more than 0 seconds"))
    try:
        heartbeat = heartbeat_seconds()
        check_crashed_after(crashed_after, heartbeat)
    except HeartbeatSettingError as exc:
        raise DeployError(exc.args[0]) from None
    parameters = deployment_parameters(
        inbox, db, workers=workers, dask_address=dask_address, wait=wait
    )
    deployment = name or default_name(parameters["db"])
    tag = deployment_tag(deployment)
    try:
        ensure_crash_automation(tag, crashed_after, heartbeat)
    except Exception as exc:  # an API that refuses it: the deployment would not be watched
        raise DeployError(Message(
            "the Prefect server did not take the automation that marks dead runs "
            "crashed: {error:external}",
            _first_line(exc),
        )) from None
    with _served_environment(heartbeat, lang):
        chinese = console_lang() == "zh"  # Prefect's own starting message is English
        if chinese:
            from zhuoji.rules.glossary import text

            echo(text("serving the deployment {flow}/{name}, polling for scheduled runs; to "
                      "trigger a run now: `prefect deployment run '{flow}/{name}'`; Ctrl-C "
                      "stops", "zh", flow=safe(inbox_flow.name), name=safe(deployment)))
        inbox_flow.serve(
            name=deployment,
            interval=interval,
            cron=cron,
            parameters=parameters,
            tags=[*run_tags(parameters["db"]), tag],
            description=f"zhuoji ingest of {parameters['inbox']} into {parameters['db']}",
            limit=1,
            entrypoint_type=EntrypointType.MODULE_PATH,
            print_starting_message=not chinese,
        )


def default_name(db: str | Path) -> str:
    """The deployment's name when none is given: the database file's name without suffix."""
    return Path(db).stem or "zhuoji"
