"""``zhuoji ingest``: load log files into the DuckDB warehouse (a Prefect flow, or plain
calls for a small run with no server configured:
:func:`zhuoji.flows.ingest.run.run_ingest`)."""

from __future__ import annotations

import functools
import os
import re
import sys
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar, cast

import typer

from zhuoji.flows.cli.errors import (
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    describe_error,
    fail,
    is_debug,
    set_json_errors,
)
from zhuoji.flows.cli.jsonout import JsonOption, print_json, use_json
from zhuoji.flows.cli.lang import LangOption, use_lang
from zhuoji.flows.cli.prefect_env import quiet_prefect
from zhuoji.flows.text.terminal import make_console, safe

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rich.table import Table

    from zhuoji.flows.ingest.discover import SkippedPath
    from zhuoji.flows.ingest.prefect_run import ForgetSummary
    from zhuoji.flows.ingest.steps import RunSummary
    from zhuoji.flows.runtime.temporary_server import ServerStart
    from zhuoji.rules.glossary import Lang

def log_plain_run() -> None:
    """A run without Prefect (:mod:`zhuoji.flows.ingest.local_run`) prints its log lines on standard
    error with ``--debug`` (from DEBUG) or when Prefect's were asked for
    (``PREFECT_LOGGING_LEVEL=INFO`` or ``DEBUG``); otherwise they go nowhere, as a flow
    run's stay on its server."""
    import logging

    asked = os.environ.get("PREFECT_LOGGING_LEVEL", "").upper()
    if is_debug() or asked in ("DEBUG", "INFO"):
        from zhuoji.flows.ingest.local_run import log_to_stderr

        log_to_stderr(logging.DEBUG if is_debug() or asked == "DEBUG" else logging.INFO)


# scheme://host:port (Dask's tcp, tls, ucx, ws, wss, inproc) or host:port
_DASK_ADDRESS = re.compile(r"^(?:(tcp|tls|ucx|ws|wss|inproc)://)?(\[[0-9a-fA-F:.]+\]|[^:/\s]+):(\d{1,5})/?$")


def check_dask_address(address: str) -> None:
    """Raise a usage error unless ``address`` looks like a scheduler's address."""
    match = _DASK_ADDRESS.match(address)
    if match is None or not 0 < int(match.group(3)) < 65536:
        from zhuoji.rules.messages import Message

        raise typer.BadParameter(
            Message("{a:any} is not a scheduler address: expected tcp://HOST:PORT",
                    repr(address)),
            param_hint="--dask-address",
        )


def explain_run_error(exc: BaseException, dask_address: str | None) -> str:
    """The one line for an ingest that could not run: a scheduler or an API that cannot
    be reached, a full or read-only disk, ..."""
    from zhuoji.rules.messages import Message

    text = str(exc)
    if dask_address and isinstance(exc, OSError | TimeoutError) and (
        "connect" in text.lower() or isinstance(exc, TimeoutError)
    ):
        return Message("cannot reach the Dask scheduler at {a:any}: {d:external}",
                       dask_address, text)
    if "Failed to reach API" in text or type(exc).__module__.startswith(("httpx", "httpcore")):
        url = os.environ.get("PREFECT_API_URL", "")
        if url:
            return Message("cannot reach the Prefect API at {url:any} (PREFECT_API_URL): start "
                           "the server (`prefect server start`) or unset PREFECT_API_URL for "
                           "a temporary one", url)
        return Message("cannot reach the Prefect API: start the server (`prefect server "
                       "start`) or unset PREFECT_API_URL for a temporary one")
    return describe_error(exc)


