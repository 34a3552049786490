"""Ending a command without the interpreter's teardown.

A command may ask to end without the interpreter's teardown (:func:`skip_teardown`):
once its output is written, the non-daemon threads have ended and every exit handler has
run (Prefect's, ``multiprocessing``'s, ``logging``'s), the process exits with the
command's status (:func:`end_without_teardown`) instead of freeing every object and
module one by one. After an ingest that imported Prefect that teardown took 1.5-2.8 s on
the project's 2-core machine under load (0.5 s without Prefect), for nothing a user sees.

Works around: the interpreter's teardown after Prefect (its settings, client, server and
engine modules, their threads and event loops) costs seconds a short command does not
need. The upstream change that would remove it: Prefect's modules and background
services finalizing in a fraction of a second at interpreter exit (or CPython's
finalization not freeing each module's objects one by one for a process about to end).

Imports nothing but the standard library: the console script's entry module imports it
(:mod:`zhuoji.flows.cli.main`).
"""

from __future__ import annotations

import os
import sys
from contextlib import suppress

__all__ = ["end_without_teardown", "record_status", "skip_teardown"]

_status: list[int] = []
"""The command's exit status, once it has ended by ``SystemExit`` or returned."""
_skip: list[bool] = []
"""Whether the command asked to end without the teardown."""


def skip_teardown() -> None:
    """Ask for the process to end without the interpreter's teardown. Only a command run
    through the console script's entry (:func:`zhuoji.flows.cli.main.main`, which
    registers :func:`end_without_teardown`) ends so; elsewhere (a test's ``CliRunner``, a
    library caller) nothing changes."""
    _skip.append(True)


def record_status(code: int) -> None:
    """The command ended with exit status ``code``."""
    _status.append(code)


def end_without_teardown() -> None:
    """The exit handler: when the command asked for it (:func:`skip_teardown`) and has
    ended, flush the standard streams and exit with its status at once.

    Registered before anything else is imported: the last exit handler to run (they run
    in reverse order), after the interpreter has joined the non-daemon threads."""
    if not (_skip and _status):
        return
    for stream in (sys.stdout, sys.stderr):
        with suppress(OSError, ValueError):  # a closed pipe: nothing more to say
            stream.flush()
    os._exit(_status[-1])
