"""``zhuoji server``: the local Prefect server that ``zhuoji ingest`` keeps for later runs."""

from __future__ import annotations

import time

import typer

from zhuoji.flows.cli.jsonout import JsonOption, print_json, use_json
from zhuoji.flows.cli.lang import LangOption, t, use_lang
from zhuoji.flows.cli.prefect_env import quiet_prefect
from zhuoji.flows.text.terminal import echo

server_app = typer.Typer(
    help="The local Prefect server that ingest runs reuse (with no PREFECT_API_URL set).",
    no_args_is_help=True,
)


@server_app.command("status")
@quiet_prefect()
def status_command(json_output: JsonOption = False, lang: LangOption = None) -> None:
    """Whether the local server runs: its address, process, Prefect home and idle timeout.
    Exit code 0 when it runs, 1 when it does not."""
    use_lang(lang)
    use_json(json_output)
    from zhuoji.flows.runtime.prefect_server import LEASE_NAME, ReusedPrefectServer, idle_seconds

    idle = idle_seconds()
    server = ReusedPrefectServer(timeout=0, idle=idle)
    record = server.running()
    if json_output:
        lease = server.home / LEASE_NAME
        now = time.time()
        used = now - lease.stat().st_mtime if record is not None and lease.exists() else None
        print_json({
            "running": record is not None,
            "prefect_home": str(server.home),
            "url": None if record is None else record.url,
            "pid": None if record is None else record.pid,
            "prefect_version": None if record is None else record.version,
            "up_seconds": None if record is None else round(now - record.started_at, 3),
            "last_used_seconds": None if used is None else round(used, 3),
            "idle_timeout_seconds": idle,
        })
        if record is None:
            raise typer.Exit(1)
        return
    rows = [(t("prefect home"), str(server.home))]
    if record is None:
        rows.append((t("server"), t("not running (the next `zhuoji ingest` starts one)")))
        _labelled(rows)
        raise typer.Exit(1)
    lease = server.home / LEASE_NAME
    used = time.time() - lease.stat().st_mtime if lease.exists() else None
    rows.append((t("server"), t("{url} (pid {pid}, Prefect {version})", url=record.url,
                                pid=record.pid, version=record.version)))
    rows.append((t("up"), t("{seconds} s", seconds=f"{time.time() - record.started_at:,.0f}")))
    if used is not None:
        rows.append((t("last used"), t("{seconds} s ago", seconds=f"{used:,.0f}")))
    rows.append((t("idle timeout"), t("{seconds} s (ZHUOJI_SERVER_IDLE_SECONDS)",
                                      seconds=f"{idle:g}")))
    _labelled(rows)


def _labelled(rows: list[tuple[str, str]]) -> None:
    """Each label and its value, the values aligned (a wide character counts double)."""
    from zhuoji.flows.cli.rules import format_columns

    for line in format_columns([list(row) for row in rows]):
        echo(line)


@server_app.command("stop")
@quiet_prefect()
def stop_command(json_output: JsonOption = False, lang: LangOption = None) -> None:
    """Stop the local server, once the ingest runs using it end (the next run starts a
    new one). A run starting the server meanwhile is waited for, up to the server's start
    timeout and a minute (ZHUOJI_SERVER_LOCK_SECONDS)."""
    use_lang(lang)
    use_json(json_output)
    from prefect.settings import PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS

    from zhuoji.flows.runtime.prefect_server import ReusedPrefectServer, idle_seconds

    server = ReusedPrefectServer(
        timeout=PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS.value(),
        idle=idle_seconds(),
        who="zhuoji server stop",
    )
    record = server.stop_running(
        on_wait=lambda: echo(t("waiting for the ingest runs using the server to end"),
                             err=json_output)
    )
    if json_output:
        print_json({
            "stopped": record is not None,
            "prefect_home": str(server.home),
            "url": None if record is None else record.url,
            "pid": None if record is None else record.pid,
        })
        return
    if record is None:
        echo(t("no local server runs for {home}", home=server.home))
        return
    echo(t("stopped the local server {url} (pid {pid})", url=record.url, pid=record.pid))