def server_lost_line(db: Path, what: str, runs: Sequence[tuple[int, str]]) -> str:
    """The one line of an ingest whose local Prefect server went away (``what``), given
    what became of its runs (:func:`zhuoji.flows.ingest.steps.interrupt_active_runs`)."""
    from zhuoji.rules.messages import Message

    if not runs:
        return Message(
            "ingest into {db:any}: {what:said} before the run began loading; the warehouse is "
            "unchanged: run the same command again: it starts a new local server", db, what,
        )
    run_id, status = runs[-1]
    if status == "completed":
        return Message(
            "ingest into {db:any}: {what:said} as the run ended; every batch is committed in "
            "the warehouse (run {run:n} completed), only its flow run's end is not recorded "
            "in Prefect: the same command again skips the files loaded", db, what, run_id,
        )
    marked = (
        Message("run {run:n} is marked interrupted", run_id)
        if status == "interrupted"
        else Message("the next run marks run {run:n} interrupted", run_id)
    )
    return Message(
        "ingest into {db:any}: {what:said}; the batches committed before are safe in the "
        "warehouse ({marked:said}): run the same command again: it starts a new local server "
        "and skips the files already loaded", db, what, marked,
    )


def interrupted_line(db: Path, run: tuple[int, str] | None) -> str:
    """The one line of an ingest ended by Ctrl-C, given what became of its run
    (:func:`zhuoji.flows.ingest.steps.last_run_status`; None: no run was recorded)."""
    from zhuoji.rules.messages import Message

    if run is None:
        return Message(
            "ingest into {db:any}: interrupted before the run began loading; the warehouse is "
            "unchanged", str(db),
        )
    run_id, status = run
    if status == "completed":
        return Message(
            "ingest into {db:any}: interrupted as the run ended; every batch is committed in "
            "the warehouse (run {run:n} completed)", str(db), run_id,
        )
    marked = (
        Message("run {run:n} is marked interrupted", run_id)
        if status == "interrupted"
        else Message("the next run marks run {run:n} interrupted", run_id)
    )
    return Message(
        "ingest into {db:any}: interrupted; the batches committed before are safe in the "
        "warehouse ({marked:said}): the same command again skips the files already loaded "
        "and loads the rest", str(db), marked,
    )


def _last_run() -> tuple[int, str] | None:
    if "zhuoji.flows.ingest.steps" not in sys.modules:  # interrupted before it was imported
        return None
    from zhuoji.flows.ingest.steps import last_run_status

    return last_run_status()


Command = TypeVar("Command", bound=Callable[..., None])


