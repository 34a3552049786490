"""The workers of an ingest on a Dask cluster find a family kept outside zhuoji as the
command does: each ``dask worker`` is a process of its own, started with the same
``ZHUOJI_FAMILIES`` (the 平胡 test family of ``tests/plugin_family/``), and looks the
family up itself when it audits the family's games."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tests.flows.test_plugin_family import (
    FOLDER,
    GAMES,
    PRESETS,
    _env,
    write_logs,
    zhuoji,
)

pytestmark = pytest.mark.xdist_group("prefect")

_WORKER_MAIN = (
    "import sys; sys.argv[0] = 'dask-worker'; "
    "from distributed.cli.dask_worker import main; main()"
)


@pytest.fixture
def cluster(prefect_harness: str) -> Iterator[str]:
    """A scheduler and two ``dask worker`` processes started with ``ZHUOJI_FAMILIES``."""
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=0, processes=True, dashboard_address=None) as local:
        address = local.scheduler_address
        env = _env(ZHUOJI_FAMILIES=str(FOLDER), PREFECT_API_URL=prefect_harness)
        workers = [
            subprocess.Popen(
                [sys.executable, "-c", _WORKER_MAIN, address, "--nworkers", "1",
                 "--nthreads", "1", "--no-dashboard"],
                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for _ in range(2)
        ]
        try:
            with Client(address, timeout="20s", set_as_default=False) as client:  # type: ignore[no-untyped-call]
                client.wait_for_workers(2, timeout=120)
            yield address
        finally:
            for worker in workers:
                worker.terminate()
            for worker in workers:
                try:
                    worker.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    worker.kill()
                    worker.wait()


def test_dask_workers_audit_the_familys_games(cluster: str, tmp_path: Path,
                                              prefect_harness: str) -> None:
    logs = write_logs(tmp_path / "logs")
    db = tmp_path / "w.duckdb"
    result = zhuoji("ingest", str(logs), "--db", str(db), "--dask-address", cluster, "--json",
                    PREFECT_API_URL=prefect_harness, PREFECT_LOGGING_LEVEL="WARNING")
    assert result.returncode == 0, result.stderr
    summary: dict[str, Any] = json.loads(result.stdout)
    assert summary["runner"] == f"dask {cluster}" and summary["workers"] == 2
    assert summary["files_loaded"] == GAMES * len(PRESETS) + 1
    assert summary["files_quarantined"] == 0 and summary["disputed_hands"] == 1
    con = duckdb.connect(str(db), read_only=True)
    try:
        families = con.execute("SELECT family, count(*) FROM games GROUP BY ALL").fetchall()
        wins = con.execute("SELECT count(*) FROM hand_players WHERE winner").fetchone()
    finally:
        con.close()
    assert families == [("pinghu", GAMES * len(PRESETS) + 1)]
    assert wins is not None and wins[0] > 0
