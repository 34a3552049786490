"""``zhuoji deploy`` as an operator watches it, on a real Prefect server (the session's
harness) and a real served deployment: a killed run is marked Crashed, with its ingest
subflow, at once while the serving process lives, and by the server's automation once its
heartbeats stop when the serving process is gone too; never while it is alive."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.flows.conftest import Corpus
from zhuoji.flows.ingest.deploy import FLOW_NAME, deployment_tag, run_name_for
from zhuoji.flows.ingest.worker import KILL_WORKER_ON
from zhuoji.flows.runtime.heartbeats import (
    EVALUATION_SECONDS,
    MINIMUM_HEARTBEAT,
    HeartbeatSettingError,
    check_crashed_after,
    crash_automation_name,
    glob_escape,
    heartbeat_seconds,
)
from zhuoji.flows.warehouse import store as warehouse

pytestmark = [
    pytest.mark.xdist_group("prefect"),
    pytest.mark.skipif(sys.platform != "linux", reason="Linux process facts (/proc)"),
]

CRASHED_AFTER = 50
"""The test's crash window, short (the default is 90 s): a 30 s heartbeat (Prefect's
minimum) allows 40 s or more; 20 s of room for a heartbeat late on a loaded machine."""


def _zhuoji(*args: str) -> list[str]:
    return [sys.executable, "-c", "from zhuoji.flows.cli.main import run_cli; run_cli()", *args]


def _poll(what: str, check: Callable[[], Any], seconds: float) -> Any:
    deadline = time.monotonic() + seconds
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.3)


@dataclass
class Served:
    process: subprocess.Popen[bytes]
    console: Path
    name: str

    def lines(self) -> list[str]:
        return self.console.read_text(encoding="utf-8", errors="replace").splitlines()

    def alive(self) -> bool:
        return self.process.poll() is None

    def run_process(self) -> int:
        """The process the serving process started for its flow run (one at a time: a
        child made by multiprocessing's spawn, as Prefect's runner starts a served flow's
        run, or by ``python -m prefect.engine``)."""
        found: list[int] = []
        for task in Path(f"/proc/{self.process.pid}/task").iterdir():
            with suppress(OSError):
                for pid in (task / "children").read_text().split():
                    command = Path(f"/proc/{pid}/cmdline").read_bytes()
                    if b"spawn_main" in command or b"prefect.engine" in command:
                        found.append(int(pid))
        assert len(found) == 1, found
        return found[0]


@contextmanager
def _serve(
    api: str, inbox: Path, db: Path, name: str, tmp: Path, *args: str, **env: str
) -> Iterator[Served]:
    console = tmp / f"{name}.console"
    with console.open("wb") as out:
        process = subprocess.Popen(
            _zhuoji("deploy", str(inbox), "--db", str(db), "--name", name, *args),
            env={**os.environ, "PREFECT_API_URL": api, "PREFECT_LOGGING_LEVEL": "WARNING",
                 "LANG": "C.UTF-8", **env},
            cwd=tmp,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    served = Served(process, console, name)
    try:
        _poll("the deployment", lambda: _deployment(served), seconds=120)
        yield served
    finally:
        if served.alive():
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _deployment(served: Served) -> Any:
    from prefect.client.orchestration import get_client

    assert served.alive(), "\n".join(served.lines())
    with get_client(sync_client=True) as client:
        try:
            return client.read_deployment_by_name(f"{FLOW_NAME}/{served.name}")
        except Exception:
            return None


def _start_run(served: Served) -> Any:
    from prefect.deployments import run_deployment

    return run_deployment(f"{FLOW_NAME}/{served.name}", timeout=0)


def _flow_run(run_id: Any) -> Any:
    from prefect.client.orchestration import get_client

    with get_client(sync_client=True) as client:
        return client.read_flow_run(run_id)


def _subflows(parent: Any) -> list[Any]:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterParentFlowRunId

    with get_client(sync_client=True) as client:
        runs: list[Any] = client.read_flow_runs(
            flow_run_filter=FlowRunFilter(
                parent_flow_run_id=FlowRunFilterParentFlowRunId(any_=[parent])
            )
        )
    return runs


def _state(run: Any) -> str:
    return str(run.state_type.value) if run.state_type is not None else ""


def _heartbeats(run_id: Any) -> int:
    """How many heartbeat events of the flow run the server has recorded."""
    from prefect.client.orchestration import get_client
    from prefect.events.filters import EventFilter, EventNameFilter, EventResourceFilter

    with get_client(sync_client=True) as client:
        page = client.read_events(
            filter=EventFilter(
                event=EventNameFilter(name=["prefect.flow-run.heartbeat"]),
                resource=EventResourceFilter(id=[f"prefect.flow-run.{run_id}"]),
            ),
            limit=50,
        )
    return len(page.events)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with suppress(OSError):  # a zombie (not reaped yet) is dead
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0] != "Z"
    return False


@contextmanager
def _no_process_left(pids: list[int]) -> Iterator[None]:
    try:
        yield
    finally:
        for pid in pids:
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


@pytest.fixture()
def inbox(corpus: Corpus, tmp_path: Path) -> Path:
    """An inbox whose second file the flow run's process SIGKILLs itself on
    (``ZHUOJI_TEST_KILL_WORKER_ON``: a small run audits in the flow run's process)."""
    folder = tmp_path / "inbox"
    folder.mkdir()
    (folder / "d00.json").write_bytes((corpus.root / "d00.json").read_bytes())
    (folder / "kill.json.gz").write_bytes((corpus.root / "d01.json.gz").read_bytes())
    return folder


@contextmanager
def _reader(db: Path) -> Iterator[None]:
    """Another process holding the database read-only (a run waits for it) until the block
    ends."""
    holder = subprocess.Popen(
        [sys.executable, "-c",
         f"import duckdb, sys; c = duckdb.connect({str(db)!r}, read_only=True); "
         "print('open', flush=True); sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        yield
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=60)


def _crashed_with_subflow(run_id: Any) -> list[Any] | None:
    """The run and its one subflow when both are Crashed, else None."""
    run = _flow_run(run_id)
    subflows = _subflows(run_id)
    if _state(run) == "CRASHED" and [_state(r) for r in subflows] == ["CRASHED"]:
        return [run, *subflows]
    return None


@pytest.mark.slow
def test_a_killed_run_is_marked_crashed_with_its_subflow_without_another_ingest(
    inbox: Path, prefect_harness: str, tmp_path: Path
) -> None:
    db = tmp_path / "watched.duckdb"
    warehouse.open_writer(db).close()
    left: list[int] = []  # a flow run's process to end should the test fail
    with _no_process_left(left), _serve(
        prefect_harness, inbox, db, "watched", tmp_path, "--crashed-after", str(CRASHED_AFTER),
        "--lang", "zh",
        **{KILL_WORKER_ON: "kill.json.gz"},
    ) as served:
        # 1. The run's process dies while the serving process lives: Prefect's runner
        # marks the run Crashed, zhuoji's hook its ingest subflow, at once. (The run
        # waits for a reader to let go of the database, so that its process is found
        # before it goes on into its subflow and kills itself there.)
        with _reader(db):
            first = _start_run(served)
            _poll("the first run running",
                  lambda: _state(_flow_run(first.id)) == "RUNNING", seconds=120)
            child = served.run_process()
            left.append(child)
        _poll("the first run's process to die", lambda: not _alive(child), seconds=180)
        died = time.monotonic()
        outer, subflow = _poll(
            "the first run and its subflow crashed", lambda: _crashed_with_subflow(first.id),
            seconds=180,
        )
        at_once = time.monotonic() - died
        assert re.fullmatch(r"ingest-inbox-\d{8}-\d{6}", outer.name), outer.name
        assert subflow.name.startswith("watched.duckdb-")
        assert "status code: -9" in outer.state.message
        assert subflow.state.message.startswith(f"its deployment run {outer.name} crashed:")
        # the serving process's line, in the language it was given (its runs' too)
        crashed = _poll(
            "the crash line",
            lambda: [line for line in served.lines() if f" {outer.name} 已崩溃" in line],
            seconds=60,
        )
        assert len(crashed) == 1, crashed
        assert re.fullmatch(
            rf"\d\d:\d\d:\d\d 错误 {outer.name} 已崩溃（Crashed）：Process exited with "
            rf"status code: -9\..*；一并标为崩溃：{subflow.name}",
            crashed[0],
        ), crashed
        assert len([line for line in served.lines() if f"信息 {outer.name} 开始：" in line]) == 1

        # A run that fails is one line too (its inbox gone)
        inbox.rename(tmp_path / "away")
        failed = _start_run(served)
        _poll("the failed run", lambda: _state(_flow_run(failed.id)) == "FAILED", seconds=120)
        name = _flow_run(failed.id).name
        line = _poll(
            "the failure line",
            lambda: [line for line in served.lines() if f" {name} 失败" in line],
            seconds=60,
        )
        assert re.fullmatch(
            rf"\d\d:\d\d:\d\d 错误 {name} 失败，用时 \d+\.\d 秒：.*{re.escape(str(inbox))}.*",
            line[0],
        ), line
        (tmp_path / "away").rename(inbox)

        # 2. The serving process is killed too (a lost machine): nobody sees the run's
        # process die. The run is kept Running by its heartbeats while it lives (waiting
        # for the reader), and marked Crashed with its subflow once they stop, by the
        # server's automation.
        with _reader(db):
            second = _start_run(served)
            _poll("the second run running",
                  lambda: _state(_flow_run(second.id)) == "RUNNING", seconds=120)
            child = served.run_process()
            left.append(child)
            served.process.kill()
            served.process.wait()
            assert _alive(child)
            # alive after its window: three heartbeats take 60 s, over the window and
            # the server's evaluation after it
            _poll("three heartbeats", lambda: _heartbeats(second.id) >= 3, seconds=240)
            assert 2 * MINIMUM_HEARTBEAT > CRASHED_AFTER + EVALUATION_SECONDS
            assert _state(_flow_run(second.id)) == "RUNNING"
            assert _alive(child)
        # the run goes on into its subflow and its process kills itself there
        _poll("the second run's process to die", lambda: not _alive(child), seconds=180)
        died = time.monotonic()
        runs = _poll(
            "the second run and its subflow crashed", lambda: _crashed_with_subflow(second.id),
            seconds=CRASHED_AFTER + 180,
        )
        later = time.monotonic() - died
    for run in runs:
        assert f"no heartbeat for {CRASHED_AFTER} s" in run.state.message, run.state.message
    # the documented bounds, with room for a loaded machine: at once, and --crashed-after
    # plus 10 s
    assert at_once < 30, at_once
    assert later < CRASHED_AFTER + 10 + 60, later
    print(f"marked crashed {at_once:.1f} s and {later:.1f} s after the run's process died")


def test_the_automation_watches_only_the_deployments_runs() -> None:
    tag = deployment_tag("club [a]*")
    assert tag == "deployment:zhuoji-ingest-inbox/club [a]*"
    assert glob_escape(tag) == "deployment:zhuoji-ingest-inbox/club [[]a][*]"
    import fnmatch

    assert fnmatch.fnmatchcase(tag, glob_escape(tag))
    assert not fnmatch.fnmatchcase("deployment:zhuoji-ingest-inbox/club a", glob_escape(tag))
    assert "club [a]*" in crash_automation_name(tag)


def test_heartbeat_settings() -> None:
    assert heartbeat_seconds({}) == 30
    assert heartbeat_seconds({"PREFECT_FLOWS_HEARTBEAT_FREQUENCY": "60"}) == 60
    assert heartbeat_seconds({"PREFECT_RUNNER_HEARTBEAT_FREQUENCY": "45"}) == 45
    for bad in ("10", "none", "1.5"):
        with pytest.raises(HeartbeatSettingError, match="30 or more"):
            heartbeat_seconds({"PREFECT_FLOWS_HEARTBEAT_FREQUENCY": bad})
    check_crashed_after(40, 30)
    with pytest.raises(HeartbeatSettingError, match="give 70 s or more"):
        check_crashed_after(60, 60)


def test_run_names() -> None:
    from datetime import datetime

    moment = datetime(2026, 12, 6, 18, 45, 0)
    assert run_name_for("/srv/inbox", moment) == "ingest-inbox-20261206-184500"
    assert run_name_for("/srv/club logs/", moment) == "ingest-club logs-20261206-184500"
    assert run_name_for("/", moment) == "ingest-inbox-20261206-184500"


def test_deploy_refuses_a_bad_heartbeat_and_a_short_window_in_one_line(tmp_path: Path) -> None:
    env = {**os.environ, "PREFECT_API_URL": "http://127.0.0.1:9/api"}
    done = subprocess.run(
        _zhuoji("deploy", str(tmp_path), "--lang", "zh"),
        env={**env, "PREFECT_FLOWS_HEARTBEAT_FREQUENCY": "10"},
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr == (
        "错误：PREFECT_FLOWS_HEARTBEAT_FREQUENCY=10：流程运行的心跳须为整数秒，至少 30"
        "（zhuoji deploy 靠心跳发现运行已死）\n"
    )
    done = subprocess.run(
        _zhuoji("deploy", str(tmp_path), "--crashed-after", "35", "--lang", "en"),
        env=env, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr == (
        "error: --crashed-after 35 s is too short for a heartbeat every 30 s: "
        "give 40 s or more\n"
    )