def ends_in_one_line_when_interrupted(command: Command) -> Command:
    """``zhuoji ingest`` interrupted (Ctrl-C) at any point of its run: one line
    (:func:`interrupted_line`) and exit status 130. The run's row is marked interrupted
    and its workers ended on the way (:func:`zhuoji.flows.ingest.steps.ingest_steps`,
    :meth:`zhuoji.flows.runtime.pool.ForkServerTaskRunner.stop_workers`)."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> None:
        try:
            command(*args, **kwargs)
        except KeyboardInterrupt:
            db = Path(kwargs.get("db", "zhuoji.duckdb"))
            line = interrupted_line(db, _last_run())
            raise fail(line, EXIT_INTERRUPTED) from None

    return cast(Command, run)


def exit_when_server_lost(db: Path) -> Callable[[str], None]:
    """What ``zhuoji ingest`` does when its local Prefect server goes away mid-run (see
    :class:`zhuoji.flows.runtime.prefect_server.ServerWatch`): mark its run interrupted in the
    warehouse
    where it can, print one line, and end the process at once with exit status 2.

    Its committed batches are safe as after a ``kill -9`` (each batch is one transaction,
    the workers and their fork server die with the process); waiting for Prefect's
    client instead would take minutes, or for ever."""

    def lost(what: str) -> None:
        from zhuoji.flows.ingest.steps import interrupt_active_runs

        runs = interrupt_active_runs()
        fail(server_lost_line(db, what, runs))
        if "zhuoji.flows.runtime.pool" in sys.modules:  # a pool's workers die with this process
            from zhuoji.flows.runtime.pool import release_semaphores

            release_semaphores()
        for stream in (sys.stdout, sys.stderr):
            with suppress(OSError, ValueError):
                stream.flush()
        os._exit(EXIT_ERROR)

    return lost


def announce_server_start(lang: Lang) -> Callable[[ServerStart], None]:
    """What ``zhuoji ingest`` says on standard error when a local Prefect server is
    started for its run (a first start in a Prefect home takes seconds: its database is
    created), in ``lang``: a line as it starts and one when it answers."""
    from zhuoji.rules.glossary import text

    def say(start: ServerStart) -> None:
        if start.seconds is None:
            line = text(
                "starting a local Prefect server (the first start takes about {seconds} s) ..."
                if start.first
                else "starting a local Prefect server (about {seconds} s) ...",
                lang,
                seconds=f"{start.expected:g}",
            )
        else:
            line = text("local Prefect server started in {seconds} s", lang,
                        seconds=f"{start.seconds:.1f}")
        with suppress(OSError, ValueError):  # a closed standard error: the run goes on
            sys.stderr.write(line + "\n")
            sys.stderr.flush()

    return say


@ends_in_one_line_when_interrupted
@quiet_prefect()
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
    wait: Annotated[
        float,
        typer.Option(
            "--wait",
            min=0,
            metavar="SECONDS",
            help="Wait up to SECONDS for another ingest or a reader to let go of the database.",
        ),
    ] = 0,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
    json_output: Annotated[
        bool,
        typer.Option("--json", help="Print the summary as one JSON object (no progress bar)."),
    ] = False,
    full_refresh: Annotated[
        bool,
        typer.Option("--full-refresh", help="Audit every file found again, changed or not."),
    ] = False,
    prune: Annotated[
        bool,
        typer.Option(
            "--prune",
            help="Drop the rows of files under the given folders that no longer exist.",
        ),
    ] = False,
    prefect: Annotated[
        bool,
        typer.Option(
            "--prefect",
            help="Run as a Prefect flow even when the run is small and no Prefect server "
            "is configured (the local server is started or reused; ZHUOJI_PREFECT=1 for "
            "every run).",
        ),
    ] = False,
    lang: LangOption = None,
) -> None:
    """Parse, audit and load logs into DuckDB; files already loaded are skipped.

    Changed files replace their rows; unchanged files audited by another engine version
    or under a ruleset that now resolves differently are audited again; a file found at a
    new path with the content of one that is gone takes over its rows (renamed).

    Prints the files seen, loaded, skipped and quarantined (each quarantined file with its
    reason), the games, hands, violations (illegal moves), disputed hands (hands whose
    record differs from the recomputation) and settlement findings (a disputed hand has
    one or more). With --json: one object {"run_id", "db", "runner", "workers",
    "files_seen", "files_loaded", "files_skipped", "files_quarantined", "games", "hands",
    "violations", "disputed_hands", "settlement_findings", "mismatches" (the older name of
    settlement_findings, kept), "seconds", "quarantined": [{"file", "reason"}]}; an error
    is one object {"error": {"message"}}.

    A small run (at most 1 MiB of logs, no --workers) with no Prefect server configured
    (PREFECT_API_URL, in the environment or a Prefect profile) runs in this process
    without Prefect: no flow run, no server. Any other run is a Prefect flow run.

    Exit status: 0 when the run finished (quarantined files included: they are reported
    and recorded), 2 on an error (a path that names nothing, a busy database, a full or
    read-only disk, an unreachable scheduler or Prefect API).
    """
    language = use_lang(lang)
    from zhuoji.flows.runtime.teardown import skip_teardown

    skip_teardown()  # once the output is written: no interpreter teardown (1-3 s)
    set_json_errors(json_output)
    if dask_address is not None:
        check_dask_address(dask_address)
    if dask_address is None and os.environ.get("PREFECT_API_URL"):
        # No temporary server will start for the fork server's imports to overlap (see
        # run_ingest), so they overlap this process's import of the flow. Without a
        # server configured, starting them here delayed the server's start: about a
        # second slower.
        from zhuoji.flows.runtime.fork_server import start_fork_server

        start_fork_server()
    from zhuoji.flows.cli.parse import check_limits
    from zhuoji.flows.ingest.discover import InputPathError, find_log_paths
    from zhuoji.flows.ingest.run import run_ingest
    from zhuoji.flows.ingest.steps import command_started
    from zhuoji.flows.runtime.dask_cluster import DaskClusterError
    from zhuoji.flows.warehouse.sqlfiles import WarehouseError

    if dask_address is not None:
        from zhuoji.flows.ingest.prefect_run import MissingExtraError, require_dask_extra

        try:
            require_dask_extra()
        except MissingExtraError as exc:
            raise fail(exc) from None
    check_limits()  # before the workers start: they read the same variables
    log_plain_run()
    found = find_log_paths(paths)  # the one walk of the paths: the run takes it as it is
    try:
        summary = run_ingest(
            paths,
            db,
            workers=workers,
            dask_address=dask_address,
            batch_size=batch_size,
            progress=not (quiet or json_output),
            full_refresh=full_refresh,
            prune=prune,
            wait=wait,
            started=command_started(),  # the time the summary shows counts from there
            prefect=prefect,
            found=found,
            on_server_lost=exit_when_server_lost(db),
            on_server_start=None if quiet or json_output else announce_server_start(language),
        )
    except (InputPathError, WarehouseError, DaskClusterError) as exc:
        raise fail(exc) from None
    except (KeyboardInterrupt, BrokenPipeError):
        raise
    except Exception as exc:
        if is_debug():
            raise
        from zhuoji.rules.messages import Message

        raise fail(Message("ingest into {db:any}: {why:said}", db,
                           explain_run_error(exc, dask_address))) from None
    if json_output:
        import orjson

        sys.stdout.write(orjson.dumps(summary_json(summary, found.skipped)).decode() + "\n")
        return
    from rich.text import Text

    from zhuoji.rules.glossary import render, text

    def t(english: str, **fields: object) -> str:
        return text(english, language, **fields)

    console = make_console()
    console.print(render_summary(summary, language))
    for old, new in summary.renamed:
        console.print(
            Text.assemble((t("renamed"), "cyan"), f" {safe(old)} -> {safe(new)}"),
            soft_wrap=True,
        )
    for reason, count in reaudit_reasons(summary):
        files = t("{n} file" if count == 1 else "{n} files", n=f"{count:,}")
        console.print(
            Text.assemble((t("re-audited"), "cyan"),
                          f" {files}: {safe(render(reason, language))}"),
            soft_wrap=True,
        )
    for path in summary.pruned:
        console.print(
            Text.assemble((t("pruned"), "cyan"), t(" {path}: it no longer exists",
                                                   path=safe(path))),
            soft_wrap=True,
        )
    for path, reason in summary.quarantined:
        console.print(
            Text.assemble((t("quarantined"), "yellow"),
                          f" {safe(path)}: {safe(render(reason, language))}"),
            soft_wrap=True,
        )
    for skip in found.skipped:
        console.print(
            Text.assemble((t("skipped"), "yellow"),
                          f" {safe(skip.path)}: {safe(render(skip.reason, language))}"),
            soft_wrap=True,
        )


def summary_json(summary: RunSummary, skipped: Sequence[SkippedPath] = ()) -> dict[str, Any]:
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
        "disputed_hands": summary.disputed_hands,
        "settlement_findings": summary.settlement_findings,
        "mismatches": summary.mismatches,  # the older name of settlement_findings
        "files_reaudited": summary.files_reaudited,
        "files_renamed": summary.files_renamed,
        "files_pruned": summary.files_pruned,
        "engine_version": summary.engine_version,
        "seconds": round(summary.seconds, 3),
        "quarantined": [{"file": p, "reason": r} for p, r in summary.quarantined],
        "renamed": [{"from": old, "to": new} for old, new in summary.renamed],
        "reaudited": [{"file": p, "reason": r} for p, r in summary.reaudited],
        "pruned": list(summary.pruned),
        "skipped": [{"file": str(s.path), "reason": s.reason} for s in skipped],
    }


def reaudit_reasons(summary: RunSummary) -> list[tuple[str, int]]:
    """Why the run audited unchanged files again: each reason and how many files, in order."""
    counts: dict[str, int] = {}
    for _, reason in summary.reaudited:
        counts[reason] = counts.get(reason, 0) + 1
    return sorted(counts.items())


def render_summary(summary: RunSummary, lang: Lang = "en") -> Table:
    """The end-of-run table, in ``lang``."""
    from rich.table import Table
    from rich.text import Text

    from zhuoji.rules.glossary import text

    def t(english: str, **fields: object) -> str:
        return text(english, lang, **fields)

    title = Text(t("ingest run {run} into {db}", run=summary.run_id, db=safe(summary.db)))
    table = Table(title=title, show_header=False)
    table.add_column()  # (no header: the rows say what they count)
    table.add_column(justify="right")
    rows: list[tuple[str, str]] = [
        (t("files seen"), f"{summary.files_seen:,}"),
        (t("loaded"), f"{summary.files_loaded:,}"),
        (t("skipped (unchanged)"), f"{summary.files_skipped:,}"),
        (t("re-audited"), f"{summary.files_reaudited:,}"),
        (t("renamed (rows moved)"), f"{summary.files_renamed:,}"),
        (t("pruned (gone)"), f"{summary.files_pruned:,}"),
        (t("quarantined"), f"{summary.files_quarantined:,}"),
        (t("games"), f"{summary.games:,}"),
        (t("hands"), f"{summary.hands:,}"),
        (t("violations"), f"{summary.violations:,}"),
        (t("disputed hands"), f"{summary.disputed_hands:,}"),
        (t("settlement findings"), f"{summary.settlement_findings:,}"),
        (t("runner"), t("{runner}, {workers} workers", runner=summary.runner,
                        workers=summary.workers)),
        (t("engine"), summary.engine_version),
        (t("time"), t("{seconds} s ({rate} hands/s)", seconds=f"{summary.seconds:.1f}",
                      rate=f"{summary.hands_per_second:,.0f}")),
    ]
    for what, count in rows:
        table.add_row(what, count)
    return table


def forget_command(
    paths: Annotated[
        list[str],
        typer.Argument(help="Files (they need not exist any more) or folders: every file under."),
    ],
    db: Annotated[Path, typer.Option("--db", help="The DuckDB file.")] = Path("zhuoji.duckdb"),
    json_output: JsonOption = False,
    lang: LangOption = None,
) -> None:
    """Drop every row of the named files (loaded or quarantined) from the warehouse.

    The run is recorded in ingest_runs (command 'forget').

    Exit status: 0 when every path named a file of the database, 2 when one named none
    (the others are still forgotten) or on an error (a busy database, a full or read-only
    disk).
    """
    language = use_lang(lang)
    use_json(json_output)
    from rich.text import Text

    from zhuoji.flows.ingest.prefect_run import run_forget
    from zhuoji.flows.warehouse.sqlfiles import WarehouseError

    try:
        summary = run_forget(paths, db)
    except WarehouseError as exc:
        raise fail(exc) from None
    from zhuoji.rules.glossary import text
    from zhuoji.rules.messages import Message

    if json_output:
        print_json(forget_json(summary))
        if summary.unknown:
            use_json(False)  # the document above names them: one document on stdout
            raise fail(Message("not in the warehouse {db:any}: {paths:any}", db,
                               ", ".join(summary.unknown)))
        return
    console = make_console()
    for path in summary.forgotten:
        console.print(Text.assemble((text("forgot", language), "cyan"), f" {safe(path)}"),
                      soft_wrap=True)
    if summary.run_id is not None:
        console.print(
            Text(text(
                "forget run {run} into {db}: {n} file forgotten (their games: {games}, "
                "hands: {hands})" if len(summary.forgotten) == 1 else
                "forget run {run} into {db}: {n} files forgotten (their games: {games}, "
                "hands: {hands})", language, run=summary.run_id, db=safe(summary.db),
                n=f"{len(summary.forgotten):,}", games=f"{summary.games:,}",
                hands=f"{summary.hands:,}",
            )),
            soft_wrap=True,
        )
    if summary.unknown:
        raise fail(Message("not in the warehouse {db:any}: {paths:any}", db,
                           ", ".join(summary.unknown)))


def forget_json(summary: ForgetSummary) -> dict[str, Any]:
    """The ``zhuoji forget --json`` object: the run (null when nothing was forgotten), the
    files forgotten (sorted) with their games and hands, the arguments that named no file
    of the database (in the order given)."""
    return {
        "run_id": summary.run_id,
        "db": summary.db,
        "forgotten": sorted(summary.forgotten),
        "unknown": list(summary.unknown),
        "games": summary.games,
        "hands": summary.hands,
    }
