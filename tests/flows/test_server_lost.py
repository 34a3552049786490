"""An ingest whose local Prefect server goes away, and the server's start lock held.

Real ``zhuoji ingest`` processes with no Prefect server configured start the reused local
server; the test kills that server (``SIGKILL``) at the run's first shard, after a batch
was committed, or as the run ends. The ingest must end within seconds with one line
(what happened, that the committed batches are safe, how to rerun), exit status 2 and
no process of its own left; the same command again then gives the warehouse a clean
run gives. A real other process holding ``zhuoji-server.lock`` makes the ingest and
``zhuoji server stop`` say so and give up after ``ZHUOJI_SERVER_LOCK_SECONDS``.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import duckdb
import psutil
import pytest

import zhuoji.flows.runtime.prefect_server as ps
from tests.flows.conftest import HEALTH_ONLY_SERVER, Corpus, snapshot
from zhuoji.flows.ingest.steps import staging_dir_for
from zhuoji.flows.runtime.prefect_server import (
    LOCK_NAME,
    RECORD_NAME,
    ReusedPrefectServer,
    ServerRecord,
)
from zhuoji.flows.runtime.temporary_server import free_port

REPO = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc, PR_SET_PDEATHSIG"),
    pytest.mark.xdist_group("prefect"),
]

EXIT_BOUND = 60.0
"""How long the ingest may take to end once its server is killed (it takes seconds; the
bound leaves room for a loaded machine)."""


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A Prefect home of this module's own (its database created once, by the first
    test's server); any server left recorded in it is stopped at the end."""
    folder = tmp_path_factory.mktemp("prefect-home-lost")
    yield folder
    ReusedPrefectServer(timeout=0, idle=1, home=folder, lock_wait=5).stop_running()


_RUN_TMPS: list[Path] = []


@pytest.fixture(scope="module", autouse=True)
def _remove_run_tmps() -> Iterator[None]:
    yield
    for folder in _RUN_TMPS:
        shutil.rmtree(folder, ignore_errors=True)


def _env(home: Path, tmp: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k != "PREFECT_API_URL" and not k.startswith("PREFECT_LOGGING_")
    }
    # The run's own temporary folder, short: multiprocessing's fork server puts its socket
    # in it, and a socket's path holds at most 107 bytes (a test's tmp_path under xdist
    # is longer). Removed at the module's end.
    run_tmp = Path(tempfile.mkdtemp(prefix="zj-run-", dir="/tmp"))
    _RUN_TMPS.append(run_tmp)
    env.update(
        PREFECT_HOME=str(home),
        PREFECT_LOGGING_LEVEL="WARNING",
        PREFECT_SERVER_ANALYTICS_ENABLED="false",
        PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS="120",
        ZHUOJI_SERVER_IDLE_SECONDS="60",
        TMPDIR=str(run_tmp),  # the run's own: the server it starts must not keep it
        ZHUOJI_MAX_LINE_BYTES="1MiB",  # a variable of the run's: not the server's
    )
    return env


