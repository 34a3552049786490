"""One file's fault never costs the run: poison values, an unreadable file, a file that
expands beyond memory, a worker killed mid-task, and a real SIGKILL of `zhuoji ingest`.

Every test drives the real thing: the command line in a subprocess, a file root cannot
read (the subprocess runs without CAP_DAC_OVERRIDE / CAP_DAC_READ_SEARCH, so ``chmod 000``
holds for it), a real gzip bomb under a real address-space limit, a worker that really
SIGKILLs itself, and a SIGKILL of the ingest process alone (its children must end by
themselves).
"""

from __future__ import annotations

import copy
import ctypes
import gzip
import os
import signal
import subprocess
import sys
import time
import uuid
import zlib
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.flows.conftest import Corpus, build_corpus
from zhuoji.flows.ingest.discover import hash_file
from zhuoji.flows.ingest.load import load_outcomes
from zhuoji.flows.ingest.steps import staging_dir_for
from zhuoji.flows.ingest.worker import KILL_WORKER_ON, process_file, shard_dir_for
from zhuoji.flows.warehouse import store as warehouse

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "data" / "sample" / "t7-20261101-0001.json"
MARK = "ZHUOJI_TEST_RUN_MARK"
_NOW = datetime(2026, 12, 1)

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="Linux process facts")


def _sample() -> dict[str, Any]:
    game: dict[str, Any] = orjson.loads(SAMPLE.read_bytes())
    return game


def _write(path: Path, game: dict[str, Any]) -> Path:
    path.write_bytes(orjson.dumps(game))
    return path


def _good_files(root: Path, n: int) -> list[Path]:
    files = []
    for i in range(n):
        game = _sample()
        game["game_id"] = f"good-{i}"
        files.append(_write(root / f"good-{i:02d}.json", game))
    return files


def _edited(edit: Callable[[dict[str, Any]], None], game_id: str) -> dict[str, Any]:
    game = copy.deepcopy(_sample())
    game["game_id"] = game_id
    edit(game)
    return game


def _no_results(game: dict[str, Any]) -> None:
    game["base_stake"] = 2**31 - 1  # the largest stake: its settlement leaves 32 bits
    for hand in game["hands"]:
        hand.pop("result", None)


POISONS: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "p-base-stake.json": (
        lambda g: g.update(base_stake=2**40),
        "field base_stake: input should be less than or equal to 2147483647",
    ),
    "p-hand-no.json": (
        lambda g: g["hands"][0].update(hand_no=2**40),
        "field hands[0].hand_no: input should be less than or equal to 2147483647",
    ),
    "p-streak.json": (
        lambda g: g["hands"][1].update(dealer_streak=2**40),
        "field hands[1].dealer_streak",
    ),
    "p-delta.json": (
        lambda g: g["hands"][0]["result"].update(deltas=[-(2**40), 3 * 2**40, -(2**40), -(2**40)]),
        "field hands[0].result.deltas[0]",
    ),
    "p-year-1.json": (
        lambda g: g.update(started_at="0001-01-01T00:00:00+08:00"),
        "field started_at",
    ),
    "p-year-9999.json": (
        lambda g: g.update(started_at="9999-12-31T23:00:00-08:00"),
        "field started_at",
    ),
    "p-settlement.json": (_no_results, "beyond the warehouse's 32-bit range"),
}


