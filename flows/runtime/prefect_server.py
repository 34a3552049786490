"""The local Prefect server ``zhuoji ingest`` keeps for later runs, and the watch a run keeps
on the server it uses.

:class:`ReusedPrefectServer` is a :class:`~zhuoji.flows.runtime.temporary_server.LocalPrefectServer`
started detached, recorded in the Prefect home (:data:`RECORD_NAME`), shared by the runs
that hold its lease (:data:`LEASE_NAME`) and stopped by itself once idle for
:func:`idle_seconds`; a file lock (:data:`LOCK_NAME`) lets one process at a time start,
replace or stop it. :class:`ServerWatch` tells a run that its local server went away (its
process ended, or it stopped answering), so that the run ends in one line instead of
waiting for ever on Prefect's client.

Works around: Prefect's ephemeral server lives and dies with the one process that
started it (https://github.com/PrefectHQ/prefect/pull/14722), so every run paid for a
server start (seconds of CPU), and Prefect's client retries an API that is gone for
minutes. The upstream change that would remove it: an ephemeral server shared by the
processes of one Prefect home and stopped when idle, and a client that gives up at once
on a local server whose process has ended.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from types import FrameType, TracebackType

import prefect
from prefect.settings import get_current_settings

from zhuoji.flows.runtime.temporary_server import (
    BOOTSTRAP,
    POLL_SECONDS,
    SERVER_ENV,
    LocalPrefectServer,
    ServerStartError,
)
from zhuoji.rules.messages import Message

# --- the reused local server -----------------------------------------------------------------

IDLE_ENV = "ZHUOJI_SERVER_IDLE_SECONDS"
"""The environment variable that sets :data:`DEFAULT_IDLE_SECONDS`; ``0``: no server is
kept, each run starts a temporary one of its own."""

DEFAULT_IDLE_SECONDS = 600.0
"""How long the reused local server waits without a run before it stops (10 minutes)."""

RECORD_NAME = "zhuoji-server.json"
LOCK_NAME = "zhuoji-server.lock"
LEASE_NAME = "zhuoji-server.lease"
LOG_NAME = "zhuoji-server.log"

HUNG_SECONDS = 15.0
"""How long a recorded server that runs but does not answer is waited for before it is
taken for hung, stopped and replaced."""

_MARKER = "zhuoji reused prefect server"
"""In the reused server's command line: how a recorded pid is told to be one of them."""

_REUSED_BOOTSTRAP = f"""\
# {_MARKER}
import fcntl, json, os, runpy, signal, sys, threading, time
home = os.environ["ZHUOJI_SERVER_HOME"]
idle = float(os.environ["{IDLE_ENV}"])
grace = float(os.environ["ZHUOJI_SERVER_GRACE"])
record = os.path.join(home, "{RECORD_NAME}")
lease = os.path.join(home, "{LEASE_NAME}")

def recorded_pid():
    try:
        with open(record, encoding="utf-8") as handle:
            return json.load(handle).get("pid")
    except (OSError, ValueError, AttributeError):
        return None

def watch():
    born = time.monotonic()
    seen = False
    while True:
        time.sleep(min(max(idle / 4, 0.2), 1.0))
        if recorded_pid() == os.getpid():
            seen = True
        elif seen or time.monotonic() - born > grace:
            break  # stopped, or replaced by another server: no run will come here
        else:
            continue  # the record is written once this server answers
        fd = os.open(lease, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)  # a run holds the lease: in use
            continue
        if time.time() - os.fstat(fd).st_mtime >= idle:
            # idle: the lease stays locked until this process ends, so a run that comes
            # now waits, then finds no record and starts a new server
            if recorded_pid() == os.getpid():
                os.unlink(record)
            break
        os.close(fd)
    os.kill(os.getpid(), signal.SIGTERM)  # uvicorn's clean shutdown
    time.sleep(30)
    os._exit(0)

threading.Thread(target=watch, name="zhuoji-idle-watch", daemon=True).start()
sys.argv[0] = "uvicorn"
runpy.run_module("uvicorn", run_name="__main__", alter_sys=True)
"""
"""The reused server's main: an idle watch (the thread above), then uvicorn's command line."""


