"""``zhuoji ingest``: load log files into the DuckDB warehouse (the Prefect ingest flow)."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from flows.app import app
from flows.cli_errors import describe_error, fail, is_debug, set_json_errors
from flows.cli_text import make_console, safe

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


# Without --debug, a failed task or flow run is one error line of ours, not Prefect's
# log records with their tracebacks; unless Prefect's own logs were asked for
# (PREFECT_LOGGING_LEVEL=INFO or DEBUG).
_PREFECT_QUIET_RUNS = {
    "PREFECT_LOGGING_LOGGERS_PREFECT_FLOW_RUNS_LEVEL": "CRITICAL",
    "PREFECT_LOGGING_LOGGERS_PREFECT_TASK_RUNS_LEVEL": "CRITICAL",
}


def quiet_prefect() -> None:
    for key, value in _PREFECT_DEFAULTS.items():
        os.environ.setdefault(key, value)
    asked = os.environ["PREFECT_LOGGING_LEVEL"].upper() in ("DEBUG", "INFO")
    if not is_debug() and not asked:
        for key, value in _PREFECT_QUIET_RUNS.items():
            os.environ.setdefault(key, value)


# scheme://host:port (Dask's tcp, tls, ucx, ws, wss, inproc) or host:port
_DASK_ADDRESS = re.compile(r"^(?:(tcp|tls|ucx|ws|wss|inproc)://)?(\[[0-9a-fA-F:.]+\]|[^:/\s]+):(\d{1,5})/?$")


def check_dask_address(address: str) -> None:
    """Raise a usage error unless ``address`` looks like a scheduler's address."""
    match = _DASK_ADDRESS.match(address)
    if match is None or not 0 < int(match.group(3)) < 65536:
        raise typer.BadParameter(
            f"{address!r} is not a scheduler address: expected tcp://HOST:PORT",
            param_hint="--dask-address",
        )


def explain_run_error(exc: BaseException, dask_address: str | None) -> str:
    """The one line for an ingest that could not run: a scheduler or an API that cannot
    be reached, a full or read-only disk, ..."""
    text = str(exc)
    if dask_address and isinstance(exc, OSError | TimeoutError) and (
        "connect" in text.lower() or isinstance(exc, TimeoutError)
    ):
        return f"cannot reach the Dask scheduler at {dask_address}: {text}"
    if "Failed to reach API" in text or type(exc).__module__.startswith(("httpx", "httpcore")):
        url = os.environ.get("PREFECT_API_URL", "")
        where = f" at {url} (PREFECT_API_URL)" if url else ""
        return (
            f"cannot reach the Prefect API{where}: start the server (`prefect server start`) "
            "or unset PREFECT_API_URL for a temporary one"
        )
    return describe_error(exc)


@app.command("ingest")
def ingest_command(
    paths: Annotated[
        list[str], typer.Argument(help="Log files, folders (searched recursively) or globs.")
    ],
    db: Annotated[Path, typer.Option("--db", help="The DuckDB file.")] = Path("zhuoji.duckdb"),
    workers: Annotated[
        int | None,
        typer.Option("--workers", min=1, help="Worker processes (default: the number of cores)."),
    ] = None,
    dask_address: Annotated[
        str | None,
        typer.Option("--dask-address", help="Run on an existing Dask cluster (tcp://HOST:PORT)."),
    ] = None,
    batch_size: Annotated[
        int | None,
        typer.Option(
            "--batch-size",
            min=1,
            help="Files per batch, one transaction each (default: about 64 MB of logs per "
            "worker).",
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
    json_output: Annotated[
        bool,
        typer.Option("--json", help="Print the summary as one JSON object (no progress bar)."),
    ] = False,
) -> None:
    """Parse, audit and load logs into DuckDB; files already loaded are skipped.

    Prints the files seen, loaded, skipped and quarantined (each quarantined file with its
    reason), the games, hands, violations and mismatches. With --json: one object {"run_id",
    "db", "runner", "workers", "files_seen", "files_loaded", "files_skipped",
    "files_quarantined", "games", "hands", "violations", "mismatches", "seconds",
    "quarantined": [{"file", "reason"}]}; an error is one object {"error": {"message"}}.

    Exit status: 0 when the run finished (quarantined files included: they are reported
    and recorded), 2 on an error (a path that names nothing, a busy database, a full or
    read-only disk, an unreachable scheduler or Prefect API).
    """
    set_json_errors(json_output)
    if dask_address is not None:
        check_dask_address(dask_address)
    quiet_prefect()
    if dask_address is None and os.environ.get("PREFECT_API_URL"):
        # No temporary server will start for the fork server's imports to overlap (see
        # run_ingest), so they overlap this process's import of the flow. Without a
        # server configured, starting them here delayed the server's start: about a
        # second slower.
        from flows.fork_server import start_fork_server

        start_fork_server()
    from flows.discover import InputPathError
    from flows.ingest import run_ingest
    from flows.warehouse import WarehouseError

    try:
        summary = run_ingest(
            paths,
            db,
            workers=workers,
            dask_address=dask_address,
            batch_size=batch_size,
            progress=not (quiet or json_output),
        )
    except (InputPathError, WarehouseError) as exc:
        raise fail(str(exc)) from None
    except (KeyboardInterrupt, BrokenPipeError):
        raise
    except Exception as exc:
        if is_debug():
            raise
        raise fail(f"ingest into {db}: {explain_run_error(exc, dask_address)}") from None
    if json_output:
        import orjson

        sys.stdout.write(orjson.dumps(summary_json(summary)).decode() + "\n")
        return
    from rich.text import Text

    console = make_console()
    console.print(render_summary(summary))
    for path, reason in summary.quarantined:
        console.print(
            Text.assemble(("quarantined", "yellow"), f" {safe(path)}: {safe(reason)}"),
            soft_wrap=True,
        )


def summary_json(summary: RunSummary) -> dict[str, Any]:
    """The ``zhuoji ingest --json`` object."""
    return {
        "run_id": summary.run_id,
        "db": summary.db,
        "runner": summary.runner,
        "workers": summary.workers,
        "files_seen": summary.files_seen,
        "files_loaded": summary.files_loaded,
        "files_skipped": summary.files_skipped,
        "files_quarantined": summary.files_quarantined,
        "games": summary.games,
        "hands": summary.hands,
        "violations": summary.violations,
        "mismatches": summary.mismatches,
        "seconds": round(summary.seconds, 3),
        "quarantined": [{"file": p, "reason": r} for p, r in summary.quarantined],
    }


def render_summary(summary: RunSummary) -> Table:
    """The end-of-run table."""
    from rich.table import Table
    from rich.text import Text

    title = Text(f"ingest run {summary.run_id} into {safe(summary.db)}")
    table = Table(title=title, show_header=False)
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
