"""``zhuoji dashboard`` (a static HTML site over the warehouse) and ``zhuoji serve``.

The dashboard builder, DuckDB and Polars are imported when a command runs.
"""

from __future__ import annotations

import functools
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from zhuoji.flows.cli.errors import fail
from zhuoji.flows.cli.jsonout import JsonOption, print_json, use_json
from zhuoji.flows.cli.lang import LangOption, use_lang
from zhuoji.flows.text.terminal import echo

if TYPE_CHECKING:
    from collections.abc import Callable
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    from zhuoji.flows.dashboard.live import LiveDashboard

DbOption = Annotated[Path, typer.Option("--db", help="the DuckDB file")]
HandPagesOption = Annotated[
    int,
    typer.Option(
        "--hand-pages",
        min=1,
        help="audit pages for the most recent disputed hands, and as many for hands with "
        "illegal moves",
    ),
]
ListRowsOption = Annotated[int, typer.Option("--list-rows", min=1, help="rows per list page")]
WorkersOption = Annotated[
    int | None,
    typer.Option("--workers", min=1, help="processes rendering pages (default: cores, at most 4)"),
]

# DashboardLimits' defaults (a test keeps them equal), so that --help imports no builder.
DEFAULT_HAND_PAGES = 500
DEFAULT_LIST_ROWS = 200


def _errors() -> tuple[type[Exception], ...]:
    import duckdb

    from zhuoji.flows.dashboard.render import DashboardError
    from zhuoji.flows.warehouse.sqlfiles import WarehouseError

    return (WarehouseError, DashboardError, duckdb.Error)


def _fail(exc: Exception) -> typer.Exit:
    return fail(exc)


def dashboard_command(
    db: DbOption = Path("zhuoji.duckdb"),
    out: Annotated[
        Path, typer.Option("--out", help="the folder to write (created, or an earlier build)")
    ] = Path("dashboard"),
    hand_pages: HandPagesOption = DEFAULT_HAND_PAGES,
    list_rows: ListRowsOption = DEFAULT_LIST_ROWS,
    workers: WorkersOption = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress lines on standard error.")
    ] = False,
    json_output: JsonOption = False,
    lang: LangOption = None,
) -> None:
    """Write the static HTML dashboard of the warehouse (opens offline, from file://).

    While it builds, one line per group of pages on standard error (when it is a
    terminal; --quiet turns them off)."""
    language = use_lang(lang)
    use_json(json_output)
    from zhuoji.flows.dashboard.pages import DashboardLimits
    from zhuoji.flows.dashboard.site import build_dashboard
    from zhuoji.rules.glossary import text

    started = time.perf_counter()
    progress = None if quiet or not sys.stderr.isatty() else print_progress
    try:
        limits = DashboardLimits(hand_pages=hand_pages, list_rows=list_rows)
        summary = build_dashboard(
            db, out, limits, workers=workers, progress=progress, lang=language
        )
    except _errors() as exc:
        raise _fail(exc) from None
    other = "zh" if language == "en" else "en"
    if json_output:
        index = (out / "index.html").resolve()
        print_json({
            "db": str(db),
            "out": str(out.resolve()),
            "lang": language,
            "index": str(index),
            "indexes": dict(sorted({
                language: str(index), other: str((out / other / "index.html").resolve())
            }.items())),
            "pages": summary.pages,
            "bytes": summary.total_bytes,
            "largest_page": summary.largest_page,
            "largest_bytes": summary.largest_bytes,
            "players": summary.players,
            "hand_pages": summary.hand_pages,
        })
        return
    echo(text(
        "wrote {pages} pages ({size} MB; largest {largest} {largest_size} MB) for {players} "
        "players and {hands} audited hands in {seconds} s", language,
        pages=f"{summary.pages:,}", size=f"{summary.total_bytes / 1e6:.1f}",
        largest=summary.largest_page, largest_size=f"{summary.largest_bytes / 1e6:.2f}",
        players=f"{summary.players:,}", hands=f"{summary.hand_pages:,}",
        seconds=f"{time.perf_counter() - started:.1f}",
    ))
    echo(text("open {url}", language, url=(out / "index.html").resolve().as_uri()))
    echo(text("the other language: {url}", language,
              url=(out / other / "index.html").resolve().as_uri()))


def print_progress(group: str, pages: int, seconds: float) -> None:
    """A progress line of ``zhuoji dashboard`` on standard error, in the invocation's
    language (the group's name by the glossary's ``[message.pagegroup]``)."""
    from zhuoji.flows.cli.lang import current_lang
    from zhuoji.rules.glossary import render
    from zhuoji.rules.messages import Message

    line = Message("dashboard: {group:pagegroup}: {n:n} page written ({s:any} s)"
                   if pages == 1 else
                   "dashboard: {group:pagegroup}: {n:n} pages written ({s:any} s)",
                   group, f"{pages:,}", f"{seconds:.1f}")
    sys.stderr.write(render(line, current_lang()) + "\n")
    sys.stderr.flush()


def malformed_path(path: str) -> bool:
    """A request's path that names no page: its percent-escapes are not UTF-8 (an encoded
    surrogate included), or it holds a control or bidirectional character (``/%00``,
    ``/%1b``, ``/%e2%80%ae``), escaped or not: one :func:`zhuoji.flows.text.terminal.safe` escapes.
    No page of a dashboard has such a name."""
    import urllib.parse

    from zhuoji.flows.text.terminal import safe

    target = path.split("?", 1)[0].split("#", 1)[0]
    try:
        text = urllib.parse.unquote(target, errors="strict")
    except UnicodeDecodeError:
        return True
    return safe(text) != text