def _ingest(corpus: Corpus, db: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable, "-c", "from zhuoji.flows.cli.main import main; main()",
            "ingest", str(corpus.root), "--db", str(db),
            "--workers", "1", "--batch-size", "1", "--quiet",
        ],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for(what: str, condition: Callable[[], bool], proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 180
    while not condition():
        if proc.poll() is not None:
            out, err = proc.communicate()
            pytest.fail(f"the ingest ended before {what}: {proc.returncode} {out!r} {err!r}")
        assert time.monotonic() < deadline, f"the ingest never reached {what}"
        time.sleep(0.02)


def _server_of(home: Path) -> ServerRecord:
    record = ServerRecord.read(home / RECORD_NAME)
    assert record is not None
    return record


def _shard_dirs(db: Path) -> set[Path]:
    return {p for p in staging_dir_for(db).glob("run-*/*") if p.is_dir()}


def _kill_server_then_wait(
    home: Path, db: Path, proc: subprocess.Popen[str], when: str, interrupt: bool = False
) -> tuple[str, str, float]:
    """Kill the ingest's server once ``when`` (``first shard``, ``a batch committed``,
    ``the run's end``) is seen; the ingest's output and how long it took to end. With
    ``interrupt``, stop the server instead (``SIGSTOP``: it runs, and answers nothing)
    and interrupt the ingest (``SIGINT``, a Ctrl-C)."""
    def recorded() -> bool:  # (a record an earlier test's killed server left is stale)
        record = ServerRecord.read(home / RECORD_NAME)
        return record is not None and ps._is_reused_server(record.pid)

    _wait_for("its server's record", recorded, proc)
    record = _server_of(home)
    environ = Path(f"/proc/{record.pid}/environ").read_bytes().split(b"\0")
    names = {e.split(b"=", 1)[0].decode() for e in environ if e}
    assert "TMPDIR" not in names and "ZHUOJI_MAX_LINE_BYTES" not in names, names
    assert "PREFECT_HOME" in names and "ZHUOJI_SERVER_HOME" in names
    if when == "first shard":
        _wait_for(when, lambda: bool(_shard_dirs(db)), proc)
    elif when == "a batch committed":
        seen: set[Path] = set()

        def committed() -> bool:  # a shard folder removed: its batch was loaded
            now = _shard_dirs(db)
            gone = seen - now
            seen.update(now)
            return bool(gone)

        _wait_for(when, committed, proc)
    else:
        _wait_for("the first shard", lambda: bool(_shard_dirs(db)), proc)
        _wait_for(when, lambda: not staging_dir_for(db).exists(), proc)
    workers = [
        p for p in psutil.Process(proc.pid).children(recursive=True) if p.pid != record.pid
    ]
    if interrupt:
        os.kill(record.pid, signal.SIGSTOP)
        os.kill(proc.pid, signal.SIGINT)
    else:
        os.kill(record.pid, signal.SIGKILL)
    killed = time.monotonic()
    try:
        out, err = proc.communicate(timeout=EXIT_BOUND)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"the ingest did not end within {EXIT_BOUND:g} s: {err[-2000:]!r}")
    finally:
        if interrupt:
            os.kill(record.pid, signal.SIGCONT)
    took = time.monotonic() - killed
    _, alive = psutil.wait_procs(workers, timeout=30)
    assert not alive, f"left behind: {alive}"
    return out, err, took


