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

The deployment's entry point is this module (``zhuoji.flows.ingest.deploy:inbox_flow``), so the flow
runs from the installed package whatever the folder the server process was started in.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from prefect import flow

from zhuoji.flows.ingest.prefect_run import run_tags
from zhuoji.flows.ingest.run import run_ingest
from zhuoji.rules.messages import Message

FLOW_NAME = "zhuoji-ingest-inbox"

DEFAULT_WAIT_SECONDS = 3600.0
"""How long a scheduled run waits for the database by default: a run that finds another
ingest writing to it waits for it to finish rather than fail."""


class DeployError(ValueError):
    """A deployment that cannot be served as asked; the message says why."""


@flow(name=FLOW_NAME, log_prints=False)
def inbox_flow(
    inbox: str,
    db: str,
    workers: int | None = None,
    dask_address: str | None = None,
    wait: float = DEFAULT_WAIT_SECONDS,
) -> dict[str, Any]:
    """Ingest the folder ``inbox`` into the database ``db``; the run's summary."""
    summary = run_ingest(  # a subflow of this flow run, however small
        [inbox], db, workers=workers, dask_address=dask_address, wait=wait, progress=False,
        prefect=True,
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
) -> None:
    """Serve the inbox deployment until stopped (see the module); needs a Prefect server."""
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
    parameters = deployment_parameters(
        inbox, db, workers=workers, dask_address=dask_address, wait=wait
    )
    inbox_flow.serve(
        name=name or default_name(parameters["db"]),
        interval=interval,
        cron=cron,
        parameters=parameters,
        tags=run_tags(parameters["db"]),
        description=f"zhuoji ingest of {parameters['inbox']} into {parameters['db']}",
        limit=1,
        entrypoint_type=EntrypointType.MODULE_PATH,
        print_starting_message=True,
    )


def default_name(db: str | Path) -> str:
    """The deployment's name when none is given: the database file's name without suffix."""
    return Path(db).stem or "zhuoji"
