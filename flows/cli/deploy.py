"""``zhuoji deploy``: serve a Prefect deployment that ingests an inbox folder on a schedule."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from zhuoji.flows.cli.errors import fail
from zhuoji.flows.cli.lang import LangOption, use_lang
from zhuoji.flows.cli.prefect_env import quiet_prefect
from zhuoji.flows.runtime.heartbeats import DEFAULT_CRASHED_AFTER


@quiet_prefect()
def deploy_command(
    inbox: Annotated[Path, typer.Argument(help="the folder whose logs each run ingests")],
    db: Annotated[Path, typer.Option("--db", help="the DuckDB file")] = Path("zhuoji.duckdb"),
    name: Annotated[
        str | None,
        typer.Option("--name", help="the deployment's name (default: the database's name)"),
    ] = None,
    interval: Annotated[
        float | None,
        typer.Option("--interval", metavar="SECONDS", help="run every SECONDS seconds"),
    ] = None,
    cron: Annotated[
        str | None,
        typer.Option("--cron", metavar="EXPR", help='run on a cron schedule ("0 * * * *")'),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option("--workers", min=1, help="worker processes (default: the number of cores)"),
    ] = None,
    dask_address: Annotated[
        str | None,
        typer.Option("--dask-address", help="run on an existing Dask cluster (tcp://host:port)"),
    ] = None,
    wait: Annotated[
        float,
        typer.Option(
            "--wait",
            min=0,
            metavar="SECONDS",
            help="how long a run waits for another ingest or a reader to let go of the database",
        ),
    ] = 3600,
    crashed_after: Annotated[
        float,
        typer.Option(
            "--crashed-after",
            metavar="SECONDS",
            help="mark a run Crashed once it sent no heartbeat for SECONDS (its process died); "
            "at least the heartbeat (30 s) plus 10",
        ),
    ] = DEFAULT_CRASHED_AFTER,
    lang: LangOption = None,
) -> None:
    """Serve a deployment that ingests INBOX into the database on a schedule (until stopped).

    Needs a Prefect server (PREFECT_API_URL); runs without a schedule when neither
    --interval nor --cron is given (start them with `prefect deployment run`). Each run
    prints a line as it starts and as it ends; a run whose process dies is marked Crashed
    (at once while this command runs, else --crashed-after seconds after its last heartbeat)."""
    language = use_lang(lang)
    from zhuoji.flows.runtime.heartbeats import HeartbeatSettingError, heartbeat_seconds

    try:  # before Prefect is imported: it refuses to import with a bad heartbeat
        heartbeat_seconds()
    except HeartbeatSettingError as exc:
        raise fail(exc) from None
    from zhuoji.flows.ingest.deploy import DeployError, serve_inbox

    try:
        serve_inbox(
            inbox,
            db,
            name=name,
            interval=interval,
            cron=cron,
            workers=workers,
            dask_address=dask_address,
            wait=wait,
            crashed_after=crashed_after,
            lang=language,
        )
    except DeployError as exc:
        raise fail(exc) from None
