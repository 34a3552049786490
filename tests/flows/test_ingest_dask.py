"""The flow on a Dask cluster gives the database the local process pool gives."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import dask.config
import pytest

from tests.flows.conftest import Corpus, flow_runs_of, snapshot, task_runs_of
from zhuoji.flows.ingest.discover import FileDigest, hash_file
from zhuoji.flows.ingest.recovery import DaskChunkWatch
from zhuoji.flows.ingest.run import run_ingest
from zhuoji.flows.runtime.dask_cluster import DaskClusterError, check_workers_reach_api
from zhuoji.flows.warehouse.rows import FileStatus


@pytest.mark.xdist_group("prefect")
def test_a_dask_cluster_gives_the_same_database(
    corpus: Corpus, clean_db: Path, prefect_harness: str, tmp_path: Path
) -> None:
    from distributed import LocalCluster

    db = tmp_path / "dask.duckdb"
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        summary = run_ingest([str(corpus.root)], db, dask_address=cluster.scheduler_address)
    assert summary.workers == 2
    assert summary.runner == f"dask {cluster.scheduler_address}"
    assert summary.files_loaded == len(corpus.games)
    assert snapshot(db) == snapshot(clean_db)
    # every task run on the workers reached the Prefect API and ended there
    run = flow_runs_of(db)[0]
    states = sorted({(t.name.rsplit("-", 1)[0], t.state_type.value) for t in task_runs_of(run.id)})
    assert ("process-files", "COMPLETED") in states, states
    assert all(state == "COMPLETED" for _, state in states), states


# --- the cluster checked before a run, and watched during it -------------------------------

REPO = Path(__file__).resolve().parents[2]
SITE_PACKAGES = Path(sysconfig.get_paths()["purelib"])

_WORKER_MAIN = (
    "import sys; sys.argv[0] = 'dask-worker'; "
    "from distributed.cli.dask_worker import main; main()"
)


def _worker_without_project(address: str, cwd: Path, extra_path: Sequence[Path] = ()) -> Any:
    """A real ``dask worker`` process whose Python cannot import the project: ``-I -S``
    (no environment variables, no current folder, no ``.pth`` files, so not the editable
    install's finder), with only the installed packages (and ``extra_path``) on its path."""
    path = [*map(str, extra_path), str(SITE_PACKAGES)]
    code = f"import sys; sys.path[:0] = {path!r}; " + _WORKER_MAIN
    return subprocess.Popen(
        [
            sys.executable,
            "-I",
            "-S",
            "-c",
            code,
            address,
            "--nworkers",
            "1",
            "--nthreads",
            "1",
            "--no-dashboard",
        ],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _zhuoji(*args: str, cwd: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", "from zhuoji.flows.cli.main import run_cli; run_cli()", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done, time.monotonic() - start


def _assert_one_line_error(done: subprocess.CompletedProcess[str], *wanted: str) -> None:
    assert done.returncode == 2, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: Dask cluster ")
    for text in wanted:
        assert text in lines[0]


@contextmanager
def _scheduler_only() -> Iterator[Any]:
    from distributed import LocalCluster

    with LocalCluster(n_workers=0, processes=True, dashboard_address=None) as cluster:
        yield cluster


def _wait_workers(address: str, count: int) -> None:
    from distributed import Client

    with Client(address, timeout="20s", set_as_default=False) as client:  # type: ignore[no-untyped-call]
        client.wait_for_workers(count, timeout=60)


def test_a_worker_without_the_code_stops_the_ingest_before_it_starts(
    corpus: Corpus, tmp_path: Path
) -> None:
    with _scheduler_only() as cluster:
        address = cluster.scheduler_address
        worker = _worker_without_project(address, tmp_path)
        try:
            _wait_workers(address, 1)
            done, seconds = _zhuoji(
                "ingest", str(corpus.root), "--db", str(tmp_path / "x.duckdb"),
                "--dask-address", address, "--quiet", cwd=tmp_path,
            )
        finally:
            worker.kill()
            worker.wait(timeout=30)
    _assert_one_line_error(
        done, "cannot import zhuoji (No module named 'zhuoji')", "install the same zhuoji wheel"
    )
    assert seconds < 60
    assert not (tmp_path / "x.duckdb").exists()


def test_a_worker_with_another_version_stops_the_ingest(corpus: Corpus, tmp_path: Path) -> None:
    # the project importable, but the metadata found first says another version
    other = tmp_path / "other"
    dist = other / "zhuoji-9.9.9.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: zhuoji\nVersion: 9.9.9\n")
    with _scheduler_only() as cluster:
        address = cluster.scheduler_address
        worker = _worker_without_project(address, tmp_path, [other, REPO])
        try:
            _wait_workers(address, 1)
            done, _ = _zhuoji(
                "ingest", str(corpus.root), "--db", str(tmp_path / "x.duckdb"),
                "--dask-address", address, "--quiet", cwd=tmp_path,
            )
        finally:
            worker.kill()
            worker.wait(timeout=30)
    _assert_one_line_error(done, "runs zhuoji 9.9.9, this process 0.1.0")


def test_an_unreachable_scheduler_is_one_line_within_seconds(
    corpus: Corpus, tmp_path: Path
) -> None:
    from zhuoji.flows.runtime.temporary_server import free_port

    address = f"tcp://127.0.0.1:{free_port()}"  # nothing listens there
    done, seconds = _zhuoji(
        "ingest", str(corpus.root), "--dask-address", address, "--quiet", cwd=tmp_path
    )
    _assert_one_line_error(done, address, "does not answer within 10 s")
    assert seconds < 40


def test_a_scheduler_without_workers_is_one_line_within_seconds(
    corpus: Corpus, tmp_path: Path
) -> None:
    with _scheduler_only() as cluster:
        done, seconds = _zhuoji(
            "ingest", str(corpus.root), "--dask-address", cluster.scheduler_address,
            "--quiet", cwd=tmp_path,
        )
    _assert_one_line_error(done, "has no workers")
    assert seconds < 40


def test_a_task_that_kills_its_workers_quarantines_its_files(tmp_path: Path) -> None:
    from distributed import Client, LocalCluster

    log = tmp_path / "a.jsonl"
    log.write_bytes(b"{}\n")
    chunk = [FileDigest(path=log.as_posix(), sha256=None, size=3)]
    with (
        dask.config.set({"distributed.scheduler.allowed-failures": 1}),
        LocalCluster(
            n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster, set_as_default=False) as client,  # type: ignore[no-untyped-call]
    ):
        future = client.submit(os._exit, 1, pure=False)  # a real death, twice
        watch = DaskChunkWatch(cluster.scheduler_address, poll_seconds=0.5)
        try:
            outcomes = watch.result(future, chunk)
        finally:
            watch.close()
        # The nanny restarts the killed worker; closing the cluster while that
        # restart is under way trips distributed ("can only join a started
        # process"), so let the replacement worker register first.
        client.wait_for_workers(1, timeout=120)
    assert [o.status for o in outcomes] == [FileStatus.QUARANTINED]
    assert outcomes[0].sha256 == hash_file(log).sha256
    assert "the Dask workers processing this file's task died (2 tries" in (
        outcomes[0].errors[0].sentence
    )


def test_a_cluster_left_without_workers_fails_the_wait(tmp_path: Path) -> None:
    from distributed import Client, LocalCluster

    chunk = [FileDigest(path=(tmp_path / "a.jsonl").as_posix(), sha256="0" * 64, size=3)]
    with (
        LocalCluster(
            n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster, set_as_default=False) as client,  # type: ignore[no-untyped-call]
    ):
        future = client.submit(time.sleep, 600, pure=False)
        client.retire_workers(close_workers=True)
        watch = DaskChunkWatch(cluster.scheduler_address, no_worker_seconds=2, poll_seconds=0.5)
        start = time.monotonic()
        try:
            with pytest.raises(DaskClusterError, match="no worker left for 2 s"):
                watch.result(future, chunk)
        finally:
            watch.close()
        assert time.monotonic() - start < 30


def test_workers_that_cannot_reach_the_prefect_api_are_named() -> None:
    from distributed import LocalCluster

    from zhuoji.flows.runtime.temporary_server import free_port

    url = f"http://127.0.0.1:{free_port()}/api"  # nothing listens there
    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        with pytest.raises(DaskClusterError) as caught:
            check_workers_reach_api(cluster.scheduler_address, url)
        (worker,) = cluster.scheduler.workers
    message = str(caught.value)
    assert message.startswith(f"Dask cluster {cluster.scheduler_address}: worker {worker} ")
    assert f"cannot reach the Prefect API at {url} (" in message
    assert "\n" not in message
