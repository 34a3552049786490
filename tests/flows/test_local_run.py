"""A small ingest with no Prefect server configured runs without Prefect
(``zhuoji.flows.ingest.local_run``): the same rows, runs and summary as the flow; the same crash
marking, locks, quarantine and exit codes; no Prefect imported, no server started."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import duckdb
import pytest

import zhuoji.flows.ingest.discover
import zhuoji.flows.ingest.run
import zhuoji.flows.ingest.steps
from tests.flows.conftest import Corpus, build_corpus, snapshot
from zhuoji.flows.ingest.discover import find_log_paths
from zhuoji.flows.ingest.run import run_ingest
from zhuoji.flows.ingest.steps import RUN_MARKER, staging_dir_for
from zhuoji.flows.ingest.worker import KILL_WORKER_ON
from zhuoji.flows.warehouse.rows import FileStatus

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "data" / "sample"
RUN_TIMES = ("started_at", "finished_at")


def _runs(db: Path) -> list[dict[str, Any]]:
    """Every ``ingest_runs`` row but its times."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        cursor = con.execute("SELECT * FROM ingest_runs ORDER BY run_id")
        names = [d[0] for d in cursor.description]
        return [
            {k: v for k, v in zip(names, row, strict=True) if k not in RUN_TIMES}
            for row in cursor.fetchall()
        ]
    finally:
        con.close()


