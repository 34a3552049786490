"""The ``zhuoji`` console script's entry point, which imports the commands only when run.

A spawned worker process (Prefect's own process pool, where there is no fork server:
see :mod:`zhuoji.flows.runtime.pool`) runs the parent's main script again (as ``__mp_main__``)
before
it takes a task. With the script importing :mod:`zhuoji.flows.cli.commands`, every such worker paid
for
every command module (Typer, Rich, the dashboard ...) that it never uses; importing this
module costs nothing.

A command may also ask to end without the interpreter's teardown
(:func:`skip_teardown`): once its output is written, the non-daemon threads have ended
and every exit handler has run (Prefect's, ``multiprocessing``'s, ``logging``'s), the
process exits with the command's status instead of freeing every object and module one
by one. After an ingest that imported Prefect that teardown took 1.5-2.8 s on the
project's 2-core machine under load (0.5 s without Prefect), for nothing a user sees.

Before anything is printed, standard output and standard error get an encoding error
handler that cannot fail (:func:`zhuoji.flows.text.terminal.escape_unencodable`): on a terminal
whose
encoding cannot show a character (Latin-1, ASCII) the character is written as an escape.
A standard stream the caller closed (``zhuoji audit ... >&-``) is opened on ``/dev/null``
first (:func:`_open_closed_streams`).
"""

from __future__ import annotations

import atexit
import os
import sys
from contextlib import suppress

_status: list[int] = []
"""The command's exit status, once it has ended by ``SystemExit`` or returned."""
_skip: list[bool] = []
"""Whether the command asked to end without the teardown."""


def skip_teardown() -> None:
    """Ask for the process to end without the interpreter's teardown (see the module's
    docstring). Only a command run through :func:`main` ends so; elsewhere (a test's
    ``CliRunner``, a library caller) nothing changes."""
    _skip.append(True)


def _end() -> None:
    # Registered before anything else is imported: the last exit handler to run (they
    # run in reverse order), after the interpreter has joined the non-daemon threads.
    if not (_skip and _status):
        return
    for stream in (sys.stdout, sys.stderr):
        with suppress(OSError, ValueError):  # a closed pipe: nothing more to say
            stream.flush()
    os._exit(_status[-1])


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
    atexit.register(_end)
    _open_closed_streams()
    from zhuoji.flows.text.terminal import escape_unencodable

    escape_unencodable()
    from zhuoji.flows.cli.commands import main as run_cli

    try:
        run_cli()
    except SystemExit as exc:
        code = exc.code
        _status.append(code if isinstance(code, int) else 0 if code is None else 1)
        raise
    _status.append(0)
