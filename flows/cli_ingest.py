"""``zhuoji ingest``: load log files into the DuckDB warehouse (the Prefect ingest flow)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from flows.app import app

if TYPE_CHECKING:
    from rich.table import Table

    from flows.ingest import RunSummary

# Prefect reads these when it is first imported: quiet its console logging, no telemetry,
# and room for a slow first start of the temporary server. A user's own values win.
_PREFECT_DEFAULTS = {
    "PREFECT_LOGGING_LEVEL": "WARNING",
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "90",
}


def quiet_prefect() -> None:
    for key, value in _PREFECT_DEFAULTS.items():
        os.environ.setdefault(key, value)


@app.command("ingest")
def ingest_command(
    paths: Annotated[
        list[str], typer.Argument(help="log files, folders (searched recursively) or globs")
    ],
    db: Annotated[Path, typer.Option("--db", help="the DuckDB file")] = Path("zhuoji.duckdb"),
    workers: Annotated[
        int | None,
        typer.Option("--workers", min=1, help="worker processes (default: the number of cores)"),
    ] = None,
    dask_address: Annotated[
        str | None,
        typer.Option("--dask-address", help="run on an existing Dask cluster (tcp://host:port)"),
    ] = None,
    batch_size: Annotated[
        int | None,
        typer.Option(
            "--batch-size",
            min=1,
            help="files per batch, one transaction each (default: about 64 MB of logs per worker)",
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="no progress bar")] = False,
) -> None:
    """Parse, audit and load logs into DuckDB; files already loaded are skipped."""
    quiet_prefect()
    if dask_address is None and os.environ.get("PREFECT_API_URL"):
        # No temporary server will start for the fork server's imports to overlap (see
        # run_ingest), so they overlap this process's import of the flow. Without a
        # server configured, starting them here delayed the server's start: about a
        # second slower.
        from flows.fork_server import start_fork_server

        start_fork_server()
    from rich.console import Console

    from flows.discover import InputPathError
    from flows.ingest import MissingExtraError, require_dask_extra, run_ingest
    from flows.warehouse import WarehouseError

    if dask_address is not None:
        try:
            require_dask_extra()
        except MissingExtraError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
    try:
        summary = run_ingest(
            paths,
            db,
            workers=workers,
            dask_address=dask_address,
            batch_size=batch_size,
            progress=not quiet,
        )
    except (InputPathError, WarehouseError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2 if isinstance(exc, InputPathError) else 1) from None
    console = Console()
    console.print(render_summary(summary))
    for path, reason in summary.quarantined:
        console.print(f"[yellow]quarantined[/] {path}: {reason}", highlight=False, soft_wrap=True)


def render_summary(summary: RunSummary) -> Table:
    """The end-of-run table."""
    from rich.table import Table

    table = Table(title=f"ingest run {summary.run_id} into {summary.db}", show_header=False)
    table.add_column("what")
    table.add_column("count", justify="right")
    rows: list[tuple[str, str]] = [
        ("files seen", f"{summary.files_seen:,}"),
        ("loaded", f"{summary.files_loaded:,}"),
        ("skipped (unchanged)", f"{summary.files_skipped:,}"),
        ("quarantined", f"{summary.files_quarantined:,}"),
        ("games", f"{summary.games:,}"),
        ("hands", f"{summary.hands:,}"),
        ("violations", f"{summary.violations:,}"),
        ("mismatches (disputed hands)", f"{summary.mismatches:,}"),
        ("runner", f"{summary.runner}, {summary.workers} workers"),
        ("time", f"{summary.seconds:.1f} s ({summary.hands_per_second:,.0f} hands/s)"),
    ]
    for what, count in rows:
        table.add_row(what, count)
    return table
