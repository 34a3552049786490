"""The ingest as Prefect's users see it, on a real Prefect server (the session's harness):
the run's name, tags, logs and artifact; a second ingest waiting for the database; a
reader holding it; the inbox deployment served by ``zhuoji deploy``."""

from __future__ import annotations

import dataclasses
import logging
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tests.flows.conftest import Corpus, flow_runs_of
from zhuoji.flows.ingest.deploy import FLOW_NAME
from zhuoji.flows.ingest.prefect_run import artifact_key, run_tags
from zhuoji.flows.ingest.run import run_ingest
from zhuoji.flows.warehouse import store as warehouse

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.xdist_group("prefect")


def _env(api: str, **extra: str) -> dict[str, str]:
    return {**os.environ, "PREFECT_API_URL": api, "PREFECT_LOGGING_LEVEL": "WARNING", **extra}


def _zhuoji(*args: str) -> list[str]:
    return [sys.executable, "-c", "from zhuoji.flows.cli.main import run_cli; run_cli()", *args]


def _poll(what: str, check: Any, seconds: float = 60) -> Any:
    deadline = time.monotonic() + seconds
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


@contextmanager
def _holder(db: Path, *, read_only: bool, seconds: float | None = None) -> Iterator[Any]:
    """Another process holding the database (open until the block ends, or ``seconds``)."""
    code = textwrap.dedent(
        f"""
        import duckdb, sys, time
        con = duckdb.connect({str(db)!r}, read_only={read_only!r})
        print("open", flush=True)
        if {seconds!r} is None:
            sys.stdin.read()
        else:
            time.sleep({seconds!r})
        con.close()
        """
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "open"
        yield proc
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=60)


def test_a_run_is_named_tagged_logged_and_publishes_its_summary(
    corpus: Corpus, prefect_harness: str, tmp_path: Path
) -> None:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import (
        ArtifactFilter,
        ArtifactFilterKey,
        LogFilter,
        LogFilterFlowRunId,
    )

    db = tmp_path / "Club Logs.duckdb"
    flow_runs = logging.getLogger("prefect.flow_runs")
    level = flow_runs.level
    flow_runs.setLevel(logging.INFO)  # the command line's setting (see zhuoji.flows.cli.ingest)
    try:
        summary = run_ingest([str(corpus.root)], db, workers=1)
    finally:
        flow_runs.setLevel(level)
    (run,) = flow_runs_of(db)
    assert run.name.startswith("Club Logs.duckdb-")
    assert sorted(run.tags) == sorted(run_tags(db)) == sorted(
        ["zhuoji", f"db:{db.resolve().as_posix()}"]
    )
    assert run.state_type.value == "COMPLETED"

    assert artifact_key(db) == "zhuoji-ingest-club-logs-duckdb"
    with get_client(sync_client=True) as client:
        (artifact,) = client.read_artifacts(
            artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=[artifact_key(db)]))
        )
        assert artifact.type == "markdown" and artifact.flow_run_id == run.id
        text = str(artifact.data)
        assert f"| quarantined | {summary.files_quarantined} |" in text
        assert f"| loaded | {summary.files_loaded} |" in text
        for path in corpus.quarantined:
            assert f"`{path}`" in text
        assert "line" in text  # the malformed event's reason

        def messages() -> list[str]:
            logs = client.read_logs(
                log_filter=LogFilter(flow_run_id=LogFilterFlowRunId(any_=[run.id]))
            )
            return [str(log.message) for log in logs]

        def wanted() -> list[str]:
            got = messages()
            seen = [m for m in got if m.startswith(f"{summary.files_seen} files seen")]
            quarantined = [m for m in got if m.startswith(f"quarantined {corpus.quarantined[0]}")]
            end = [m for m in got if m.startswith(f"run {summary.run_id} into {db}")]
            return [*seen, *quarantined, *end] if seen and quarantined and end else []

        assert len(_poll("the run's logs", wanted, seconds=30)) == 3