def _without_dac_override() -> None:
    """In the child before exec: drop root's power to read any file (the capability
    bounding set; exec then leaves it out of the effective set)."""
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
        if libc.prctl(24, cap, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def _ingest_command(root: Path, db: Path, *extra: str) -> list[str]:
    return [
        sys.executable, "-c", "from zhuoji.flows.cli.main import run_cli; run_cli()",
        "ingest", str(root), "--db", str(db), "--quiet", *extra,
    ]  # fmt: skip


def _env(prefect: str, mark: str, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "PREFECT_API_URL": prefect,
        "PREFECT_LOGGING_LEVEL": "WARNING",
        MARK: mark,
        **extra,
    }


def _marked_pids(mark: str) -> list[int]:
    """Live processes whose environment holds ``MARK=mark`` (the ingest and every
    process it started: fork server, workers, resource tracker)."""
    needle = f"{MARK}={mark}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if needle in environ.split(b"\0") and state != "Z":
            found.append(int(entry))
    return found


def _wait_gone(mark: str, seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while (left := _marked_pids(mark)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def _query(db: Path, sql: str) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


@pytest.mark.xdist_group("prefect")
def test_poison_and_unreadable_files_are_quarantined_and_the_good_ones_load(
    prefect_harness: str, tmp_path: Path
) -> None:
    root = tmp_path / "logs"
    root.mkdir()
    good = _good_files(root, 3)
    for name, (edit, _) in POISONS.items():
        _write(root / name, _edited(edit, name.removesuffix(".json")))
    unreadable = _write(root / "p-unreadable.json", _edited(lambda g: None, "unreadable"))
    unreadable.chmod(0)
    db = tmp_path / "w.duckdb"
    mark = uuid.uuid4().hex
    for attempt in (1, 2):  # a rerun does the same: nothing poisons a later run either
        proc = subprocess.run(
            _ingest_command(root, db, "--workers", "2"),
            cwd=REPO, env=_env(prefect_harness, mark), capture_output=True, text=True,
            timeout=300, preexec_fn=_without_dac_override if os.geteuid() == 0 else None,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        assert "Traceback" not in proc.stderr
        loaded = _query(db, "SELECT path FROM files WHERE status = 'loaded' ORDER BY path")
        if attempt == 1:
            assert [p for (p,) in loaded] == [p.resolve().as_posix() for p in good]
    reasons = dict(_query(db, "SELECT path, reason FROM quarantine"))
    for name, (_, reason) in POISONS.items():
        assert reason in reasons[(root / name).resolve().as_posix()], name
    assert "could not be read: Permission denied" in reasons[unreadable.resolve().as_posix()]
    runs = _query(
        db,
        "SELECT run_id, status, files_seen, files_loaded, files_skipped, files_quarantined "
        "FROM ingest_runs ORDER BY run_id",
    )
    n = len(good) + len(POISONS) + 1
    # the second run skips the good files and tries the unreadable one again
    assert runs[0] == (1, "completed", n, 3, 0, n - 3)
    assert runs[1][:3] == (2, "completed", n) and runs[1][3] == 0
    assert runs[1][4] + runs[1][5] == n
    assert _wait_gone(mark, 120) == []


def _gzip_bomb(path: Path, gib: int) -> Path:
    """A real gzip bomb: a game's first bytes, then ``gib`` GiB of spaces in about 4 MB."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, 31)
    member = deflate.compress(b" " * (64 << 20)) + deflate.flush()
    with path.open("wb") as out:
        out.write(gzip.compress(b'{"game_id": "bomb", "players": [', mtime=0))
        for _ in range(gib * 16):
            out.write(member)
    return path


def test_a_file_that_exhausts_memory_is_quarantined_with_memory_error(tmp_path: Path) -> None:
    bomb = _gzip_bomb(tmp_path / "bomb.json.gz", 4)
    good = _good_files(tmp_path, 1)[0]
    assert bomb.stat().st_size < 5 << 20
    script = (
        "import resource, sys\n"
        "from zhuoji.flows.ingest.worker import process_files\n"
        "from zhuoji.flows.ingest.discover import unhashed_file\n"
        "resource.setrlimit(resource.RLIMIT_AS, (900 << 20, 900 << 20))\n"
        "outcomes = process_files([unhashed_file(p) for p in sys.argv[1:]], sys.argv[1] + '.st')\n"
        "for o in outcomes: print(o.status.value, o.errors[0].message if o.errors else '')\n"
    )  # fmt: skip
    proc = subprocess.run(
        [sys.executable, "-c", script, str(bomb), str(good)],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("quarantined "), lines
    assert "memory" in lines[0].lower() or "limit" in lines[0].lower(), lines
    assert lines[1] == "loaded ", lines  # the next file of the chunk is unharmed


@pytest.mark.xdist_group("prefect")
def test_a_worker_killed_mid_task_costs_only_its_chunk(
    prefect_harness: str, tmp_path: Path
) -> None:
    root = tmp_path / "logs"
    root.mkdir()
    good = _good_files(root, 6)
    _write(root / "kill.json", _edited(lambda g: None, "kill-me"))
    db = tmp_path / "w.duckdb"
    mark = uuid.uuid4().hex
    proc = subprocess.run(
        _ingest_command(root, db, "--workers", "2", "--batch-size", "4"),
        cwd=REPO, env=_env(prefect_harness, mark, **{KILL_WORKER_ON: "kill.json"}),
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "leaked semaphore" not in proc.stderr  # the dead worker held none
    status = dict(_query(db, "SELECT path, status FROM files"))
    assert len(status) == 7
    killed = (root / "kill.json").resolve().as_posix()
    assert status[killed] == "quarantined"
    reasons = dict(_query(db, "SELECT path, reason FROM quarantine"))
    assert "the worker processing it died" in reasons[killed]
    # batches [good-00 .. good-03], [good-04, good-05, kill.json]; on two workers the
    # second is the chunks [good-04, good-05] and [kill.json]: only kill.json's chunk is
    # quarantined after its retry, the chunks that shared the broken pool load on retry
    assert [p for p, s in status.items() if s == "quarantined"] == [killed]
    assert sorted(p for p, s in status.items() if s == "loaded") == [
        p.resolve().as_posix() for p in good
    ]
    runs = _query(db, "SELECT status, files_loaded, files_quarantined FROM ingest_runs")
    assert runs == [("completed", 6, 1)]
    assert _wait_gone(mark, 120) == []


def _kill_marker(corpus: Corpus, db: Path) -> Path:
    """A shard folder whose appearance proves that a batch with loaded rows committed
    (as in ``test_ingest_crash``: one worker, one file per batch)."""
    files = corpus.files
    loaded = [i for i, p in enumerate(files) if p in corpus.games]
    k = next(i for i in loaded if any(j <= i - 2 for j in loaded))
    return shard_dir_for(staging_dir_for(db) / "run-1", hash_file(files[k]).path)


@pytest.mark.xdist_group("prefect")
def test_sigkill_of_the_ingest_leaves_no_process_and_the_committed_counts(
    prefect_harness: str, tmp_path: Path
) -> None:
    corpus = build_corpus(tmp_path / "corpus", clean_files=10)
    db = tmp_path / "killed.duckdb"
    marker = _kill_marker(corpus, db)
    mark = uuid.uuid4().hex
    proc = subprocess.Popen(
        _ingest_command(corpus.root, db, "--workers", "2", "--batch-size", "1"),
        cwd=REPO, env=_env(prefect_harness, mark), stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while not marker.exists():
            assert proc.poll() is None, f"the ingest ended before the kill: {proc.stderr.read()!r}"  # type: ignore[union-attr]
            assert time.monotonic() < deadline, "the ingest did not reach the kill point"
            time.sleep(0.01)
        children = [pid for pid in _marked_pids(mark) if pid != proc.pid]
        assert len(children) >= 3  # the fork server, two workers (and the resource tracker)
        os.kill(proc.pid, signal.SIGKILL)  # the ingest process alone
        proc.wait()
        left = _wait_gone(mark, 120)
    finally:
        for pid in _marked_pids(mark):
            os.kill(pid, signal.SIGKILL)
    assert proc.returncode == -signal.SIGKILL
    assert left == [], f"still alive after the ingest's SIGKILL: {left}"

    counted = _query(
        db,
        "SELECT status, files_seen, files_loaded, files_quarantined, games, hands "
        "FROM ingest_runs WHERE run_id = 1",
    )
    actual = _query(
        db,
        "SELECT (SELECT count(*) FROM files WHERE status = 'loaded'),"
        " (SELECT count(*) FROM files WHERE status = 'quarantined'),"
        " (SELECT count(*) FROM games), (SELECT count(*) FROM hands)",
    )[0]
    assert counted[0][0] == "running"  # marked interrupted when the next run starts
    assert counted[0][1] == len(corpus.files)
    assert counted[0][2:] == actual
    assert actual[0] >= 1


def test_a_file_whose_rows_the_warehouse_refuses_is_quarantined_alone(tmp_path: Path) -> None:
    files = _good_files(tmp_path, 3)
    staging = tmp_path / "staging"
    outcomes = [process_file(p.resolve().as_posix(), None, staging.as_posix()) for p in files]
    shard = Path(outcomes[1].shard("hands"))
    hands = pq.read_table(shard)
    wide = hands.set_column(
        hands.schema.get_field_index("hand_no"),
        pa.field("hand_no", pa.int64()),
        pa.array([2**40 + i for i in range(hands.num_rows)], pa.int64()),
    )
    pq.write_table(wide, shard)  # a shard with a value beyond the INTEGER column
    db = tmp_path / "w.duckdb"
    con = warehouse.open_writer(db)
    run_id = warehouse.begin_run(con, started_at=_NOW, workers=1, runner="test")
    final = load_outcomes(con, outcomes, run_id, {"files_seen": 3})
    status = dict(con.execute("SELECT path, status FROM files").fetchall())
    reason = con.execute("SELECT reason FROM quarantine").fetchall()
    counts = con.execute(
        "SELECT files_seen, files_loaded, files_quarantined, games FROM ingest_runs"
    ).fetchall()
    con.close()
    assert [o.status.value for o in final] == ["loaded", "quarantined", "loaded"]
    assert status == {o.path: o.status.value for o in final}
    assert "the warehouse refused its rows" in reason[0][0]
    assert counts == [(3, 2, 1, 2)]