def _rows(db: Path, sql: str) -> list[tuple[object, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def _rerun_gives_the_clean_database(
    corpus: Corpus, db: Path, clean_db: Path, env: dict[str, str]
) -> None:
    rerun = _ingest(corpus, db, env)
    _, err = rerun.communicate(timeout=300)
    assert rerun.returncode == 0, err
    assert snapshot(db) == snapshot(clean_db)
    assert not staging_dir_for(db).exists()


@pytest.mark.parametrize("when", ["first shard", "a batch committed"])
def test_an_ingest_whose_server_is_killed_ends_at_once_and_a_rerun_completes_it(
    corpus: Corpus, clean_db: Path, home: Path, tmp_path: Path, when: str
) -> None:
    db = tmp_path / "w.duckdb"
    env = _env(home, tmp_path)
    proc = _ingest(corpus, db, env)
    out, err, took = _kill_server_then_wait(home, db, proc, when)
    print(f"the ingest ended {took:.1f} s after its server was killed ({when})")
    assert proc.returncode == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    (line,) = lines
    assert line.startswith(f"error: ingest into {db}: the local Prefect server at http://127.0.0.1:")
    assert "stopped (its process ended)" in line
    assert "the batches committed before are safe in the warehouse" in line
    assert "run the same command again" in line and "skips the files already loaded" in line
    assert "Traceback" not in err
    runs = _rows(db, "SELECT run_id, status FROM ingest_runs ORDER BY run_id")
    (run_id, status), = runs
    assert f"run {run_id} is marked interrupted" in line
    assert status == "interrupted"
    loaded = _rows(db, "SELECT count(*) FROM files")[0][0]
    assert isinstance(loaded, int) and loaded < len(corpus.files)
    if when == "a batch committed":
        assert loaded >= 1
    _rerun_gives_the_clean_database(corpus, db, clean_db, env)
    runs = _rows(db, "SELECT run_id, status FROM ingest_runs ORDER BY run_id")
    assert runs == [(1, "interrupted"), (2, "completed")]


def test_an_ingest_whose_server_is_killed_as_it_ends_ends_too(
    corpus: Corpus, clean_db: Path, home: Path, tmp_path: Path
) -> None:
    db = tmp_path / "w.duckdb"
    env = _env(home, tmp_path)
    proc = _ingest(corpus, db, env)
    out, err, took = _kill_server_then_wait(home, db, proc, "the run's end")
    print(
        f"the ingest ended {took:.1f} s after its server was killed (as it ended), "
        f"exit status {proc.returncode}"
    )
    assert "Traceback" not in err
    if proc.returncode == 0:  # it finished first: its summary, nothing else
        assert "loaded" in out and not err.strip(), err
    else:
        assert proc.returncode == 2, (out, err)
        (line,) = err.strip().splitlines()
        assert "stopped (its process ended) as the run ended" in line, line
        assert "every batch is committed in the warehouse (run 1 completed)" in line
    assert snapshot(db) == snapshot(clean_db)
    assert _rows(db, "SELECT status FROM ingest_runs") == [("completed",)]


def test_ctrl_c_of_an_ingest_whose_server_answers_nothing_ends_it_in_seconds(
    corpus: Corpus, home: Path, tmp_path: Path
) -> None:
    db = tmp_path / "w.duckdb"
    proc = _ingest(corpus, db, _env(home, tmp_path))
    out, err, took = _kill_server_then_wait(home, db, proc, "first shard", interrupt=True)
    print(f"the ingest ended {took:.1f} s after Ctrl-C, its server stopped")
    assert proc.returncode == 2, (out, err)
    (line,) = err.strip().splitlines()
    assert "stopped answering (no answer for 3 s after Ctrl-C)" in line, line
    assert "the batches committed before are safe in the warehouse" in line
    assert took < 30, "not the 30 s a silent server is otherwise given"


# --- the start lock --------------------------------------------------------------------------

_HOLD = textwrap.dedent(
    """
    import fcntl, os, sys, time
    fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    print("held", flush=True)
    time.sleep(600)
    """
)
"""Another process that takes the start lock and keeps it (and writes nothing in it)."""


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[tuple[Path, subprocess.Popen[str]]]:
    home = tmp_path / "home"
    home.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(home / LOCK_NAME)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline() == "held\n"
    yield home, proc
    proc.kill()
    proc.wait()


def _zhuoji(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from zhuoji.flows.cli.main import main; main()", *args],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120,
    )


def test_a_held_start_lock_is_waited_for_then_given_up_on(
    holder: tuple[Path, subprocess.Popen[str]], tmp_path: Path
) -> None:
    home, proc = holder
    env = {**_env(home, tmp_path), ps.LOCK_WAIT_ENV: "2"}
    db = tmp_path / "w.duckdb"
    started = time.monotonic()
    ingest = _zhuoji(["ingest", "data/sample", "--db", str(db), "--prefect", "--quiet"], env)
    took = time.monotonic() - started
    assert ingest.returncode == 2, ingest.stderr
    waiting, error = ingest.stderr.strip().splitlines()
    assert waiting.startswith("zhuoji ingest: waiting up to 2 s for the local Prefect server's")
    assert f"start lock {home / LOCK_NAME}, held by PID {proc.pid} (" in waiting
    assert error.startswith(f"error: ingest into {db}: the local Prefect server's start lock")
    assert f"still held by PID {proc.pid}" in error and ps.LOCK_WAIT_ENV in error
    assert "Traceback" not in ingest.stderr
    assert took < 60, took
    assert not (home / RECORD_NAME).exists(), "no server was started"

    os.kill(proc.pid, signal.SIGSTOP)  # Ctrl-Z of the holder: it says so
    try:
        stop = _zhuoji(["server", "stop"], env)
    finally:
        os.kill(proc.pid, signal.SIGCONT)
    assert stop.returncode == 2, stop.stderr
    waiting, error = stop.stderr.strip().splitlines()
    assert waiting.startswith("zhuoji server stop: waiting up to 2 s")
    assert f"which is stopped (`kill -CONT {proc.pid}` resumes it)" in waiting
    assert error.startswith("error: the local Prefect server's start lock")

    proc.kill()  # a lock dies with its holder: the next command takes it at once
    proc.wait()
    stop = _zhuoji(["server", "stop"], env)
    assert stop.returncode == 0 and stop.stderr == "", stop.stderr
    assert "no local server runs" in stop.stdout
    assert (home / LOCK_NAME).read_text().strip().isdigit()  # the last holder's pid


def test_a_lease_held_exclusive_is_waited_for_then_given_up_on(tmp_path: Path) -> None:
    # (what a `zhuoji server stop` suspended while stopping the server holds)
    home = tmp_path / "home"
    home.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(home / ps.LEASE_NAME)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "held\n"
        env = {**_env(home, tmp_path), ps.LOCK_WAIT_ENV: "1"}
        db = tmp_path / "w.duckdb"
        ingest = _zhuoji(["ingest", "data/sample", "--db", str(db), "--prefect", "--quiet"], env)
    finally:
        proc.kill()
        proc.wait()
    assert ingest.returncode == 2, ingest.stderr
    waiting, error = ingest.stderr.strip().splitlines()
    assert waiting.startswith("zhuoji ingest: waiting up to 1 s for the local Prefect server's")
    assert f"lease {home / ps.LEASE_NAME}, held by PID {proc.pid} (" in waiting
    assert f"lease {home / ps.LEASE_NAME} is still held by PID {proc.pid}" in error
    assert "Traceback" not in ingest.stderr


def test_the_reused_server_keeps_none_of_the_runs_environment() -> None:
    env = ps.server_environment(
        {
            "PATH": "/usr/bin",
            "HOME": "/home/u",
            "LC_ALL": "C.UTF-8",
            "TMPDIR": "/tmp/run-1",
            "TMP": "/tmp/run-1",
            "ZHUOJI_PREFECT": "1",
            "ZHUOJI_TEST_KILL_WORKER_ON": "x.jsonl",
            "PREFECT_API_URL": "http://127.0.0.1:1/api",
            "PREFECT_HOME": "/home/u/.prefect",
            "PREFECT_SERVER_API_PORT": "4200",
            "SOME_TOOL_TOKEN": "secret",
        }
    )
    assert env == {
        "PATH": "/usr/bin",
        "HOME": "/home/u",
        "LC_ALL": "C.UTF-8",
        "PREFECT_HOME": "/home/u/.prefect",
        "PREFECT_SERVER_API_PORT": "4200",
    }


def test_the_lock_wait_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ps.LOCK_WAIT_ENV, raising=False)
    assert ps.lock_wait_seconds(90) == 90 + ps.LOCK_WAIT_MARGIN
    monkeypatch.setenv(ps.LOCK_WAIT_ENV, "2.5")
    assert ps.lock_wait_seconds(90) == 2.5
    for bad in ("soon", "-1", "nan"):
        monkeypatch.setenv(ps.LOCK_WAIT_ENV, bad)
        with pytest.raises(ValueError, match=ps.LOCK_WAIT_ENV):
            ps.lock_wait_seconds(90)


def test_lock_holder_names_the_process_holding_the_lock(
    holder: tuple[Path, subprocess.Popen[str]],
) -> None:
    home, proc = holder
    assert ps.lock_holder(home / LOCK_NAME) == proc.pid
    # (and not by this process: it cannot take it)
    with open(home / LOCK_NAME, "rb") as handle, pytest.raises(BlockingIOError):
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)


