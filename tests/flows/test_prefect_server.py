"""The temporary local Prefect server (``zhuoji.flows.runtime.temporary_server``) and the ingest's
ephemeral mode.

The start-up logic (waiting for the health check, a port taken first, a server that exits
or never answers) runs against small stand-in servers; two tests start the real one: in a
process that is then killed, and under ``zhuoji ingest`` with no server configured.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import textwrap
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from zhuoji.flows.runtime.temporary_server import LocalPrefectServer, ServerStartError

REPO = Path(__file__).resolve().parents[2]

_HEALTHY = textwrap.dedent(
    """
    import http.server, sys
    class Health(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200 if self.path == "/api/health" else 404)
            self.end_headers()
            self.wfile.write(b"true")
        def log_message(self, *args):
            pass
    http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Health).serve_forever()
    """
)
"""A stand-in server that answers the health check on the port it is given."""


class _StandIn(LocalPrefectServer):
    """A :class:`LocalPrefectServer` that runs the scripts given, one per start attempt."""

    def __init__(self, scripts: list[str], timeout: float = 30) -> None:
        super().__init__(timeout)
        self.scripts = scripts
        self.attempts = 0

    def command(self, port: int) -> list[str]:
        script = self.scripts[min(self.attempts, len(self.scripts) - 1)]
        self.attempts += 1
        return [sys.executable, "-c", script, str(port)]

    def environment(self) -> dict[str, str]:
        return dict(os.environ)


def _health(url: str) -> int:
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with direct.open(f"{url}/health", timeout=5) as response:
        status: int = response.status
        return status


def test_start_waits_for_the_health_check_and_stop_ends_the_process() -> None:
    slow = "import time; time.sleep(0.5)\n" + _HEALTHY
    server = _StandIn([slow])
    with server as url:
        assert url == f"http://127.0.0.1:{server.port}/api"
        assert _health(url) == 200
        process = server.process
        assert process is not None and process.poll() is None
    assert server.process is None
    assert process.poll() is not None


def test_the_health_check_goes_to_the_server_not_a_configured_proxy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    with _StandIn([_HEALTHY], timeout=10) as url:
        assert _health(url) == 200


def test_starting_a_running_server_again_keeps_it() -> None:
    server = _StandIn([_HEALTHY])
    with server as url:
        process = server.process
        assert server.start() == url
        assert server.process is process and server.attempts == 1


_BIND_OR_EXIT_3 = textwrap.dedent(
    """
    import socket, sys
    sock = socket.socket()
    try:
        sock.bind(("127.0.0.1", int(sys.argv[1])))
    except OSError:
        sys.exit(3)  # as uvicorn does when its port is taken
    """
)


def test_a_port_taken_first_is_retried_on_another_port() -> None:
    with socket.socket() as holder:  # another process's server, on the port picked first
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        taken = holder.getsockname()[1]
        ports = [taken]

        class _TakenFirst(_StandIn):
            def pick_port(self) -> int:
                return ports.pop(0) if ports else super().pick_port()

        server = _TakenFirst([_BIND_OR_EXIT_3, _HEALTHY])
        with server as url:
            assert server.attempts == 2 and server.port != taken
            assert _health(url) == 200


def test_a_start_failure_on_a_free_port_is_an_error_not_a_retry() -> None:
    server = _StandIn(["import sys; sys.exit(3)", _HEALTHY])  # 3, yet the port is free
    with pytest.raises(ServerStartError, match="exited with code 3"):
        server.start()
    assert server.attempts == 1


def test_a_server_that_exits_is_an_error_naming_its_exit_code() -> None:
    server = _StandIn(["import sys; sys.exit(5)"])
    with pytest.raises(ServerStartError, match="exited with code 5"):
        server.start()
    assert server.process is None


def test_a_server_that_never_answers_is_stopped_and_named_with_the_setting() -> None:
    server = _StandIn(["import time; time.sleep(60)"], timeout=0.5)
    started = time.monotonic()
    with pytest.raises(ServerStartError, match="PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS"):
        server.start()
    assert time.monotonic() - started < 10
    assert server.process is None  # stopped, not left running


def test_the_server_command_is_prefects_own_uvicorn_command() -> None:
    command = LocalPrefectServer(timeout=1).command(8123)
    assert command[:3] == [sys.executable, "-P", "-c"]
    args = command[4:]
    assert args[args.index("--factory") + 1] == "prefect.server.api.server:create_app"
    assert args[args.index("--port") + 1] == "8123"
    assert args[args.index("--host") + 1] == "127.0.0.1"


def test_the_server_environment_turns_the_ui_off_and_names_this_process() -> None:
    env = LocalPrefectServer(timeout=1).environment()
    assert env["PREFECT_UI_ENABLED"] == "0"
    assert env["PREFECT__SERVER_EPHEMERAL"] == "1"
    assert env["ZHUOJI_SERVER_PARENT"] == str(os.getpid())


def test_importing_the_module_does_not_import_prefects_server() -> None:
    code = (
        "import sys, zhuoji.flows.runtime.temporary_server, zhuoji.flows.runtime.prefect_server, "
        "zhuoji.flows.ingest.prefect_run; "
        "print(any(m.startswith('prefect.server') for m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"


@pytest.fixture(scope="session")
def server_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ``PREFECT_HOME`` of this test process's own for the real servers below.

    Servers started at once on one new home each create its database and race in the
    migrations (seen in a fresh clone's CI: "table automation already exists"); the
    real-server tests of one process run one after the other, and each xdist worker is
    a process of its own."""
    return tmp_path_factory.mktemp("prefect-home")


