"""A real SIGKILL of `zhuoji ingest` mid-run, then a rerun: the clean run's database."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import duckdb
import pytest

from tests.flows.conftest import Corpus, snapshot
from zhuoji.flows.ingest.discover import hash_file
from zhuoji.flows.ingest.run import run_ingest
from zhuoji.flows.ingest.steps import RUN_MARKER, staging_dir_for
from zhuoji.flows.ingest.worker import shard_dir_for

REPO = Path(__file__).resolve().parents[2]


def _flow_run_state(flow_run_id: str) -> str:
    from prefect.client.orchestration import get_client

    with get_client(sync_client=True) as client:
        run = client.read_flow_run(uuid.UUID(flow_run_id))
    assert run.state is not None
    return str(run.state.type.value)


def _kill_marker(corpus: Corpus, db: Path) -> tuple[Path, int]:
    """A shard folder whose appearance proves that a batch with loaded rows committed.

    With one worker and one file per batch, the shards of file ``k`` can only appear once
    batch ``k - 2`` is loaded (the flow submits batch ``k`` after loading batch
    ``k - 2``). ``k`` is the first loaded file with a loaded file two or more places
    before it; returns its shard folder and how many files are committed by then.
    """
    files = corpus.files
    loaded = [i for i, p in enumerate(files) if p in corpus.games]
    k = next(i for i in loaded if any(j <= i - 2 for j in loaded))
    digest = hash_file(files[k])
    staging = staging_dir_for(db) / "run-1"
    return shard_dir_for(staging, digest.path), k - 1


@pytest.mark.xdist_group("prefect")
def test_sigkill_mid_run_then_rerun_gives_the_clean_database(
    corpus: Corpus, clean_db: Path, prefect_harness: str, tmp_path: Path
) -> None:
    db = tmp_path / "killed.duckdb"
    marker, committed = _kill_marker(corpus, db)
    env = {**os.environ, "PREFECT_API_URL": prefect_harness, "PREFECT_LOGGING_LEVEL": "WARNING"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from zhuoji.flows.cli.main import run_cli; run_cli()",
            "ingest",
            str(corpus.root),
            "--db",
            str(db),
            "--workers",
            "1",
            "--batch-size",
            "1",
            "--quiet",
        ],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not marker.exists():
            assert proc.poll() is None, f"the ingest ended before the kill: {proc.stderr.read()!r}"  # type: ignore[union-attr]
            assert time.monotonic() < deadline, "the ingest did not reach the kill point"
            time.sleep(0.01)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the ingest process and its worker
        proc.wait()
    assert proc.returncode == -signal.SIGKILL

    con = duckdb.connect(str(db), read_only=True)
    n_files = con.execute("SELECT count(*) FROM files").fetchall()[0][0]
    n_games = con.execute("SELECT count(*) FROM games").fetchall()[0][0]
    con.close()
    assert committed <= n_files < len(corpus.files), "killed after one batch, before the last"
    assert n_games > 0

    # the killed run's flow run is left running, until the next run on the database starts
    killed_run = json.loads((staging_dir_for(db) / RUN_MARKER).read_text())["flow_run_id"]
    assert _flow_run_state(killed_run) == "RUNNING"

    summary = run_ingest([str(corpus.root)], db, workers=1, batch_size=2)
    state = _flow_run_state(killed_run)
    assert state == "CRASHED"
    assert not staging_dir_for(db).exists()
    assert summary.files_skipped == n_files
    assert summary.files_loaded + summary.files_quarantined == len(corpus.files) - n_files
    assert snapshot(db) == snapshot(clean_db)
    con = duckdb.connect(str(db), read_only=True)
    runs = con.execute("SELECT run_id, status FROM ingest_runs ORDER BY run_id").fetchall()
    con.close()
    assert runs == [(1, "interrupted"), (2, "completed")]