KEPT_ENV = frozenset(
    {
        "PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ",  # the user's
        # where Python and Prefect are found
        "PYTHONPATH", "PYTHONHOME", "PYTHONUSERBASE", "PYTHONNOUSERSITE", "VIRTUAL_ENV",
        "LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH",
    }
)
"""The variables of the starting process the reused server keeps, besides ``LC_*`` and
Prefect's settings (:func:`server_environment`)."""

DROPPED_PREFECT_ENV = frozenset({"PREFECT_API_URL", "PREFECT_API_KEY"})
"""Prefect settings of the starting run that the reused server does not take: the client's
address and key (the server serves; it is no client of one)."""


def server_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """What the reused server keeps of ``environ``: :data:`KEPT_ENV`, the locale
    (``LC_*``) and Prefect's settings (``PREFECT_*`` but :data:`DROPPED_PREFECT_ENV`).

    The server outlives the run that starts it and serves later ones, so nothing of
    that run's own is passed on: not its temporary folder (``TMPDIR``, ``TEMP``, ``TMP``,
    which a test or a job may remove once it ends), nor zhuoji's variables (``ZHUOJI_*``:
    limits, test hooks, the fork server's parent), nor any other variable of the shell
    it was typed in."""
    return {
        key: value
        for key, value in environ.items()
        if key in KEPT_ENV
        or key.startswith("LC_")
        or (key.startswith("PREFECT_") and key not in DROPPED_PREFECT_ENV)
    }


_DETACHED: list[subprocess.Popen[bytes]] = []
"""The reused servers this process started (kept: they run on after it)."""


def reuse_available() -> bool:
    """Whether this system has the file locks the reused server relies on (POSIX)."""
    return os.name == "posix"


def _seconds_from_env(name: str, default: float) -> float:
    """A number of seconds, 0 or more, from the environment variable ``name``, else
    ``default``; ValueError naming the variable for anything else."""
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        raise ValueError(Message("{name:any}={v:any}: expected a number of seconds", name,
                                 repr(text))) from None
    if value < 0 or value != value:
        raise ValueError(Message("{name:any}={v:any}: expected a number of seconds, 0 or more",
                                 name, repr(text)))
    return value


def idle_seconds() -> float:
    """The idle timeout of the reused server (:data:`IDLE_ENV`, else the default)."""
    return _seconds_from_env(IDLE_ENV, DEFAULT_IDLE_SECONDS)


def server_home() -> Path:
    """Where the reused server keeps its record, locks and log: Prefect's home
    (``PREFECT_HOME``), which holds its database too."""
    home: Path = get_current_settings().home
    return Path(home).expanduser().resolve()