# --- the watch -------------------------------------------------------------------------------


def _watch_until_lost(watch: ps.ServerWatch, lost: list[str], seconds: float) -> float:
    started = time.monotonic()
    with watch:
        deadline = started + seconds
        while not lost and time.monotonic() < deadline:
            time.sleep(0.05)
    return time.monotonic() - started


def test_the_watch_sees_the_servers_process_end() -> None:
    port = free_port()
    server = subprocess.Popen([sys.executable, "-c", HEALTH_ONLY_SERVER, str(port)])
    url = f"http://127.0.0.1:{port}/api"
    try:
        deadline = time.monotonic() + 30
        while not ps.answers(url, timeout=1):
            assert time.monotonic() < deadline
            time.sleep(0.05)
        lost: list[str] = []
        watch = ps.ServerWatch(url, ps.process_alive(server), lost.append)
        with watch:
            time.sleep(1.5)  # it answers: nothing is lost
            assert lost == []
            server.kill()
            deadline = time.monotonic() + 10
            while not lost:
                assert time.monotonic() < deadline, "the watch did not see the end"
                time.sleep(0.05)
        assert lost == [f"the local Prefect server at {url} stopped (its process ended)"]
    finally:
        server.kill()
        server.wait()


def test_the_watch_gives_up_on_a_server_that_answers_nothing() -> None:
    url = f"http://127.0.0.1:{free_port()}/api"  # nothing listens there
    lost: list[str] = []
    took = _watch_until_lost(ps.ServerWatch(url, lambda: True, lost.append, silent=1), lost, 30)
    assert lost == [f"the local Prefect server at {url} stopped answering (no answer for 1 s)"]
    assert took < 15


def test_a_watch_that_ended_calls_nothing() -> None:
    lost: list[str] = []
    with ps.ServerWatch("http://127.0.0.1:1/api", lambda: False, lost.append) as watch:
        pass
    watch._thread.join(5)
    assert lost == []