def test_a_second_ingest_waits_for_the_first_with_wait(
    corpus: Corpus, prefect_harness: str, tmp_path: Path
) -> None:
    db = tmp_path / "turns.duckdb"
    env = _env(prefect_harness)
    args = ["ingest", str(corpus.root), "--db", str(db), "--workers", "1", "--quiet"]
    first = subprocess.Popen(
        _zhuoji(*args, "--batch-size", "1"), env=env, stdout=subprocess.PIPE, text=True
    )
    try:

        def busy() -> bool:
            try:
                warehouse.check_writable(db)
            except warehouse.DatabaseBusyError:
                return True
            assert first.poll() is None, "the first ingest ended before it was seen writing"
            return False

        _poll("the first ingest to hold the database", busy, seconds=120)
        refused = subprocess.run(_zhuoji(*args), env=env, capture_output=True, text=True)
        second = subprocess.run(
            _zhuoji(*args, "--wait", "300"), env=env, capture_output=True, text=True
        )
    finally:
        first.wait(timeout=300)
    assert first.returncode == 0
    assert refused.returncode == 2
    assert f"database {db} is busy: an ingest (PID {first.pid}) is writing to it" in (
        refused.stderr
    )
    assert "--wait SECONDS" in refused.stderr
    assert second.returncode == 0, second.stderr
    # it ran after the first had loaded everything
    assert "skipped (unchanged)" in second.stdout
    con = duckdb.connect(str(db), read_only=True)
    runs = con.execute(
        "SELECT run_id, status, files_skipped FROM ingest_runs ORDER BY 1"
    ).fetchall()
    con.close()
    assert [(r[0], r[1]) for r in runs] == [(1, "completed"), (2, "completed")]
    assert runs[1][2] == len(corpus.files)


def test_a_reader_holding_the_database_is_named_and_waited_for(
    corpus: Corpus, prefect_harness: str, tmp_path: Path
) -> None:
    db = tmp_path / "read.duckdb"
    warehouse.open_writer(db).close()
    with _holder(db, read_only=True) as reader:
        with pytest.raises(warehouse.DatabaseBusyError) as caught:
            run_ingest([str(corpus.root)], db, workers=1)
        assert str(caught.value) == (
            f"database {db} is busy: a reader (PID {reader.pid}) holds it open read-only, "
            "which keeps any writer out; try again when it is closed, "
            "or pass --wait SECONDS to wait for it"
        )
        assert caught.value.holder == "reader"
    with _holder(db, read_only=True, seconds=2):
        start = time.monotonic()
        summary = run_ingest([str(corpus.root)], db, workers=1, wait=120)
        assert time.monotonic() - start >= 1
    assert summary.files_loaded == len(corpus.games)
    with _holder(db, read_only=False):
        start = time.monotonic()
        with pytest.raises(warehouse.DatabaseBusyError, match=r"after waiting 1(\.\d+)? s: an"):
            warehouse.check_writable(db, wait=1)
        assert 1 <= time.monotonic() - start < 10


