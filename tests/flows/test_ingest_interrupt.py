"""One Ctrl-C of `zhuoji ingest --workers 2`: one line, exit status 130, the run marked.

A real ``zhuoji ingest`` runs in a session of its own, as from a terminal; once it is
demonstrably under way, ``SIGINT`` goes to its whole process group (the ingest, its fork
server and its workers), as a terminal sends Ctrl-C: while its workers process a batch
(a task's shard folder is in the staging folder), or while the ingest loads a batch (it
has a shard of the staging folder open: DuckDB reads it in the batch's transaction).
The ingest must end within seconds with exactly one line on standard error, no
traceback, exit status 130, no process of its own left, and its ``ingest_runs`` row
marked ``interrupted``; the same command again must give the warehouse a clean run gives.

Before, the workers took the interrupt too, mid-task, and sent it back as their tasks'
outcome, which killed the pool's result thread: the ingest waited in ``multiprocessing``'s
exit for workers blocked on a queue nobody read (40 s, once ten minutes), printed
tracebacks, and left the run ``running``. An interrupt during a load was lost: DuckDB
ended the query with an error of its own, and the load task was retried.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import duckdb
import psutil
import pytest

from tests.fingerprint import export
from tests.flows.conftest import snapshot
from zhuoji.flows.ingest.steps import staging_dir_for

REPO = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc, process groups"),
    pytest.mark.xdist_group("prefect"),
]

GAMES = 160
"""Games of the corpus (8 hands each: 1,280 hands in 160 files, about 5 MB)."""
BATCH_FILES = 50
"""Files per batch: four batches (the last of 10 files), each of two tasks."""
EXIT_BOUND = 60.0
"""How long the ingest may take to end after the Ctrl-C (it takes under a second; the
bound leaves room for a loaded machine, and catches the old hang)."""
REACH_BOUND = 240.0
"""How long the ingest may take to reach the point of the interrupt."""
RUN_BOOKKEEPING = frozenset(
    {"table:ingest_runs", "table:files", "table:quarantine", "report:engine_versions"}
)
"""What the fingerprint export holds of the runs themselves: the ``ingest_runs`` rows
(an interrupted run, then the rerun), the run that loaded each file, and the first and
last of those runs per engine version; the tables are compared through
:func:`tests.flows.conftest.snapshot`, which leaves out the runs, instead."""


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A simulated corpus (``zhuoji simulate``): one 8-hand file per game."""
    folder = tmp_path_factory.mktemp("interrupt-corpus") / "logs"
    subprocess.run(
        [
            sys.executable, "-c", "from zhuoji.flows.cli.main import main; main()",
            "simulate", "--out", str(folder), "--games", str(GAMES), "--lang", "en",
        ],
        cwd=REPO,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return folder


@pytest.fixture(scope="module")
def run_tmp() -> Iterator[Path]:
    """The runs' own temporary folder, short: the fork server's socket lives in it, and
    a socket's path holds at most 107 bytes."""
    with tempfile.TemporaryDirectory(prefix="zj-int-", dir="/tmp") as folder:
        yield Path(folder)


def _env(prefect_harness: str, run_tmp: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PREFECT_API_URL": prefect_harness,
        "PREFECT_LOGGING_LEVEL": "WARNING",
        "TMPDIR": str(run_tmp),
    }


def _ingest(games: Path, db: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    """``zhuoji ingest`` in a session (and process group) of its own, as from a terminal."""
    return subprocess.Popen(
        [
            sys.executable, "-c", "from zhuoji.flows.cli.main import main; main()",
            "ingest", str(games), "--db", str(db), "--workers", "2",
            "--batch-size", str(BATCH_FILES), "--quiet", "--lang", "en",
        ],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


@pytest.fixture(scope="module")
def clean(
    games: Path, prefect_harness: str, run_tmp: Path, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """The corpus ingested by the same command, never interrupted."""
    db = tmp_path_factory.mktemp("interrupt-clean") / "clean.duckdb"
    proc = _ingest(games, db, _env(prefect_harness, run_tmp))
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err
    return db


def _shards_written(db: Path) -> Callable[[int], bool]:
    """Mid-run: a task's shard folder is in the run's staging folder (the workers are
    processing; the run has batches left)."""
    return lambda pid: any(p.is_dir() for p in staging_dir_for(db).glob("run-*/*"))


def _loading(db: Path) -> Callable[[int], bool]:
    """Mid-load: the ingest process has a shard of its staging folder open (DuckDB reads
    the batch's shards inside the batch's transaction; the workers are other processes)."""
    staging = staging_dir_for(db).as_posix() + "/"

    def reading(pid: int) -> bool:
        try:
            fds = list(Path(f"/proc/{pid}/fd").iterdir())
        except OSError:
            return False
        for fd in fds:
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith(staging) and target.endswith(".parquet"):
                return True
        return False

    return reading


def _interrupt_when(
    proc: subprocess.Popen[str], what: str, condition: Callable[[int], bool]
) -> tuple[str, float, list[psutil.Process]]:
    """Wait for ``condition`` (polled every few milliseconds, bounded), then send SIGINT
    to the ingest's process group; its standard error and the seconds it took to end."""
    deadline = time.monotonic() + REACH_BOUND
    while not condition(proc.pid):
        if proc.poll() is not None:
            out, err = proc.communicate()
            pytest.fail(f"the ingest ended before {what}: {proc.returncode} {out!r} {err!r}")
        if time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            pytest.fail(f"the ingest never reached {what}")
        time.sleep(0.002)
    own = psutil.Process(proc.pid).children(recursive=True)
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal sends Ctrl-C
    sent = time.monotonic()
    try:
        _, err = proc.communicate(timeout=EXIT_BOUND)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
        pytest.fail(f"the ingest did not end within {EXIT_BOUND:g} s of Ctrl-C: {err[-3000:]!r}")
    return err, time.monotonic() - sent, own


def _runs(db: Path) -> list[tuple[object, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(
            "SELECT run_id, status, files_loaded FROM ingest_runs ORDER BY run_id"
        ).fetchall()
    finally:
        con.close()


def _files(db: Path) -> int:
    con = duckdb.connect(str(db), read_only=True)
    try:
        row = con.execute("SELECT count(*) FROM files").fetchone()
    finally:
        con.close()
    assert row is not None
    return int(row[0])


@pytest.mark.parametrize(
    ("when", "condition"),
    [("mid-run", _shards_written), ("mid-load", _loading)],
)
def test_one_ctrl_c_ends_the_ingest_in_one_line_and_a_rerun_completes_it(
    games: Path,
    clean: Path,
    prefect_harness: str,
    run_tmp: Path,
    tmp_path: Path,
    when: str,
    condition: Callable[[Path], Callable[[int], bool]],
) -> None:
    db = tmp_path / "w.duckdb"
    env = _env(prefect_harness, run_tmp)
    proc = _ingest(games, db, env)
    err, took, own = _interrupt_when(proc, when, condition(db))
    print(f"the ingest ended {took:.2f} s after Ctrl-C ({when})")

    assert proc.returncode == 130, err
    assert "Traceback" not in err and "Exception ignored" not in err, err
    lines = err.splitlines()
    assert len(lines) == 1, err
    (line,) = lines
    runs = _runs(db)
    ((run_id, status, loaded),) = runs
    assert status == "interrupted"
    assert line == (
        f"error: ingest into {db}: interrupted; the batches committed before are safe in "
        f"the warehouse (run {run_id} is marked interrupted): the same command again "
        "skips the files already loaded and loads the rest"
    )
    assert _files(db) == loaded < GAMES  # the batches committed, and only those
    _, alive = psutil.wait_procs(own, timeout=30)
    assert not alive, f"left behind: {alive}"

    rerun = _ingest(games, db, env)
    _, err = rerun.communicate(timeout=600)
    assert rerun.returncode == 0, err
    assert [r[1] for r in _runs(db)] == ["interrupted", "completed"]
    assert not staging_dir_for(db).exists()
    assert snapshot(db) == snapshot(clean)
    ours = {k: v for k, v in export(db, games).items() if k not in RUN_BOOKKEEPING}
    theirs = {k: v for k, v in export(clean, games).items() if k not in RUN_BOOKKEEPING}
    assert ours.keys() == theirs.keys()
    assert [k for k in ours if ours[k] != theirs[k]] == []
