"""The local Prefect server that ingest runs reuse
(``zhuoji.flows.runtime.prefect_server.ReusedPrefectServer``).

Its record, locks, lease, stale-record recovery and idle stop run against a stand-in for
uvicorn (a small HTTP server answering Prefect's health and version routes, launched by
the real bootstrap with its real idle watch); one test runs ``zhuoji ingest`` twice with
no server configured against the real one.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import duckdb
import prefect
import pytest

import zhuoji.flows.runtime.prefect_server as ps
from tests.flows.conftest import HEALTH_ONLY_SERVER
from zhuoji.flows.runtime.prefect_server import (
    LEASE_NAME,
    RECORD_NAME,
    ReusedPrefectServer,
    ServerRecord,
)
from zhuoji.flows.runtime.temporary_server import free_port

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not ps.reuse_available(), reason="POSIX file locks")

_FAKE_UVICORN = textwrap.dedent(
    f"""
    import http.server, json, sys
    port = int(sys.argv[sys.argv.index("--port") + 1])
    class Api(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = {{"/api/health": b"true",
                     "/api/admin/version": json.dumps({prefect.__version__!r}).encode()}}
            if self.path not in body:
                self.send_response(404)
                self.end_headers()
                return
            self.send_response(200)
            self.end_headers()
            self.wfile.write(body[self.path])
        def log_message(self, *args):
            pass
    http.server.HTTPServer(("127.0.0.1", port), Api).serve_forever()
    """
)
"""What the stand-in server runs as ``uvicorn``: Prefect's health and version routes."""


@pytest.fixture
def fake_uvicorn(tmp_path: Path) -> Path:
    folder = tmp_path / "fake-uvicorn"
    folder.mkdir()
    (folder / "uvicorn.py").write_text(_FAKE_UVICORN)
    return folder


class StandIn(ReusedPrefectServer):
    """The reused server with the stand-in as its uvicorn."""

    fake: Path

    def environment(self) -> dict[str, str]:
        return {**super().environment(), "PYTHONPATH": str(self.fake)}


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    """A Prefect home for one test; whatever server it records is stopped at the end."""
    folder = tmp_path / "home"
    folder.mkdir()
    yield folder
    ReusedPrefectServer(timeout=0, idle=1, home=folder).stop_running()
    for process in ps._DETACHED:  # reap what this test process started
        if process.poll() is None and str(folder) in " ".join(_environ(process.pid)):
            process.kill()
        process.poll()


def _environ(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/environ").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return []


def _stand_in(home: Path, fake: Path, idle: float = 60) -> StandIn:
    server = StandIn(timeout=30, idle=idle, home=home)
    server.fake = fake
    return server


def _servers_of(home: Path) -> list[int]:
    """The live reused servers (the real or the stand-in) whose home is ``home``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if ps._MARKER.encode() in cmdline and f"ZHUOJI_SERVER_HOME={home}" in _environ(
            int(entry.name)
        ):
            found.append(int(entry.name))
    return found


def _wait_gone(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for process in ps._DETACHED:
            if process.pid == pid:
                process.poll()  # reap it once it exits
        if not Path(f"/proc/{pid}").exists() or not Path(f"/proc/{pid}/cmdline").read_bytes():
            return True
        time.sleep(0.1)
    return False


def test_a_second_run_finds_the_server_the_first_started(home: Path, fake_uvicorn: Path) -> None:
    first = _stand_in(home, fake_uvicorn)
    with first.use() as url:
        record = ServerRecord.read(home / RECORD_NAME)
        assert record is not None and record.url == url
        assert record.version == prefect.__version__
        assert _servers_of(home) == [record.pid]
    started = len(ps._DETACHED)
    second = _stand_in(home, fake_uvicorn)
    with second.use() as again:
        assert again == url
    assert len(ps._DETACHED) == started, "the second run started no server"
    assert _servers_of(home) == [record.pid]
    assert second.stop_running() == record
    assert _wait_gone(record.pid, 10) and not (home / RECORD_NAME).exists()


def test_two_runs_at_once_start_one_server(home: Path, fake_uvicorn: Path) -> None:
    driver = textwrap.dedent(
        f"""
        import sys, time
        from pathlib import Path
        from zhuoji.flows.runtime.prefect_server import ReusedPrefectServer
        class StandIn(ReusedPrefectServer):
            def environment(self):
                return {{**super().environment(), "PYTHONPATH": {str(fake_uvicorn)!r}}}
        with StandIn(timeout=30, idle=60, home=Path({str(home)!r})).use() as url:
            print(url, flush=True)
            time.sleep(1)
        """
    )
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", driver], cwd=REPO, stdout=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    urls = [run.communicate(timeout=120)[0].strip() for run in runs]
    assert all(run.returncode == 0 for run in runs)
    assert urls[0] == urls[1] and urls[0].startswith("http://127.0.0.1:")
    record = ServerRecord.read(home / RECORD_NAME)
    assert record is not None and _servers_of(home) == [record.pid]


def test_a_record_of_a_dead_process_is_replaced(home: Path, fake_uvicorn: Path) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    ServerRecord(gone.pid, 1, "http://127.0.0.1:1/api", prefect.__version__, 0.0).write(
        home / RECORD_NAME
    )
    with _stand_in(home, fake_uvicorn).use() as url:
        record = ServerRecord.read(home / RECORD_NAME)
        assert record is not None and record.pid != gone.pid and record.url == url


def test_a_record_whose_port_answers_another_program_is_replaced(
    home: Path, fake_uvicorn: Path
) -> None:
    port = free_port()
    other = subprocess.Popen([sys.executable, "-c", HEALTH_ONLY_SERVER, str(port)])
    try:
        time.sleep(0.5)
        # the record names a live process (not a reused server) and a port that answers
        url = f"http://127.0.0.1:{port}/api"
        ServerRecord(other.pid, port, url, prefect.__version__, 0.0).write(home / RECORD_NAME)
        with _stand_in(home, fake_uvicorn).use() as got:
            assert got != url
        assert other.poll() is None, "a process that is not a reused server is left alone"
    finally:
        other.kill()
        other.wait()


def test_a_hung_server_is_stopped_and_replaced(
    home: Path, fake_uvicorn: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ps, "HUNG_SECONDS", 1.0)
    with _stand_in(home, fake_uvicorn).use() as url:
        pass
    record = ServerRecord.read(home / RECORD_NAME)
    assert record is not None
    os.kill(record.pid, signal.SIGSTOP)  # alive, answers nothing
    with _stand_in(home, fake_uvicorn).use() as again:
        assert again != url
    assert _wait_gone(record.pid, 15), "the hung server was stopped"


def test_the_server_stops_when_idle_and_not_while_a_run_holds_it(
    home: Path, fake_uvicorn: Path
) -> None:
    server = _stand_in(home, fake_uvicorn, idle=1)
    with server.use():
        record = ServerRecord.read(home / RECORD_NAME)
        assert record is not None
        time.sleep(3)  # three idle timeouts, but the lease is held
        assert _servers_of(home) == [record.pid]
    lease = (home / LEASE_NAME).stat().st_mtime
    assert time.time() - lease < 1, "the run's end is the last use"
    assert _wait_gone(record.pid, 15), "idle for a second: stopped"
    assert not (home / RECORD_NAME).exists()
    with _stand_in(home, fake_uvicorn, idle=1).use() as url:  # the next run starts one
        assert url == f"http://127.0.0.1:{ServerRecord.read(home / RECORD_NAME).port}/api"  # type: ignore[union-attr]


def test_a_server_whose_record_is_removed_stops_itself(home: Path, fake_uvicorn: Path) -> None:
    with _stand_in(home, fake_uvicorn).use():
        pass
    record = ServerRecord.read(home / RECORD_NAME)
    assert record is not None
    time.sleep(1.5)  # its idle watch has seen the record (it looks every second)
    (home / RECORD_NAME).unlink()
    assert _wait_gone(record.pid, 15)


def test_stop_waits_for_the_run_using_the_server(home: Path, fake_uvicorn: Path) -> None:
    waited = threading.Event()
    stopped: list[ServerRecord | None] = []
    server = _stand_in(home, fake_uvicorn)
    with server.use():
        record = ServerRecord.read(home / RECORD_NAME)
        stopper = threading.Thread(
            target=lambda: stopped.append(server.stop_running(on_wait=waited.set))
        )
        stopper.start()
        assert waited.wait(10), "stop saw the run"
        time.sleep(0.5)
        assert not stopped and record is not None and _servers_of(home) == [record.pid]
    stopper.join(30)
    assert stopped == [record]
    assert _wait_gone(record.pid, 10)


def test_the_idle_timeout_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ps.IDLE_ENV, raising=False)
    assert ps.idle_seconds() == ps.DEFAULT_IDLE_SECONDS == 600
    monkeypatch.setenv(ps.IDLE_ENV, "2.5")
    assert ps.idle_seconds() == 2.5
    for bad in ("soon", "-1", "nan"):
        monkeypatch.setenv(ps.IDLE_ENV, bad)
        with pytest.raises(ValueError, match=ps.IDLE_ENV):
            ps.idle_seconds()


def _zhuoji(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from zhuoji.flows.cli.main import main; main()", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_ingest_reuses_the_server_of_an_earlier_run(home: Path, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env.update(
        PREFECT_HOME=str(home),
        PREFECT_LOGGING_LEVEL="WARNING",
        PREFECT_SERVER_ANALYTICS_ENABLED="false",
        PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS="120",
        ZHUOJI_SERVER_IDLE_SECONDS="120",
        COLUMNS="200",  # the summary's table unwrapped
    )
    db = tmp_path / "w.duckdb"
    # --prefect: runs this small (data/sample) take the flow path without a server too
    first = _zhuoji(["ingest", "data/sample", "--db", str(db), "--quiet", "--prefect"], env)
    assert first.returncode == 0, first.stderr
    assert re.search(r"│ loaded\s+│\s+53 │", first.stdout), first.stdout
    record = ServerRecord.read(home / RECORD_NAME)
    assert record is not None and _servers_of(home) == [record.pid]
    second = _zhuoji(
        ["ingest", "data/sample/t3-20261102.ndjson.gz", "--db", str(db)],
        {**env, "ZHUOJI_PREFECT": "1"},  # the setting of --prefect
    )
    assert second.returncode == 0, second.stderr
    assert re.search(r"│ skipped \(unchanged\)\s+│\s+1 │", second.stdout), second.stdout
    assert ServerRecord.read(home / RECORD_NAME) == record, "the same server"
    assert _servers_of(home) == [record.pid]
    assert "Error" not in first.stderr + second.stderr
    # The summary's time counts from the command's start: more than the flow's own run.
    (shown,) = re.findall(r"time\s+│\s+([\d.]+) s", second.stdout)
    con = duckdb.connect(str(db), read_only=True)
    (flow,) = con.execute(
        "SELECT epoch(finished_at) - epoch(started_at) FROM ingest_runs ORDER BY run_id DESC"
    ).fetchone() or (None,)
    con.close()
    assert float(shown) > float(flow) + 0.3, (shown, flow)  # imports, server check, start
    status = _zhuoji(["server", "status"], env)
    assert status.returncode == 0 and record.url in status.stdout, status.stdout
    stop = _zhuoji(["server", "stop"], env)
    assert stop.returncode == 0 and f"pid {record.pid}" in stop.stdout, stop.stdout
    assert not _servers_of(home)
    assert _zhuoji(["server", "status"], env).returncode == 1


def test_server_status_and_stop_json_give_the_running_server(
    home: Path, fake_uvicorn: Path
) -> None:
    import json

    server = _stand_in(home, fake_uvicorn)
    with server.use() as url:
        pass
    record = ServerRecord.read(home / RECORD_NAME)
    assert record is not None and record.url == url
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env.update(PREFECT_HOME=str(home), ZHUOJI_SERVER_IDLE_SECONDS="60")
    status = _zhuoji(["server", "status", "--json"], env)
    assert status.returncode == 0 and status.stdout.count("\n") == 1, status.stderr
    found = json.loads(status.stdout)
    assert found == {
        "running": True,
        "prefect_home": str(home.resolve()),
        "url": url,
        "pid": record.pid,
        "prefect_version": record.version,
        "up_seconds": found["up_seconds"],
        "last_used_seconds": found["last_used_seconds"],
        "idle_timeout_seconds": 60.0,
    }
    assert found["up_seconds"] >= 0 and found["last_used_seconds"] >= 0
    stop = _zhuoji(["server", "stop", "--json"], env)
    assert stop.returncode == 0 and stop.stdout.count("\n") == 1, stop.stderr
    assert json.loads(stop.stdout) == {
        "stopped": True, "prefect_home": str(home.resolve()), "url": url, "pid": record.pid,
    }
    assert _wait_gone(record.pid, 30)
    assert json.loads(_zhuoji(["server", "status", "--json"], env).stdout)["running"] is False
