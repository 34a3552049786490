"""What `zhuoji export`, `sql` and `report` never do, whatever the user types: write over
the database they read, replace a device, a named pipe or a folder, leave a temporary file
behind, or hold a whole result in memory (docs/robustness.md, "Writing results")."""

from __future__ import annotations

import hashlib
import json
import os
import resource
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from tests.flows.test_cli_conventions import zhuoji
from zhuoji.flows.cli.main import app

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "w.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE files AS SELECT range AS n, 'f' || range AS path FROM range(300)")
    con.close()
    return path


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _export(db: Path, out: str, *more: str) -> tuple[int, str]:
    result = runner.invoke(app, ["export", "--sql", "SELECT * FROM files", "--db", str(db),
                                 "--out", out, "--force", "--format", "csv", *more])
    return result.exit_code, result.output


def _partials(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".partial-"))


# --- the database ---------------------------------------------------------------------------


def test_export_refuses_the_database_however_spelt(
    db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    os.symlink(db, tmp_path / "link.duckdb")
    os.link(db, tmp_path / "hard.duckdb")
    os.symlink(tmp_path / "w.duckdb.wal", tmp_path / "wal-link")
    before = _digest(db)
    for out in (str(db), "w.duckdb", "./w.duckdb", "sub/../w.duckdb", "link.duckdb",
                "hard.duckdb", "w.duckdb.wal", "./sub/../w.duckdb.wal", "wal-link"):
        code, output = _export(db, out)
        assert code == 2, (out, output)
        assert "error: " in output and "which export reads; give another --out" in output, output
        assert ("write-ahead log" in output) == ("wal" in out), (out, output)
    # the database read by another spelling of itself
    code, output = _export(Path("link.duckdb"), "w.duckdb")
    assert code == 2 and "is the database" in output, output
    assert _digest(db) == before
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*) FROM files").fetchone() == (300,)
    con.close()
    assert not (tmp_path / "w.duckdb.wal").exists() and _partials(tmp_path) == []
    # another file beside it is written as before
    code, output = _export(db, "files.csv")
    assert code == 0 and "wrote 300 rows to files.csv" in output, output


# --- what is no regular file ----------------------------------------------------------------


def _refused(db: Path, out: str, what: str) -> None:
    for force in ((), ("--force",)):
        # a process of its own: were a pipe opened, the test would fail, not hang
        result = zhuoji("export", "--sql", "SELECT * FROM files", "--db", str(db),
                        "--out", out, "--format", "csv", *force, timeout=120)
        assert result.returncode == 2, (out, result.stderr)
        assert result.stderr == (
            f"error: {out} is {what}; export writes only to a regular file or a new path\n"
        ), result.stderr