def _env_without_server(home: Path) -> dict[str, str]:
    # (a command run in this process by CliRunner may have set Prefect's logging levels)
    env = {
        k: v
        for k, v in os.environ.items()
        if k != "PREFECT_API_URL" and not k.startswith("PREFECT_LOGGING_")
    }
    env.update(
        PREFECT_HOME=str(home),
        PREFECT_LOGGING_LEVEL="WARNING",
        PREFECT_SERVER_ANALYTICS_ENABLED="false",
        PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS="120",
    )
    return env


def _servers_of(parent_pid: int) -> list[psutil.Process]:
    """The live server processes that ``parent_pid`` started."""
    found = []
    for proc in psutil.process_iter():
        try:
            if proc.environ().get("ZHUOJI_SERVER_PARENT") == str(parent_pid):
                found.append(proc)
        except psutil.Error:
            continue
    return found


@pytest.fixture
def child() -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for proc in started:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_the_real_server_answers_and_ends_when_its_process_is_killed(
    child: list[subprocess.Popen[str]], server_home: Path
) -> None:
    code = textwrap.dedent(
        """
        import json, time
        from zhuoji.flows.runtime.temporary_server import LocalPrefectServer
        server = LocalPrefectServer(timeout=120)
        url = server.start()
        print(json.dumps({"url": url, "pid": server.process.pid}), flush=True)
        time.sleep(300)
        """
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=REPO,
        env=_env_without_server(server_home),
        stdout=subprocess.PIPE,
        text=True,
    )
    child.append(proc)
    assert proc.stdout is not None
    started = json.loads(proc.stdout.readline())
    assert _health(started["url"]) == 200
    server = psutil.Process(started["pid"])
    assert [p.pid for p in _servers_of(proc.pid)] == [server.pid]
    proc.send_signal(signal.SIGKILL)  # no clean-up runs in the killed process
    proc.wait()
    server.wait(timeout=30)  # raises psutil.TimeoutExpired if the server outlives it
    assert not _servers_of(proc.pid)


def test_ingest_with_no_server_configured_starts_one_and_leaves_nothing_running(
    tmp_path: Path, child: list[subprocess.Popen[str]], server_home: Path
) -> None:
    db = tmp_path / "sample.duckdb"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from zhuoji.flows.cli.main import main; main()",
            "ingest",
            "data/sample",
            "--db",
            str(db),
            "--quiet",
            "--prefect",  # data/sample is small: without it, no Prefect at all
        ],
        cwd=REPO,
        # INFO: Prefect then sends the run's logs to the server, some after the run ends;
        # an idle timeout of 0: a temporary server for the run, none kept for later runs
        env={
            **_env_without_server(server_home),
            "PREFECT_LOGGING_LEVEL": "INFO",
            "ZHUOJI_SERVER_IDLE_SECONDS": "0",
        },
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    child.append(proc)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert re.search(r"│ loaded\s+│\s+53 │", out), out
    assert re.search(r"│ hands\s+│\s+522 │", out), out
    # Prefect complains on standard error when it cannot reach its server (a second
    # server started, logs sent after the server stopped): none of that.
    assert "Finished in state Completed()" in err, err  # the INFO logs are there
    assert "Error" not in err and "Starting temporary server" not in err, err
    assert not _servers_of(proc.pid)



def test_the_real_server_imports_nothing_from_the_current_folder(
    tmp_path: Path, server_home: Path
) -> None:
    # ``python -c`` puts the current folder first on the path, before the standard
    # library: a module there named like one the server imports (uvicorn, say) would
    # run in its place.
    here = tmp_path / "logs"
    here.mkdir()
    marker = tmp_path / "imported"
    (here / "uvicorn.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    driver = tmp_path / "driver.py"  # run from a file: the script's folder, not here, is first
    driver.write_text(
        "from zhuoji.flows.runtime.temporary_server import LocalPrefectServer\n"
        "with LocalPrefectServer(timeout=120) as url:\n"
        "    print(url)\n"
    )
    run = subprocess.run(
        [sys.executable, str(driver)],
        cwd=here,
        env=_env_without_server(server_home),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.startswith("http://127.0.0.1:")
    assert not marker.exists()
