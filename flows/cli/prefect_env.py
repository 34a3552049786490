"""Prefect's settings for one command (``zhuoji ingest``, ``deploy``, ``server``): quiet
console logging, no telemetry, room for a slow first start of a local server.

Works around: Prefect reads its settings from the environment when it is first imported
and in every process it starts, and logs each failed task or flow run with its traceback
on the console; so the defaults are put in ``os.environ`` for the length of the command.
The upstream change that would remove it: Prefect settings scoped to a call (a context
that also reaches its subprocesses), and a console handler that leaves failed runs'
tracebacks to the API.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from zhuoji.flows.cli.errors import is_debug

__all__ = ["quiet_prefect"]

# Prefect reads these when it is first imported: quiet its console logging, no telemetry,
# and room for a slow first start of the temporary server. A user's own values win.
# Telemetry is off twice: on the server (PREFECT_SERVER_ANALYTICS_ENABLED) and in the
# client, which reads only DO_NOT_TRACK (Prefect's import prints its telemetry notice on
# a terminal, the first time in a Prefect home, unless it is set).
_PREFECT_DEFAULTS = {
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "DO_NOT_TRACK": "1",
    "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "90",
}
_PREFECT_QUIET_CONSOLE = {
    "PREFECT_LOGGING_LEVEL": "WARNING",
    # the flow's own log lines (INFO) still reach the Prefect API, not the console
    "PREFECT_LOGGING_LOGGERS_PREFECT_FLOW_RUNS_LEVEL": "INFO",
    "PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL": "WARNING",
}


# Without --debug, a failed task or flow run is one error line of ours on the console, not
# Prefect's log records with their tracebacks (they still reach the Prefect API); unless
# Prefect's own logs were asked for (PREFECT_LOGGING_LEVEL=INFO or DEBUG).
_PREFECT_QUIET_RUNS = {
    "PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL": "CRITICAL",
}


@contextmanager
def quiet_prefect() -> Iterator[None]:
    """Prefect's settings for one command (the defaults above), for as long as it runs.

    Prefect reads its settings from the environment, when it is first imported and in
    every process it starts (the local pool's workers, the temporary server), so they are
    set in ``os.environ``; a user's own values win. On exit the variables set here are
    removed again (unless the command changed them meanwhile), so a command run in-process
    (``CliRunner``, a notebook) leaves the environment as it found it. Prefect's logging,
    configured once at its import, stays as configured. A context manager, and a
    decorator of a command: ``@quiet_prefect()``.
    """
    added: dict[str, str] = {}

    def default(key: str, value: str) -> None:
        if key not in os.environ:
            os.environ[key] = added[key] = value

    for key, value in _PREFECT_DEFAULTS.items():
        default(key, value)
    asked = os.environ.get("PREFECT_LOGGING_LEVEL", "").upper() in ("DEBUG", "INFO")
    if not is_debug() and not asked:
        for key, value in _PREFECT_QUIET_RUNS.items():
            default(key, value)
    if "PREFECT_LOGGING_LEVEL" not in os.environ:
        for key, value in _PREFECT_QUIET_CONSOLE.items():
            default(key, value)
    try:
        yield
    finally:
        for key, value in added.items():
            if os.environ.get(key) == value:
                del os.environ[key]
