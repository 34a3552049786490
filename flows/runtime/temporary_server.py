"""A temporary local Prefect API server for one run: Prefect's ephemeral mode, started lean.

With no ``PREFECT_API_URL`` configured, Prefect starts a server in a subprocess for the
process that runs a flow (``prefect.server.api.server.SubprocessASGIServer``). Reaching
that class imports Prefect's whole server package in the *calling* process first
(FastAPI, SQLAlchemy, Alembic and the API's models): about 3.4 s of CPU and 76 MiB of
memory that the ingest process never uses, spent before the server process starts
importing the same modules for itself.

:class:`LocalPrefectServer` starts the same server with the same command line and
environment (``python -m uvicorn --factory prefect.server.api.server:create_app``, the
UI off, this process's Prefect settings passed down) without importing the server
package here. It also ties the server's life to this process where the system allows
(Linux): a killed ingest (``SIGKILL``, which skips every clean-up) takes its server with
it instead of leaving it running.

Works around: Prefect's ephemeral server (``SubprocessASGIServer``, since
https://github.com/PrefectHQ/prefect/pull/14722) is reached only through its server
package's import, outlives a killed parent, and has a fixed start-up wait. The upstream
change that would remove it: an ephemeral server started from a light module (its
command line and environment public), tied to its parent's life.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType

import prefect
from prefect.settings import get_current_settings

from zhuoji.rules.messages import Message

SERVER_ENV = {
    "PREFECT_UI_ENABLED": "0",  # an API only: the UI's assets are not served
    "PREFECT__SERVER_EPHEMERAL": "1",
    "PREFECT__SERVER_FINAL": "1",
}
"""What Prefect's own ephemeral server gets on top of the caller's settings."""

BOOTSTRAP = """\
import os, runpy, sys
if sys.platform.startswith("linux"):
    import ctypes, signal
    # PR_SET_PDEATHSIG: be sent SIGTERM when the process that started us ends
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != int(os.environ["ZHUOJI_SERVER_PARENT"]):
        sys.exit(0)  # that process ended before the line above
sys.argv[0] = "uvicorn"
runpy.run_module("uvicorn", run_name="__main__", alter_sys=True)
"""
"""The server process's main: tie its life to its parent's, then run uvicorn's command line."""

_STARTUP_FAILURE = 3
"""uvicorn's exit code when it cannot start: its port taken (by another process, since it
was found free), or any other failure of its start (then this process says so)."""

_START_ATTEMPTS = 5
POLL_SECONDS = 0.1


class ServerStartError(RuntimeError):
    """The temporary server did not answer in time, or exited."""


FIRST_START_SECONDS = 15
"""About how long a local server's first start in a Prefect home takes (it creates and
migrates its SQLite database) on a 2-core machine: 11 to 15.4 s measured."""

START_SECONDS = 8
"""About how long a later start takes (the database exists): 4.5 to 12 s measured, the
more the busier the machine."""


@dataclass(frozen=True, slots=True)
class ServerStart:
    """What a caller is told of a local server being started for it
    (:attr:`LocalPrefectServer.announce`): once as it starts (``seconds`` is ``None``),
    once when it answers (``seconds``: how long it took, ``url``: its address)."""

    kind: str  # "temporary" (this run's) or "local" (kept for later runs)
    first: bool  # the Prefect home has no database yet: a first start
    expected: float  # about how long it takes, in seconds
    seconds: float | None = None
    url: str | None = None


def first_start() -> bool:
    """Whether a local server started now would create its database: Prefect's SQLite
    file (in ``PREFECT_HOME`` unless configured elsewhere) does not exist yet. A database
    of another kind (PostgreSQL) is taken to exist."""
    try:
        url = get_current_settings().server.database.connection_url
        text = url.get_secret_value() if url is not None else ""
    except (AttributeError, ValueError):  # settings of another shape: say nothing of it
        return False
    if not text.startswith("sqlite") or ":///" not in text:
        return False
    path = text.split(":///", 1)[1].split("?", 1)[0]
    return bool(path) and path != ":memory:" and not os.path.exists(path)


