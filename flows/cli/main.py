"""The ``zhuoji`` console script's entry point: the one list of the commands, imported only
when run.

:func:`build_app` puts every command on the root application
(:data:`zhuoji.flows.cli.app.app`: the options every command shares) in one explicit
list: each command module holds plain functions (or a Typer sub-application) and
registers nothing itself. ``from zhuoji.flows.cli.main import app`` gives the whole
command line (built once, on first use).

A spawned worker process (Prefect's own process pool, where there is no fork server:
see :mod:`zhuoji.flows.runtime.pool`) runs the parent's main script again (as
``__mp_main__``) before it takes a task. With the script importing the command modules,
every such worker paid for every command module (Typer, Rich, the dashboard ...) that it
never uses; importing this module costs nothing: the commands are imported when
:func:`main` runs.

A command may also ask to end without the interpreter's teardown
(:func:`zhuoji.flows.runtime.teardown.skip_teardown`): :func:`main` registers the exit
handler that ends the process with the command's status once its output is written.

Before anything is printed, standard output and standard error get an encoding error
handler that cannot fail (:func:`zhuoji.flows.text.terminal.escape_unencodable`): on a
terminal whose encoding cannot show a character (Latin-1, ASCII) the character is written
as an escape. A standard stream the caller closed (``zhuoji audit ... >&-``) is opened on
``/dev/null`` first (:func:`_open_closed_streams`).
"""

from __future__ import annotations

import atexit
import functools
import os
import sys
from typing import TYPE_CHECKING

from zhuoji.flows.runtime.teardown import end_without_teardown, record_status

if TYPE_CHECKING:
    import typer

__all__ = ["build_app", "main", "run_cli"]


@functools.cache
def build_app() -> typer.Typer:
    """The root application with every command on it, in the order ``zhuoji --help``
    lists them (built once)."""
    from zhuoji.flows.cli import (
        audit,
        dashboard,
        deploy,
        export,
        ingest,
        parse,
        report,
        rules,
        server,
        simulate,
    )
    from zhuoji.flows.cli.app import app
    from zhuoji.flows.cli.help import speak_help

    commands = (
        ("audit", audit.audit_command),
        ("dashboard", dashboard.dashboard_command),
        ("serve", dashboard.serve_command),
        ("ingest", ingest.ingest_command),
        ("forget", ingest.forget_command),
        ("deploy", deploy.deploy_command),
        ("schema", parse.schema_command),
        ("validate", parse.validate_command),
        ("convert", parse.convert_command),
        ("report", report.report_command),
        ("sql", report.sql_command),
        ("export", export.export_command),
        ("simulate", simulate.simulate),
    )
    groups = (
        ("rules", rules.rules_app),
        ("server", server.server_app),
    )
    for name, command in commands:
        app.command(name)(command)
    for name, group in groups:
        app.add_typer(group, name=name)
    speak_help(app)  # every command's --help in the invocation's language
    return app


def __getattr__(name: str) -> typer.Typer:
    # ``app``: the whole command line, built on first use (importing this module stays
    # free of Typer and of every command module)
    if name == "app":
        return build_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def run_cli() -> None:
    """Run the command line on ``sys.argv`` (without :func:`main`'s exit handling)."""
    build_app()()


def _open_closed_streams() -> None:
    """Put ``/dev/null`` where the caller left standard input, output or error closed.

    Python then has no stream to print to (``sys.stdout`` is None: a command's first line
    was an unexpected error), and the first file the command opens would take the closed
    descriptor: a worker or server process writing to its inherited standard output
    would write into the warehouse. What is printed is dropped, as Python drops a
    ``print`` when ``sys.stdout`` is None, and the command ends with its own status."""
    for fd, name in ((0, "stdin"), (1, "stdout"), (2, "stderr")):
        try:
            os.fstat(fd)
            continue
        except OSError:
            pass
        null = os.open(os.devnull, os.O_RDONLY if fd == 0 else os.O_WRONLY)
        if null != fd:
            os.dup2(null, fd)
            os.close(null)
        if getattr(sys, name) is None:
            mode = "r" if fd == 0 else "w"
            setattr(sys, name, open(fd, mode, encoding="utf-8", closefd=False))  # noqa: SIM115


def main() -> None:
    atexit.register(end_without_teardown)
    _open_closed_streams()
    from zhuoji.flows.text.terminal import escape_unencodable

    escape_unencodable()
    try:
        run_cli()
    except SystemExit as exc:
        code = exc.code
        record_status(code if isinstance(code, int) else 0 if code is None else 1)
        raise
    except KeyboardInterrupt:  # a Ctrl-C before the command began (its imports)
        from zhuoji.flows.cli.errors import error_line
        from zhuoji.rules.messages import Message

        sys.stderr.write(error_line(Message("interrupted")) + "\n")
        record_status(130)
        raise SystemExit(130) from None
    record_status(0)