def test_export_never_replaces_a_device_a_pipe_or_a_folder(db: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    folder = tmp_path / "folder.csv"
    folder.mkdir()
    null_link = tmp_path / "null.csv"
    os.symlink("/dev/null", null_link)
    for out, what in [(str(fifo), "a named pipe (FIFO)"), (str(folder), "a folder"),
                      (str(null_link), "a character device")]:
        _refused(db, out, what)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and stat.S_ISDIR(os.lstat(folder).st_mode)
    assert os.readlink(null_link) == "/dev/null"
    assert _partials(tmp_path) == []


def test_export_never_replaces_dev_null_or_dev_full(db: Path, tmp_path: Path) -> None:
    # The same devices made in the test's folder first (root only): a command that
    # replaced a device would replace these, and the test would stop before the real ones.
    for name in ("null", "full"):
        real = os.stat(f"/dev/{name}")
        copy = tmp_path / f"{name}.csv"
        try:
            os.mknod(copy, stat.S_IFCHR | 0o666, real.st_rdev)
        except PermissionError:
            pytest.skip("making a device node needs root")
        _refused(db, str(copy), "a character device")
        assert stat.S_ISCHR(os.lstat(copy).st_mode)
        _refused(db, f"/dev/{name}", "a character device")
        after = os.lstat(f"/dev/{name}")
        assert stat.S_ISCHR(after.st_mode) and after.st_rdev == real.st_rdev
    assert _partials(tmp_path) == []


def test_export_to_dev_stdout_on_a_pipe_keeps_dev_stdout(db: Path, tmp_path: Path) -> None:
    # a link like /dev/stdout in the test's folder first, then the real one
    mine = tmp_path / "stdout"
    os.symlink("/proc/self/fd/1", mine)
    for link in (str(mine), "/dev/stdout"):
        before = os.lstat(link)
        result = zhuoji("export", "--sql", "SELECT 1 AS a", "--db", str(db), "--out",
                        link, "--format", "csv", "--force")
        assert result.returncode == 2, result.stderr
        assert f"{link} is a named pipe (FIFO)" in result.stderr
        after = os.lstat(link)
        assert stat.S_ISLNK(after.st_mode) and after.st_ino == before.st_ino


def test_a_link_to_a_regular_file_is_followed_and_kept(db: Path, tmp_path: Path) -> None:
    real = tmp_path / "real.csv"
    real.write_text("old\n", encoding="utf-8")
    link = tmp_path / "latest.csv"
    os.symlink(real, link)
    code, output = _export(db, str(link))
    assert code == 0, output
    assert os.readlink(link) == str(real)
    assert real.read_text(encoding="utf-8").splitlines()[:2] == ["n,path", "0,f0"]


def test_out_empty_and_a_missing_folder_are_clear(db: Path, tmp_path: Path) -> None:
    result = zhuoji("export", "--sql", "SELECT 1", "--db", str(db), "--out", "",
                    "--format", "csv", "--force")
    assert result.returncode == 2
    assert result.stderr.startswith("error: Invalid value for --out: is empty; name the file"), (
        result.stderr)
    assert "unexpected" not in result.stderr and "ValueError" not in result.stderr
    out = tmp_path / "nope" / "x.csv"
    result = zhuoji("export", "--sql", "SELECT 1", "--db", str(db), "--out", str(out))
    assert result.returncode == 2
    assert result.stderr == (
        f"error: cannot write {out}: the folder {out.parent} does not exist\n"
    ), result.stderr
    blocked = tmp_path / "file"
    blocked.write_text("", encoding="utf-8")
    result = zhuoji("export", "--sql", "SELECT 1", "--db", str(db), "--out",
                    str(blocked / "x.csv"))
    assert result.returncode == 2 and ".partial-" not in result.stderr, result.stderr
    assert str(blocked / "x.csv") in result.stderr


# --- temporary files ------------------------------------------------------------------------


def test_a_failing_query_leaves_no_file(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "x.jsonl"
    query = ("SELECT CASE WHEN range < 50000 THEN range ELSE error('boom at ' || range) END "
             "AS n FROM range(100000)")
    for suffix in ("jsonl", "csv", "json", "parquet"):
        out = tmp_path / f"x.{suffix}"
        result = runner.invoke(app, ["export", "--sql", query, "--db", str(db),
                                     "--out", str(out)])
        assert result.exit_code == 2 and "boom at" in result.output, result.output
        assert not out.exists()
    assert _partials(tmp_path) == []


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def _start_big_export(db: Path, out: Path) -> subprocess.Popen[str]:
    """An export of 100,000,000 rows (it is stopped long before the end; the memory limit
    keeps a command that held the rows whole from taking the machine's memory)."""
    code = "import sys; from zhuoji.flows.cli.main import main; sys.argv[0] = 'zhuoji'; main()"
    return subprocess.Popen(
        [sys.executable, "-c", code, "export", "--sql",
         "SELECT range AS i, 'abc' AS s FROM range(100000000)", "--db", str(db),
         "--out", str(out)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=_limit_memory, env={**os.environ, "MALLOC_ARENA_MAX": "2"},
    )


def _wait_for_partial(proc: subprocess.Popen[str], folder: Path) -> Path:
    """The export's temporary file once it holds rows (bounded: 120 s)."""
    deadline = time.monotonic() + 120
    name = f".partial-{proc.pid}-"
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        found = [p for p in folder.iterdir() if p.name.startswith(name)]
        if found and found[0].stat().st_size > 0:
            return found[0]
        time.sleep(0.05)
    proc.kill()
    raise AssertionError("the export wrote nothing in 120 s")


def test_sigterm_removes_the_temporary_file(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "big.csv"
    proc = _start_big_export(db, out)
    partial = _wait_for_partial(proc, tmp_path)
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert not partial.exists() and not out.exists()


def test_the_next_export_removes_what_a_killed_one_left(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "big.csv"
    proc = _start_big_export(db, out)
    partial = _wait_for_partial(proc, tmp_path)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=120)
    assert partial.exists()  # nothing can clean up after SIGKILL
    # a partial of a live process is not touched; nor another file's
    alive = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"],
                             stdin=subprocess.PIPE)
    live = tmp_path / f".partial-{alive.pid}-big.csv"
    live.write_text("in progress", encoding="utf-8")
    other = tmp_path / f".partial-{proc.pid}-other.csv"
    other.write_text("another file's", encoding="utf-8")
    try:
        code, output = _export(db, str(out))
    finally:
        alive.communicate(b"", timeout=60)
    assert code == 0, output
    assert not partial.exists()
    assert live.exists() and other.exists()
    assert out.read_text(encoding="utf-8").count("\n") == 301


# --- big results ----------------------------------------------------------------------------

BIG_ROWS = 2_000_000
BIG_QUERY = (f"SELECT range AS i, 'abc' AS s, range * 2 AS j, range::VARCHAR AS t "
             f"FROM range({BIG_ROWS})")
# Measured (the lowest RLIMIT_AS, 50 MiB steps, at which the command succeeds on this query):
# streamed, 562 MiB for sql --format json/csv and export jsonl/csv, 684 MiB for export
# parquet; holding the result whole (the code before), 2,106 MiB for sql json, 1,131 MiB for
# sql csv, 1,415 MiB for export jsonl, 1,090 MiB for export csv, 1,252 MiB for parquet.
ADDRESS_SPACE = 900 << 20


@pytest.mark.slow
@pytest.mark.parametrize(
    "args",
    [["sql", "-f", "json"], ["sql", "-f", "csv"], ["sql"], ["export", "-o", "big.jsonl"],
     ["export", "-o", "big.csv"], ["export", "-o", "big.parquet"]],
    ids=["sql-json", "sql-csv", "sql-table", "export-jsonl", "export-csv", "export-parquet"],
)
def test_a_big_result_is_written_in_constant_memory(
    db: Path, tmp_path: Path, args: list[str]
) -> None:
    command, *more = args
    query = ["--sql", BIG_QUERY] if command == "export" else [BIG_QUERY]
    code = "import sys; from zhuoji.flows.cli.main import main; sys.argv[0] = 'zhuoji'; main()"
    stdout = tmp_path / "stdout"
    with stdout.open("wb") as sink:
        proc = subprocess.run(
            [sys.executable, "-c", code, command, *query, "--db", str(db), *more],
            cwd=tmp_path, stdout=sink, stderr=subprocess.PIPE, preexec_fn=_limit_memory,
            timeout=600,
            # glibc reserves 64 MiB of address space for each thread's malloc arena, unused:
            # two keep the limit about memory, not about how many threads DuckDB starts
            env={**os.environ, "MALLOC_ARENA_MAX": "2"},
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    if command == "export":
        out = tmp_path / more[-1]
        assert stdout.read_text(encoding="utf-8") == f"wrote {BIG_ROWS:,} rows to {out.name}\n"
        assert _partials(tmp_path) == []
    else:
        out = stdout
    if out.suffix == ".parquet":
        meta = pq.ParquetFile(out).metadata
        assert meta.num_rows == BIG_ROWS and meta.schema.names == ["i", "s", "j", "t"]
        return
    lines = 0
    last = b""
    with out.open("rb") as f:
        while chunk := f.read(1 << 22):
            lines += chunk.count(b"\n")
            last = (last + chunk)[-400:]
    tail = last.decode(errors="replace").splitlines()
    n = BIG_ROWS - 1
    if more == ["-f", "json"]:
        assert lines == 6 * BIG_ROWS + 2 and tail[-6:] == [
            f'    "i": {n},', '    "s": "abc",', f'    "j": {2 * n},', f'    "t": "{n}"',
            "  }", "]"]
    elif out.suffix == ".jsonl":
        assert lines == BIG_ROWS
        assert json.loads(tail[-1]) == {"i": n, "s": "abc", "j": 2 * n, "t": str(n)}
    elif more in (["-f", "csv"], ["-o", "big.csv"]):
        assert lines == BIG_ROWS + 1 and tail[-1] == f"{n},abc,{2 * n},{n}"
    else:  # the table: the first 1,000 rows, the rest counted
        assert tail[-2:] == [f"{BIG_ROWS} rows",
                             f"the first 1,000 shown, {BIG_ROWS - 1000:,} left out (--max-rows "
                             "N shows more, 0 all; --format csv or json holds every row)"]
        assert lines < 1100


# --- the table's row limit ------------------------------------------------------------------


def test_a_table_shows_its_first_rows_and_counts_the_rest(db: Path) -> None:
    query = "SELECT n FROM files ORDER BY n"
    shown = runner.invoke(app, ["sql", query, "--db", str(db), "--max-rows", "10"])
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    assert lines[-2:] == ["300 rows", "the first 10 shown, 290 left out (--max-rows N shows "
                          "more, 0 all; --format csv or json holds every row)"]
    assert "│ 9 │" in shown.output and "│ 10 │" not in shown.output
    zh = runner.invoke(app, ["sql", query, "--db", str(db), "--max-rows", "10", "--lang", "zh"])
    assert zh.output.splitlines()[-1].startswith("只显示前 10 行，省略 290 行"), zh.output
    whole = runner.invoke(app, ["sql", query, "--db", str(db), "--max-rows", "0"])
    assert whole.output.splitlines()[-1] == "300 rows" and "│ 299 │" in whole.output
    default = runner.invoke(app, ["sql", query, "--db", str(db)])
    assert default.output == whole.output  # 300 rows: within the default 1,000
    bad = runner.invoke(app, ["sql", query, "--db", str(db), "--max-rows", "-1"])
    assert bad.exit_code == 2