@dataclass(frozen=True, slots=True)
class ServerRecord:
    """What the reused server's record file holds."""

    pid: int
    port: int
    url: str
    version: str
    started_at: float

    @classmethod
    def read(cls, path: Path) -> ServerRecord | None:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return cls(
                pid=int(data["pid"]),
                port=int(data["port"]),
                url=str(data["url"]),
                version=str(data["version"]),
                started_at=float(data["started_at"]),
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def write(self, path: Path) -> None:
        """Write it whole or not at all (a reader sees the old record or this one)."""
        temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        temporary.write_text(
            json.dumps(
                {
                    "pid": self.pid,
                    "port": self.port,
                    "url": self.url,
                    "version": self.version,
                    "started_at": self.started_at,
                },
                sort_keys=True,
            ),
            encoding="utf-8",
        )
        os.replace(temporary, path)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # alive, another user's
    return True


def _is_reused_server(pid: int) -> bool:
    """Whether ``pid`` is a live reused server (by its command line, where the system
    shows it; elsewhere, by being alive)."""
    if not _pid_alive(pid):
        return False
    cmdline = Path(f"/proc/{pid}/cmdline")
    if not Path("/proc/self/cmdline").exists():
        return True
    try:
        return _MARKER in cmdline.read_bytes().decode("utf-8", "replace")
    except OSError:
        return False


def _prefect_version(url: str, timeout: float = 2.0) -> str | None:
    """The Prefect version the API at ``url`` reports; ``""`` when something answers
    there that is not a healthy Prefect API; None when nothing answers."""
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with direct.open(f"{url}/health", timeout=timeout) as response:
            healthy = response.status == 200
        with direct.open(f"{url}/admin/version", timeout=timeout) as response:
            version = json.loads(response.read())
    except urllib.error.HTTPError:
        return ""  # an answer, not Prefect's
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        return None
    except ValueError:
        return ""
    return version if healthy and isinstance(version, str) else ""


def _terminate(pid: int, wait: float = 10.0) -> None:
    """End a reused server: SIGTERM, then SIGKILL if it is still there after ``wait``."""
    with suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + wait
    while _pid_alive(pid) and time.monotonic() < deadline:
        _reap(pid)
        time.sleep(0.05)
    if _pid_alive(pid):
        with suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        _reap(pid)


def _reap(pid: int) -> None:
    """Collect ``pid``'s exit status if it is this process's child (else nothing)."""
    with suppress(ChildProcessError, OSError):
        os.waitpid(pid, os.WNOHANG)


_SHARED, _EXCLUSIVE = "shared", "exclusive"


@contextmanager
def _flock(path: Path, mode: str, *, wait: bool = True) -> Iterator[int]:
    """``path`` (created if need be) locked ``shared`` or ``exclusive`` for the block;
    without ``wait``, :class:`BlockingIOError` if another process holds it."""
    import fcntl  # POSIX: where there is none, no server is reused (reuse_available)

    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        flags = fcntl.LOCK_SH if mode == _SHARED else fcntl.LOCK_EX
        fcntl.flock(fd, flags if wait else flags | fcntl.LOCK_NB)
        yield fd
    finally:
        os.close(fd)  # releases the lock


LOCK_WAIT_ENV = "ZHUOJI_SERVER_LOCK_SECONDS"
"""The environment variable that sets how long a run (or ``zhuoji server stop``) waits
for the start lock another process holds (:func:`lock_wait_seconds`)."""

LOCK_WAIT_MARGIN = HUNG_SECONDS + 45.0
"""What the default wait for the start lock adds to the server's start timeout: the
holder may first wait for a hung server (:data:`HUNG_SECONDS`) and stop it (10 s)."""


def lock_wait_seconds(start_timeout: float) -> float:
    """How long to wait for the start lock: :data:`LOCK_WAIT_ENV`, else the server's start
    timeout plus :data:`LOCK_WAIT_MARGIN` (the longest a process starting a server holds
    it)."""
    return _seconds_from_env(LOCK_WAIT_ENV, start_timeout + LOCK_WAIT_MARGIN)


_QUIET_WAIT = 1.0
"""How long a lock is waited for before the wait is said (two runs starting at once wait
for each other a moment)."""


class ServerLockTimeout(ServerStartError):
    """Another process held the start lock for longer than the wait allowed."""


def lock_holder(path: Path) -> int | None:
    """The process that holds a ``flock`` on ``path``, where the system tells
    (``/proc/locks``); else the process id the file holds (written by the holder)."""
    try:
        info = path.stat()
        locks = Path("/proc/locks").read_text(encoding="ascii", errors="replace")
    except OSError:
        locks = ""
    else:
        device = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
        for line in locks.splitlines():
            fields = line.split()
            if "FLOCK" in fields and device in fields and "->" not in fields:  # (not a waiter)
                index = fields.index(device)
                with suppress(ValueError):
                    return int(fields[index - 1])
    try:
        return int(path.read_text(encoding="ascii").split()[0])
    except (OSError, ValueError, IndexError):
        return None


def describe_process(pid: int) -> str:
    """``PID n`` with its command line and, if it is stopped (Ctrl-Z), how to resume it."""
    shown = ""
    with suppress(OSError):
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
        command = " ".join(raw.decode("utf-8", "replace").replace("\0", " ").split())
        if command:
            shown = f" ({command[:120]}{'...' if len(command) > 120 else ''})"
    with suppress(OSError, IndexError):
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8", errors="replace")
        if stat.rsplit(")", 1)[1].split()[0] in ("T", "t"):
            return Message("PID {pid:n}{c:external}, which is stopped (`kill -CONT {p:n}` "
                           "resumes it)", pid, shown, pid)
    return Message("PID {pid:n}{c:external}", pid, shown)


def _say(line: str) -> None:
    """One line on standard error (a wait the user should know of), in the invocation's
    language."""
    from zhuoji.flows.runtime.language import current_lang
    from zhuoji.rules.glossary import render

    with suppress(OSError, ValueError):
        sys.stderr.write(render(line, current_lang()) + "\n")
        sys.stderr.flush()


@contextmanager
def _held_lock(
    path: Path,
    bound: float,
    who: str,
    notify: Callable[[str], None] = _say,
    *,
    name: str = "start lock",
    mode: str = _EXCLUSIVE,
    record_pid: bool = True,
) -> Iterator[int]:
    """The lock ``path`` held (``mode``) for the block; with ``record_pid``, this
    process's id written in it. Another process holding it is waited for up to ``bound``
    seconds, said once through ``notify`` (naming the holder); then
    :class:`ServerLockTimeout`. A lock dies with its holder (``flock``): a process killed
    while holding it frees it."""
    import fcntl

    flags = (fcntl.LOCK_SH if mode == _SHARED else fcntl.LOCK_EX) | fcntl.LOCK_NB

    def held_by() -> str:
        holder = lock_holder(path)
        return Message("another process") if holder is None else describe_process(holder)

    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, flags)
        except BlockingIOError:
            started = time.monotonic()
            deadline = started + bound
            said = started + min(_QUIET_WAIT, bound / 2)  # a short wait is not worth a line
            while True:
                try:
                    fcntl.flock(fd, flags)
                    break
                except BlockingIOError:
                    now = time.monotonic()
                    if now >= said:
                        said = float("inf")
                        notify(Message(
                            "{who:any}: waiting up to {s:any} s for the local Prefect server's "
                            "{name:lockname} {path:any}, held by {h:any} ({env:any} sets how "
                            "long)", who, f"{bound:g}", name, path, held_by(), LOCK_WAIT_ENV,
                        ))
                    if now >= deadline:
                        raise ServerLockTimeout(Message(
                            "the local Prefect server's {name:lockname} {path:any} is still "
                            "held by {h:any} after {s:any} s: end that process or let it "
                            "finish, then run the command again ({env:any} sets how long to "
                            "wait)", name, path, held_by(), f"{bound:g}", LOCK_WAIT_ENV,
                        )) from None
                    time.sleep(POLL_SECONDS)
        if record_pid:
            with suppress(OSError):  # who holds it, for a process that waits for it
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        yield fd
    finally:
        os.close(fd)  # releases the lock