def test_deploy_needs_a_server_and_an_inbox(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    done = subprocess.run(
        _zhuoji("deploy", str(tmp_path), "--interval", "60"), env=env, capture_output=True,
        text=True, timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("error: zhuoji deploy needs a Prefect server")
    done = subprocess.run(
        _zhuoji("deploy", str(tmp_path / "none")), env={**env, "PREFECT_API_URL": "http://x/api"},
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr == f"error: {tmp_path / 'none'}: the inbox must be an existing folder\n"


def test_zhuoji_deploy_serves_a_deployment_that_ingests_the_inbox(
    corpus: Corpus, prefect_harness: str, tmp_path: Path
) -> None:
    from prefect.client.orchestration import get_client
    from prefect.deployments import run_deployment

    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "d00.json").write_bytes((corpus.root / "d00.json").read_bytes())
    db = tmp_path / "inbox.duckdb"
    console = tmp_path / "console.txt"
    with console.open("wb") as out:
        server = subprocess.Popen(
            _zhuoji(
                "deploy", str(inbox), "--db", str(db), "--name", "club", "--interval", "3600",
                "--workers", "1",
            ),
            env=_env(prefect_harness, LANG="C.UTF-8"),
            cwd=tmp_path,
            stdout=out,
            stderr=subprocess.PIPE,
        )
    try:
        name = f"{FLOW_NAME}/club"

        def deployment() -> Any:
            assert server.poll() is None, server.stderr.read()  # type: ignore[union-attr]
            with get_client(sync_client=True) as client:
                try:
                    return client.read_deployment_by_name(name)
                except Exception:
                    return None

        found = _poll("the deployment", deployment, seconds=120)
        assert found.parameters["inbox"] == inbox.resolve().as_posix()
        assert found.parameters["db"] == db.resolve().as_posix()
        assert [s.schedule.interval.total_seconds() for s in found.schedules] == [3600]
        assert found.entrypoint == "zhuoji.flows.ingest.deploy.inbox_flow"
        first = run_deployment(name, timeout=240)
        assert first.state is not None and first.state.is_completed(), first.state
        (inbox / "d01.json.gz").write_bytes((corpus.root / "d01.json.gz").read_bytes())
        second = run_deployment(name, timeout=240)
        assert second.state is not None and second.state.is_completed(), second.state
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    con = duckdb.connect(str(db), read_only=True)
    runs = con.execute(
        "SELECT files_seen, files_loaded, files_skipped FROM ingest_runs ORDER BY run_id"
    ).fetchall()
    con.close()
    assert runs == [(1, 1, 0), (2, 1, 1)]
    # each deployment run's ingest is a subflow named and tagged after the database
    ingests = flow_runs_of(db)
    assert len(ingests) == 4  # two deployment runs and their two ingest subflows
    subflows = [r for r in ingests if r.parent_task_run_id is not None]
    assert len(subflows) == 2
    assert all(r.name.startswith("inbox.duckdb-") for r in subflows)
    # the deployment's runs are named after the inbox and their start, not at random
    assert sorted(r.name for r in ingests if r.parent_task_run_id is None) == sorted(
        [first.name, second.name]
    )
    for run in (first, second):
        assert re.fullmatch(r"ingest-inbox-\d{8}-\d{6}", run.name), run.name
    # one line as each run starts and one as it ends on the serving console, whatever
    # Prefect's log level (WARNING here)
    lines = console.read_text(encoding="utf-8").splitlines()
    time_ = r"\d\d:\d\d:\d\d"
    for run, loaded, unchanged in ((first, 1, 0), (second, 1, 1)):
        mine = [line for line in lines if f" {run.name} " in line]
        assert len(mine) == 2, lines
        assert re.fullmatch(
            rf"{time_} INFO {run.name} started: ingesting {re.escape(str(inbox.resolve()))} "
            rf"into {re.escape(str(db.resolve()))}",
            mine[0],
        ), mine
        assert re.fullmatch(
            rf"{time_} INFO {run.name} completed in \d+\.\d s: files {loaded} loaded, "
            rf"0 quarantined, {unchanged} unchanged; \d+ hands",
            mine[1],
        ), mine


def test_summary_markdown_escapes_cells_and_caps_the_list() -> None:
    from zhuoji.flows.ingest.prefect_run import ARTIFACT_QUARANTINE_ROWS, summary_markdown
    from zhuoji.flows.ingest.steps import RunSummary

    quarantined = tuple(
        (f"/logs/a|{i}.json", f"line 1, field x: bad | value\nnext {i}")
        for i in range(ARTIFACT_QUARANTINE_ROWS + 2)
    )
    summary = RunSummary(
        run_id=3, db="w.duckdb", runner="process-pool", workers=2, files_seen=1010,
        files_loaded=8, files_skipped=0, files_quarantined=len(quarantined), games=9,
        hands=1234, violations=1, mismatches=2, seconds=2.0, quarantined=quarantined,
    )
    text = summary_markdown(summary)
    assert text.startswith("# zhuoji ingest run 3 into `w.duckdb`\n")
    assert "| hands | 1,234 |" in text
    assert "| `/logs/a\\|0.json` | line 1, field x: bad \\| value next 0 |" in text
    assert text.count("| `/logs/") == ARTIFACT_QUARANTINE_ROWS
    assert text.endswith("... and 2 more (the `quarantine` table holds them all).\n")
    assert summary_markdown(summary) == text
    empty = summary_markdown(dataclasses.replace(summary, files_quarantined=0, quarantined=()))
    assert empty.endswith("No file was quarantined.\n")


def test_artifact_keys_and_run_names() -> None:
    from datetime import datetime

    from zhuoji.flows.ingest.prefect_run import run_name

    assert artifact_key("/srv/Warehouse 2026.duckdb") == "zhuoji-ingest-warehouse-2026-duckdb"
    assert artifact_key("/srv/库.duckdb") == "zhuoji-ingest-duckdb"
    assert run_name("/srv/w.duckdb", datetime(2026, 12, 2, 1, 30, 5)) == "w.duckdb-20261202-013005"
