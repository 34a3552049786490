"""The local workers: forked from the fork server, handed their tasks in order."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from prefect import flow, task
from prefect.cache_policies import NO_CACHE
from prefect.task_runners import ProcessPoolTaskRunner

from zhuoji.flows.ingest.prefect_run import make_task_runner
from zhuoji.flows.runtime import pool

needs_fork_server = pytest.mark.skipif(
    not pool.fork_server_available(), reason="this platform has no fork server"
)


@task(name="whose-child", cache_policy=NO_CACHE)
def _parent() -> int:
    """The worker's parent process: the fork server for a forked worker, the process
    running the flow for a spawned one."""
    return os.getppid()


@task(name="started-at", cache_policy=NO_CACHE)
def _started_at(seconds: float) -> float:
    started = time.monotonic()
    time.sleep(seconds)
    return started


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts threads in /proc")
def test_the_preloaded_modules_start_no_thread() -> None:
    # Forking is safe only from a process with one thread: no module the fork server
    # imports may start one (pyarrow and polars do, so the workers import them).
    code = (
        "import os, sys\n"
        f"for name in {pool.WORKER_PRELOAD!r}: __import__(name)\n"
        "print(len(os.listdir('/proc/self/task')))\n"
        "print(sorted(m for m in ('pyarrow', 'polars', 'duckdb') if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout.split("\n")
    assert out[0] == "1"
    assert out[1] == "[]"


def test_a_local_run_uses_the_fork_server_runner() -> None:
    runner = make_task_runner(2, None)
    assert isinstance(runner, pool.ForkServerTaskRunner)
    assert isinstance(runner, ProcessPoolTaskRunner)
    assert type(runner.duplicate()) is pool.ForkServerTaskRunner  # Prefect's copy per worker


@needs_fork_server
def test_the_pool_takes_the_fork_server_and_one_dispatch_thread() -> None:
    import prefect.task_runners

    before = prefect.task_runners.multiprocessing  # type: ignore[attr-defined]
    with pool.ForkServerTaskRunner(max_workers=2) as runner:
        executor = runner._executor
        assert executor is not None
        assert executor._mp_context.get_start_method() == "forkserver"
        resolver = runner._resolver_executor
        assert isinstance(resolver, ThreadPoolExecutor)
        assert resolver._max_workers == 1
    assert prefect.task_runners.multiprocessing is before  # type: ignore[attr-defined]


def test_without_a_fork_server_the_workers_are_spawned(monkeypatch: pytest.MonkeyPatch) -> None:
    from zhuoji.flows.runtime import fork_server

    monkeypatch.setattr(fork_server, "fork_server_available", lambda: False)
    monkeypatch.setattr(pool, "fork_server_available", lambda: False)
    assert pool.start_fork_server() is False
    with pool.ForkServerTaskRunner(max_workers=1) as runner:
        assert runner._executor is not None
        assert runner._executor._mp_context.get_start_method() == "spawn"


@needs_fork_server
@pytest.mark.xdist_group("prefect")
def test_workers_are_forked_from_the_fork_server(prefect_harness: str) -> None:
    from multiprocessing import forkserver

    assert pool.start_fork_server() is True
    assert pool.start_fork_server() is True  # a running one is kept
    server_pid = forkserver._forkserver._forkserver_pid  # type: ignore[attr-defined]
    assert server_pid is not None and server_pid != os.getpid()

    @flow(task_runner=pool.ForkServerTaskRunner(max_workers=2), validate_parameters=False)
    def parents() -> list[int]:
        futures = [_parent.submit() for _ in range(4)]
        return [f.result() for f in futures]

    assert set(parents()) == {server_pid}


@needs_fork_server
@pytest.mark.xdist_group("prefect")
def test_tasks_reach_the_workers_in_submission_order(prefect_harness: str) -> None:
    # Two workers, tasks of equal length: tasks 2k and 2k+1 run together, after 2k-2
    # and 2k-1. A task handed to the pool out of order would start a round early.
    seconds = 1.5

    @flow(task_runner=pool.ForkServerTaskRunner(max_workers=2), validate_parameters=False)
    def rounds() -> list[float]:
        futures = [_started_at.submit(seconds) for _ in range(8)]
        return [f.result() for f in futures]

    starts = rounds()
    # A worker takes the next task only when it is done with one, so in order a task
    # starts after the one two places before it (whatever each worker's set-up takes).
    for k in range(6):
        assert starts[k + 2] > starts[k], starts


def test_the_fork_server_is_started_by_a_local_run_only(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import zhuoji.flows.ingest.prefect_run
    import zhuoji.flows.ingest.run

    calls: list[str] = []
    monkeypatch.setattr(
        zhuoji.flows.ingest.prefect_run, "start_fork_server", lambda: calls.append("start"))
    monkeypatch.setattr(
        zhuoji.flows.ingest.prefect_run, "dask_worker_count", lambda address: 2)
    monkeypatch.setattr(
        zhuoji.flows.ingest.prefect_run, "check_workers_reach_api", lambda address, url: None)
    monkeypatch.setattr(
        zhuoji.flows.ingest.prefect_run, "drain_workers", lambda address: None)

    class Stop(Exception):
        pass

    class Flow:
        def with_options(self, **options: object) -> Flow:
            return self

        def __call__(self, **parameters: object) -> None:
            raise Stop  # the run stops where the flow would start

    monkeypatch.setattr(
        zhuoji.flows.ingest.prefect_run, "prefect_api", lambda *_: contextlib.nullcontext())
    monkeypatch.setattr(
        zhuoji.flows.ingest.prefect_run, "ingest_flow", Flow())
    log = tmp_path / "a.jsonl"
    log.write_text("")
    for dask in ("tcp://127.0.0.1:1", None):
        with pytest.raises(Stop):
            zhuoji.flows.ingest.run.run_ingest(
                [str(log)], tmp_path / "db.duckdb", workers=2, dask_address=dask
            )
    assert calls == ["start"]


def test_the_ingest_command_starts_the_fork_server_early_with_a_server_configured(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    import zhuoji.flows.ingest.run
    import zhuoji.flows.runtime.fork_server
    from zhuoji.flows.cli.main import app

    calls: list[str] = []
    monkeypatch.setattr(
        zhuoji.flows.runtime.fork_server, "start_fork_server", lambda: calls.append("start"))

    class Stop(Exception):
        pass

    def stop(*args: object, **kwargs: object) -> None:
        calls.append("run")
        raise Stop

    monkeypatch.setattr(
        zhuoji.flows.ingest.run, "run_ingest", stop)
    runner = CliRunner()
    local = ["ingest", str(tmp_path), "--db", str(tmp_path / "a.duckdb")]
    dask = [*local, "--dask-address", "tcp://x:1"]
    # With a server configured the command starts the fork server before the flow's
    # import; without one, run_ingest starts it while the temporary server starts.
    for url, args, expected in (
        ("http://127.0.0.1:1/api", local, ["start", "run"]),
        ("http://127.0.0.1:1/api", dask, ["run"]),
        (None, local, ["run"]),
    ):
        calls.clear()
        if url is None:
            monkeypatch.delenv("PREFECT_API_URL", raising=False)
        else:
            monkeypatch.setenv("PREFECT_API_URL", url)
        result = runner.invoke(app, args)
        # The command ends an unexpected error as one line and exit 2.
        assert result.exit_code == 2 and "Stop" in result.output, result.output
        assert calls == expected, (url, args)


@needs_fork_server
@pytest.mark.xdist_group("prefect")
def test_a_worker_running_the_ingest_task_imports_no_duckdb_or_polars(
    prefect_harness: str, tmp_path: Path
) -> None:
    # The worker imports zhuoji.flows.ingest.worker_task for its task, not the flow's module with
    # its
    # database and frame libraries (about 0.3 s of CPU and 0.7 s of start-up a worker).
    from zhuoji.flows.ingest.worker_task import process_files_task

    def heavy_modules() -> list[str]:  # pickled by value: the worker imports no test module
        names = (
            "duckdb", "polars", "zhuoji.flows.ingest.prefect_run", "zhuoji.flows.warehouse.store"
        )
        return sorted(name for name in names if name in sys.modules)

    report = task(heavy_modules, name="heavy-modules", cache_policy=NO_CACHE)

    @flow(task_runner=pool.ForkServerTaskRunner(max_workers=1), validate_parameters=False)
    def one_worker() -> tuple[list[object], list[str]]:
        outcomes = process_files_task.submit([], tmp_path.as_posix()).result()
        return outcomes, report.submit().result()

    assert one_worker() == ([], [])


@needs_fork_server
def test_the_fork_server_imports_nothing_from_the_current_folder(tmp_path: Path) -> None:
    # CPython's fork server imports its preload with Python's default path, the current
    # folder first (the parent's path it is handed is applied only in the workers), so a
    # package there named like a preloaded one (a Prefect project's own flows/) was
    # imported, and run, in the fork server instead of this project's.
    here = tmp_path / "logs"
    (here / "flows").mkdir(parents=True)
    marker = tmp_path / "imported"
    (here / "flows" / "__init__.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    driver = tmp_path / "driver.py"  # run from a file: the script's folder, not here, is first
    driver.write_text(
        "import multiprocessing, os\n"
        "from zhuoji.flows.runtime.fork_server import METHOD, start_fork_server\n"
        "if __name__ == '__main__':\n"
        "    assert start_fork_server()\n"
        "    worker = multiprocessing.get_context(METHOD).Process(target=os.getpid)\n"
        "    worker.start()\n"  # waits for the fork server's imports
        "    worker.join()\n"
        "    print(worker.exitcode)\n"
    )
    run = subprocess.run(
        [sys.executable, str(driver)], cwd=here, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "0"
    assert not marker.exists()