def _log(line: str) -> None:
    """A line of the server's on standard error, its control characters escaped, in the
    invocation's language."""
    from zhuoji.flows.cli.lang import current_lang
    from zhuoji.flows.text.terminal import safe
    from zhuoji.rules.glossary import render

    try:
        sys.stderr.write(f"serve: {safe(render(line, current_lang()))}\n")
        sys.stderr.flush()
    except (OSError, ValueError):  # standard error closed: nothing to tell it
        pass


@functools.cache
def _handler_class() -> Callable[..., SimpleHTTPRequestHandler]:
    """The request handler (made on first use: ``http.server`` costs --help 90 ms)."""
    from http import HTTPStatus
    from http.server import SimpleHTTPRequestHandler

    class _Handler(SimpleHTTPRequestHandler):
        """Serves the dashboard folder, rebuilding it first when the warehouse changed.

        A malformed path is answered 400 (it names no page); a client that hangs up
        before its answer is sent is one line on standard error, no traceback."""

        def __init__(self, *args: Any, live: LiveDashboard, **kwargs: Any) -> None:
            self.live = live
            super().__init__(*args, directory=str(live.folder), **kwargs)

        def handle(self) -> None:
            try:
                super().handle()
            except ConnectionError as exc:  # a broken pipe, a reset: the client left
                self.close_connection = True
                host, port = self.client_address[:2]
                from zhuoji.rules.messages import Message

                if getattr(self, "command", None):
                    path = self.path if len(self.path) <= 200 else self.path[:200] + "..."
                    _log(Message("the client at {h:any}:{p:any} hung up before {c:any} {u:any} "
                                 "was answered ({e:any})", host, port, self.command, path,
                                 type(exc).__name__))
                else:
                    _log(Message("the client at {h:any}:{p:any} hung up ({e:any})", host, port,
                                 type(exc).__name__))

        def do_GET(self) -> None:
            if self._accepted() and self._refresh():
                super().do_GET()

        def do_HEAD(self) -> None:
            if self._accepted() and self._refresh():
                super().do_HEAD()

        def _accepted(self) -> bool:
            if malformed_path(self.path):
                self.send_error(HTTPStatus.BAD_REQUEST, "Malformed path")
                return False
            return True

        def _refresh(self) -> bool:
            try:
                self.live.refresh()
            except _errors() as exc:
                self.send_error(HTTPStatus.SERVICE_UNAVAILABLE, str(exc))
                return False
            return True

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return _Handler


def _interrupt(signum: int, frame: object) -> None:
    """SIGTERM stops the server like Ctrl-C (the temporary folder is removed)."""
    raise KeyboardInterrupt


@functools.cache
def _server_class() -> type[ThreadingHTTPServer]:
    from http.server import ThreadingHTTPServer

    class _Server(ThreadingHTTPServer):
        def handle_error(self, request: Any, client_address: Any) -> None:
            """A request that failed: one line on standard error (the traceback too with
            --debug), never socketserver's traceback block."""
            from zhuoji.flows.cli.errors import is_debug

            exc = sys.exc_info()[1]
            host, port = client_address[:2]
            from zhuoji.rules.messages import Message

            if isinstance(exc, ConnectionError):
                _log(Message("the client at {h:any}:{p:any} hung up ({e:any})", host, port,
                             type(exc).__name__))
                return
            _log(Message("a request from {h:any}:{p:any} failed: {e:any}: {d:external}", host,
                         port, type(exc).__name__, str(exc)))
            if is_debug():
                import traceback

                traceback.print_exc()

    return _Server


def make_server(live: LiveDashboard, host: str, port: int) -> ThreadingHTTPServer:
    """An HTTP server over a live dashboard (port 0 picks a free port)."""
    return _server_class()((host, port), functools.partial(_handler_class(), live=live))


def serve_command(
    db: DbOption = Path("zhuoji.duckdb"),
    host: Annotated[str, typer.Option("--host", help="address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, help="port (0: any free port)")] = 8000,
    hand_pages: HandPagesOption = DEFAULT_HAND_PAGES,
    list_rows: ListRowsOption = DEFAULT_LIST_ROWS,
    workers: WorkersOption = None,
    json_output: JsonOption = False,
    lang: LangOption = None,
) -> None:
    """Serve the dashboard on a local web server; pages are rebuilt when the warehouse
    changes (the static `zhuoji dashboard` export remains the way to share it)."""
    language = use_lang(lang)
    use_json(json_output)
    from zhuoji.flows.dashboard.live import LiveDashboard
    from zhuoji.flows.dashboard.pages import DashboardLimits
    from zhuoji.rules.glossary import text

    folder = Path(tempfile.mkdtemp(prefix="zhuoji-serve-"))
    try:
        limits = DashboardLimits(hand_pages=hand_pages, list_rows=list_rows)
        live = LiveDashboard(db, folder, limits, workers=workers, lang=language)
        try:
            live.refresh()
        except _errors() as exc:
            raise _fail(exc) from None
        server = make_server(live, host, port)
        address = f"http://{host}:{server.server_address[1]}/"
        if json_output:
            print_json({
                "db": str(db),
                "address": address,
                "lang": language,
                "pages": sum(1 for _ in folder.rglob("*.html")),
            })
        else:
            echo(text("serving the dashboard of {db} at {address} (Ctrl-C stops)", language,
                      db=db, address=address))
        previous = signal.signal(signal.SIGTERM, _interrupt)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            signal.signal(signal.SIGTERM, previous)
            server.server_close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