def _bind(port: int) -> int:
    """Bind a local TCP socket to ``port`` (0: any free one) and let it go; the port bound.
    Raises ``OSError`` when the port is taken."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", port))
        bound: int = sock.getsockname()[1]
        return bound


def free_port() -> int:
    """A local TCP port that nothing holds now (the system's choice)."""
    return _bind(0)


def port_is_free(port: int) -> bool:
    try:
        _bind(port)
    except OSError:
        return False
    return True


class LocalPrefectServer:
    """A Prefect API server in a subprocess on a free local port, for a ``with`` block.

    :meth:`start` returns once the API answers its health check (or raises
    :class:`ServerStartError` after ``timeout`` seconds); :meth:`stop` ends the process.
    Start it from a thread that outlives it (on Linux the server ends with that thread).
    """

    kind = "temporary"

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.port: int | None = None
        self.process: subprocess.Popen[bytes] | None = None
        self.announce: Callable[[ServerStart], None] | None = None
        """Told as the server starts and once it answers (:class:`ServerStart`)."""

    @property
    def api_url(self) -> str:
        if self.port is None:
            # a programming error, never a user's: not translated
            raise RuntimeError("the server is not started")
        return f"http://127.0.0.1:{self.port}/api"

    def pick_port(self) -> int:
        return free_port()

    def command(self, port: int) -> list[str]:
        """The server process's command line (uvicorn's, behind :data:`BOOTSTRAP`).

        ``-P``: the current folder is not put first on the server's import path, where a
        module named like one it imports (``uvicorn``, say) would run in its place."""
        return [
            sys.executable,
            "-P",
            "-c",
            BOOTSTRAP,
            "--app-dir",
            str(prefect.__module_path__.parent),
            "--factory",
            "prefect.server.api.server:create_app",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "error",
            "--lifespan",
            "on",
        ]

    def environment(self) -> dict[str, str]:
        settings = get_current_settings().to_environment_variables(exclude_unset=True)
        return {
            **os.environ,
            **SERVER_ENV,
            **settings,
            "ZHUOJI_SERVER_PARENT": str(os.getpid()),
        }

    def spawn(self, command: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
        """Start the server process (its output goes to this process's)."""
        return subprocess.Popen(command, env=env)

    errors_shown: str = Message("its errors are printed above")

    def start(self) -> str:
        """Start the server and wait until it answers; its API address.

        A server that is already running is kept. Whatever interrupts the wait (a
        timeout, Ctrl-C) stops the process first.
        """
        if self.process is not None:
            return self.api_url
        began = time.monotonic()
        deadline = began + self.timeout
        first = first_start()
        expected = FIRST_START_SECONDS if first else START_SECONDS
        if self.announce is not None:
            self.announce(ServerStart(self.kind, first, expected))
        env = self.environment()
        for _ in range(_START_ATTEMPTS):
            self.port = self.pick_port()
            self.process = self.spawn(self.command(self.port), env)
            try:
                code = self._wait_healthy(deadline)
            except BaseException:
                self.stop()
                raise
            if code is None:
                if self.announce is not None:
                    took = time.monotonic() - began
                    self.announce(ServerStart(self.kind, first, expected, took, self.api_url))
                return self.api_url
            self.process = None
            if code != _STARTUP_FAILURE or port_is_free(self.port):
                raise ServerStartError(Message(
                    "the {k:serverkind} Prefect server exited with code {c:any} before it "
                    "answered ({e:said})", self.kind, code, self.errors_shown,
                ))
        raise ServerStartError(Message(
            "the {k:serverkind} Prefect server found no free port in {n:n} attempts",
            self.kind, _START_ATTEMPTS,
        ))

    def _wait_healthy(self, deadline: float) -> int | None:
        """``None`` once the API answers; the exit code if the process ends first."""
        assert self.process is not None
        health = f"{self.api_url}/health"
        direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # no proxy
        while True:
            code = self.process.poll()
            if code is not None:
                return code
            try:
                with direct.open(health, timeout=2) as response:
                    if response.status == 200:
                        return None
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if time.monotonic() >= deadline:
                raise ServerStartError(Message(
                    "the {k:serverkind} Prefect server did not answer within {s:any} s "
                    "(PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS sets how long to "
                    "wait; PREFECT_API_URL points at a running server instead)", self.kind,
                    f"{self.timeout:g}",
                ))
            time.sleep(POLL_SECONDS)

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def __enter__(self) -> str:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