def _env_without_server(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_API")}
    env.update(PREFECT_HOME=str(home), PREFECT_LOGGING_LEVEL="WARNING", **extra)
    env.pop("ZHUOJI_PREFECT", None)
    return env


_NO_PREFECT = textwrap.dedent(
    """
    import atexit, sys
    import zhuoji.flows.cli.main
    def report():
        heavy = [
            m
            for m in (
                "prefect", "zhuoji.flows.ingest.prefect_run", "zhuoji.flows.ingest.worker_task"
            )
            if m in sys.modules
        ]
        print("LOADED", heavy, file=sys.stderr)
    run = zhuoji.flows.cli.main.run_cli
    def run_and_report():
        # an exit handler registered by the command runs, before the exit without teardown
        atexit.register(report)
        run()
    zhuoji.flows.cli.main.run_cli = run_and_report
    from zhuoji.flows.cli.main import main
    sys.argv[0] = "zhuoji"
    main()
    """
)


def _zhuoji(
    args: list[str], env: dict[str, str], cwd: Path = REPO
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _NO_PREFECT, *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


# --- which path -------------------------------------------------------------------------------


def test_a_small_run_without_a_server_imports_no_prefect_and_starts_none(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    db = tmp_path / "w.duckdb"
    env = _env_without_server(home)
    done = _zhuoji(["ingest", str(SAMPLE), "--db", str(db), "--json"], env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert (summary["files_seen"], summary["files_loaded"], summary["hands"]) == (53, 53, 522)
    assert summary["runner"] == "in-process"
    assert "LOADED []" in done.stderr, done.stderr
    assert not any(home.iterdir()), "no Prefect server started, nothing written there"
    rerun = _zhuoji(["ingest", str(SAMPLE), "--db", str(db), "--json"], env, cwd=tmp_path)
    assert rerun.returncode == 0 and json.loads(rerun.stdout)["files_skipped"] == 53
    assert [(r["status"], r["files_loaded"], r["files_skipped"]) for r in _runs(db)] == [
        ("completed", 53, 0),
        ("completed", 0, 53),
    ]
    assert "LOADED []" in rerun.stderr


def test_what_takes_the_flow_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    monkeypatch.delenv("PREFECT_PROFILE", raising=False)
    monkeypatch.delenv("PREFECT_PROFILES_PATH", raising=False)
    monkeypatch.delenv(zhuoji.flows.ingest.run.FLOW_PATH_ENV, raising=False)
    log = tmp_path / "a.jsonl"
    log.write_bytes(b"{}\n")
    db = tmp_path / "w.duckdb"

    def flow(**options: Any) -> bool:
        request = zhuoji.flows.ingest.steps.prepare_run([str(log)], db, **options)
        return zhuoji.flows.ingest.run.takes_flow_path(request)

    assert not flow()
    assert flow(workers=1)
    run, steps = zhuoji.flows.ingest.run, zhuoji.flows.ingest.steps
    assert run.takes_flow_path(steps.prepare_run([str(log)], db), True)
    monkeypatch.setenv(zhuoji.flows.ingest.run.FLOW_PATH_ENV, "1")
    assert flow()
    monkeypatch.setenv(zhuoji.flows.ingest.run.FLOW_PATH_ENV, "sometimes")
    with pytest.raises(ValueError, match="ZHUOJI_PREFECT='sometimes'"):
        flow()
    monkeypatch.delenv(zhuoji.flows.ingest.run.FLOW_PATH_ENV)
    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:1/api")
    assert flow()
    monkeypatch.delenv("PREFECT_API_URL")
    big = tmp_path / "big.jsonl"
    with big.open("wb") as out:
        out.truncate(zhuoji.flows.ingest.steps.SMALL_RUN_BYTES + 1)
    assert run.takes_flow_path(steps.prepare_run([str(tmp_path)], db))


# --- the same results either way -----------------------------------------------------------


@pytest.mark.xdist_group("prefect")
@pytest.mark.parametrize("batch_size", [None, 3])
def test_both_paths_give_the_same_rows_runs_and_summaries(
    tmp_path: Path, prefect_harness: str, batch_size: int | None
) -> None:
    corpus = build_corpus(tmp_path / "logs")
    plain, flow = tmp_path / "plain.duckdb", tmp_path / "flow.duckdb"
    summaries: dict[str, list[Any]] = {"plain": [], "flow": []}
    for _ in range(2):  # a first run, then a rerun that skips everything
        for name, db, prefect in (("plain", plain, False), ("flow", flow, True)):
            summary = run_ingest([str(corpus.root)], db, batch_size=batch_size, prefect=prefect)
            summaries[name].append(dataclasses.replace(summary, db="", seconds=0.0))
    assert summaries["plain"] == summaries["flow"]
    first = summaries["plain"][0]
    assert first.runner == "in-process" and first.files_loaded == len(corpus.games)
    assert first.files_quarantined == len(corpus.quarantined)
    assert summaries["plain"][1].files_skipped == len(corpus.files)
    assert snapshot(plain) == snapshot(flow)
    assert _runs(plain) == _runs(flow)
    # the plain runs made no flow run on the server the flow runs went to
    from tests.flows.conftest import flow_runs_of

    assert flow_runs_of(plain) == []
    assert len(flow_runs_of(flow)) == 2


@pytest.mark.xdist_group("prefect")
def test_a_plain_run_marks_the_flow_run_of_a_killed_ingest_crashed(
    corpus: Corpus, prefect_harness: str, tmp_path: Path
) -> None:
    # A flow run left Running by a killed ingest (its marker in the staging folder):
    # the next run, plain, marks it crashed as a flow run would.
    from prefect import flow as prefect_flow
    from prefect.client.orchestration import get_client
    from prefect.states import Running

    from tests.flows.test_ingest_crash import _flow_run_state

    @prefect_flow(name="zhuoji-ingest")
    def stand_in() -> None:
        pass

    with get_client(sync_client=True) as client:
        run = client.create_flow_run(stand_in, state=Running())
    db = tmp_path / "w.duckdb"
    staging = staging_dir_for(db)
    staging.mkdir(parents=True)
    (staging / RUN_MARKER).write_text(json.dumps({"flow_run_id": str(run.id), "pid": 12345}))
    summary = run_ingest([str(corpus.root)], db)
    assert summary.runner == "in-process"
    assert _flow_run_state(str(run.id)) == "CRASHED"
    with get_client(sync_client=True) as client:
        state = client.read_flow_run(run.id).state
    assert state is not None and "PID 12345" in str(state.message)
    assert "a run without Prefect" in str(state.message)
    assert not staging.exists()


def test_a_plain_run_killed_mid_run_is_marked_interrupted_and_redone(
    tmp_path: Path,
) -> None:
    # A real SIGKILL of the ingest process (it kills itself as it reaches the file, as
    # the out-of-memory killer would): no flow run named in its marker; the next run
    # marks its ingest_runs row interrupted and loads what it had not.
    corpus = build_corpus(tmp_path / "logs")
    victim = Path(corpus.files[-1]).name
    db = tmp_path / "w.duckdb"
    env = _env_without_server(tmp_path / "home", **{KILL_WORKER_ON: victim})
    args = ["ingest", str(corpus.root), "--db", str(db), "--quiet", "--batch-size", "2"]
    killed = _zhuoji(args, env)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    marker = json.loads((staging_dir_for(db) / RUN_MARKER).read_text())
    assert marker["flow_run_id"] is None and marker["pid"] > 0
    env.pop(KILL_WORKER_ON)
    done = _zhuoji([*args[:-2], "--json"], env)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["files_skipped"] > 0
    assert summary["files_skipped"] + summary["files_loaded"] + summary["files_quarantined"] == (
        len(corpus.files)
    )
    assert [r["status"] for r in _runs(db)] == ["interrupted", "completed"]
    assert not staging_dir_for(db).exists()
    clean = tmp_path / "clean.duckdb"
    run_ingest([str(corpus.root)], clean)
    assert snapshot(db) == snapshot(clean)


# --- the paths walked once, many paths ---------------------------------------------------------


@pytest.mark.xdist_group("prefect")
@pytest.mark.parametrize("prefect", [False, True])
def test_the_paths_are_walked_once(
    corpus: Corpus, prefect_harness: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    prefect: bool,
) -> None:  # fmt: skip
    from typer.testing import CliRunner

    from zhuoji.flows.cli.main import app

    walks: list[str] = []
    folder_walk = zhuoji.flows.ingest.discover._generate_folder

    def counted(folder: Path, skipped: list[Any]) -> Any:
        walks.append(str(folder))
        return folder_walk(folder, skipped)

    monkeypatch.setattr(zhuoji.flows.ingest.discover, "_generate_folder", counted)
    args = ["ingest", str(corpus.root), "--db", str(tmp_path / "w.duckdb"), "--json"]
    result = CliRunner().invoke(app, [*args, *(["--prefect"] if prefect else [])])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["files_seen"] == len(corpus.files)
    assert walks == [str(corpus.root)]


@pytest.mark.xdist_group("prefect")
def test_a_flow_run_over_8000_named_files_passes_them_in_a_manifest(
    prefect_harness: str, tmp_path: Path
) -> None:
    # Prefect refuses flow-run parameters over 512 kB (a 422): about 7,000 paths.
    from prefect.client.orchestration import get_client

    from tests.flows.conftest import flow_runs_of

    logs = tmp_path / "a-folder-with-a-long-name-as-logs-often-have" / "2026-12-02"
    logs.mkdir(parents=True)
    paths = []
    for i in range(8_000):
        path = logs / f"table-{i:05d}-game.jsonl"
        path.write_bytes(b"")  # no game: each quarantined, cheaply
        paths.append(str(path))
    assert len(json.dumps(paths)) > 512 * 1024
    db = tmp_path / "w.duckdb"
    found = find_log_paths(paths)
    summary = run_ingest(paths, db, prefect=True, found=found)
    assert (summary.files_seen, summary.files_quarantined) == (8_000, 8_000)
    (run,) = flow_runs_of(db)
    assert run.state_type.value == "COMPLETED"
    assert run.parameters["paths"] is None  # too many to show; the manifest held them
    assert not Path(run.parameters["manifest"]).exists(), "the manifest is removed"
    with get_client(sync_client=True) as client:
        assert client.read_flow_run(run.id).parameters == run.parameters
    con = duckdb.connect(str(db), read_only=True)
    statuses = con.execute("SELECT DISTINCT status FROM files").fetchall()
    con.close()
    assert statuses == [(FileStatus.QUARANTINED.value,)]


def test_a_plain_run_waits_for_a_reader_with_wait(tmp_path: Path) -> None:
    from tests.flows.test_ingest_prefect import _holder
    from zhuoji.flows.warehouse import store as warehouse

    db = tmp_path / "w.duckdb"
    warehouse.open_writer(db).close()
    env = _env_without_server(tmp_path / "home")
    args = ["ingest", str(SAMPLE / "t3-20261102.ndjson.gz"), "--db", str(db), "--json"]
    with _holder(db, read_only=True) as reader:  # held until the block ends
        refused = _zhuoji(args, env)
    with _holder(db, read_only=True, seconds=3):  # lets go while the ingest waits
        waited = _zhuoji([*args, "--wait", "120"], env)
    assert refused.returncode == 2
    message = json.loads(refused.stdout)["error"]["message"]
    assert f"database {db} is busy: a reader (PID {reader.pid})" in message
    assert waited.returncode == 0, waited.stderr
    assert json.loads(waited.stdout)["files_loaded"] == 1
    assert "LOADED []" in waited.stderr