class ReusedPrefectServer(LocalPrefectServer):
    """The local Prefect server that ``zhuoji ingest`` starts on first use and later
    runs reuse, until it has been idle for :func:`idle_seconds`.

    Its files live in :func:`server_home` (Prefect's home, where its SQLite database is):
    ``zhuoji-server.json`` records the server (pid, port, address, Prefect version);
    ``zhuoji-server.lock`` is held while a run checks the record and starts a server, so
    two runs at once end with one server; every run holds ``zhuoji-server.lease``
    shared while it uses the server and touches it when done. The server's idle watch
    stops it once nobody holds the lease and it was last touched ``idle`` seconds ago,
    or once its record is gone or names another server. A record whose process is gone,
    is not such a server, or whose port does not answer as this Prefect is stale: a new
    server replaces it. The server runs in a session of its own (a Ctrl-C of the run
    that started it does not reach it) and writes its output to ``zhuoji-server.log``.
    """

    kind = "local"

    def __init__(
        self,
        timeout: float,
        idle: float,
        home: Path | None = None,
        lock_wait: float | None = None,
        who: str = "zhuoji ingest",
    ) -> None:
        super().__init__(timeout)
        self.idle = idle
        self.home = home if home is not None else server_home()
        self.errors_shown = Message("its errors are in {path:any}", self.home / LOG_NAME)
        self.lock_wait = lock_wait_seconds(timeout) if lock_wait is None else lock_wait
        self.who = who
        self.record: ServerRecord | None = None
        """The record of the server :meth:`acquire` found or started."""

    @property
    def record_path(self) -> Path:
        return self.home / RECORD_NAME

    def command(self, port: int) -> list[str]:
        command = super().command(port)
        command[command.index(BOOTSTRAP)] = _REUSED_BOOTSTRAP
        return command

    def environment(self) -> dict[str, str]:
        """The server's environment: the caller's :func:`server_environment` (not its
        temporary folder nor its run's variables: the server outlives the run), Prefect's
        settings, and what the idle watch reads."""
        settings = get_current_settings().to_environment_variables(exclude_unset=True)
        env = server_environment({**os.environ, **settings})
        env.update(SERVER_ENV)
        env.update(
            ZHUOJI_SERVER_HOME=str(self.home),
            ZHUOJI_SERVER_GRACE=str(self.timeout + 60),
            **{IDLE_ENV: repr(self.idle)},
        )
        return env

    def spawn(self, command: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
        with open(self.home / LOG_NAME, "ab") as log:
            return subprocess.Popen(
                command,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,
                cwd=self.home,
            )

    def running(self, patience: float = 0.0) -> ServerRecord | None:
        """The record of a live, answering reused server (stale records are not).

        A live server that does not answer (a busy machine) is asked again for up to
        ``patience`` seconds before it counts as hung."""
        record = ServerRecord.read(self.record_path)
        if record is None:
            return None
        deadline = time.monotonic() + patience
        while _is_reused_server(record.pid):
            version = _prefect_version(record.url)
            if version == prefect.__version__:
                return record
            if version is not None or time.monotonic() >= deadline:
                break  # another program, or another Prefect, answers there; or none
            time.sleep(0.5)
        return None

    def acquire(self) -> str:
        """The address of the running server, started now if there is none (call with
        the lease held). Holds the start lock meanwhile."""
        self.home.mkdir(parents=True, exist_ok=True)
        with _held_lock(self.home / LOCK_NAME, self.lock_wait, self.who):
            record = self.running(patience=HUNG_SECONDS)
            if record is not None:
                self.record = record
                return record.url
            stale = ServerRecord.read(self.record_path)
            if stale is not None and _is_reused_server(stale.pid):
                _terminate(stale.pid)  # ours, but it does not answer: hung
            self.record_path.unlink(missing_ok=True)
            url = self.start()
            assert self.process is not None and self.port is not None
            self.record = ServerRecord(
                pid=self.process.pid,
                port=self.port,
                url=url,
                version=prefect.__version__,
                started_at=time.time(),
            )
            self.record.write(self.record_path)
            _DETACHED.append(self.process)  # it outlives this object
            self.process = None
            return url

    @contextmanager
    def use(self) -> Iterator[str]:
        """The server's address for the block; the lease is held meanwhile, and touched
        at the end (the idle time counts from there)."""
        self.home.mkdir(parents=True, exist_ok=True)
        lease = self.home / LEASE_NAME
        # held exclusive only by `zhuoji server stop` and by a server stopping itself
        lease_lock = _held_lock(
            lease, self.lock_wait, self.who, name="lease", mode=_SHARED, record_pid=False
        )
        with lease_lock as fd:
            os.utime(fd)
            try:
                yield self.acquire()
            finally:
                os.utime(fd)

    def stop_running(self, on_wait: Callable[[], None] | None = None) -> ServerRecord | None:
        """Stop the recorded server (if it runs) and remove its record; what was stopped.

        Runs using it are waited for first (``on_wait`` is called if there are any);
        runs that come later start a new server."""
        self.home.mkdir(parents=True, exist_ok=True)
        with ExitStack() as stack:
            try:
                stack.enter_context(_flock(self.home / LEASE_NAME, _EXCLUSIVE, wait=False))
            except BlockingIOError:
                if on_wait is not None:
                    on_wait()
                stack.enter_context(_flock(self.home / LEASE_NAME, _EXCLUSIVE))
            return self._stop_recorded()

    def _stop_recorded(self) -> ServerRecord | None:
        with _held_lock(self.home / LOCK_NAME, self.lock_wait, self.who):
            record = ServerRecord.read(self.record_path)
            self.record_path.unlink(missing_ok=True)
            if record is None or not _is_reused_server(record.pid):
                return None
            _terminate(record.pid)
            return record


# --- watching the server a run uses ----------------------------------------------------------

SILENT_SECONDS = 30.0
"""How long a local server whose process runs but that answers nothing (stopped, hung)
is waited for during a run before the run counts it lost."""

INTERRUPTED_SILENT_SECONDS = 3.0
"""How long it is waited for once the run was interrupted (Ctrl-C): Prefect's client
then reports the interrupt to the server, and would wait for ever for one that is gone."""

_WATCH_INTERVAL = 0.5
_HEALTH_INTERVAL = 2.0
_HEALTH_TIMEOUT = 5.0


def answers(url: str, timeout: float = _HEALTH_TIMEOUT) -> bool:
    """Whether the Prefect API at ``url`` answers its health check."""
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with direct.open(f"{url}/health", timeout=timeout) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError, ValueError):
        return False


class ServerWatch:
    """Watch the local server a run uses, from a thread, for the length of a ``with`` block.

    ``alive`` tells whether the server's process still runs; the health check tells
    whether it answers. When the process has ended, or it has not answered for
    ``silent`` seconds, ``on_lost`` is called once (in the watch's thread) with what
    happened, e.g. ``the local Prefect server at URL stopped (its process ended)``.

    Prefect's client retries a request to an API that went away for about a minute
    (five retries, 2 to 32 s apart), request after request, and the flow's end waits
    for its events to be sent: without the watch, a run whose server was killed waits
    for many minutes, or for ever.
    """

    def __init__(
        self,
        url: str,
        alive: Callable[[], bool],
        on_lost: Callable[[str], None],
        silent: float = SILENT_SECONDS,
    ) -> None:
        self.url = url
        self.alive = alive
        self.on_lost = on_lost
        self.silent = silent
        self.lost: str | None = None
        self._after = ""
        self._hurry = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="zhuoji-server-watch", daemon=True)

    def _run(self) -> None:
        last_answer = next_check = time.monotonic()
        while not self._stop.wait(_WATCH_INTERVAL):
            if not self.alive():
                self._lose(Message("the local Prefect server at {url:any} stopped (its process "
                                   "ended)", self.url))
                return
            now = time.monotonic()
            if self._hurry.is_set():
                self._hurry.clear()
                self.silent = min(self.silent, INTERRUPTED_SILENT_SECONDS)
                self._after = " after Ctrl-C"
                last_answer = max(last_answer, now - self.silent / 2)
                next_check = now
            if now < next_check:
                continue
            timeout = min(_HEALTH_TIMEOUT, self.silent)
            if answers(self.url, timeout=timeout):
                last_answer = time.monotonic()
            elif time.monotonic() - last_answer >= self.silent and not self._stop.is_set():
                self._lose(Message(
                    "the local Prefect server at {url:any} stopped answering (no answer for "
                    "{s:any} s after Ctrl-C)" if self._after else
                    "the local Prefect server at {url:any} stopped answering (no answer for "
                    "{s:any} s)", self.url, f"{self.silent:g}",
                ))
                return
            next_check = time.monotonic() + min(_HEALTH_INTERVAL, self.silent / 2)

    def hurry(self) -> None:
        """The run was interrupted: a server that does not answer now is not waited for
        (:data:`INTERRUPTED_SILENT_SECONDS`). Safe to call from a signal handler."""
        self._hurry.set()

    @contextmanager
    def on_interrupt(self) -> Iterator[None]:
        """For the block: a Ctrl-C (``SIGINT``, Python's own handler) hurries the watch,
        then interrupts as usual. Does nothing outside the main thread."""
        if (
            threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler
        ):
            yield
            return

        def interrupted(signum: int, frame: FrameType | None) -> None:
            self.hurry()
            signal.default_int_handler(signum, frame)

        signal.signal(signal.SIGINT, interrupted)
        try:
            yield
        finally:
            if signal.getsignal(signal.SIGINT) is interrupted:
                signal.signal(signal.SIGINT, signal.default_int_handler)

    def _lose(self, what: str) -> None:
        if self._stop.is_set():
            return  # the run ended meanwhile
        self.lost = what
        self.on_lost(what)

    def __enter__(self) -> ServerWatch:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()


def process_alive(process: subprocess.Popen[bytes]) -> Callable[[], bool]:
    """``alive`` for a :class:`ServerWatch` of a server this process started."""
    return lambda: process.poll() is None


def reused_alive(pid: int) -> Callable[[], bool]:
    """``alive`` for a :class:`ServerWatch` of the reused server ``pid``."""
    return lambda: _is_reused_server(pid)
