"""``zhuoji export --database OUT``: the whole warehouse as a DuckDB file that DuckDB 1.x
(and the BI tools built on it) opens, checked with a real DuckDB 1.x client; and what the
export refuses (docs/pipeline.md, "Opening the warehouse in BI tools"; docs/robustness.md,
"Exporting the whole warehouse").

The DuckDB 1.x client is installed by the test in a virtual environment of its own
(``pip install 'duckdb<2'``, kept in pytest's cache folder, so a second run takes no
time); where pip cannot get one (no package index), the tests that need it skip, saying so.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tests.flows.test_cli_conventions import zhuoji
from tests.flows.test_cli_environment import TinyDisk, tiny_disk  # noqa: F401 (a fixture)

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample"

# What a client sees of a DuckDB file: each table's and each view's rows (every view run
# whole), and every comment of a table, a view or a column. Run by the project's DuckDB on
# the warehouse and by the DuckDB 1.x client on the export: the two must be equal.
CLIENT_SCRIPT = r"""
import json, sys, duckdb
con = duckdb.connect(sys.argv[1], read_only=True)
db = con.execute("SELECT current_database()").fetchone()[0]
def q(sql, params=()):
    return con.execute(sql, list(params)).fetchall()
tables = {f"{s}.{t}": q(f'SELECT count(*) FROM "{s}"."{t}"')[0][0] for s, t in q(
    "SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = ?", [db])}
views = {f"{s}.{v}": q(f'SELECT count(*) FROM (SELECT * FROM "{s}"."{v}")')[0][0]
         for s, v in q("SELECT schema_name, view_name FROM duckdb_views() "
                       "WHERE database_name = ? AND NOT internal", [db])}
comments = q(
    "SELECT 'table', schema_name, table_name, '', comment FROM duckdb_tables() "
    "WHERE database_name = ? UNION ALL "
    "SELECT 'view', schema_name, view_name, '', comment FROM duckdb_views() "
    "WHERE database_name = ? AND NOT internal UNION ALL "
    "SELECT 'column', schema_name, table_name, column_name, comment FROM duckdb_columns() "
    "WHERE database_name = ? ORDER BY ALL", [db, db, db])
print(json.dumps({"version": duckdb.__version__, "tables": tables, "views": views,
                  "comments": comments}))
"""

OPEN_SCRIPT = "import duckdb, sys; duckdb.connect(sys.argv[1], read_only=True).close()"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()
                  if p.name.startswith(".partial-") or p.name.endswith(".wal"))


def _no_prefect() -> dict[str, str]:
    # no Prefect server configured: a small ingest then runs in its own process
    return {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """data/sample ingested by `zhuoji ingest`: a warehouse in DuckDB 2's format."""
    db = tmp_path_factory.mktemp("export-source") / "zhuoji.duckdb"
    code = "import sys; from zhuoji.flows.cli.main import main; sys.argv[0] = 'zhuoji'; main()"
    done = subprocess.run(
        [sys.executable, "-c", code, "ingest", str(SAMPLE), "--db", str(db), "--quiet"],
        cwd=ROOT, capture_output=True, text=True, timeout=600, env=_no_prefect(),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return db


@pytest.fixture
def db(warehouse: Path, tmp_path: Path) -> Path:
    """A copy of the warehouse in the test's folder."""
    copy = tmp_path / "zhuoji.duckdb"
    copy.write_bytes(warehouse.read_bytes())
    return copy


def _client_version(python: Path) -> str | None:
    if not python.exists():
        return None
    done = subprocess.run([str(python), "-c", "import duckdb; print(duckdb.__version__)"],
                          capture_output=True, text=True, timeout=120)
    version = done.stdout.strip()
    if done.returncode != 0 or not version or int(version.split(".")[0]) >= 2:
        return None
    return version


@pytest.fixture(scope="session")
def duckdb1(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Python of a virtual environment holding a DuckDB 1.x client (``pip install
    'duckdb<2'``), made once and kept in pytest's cache folder; the test skips when pip
    cannot get one. A lock keeps parallel test processes from building it twice."""
    cache = getattr(request.config, "cache", None)
    root = Path(cache.mkdir("duckdb1-client")) if cache is not None else (
        tmp_path_factory.mktemp("duckdb1-client"))
    venv = root / "venv"
    python = venv / "bin" / "python"
    with (root / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _client_version(python) is not None:
            return python
        steps = {
            "python -m venv": [sys.executable, "-m", "venv", "--clear", str(venv)],
            "pip install 'duckdb<2'": [str(python), "-m", "pip", "install", "--quiet",
                                       "--disable-pip-version-check", "--retries", "2",
                                       "duckdb<2"],
        }
        for name, step in steps.items():
            try:
                done = subprocess.run(step, capture_output=True, text=True, timeout=900)
            except subprocess.TimeoutExpired:
                reason = "no answer in 900 s"
            else:
                if done.returncode == 0:
                    continue
                reason = (done.stderr.strip().splitlines() or ["no error printed"])[-1]
            pytest.skip(f"no DuckDB 1.x client to open the export with: `{name}` failed "
                        f"({reason})")
        if _client_version(python) is None:
            pytest.skip("no DuckDB 1.x client to open the export with: `pip install "
                        "'duckdb<2'` installed none that imports")
    return python


def _seen(python: Path | str, db: Path) -> dict[str, Any]:
    done = subprocess.run([str(python), "-c", CLIENT_SCRIPT, str(db)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    seen: dict[str, Any] = json.loads(done.stdout)
    return seen


def _export(
    db: Path, out: Path | str, *more: str, cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    return zhuoji("export", "--database", str(out), "--db", str(db), *more, cwd=cwd)


# --- a DuckDB 1.x client opens the export -------------------------------------------------------


def test_a_duckdb_1x_client_opens_the_export_with_its_views_and_comments(
    db: Path, duckdb1: Path, tmp_path: Path
) -> None:
    # the warehouse itself: DuckDB 1.x refuses it (DuckDB 2's storage format)
    refused = subprocess.run([str(duckdb1), "-c", OPEN_SCRIPT, str(db)], capture_output=True,
                             text=True, timeout=120)
    assert refused.returncode != 0 and "version number" in refused.stderr, refused.stderr
    before = _digest(db)
    out = tmp_path / "bi.duckdb"
    done = _export(db, out, "--json")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    written = json.loads(done.stdout)
    assert written["database"] == str(out) and written["db"] == str(db)
    assert written["storage_version"] == "v1.0.0" and written["readable_from"] == "v1.0.0"
    assert written["bytes"] == out.stat().st_size

    theirs = _seen(sys.executable, db)  # the project's DuckDB reading the warehouse
    ours = _seen(duckdb1, out)  # DuckDB 1.x reading the export
    assert ours["version"].startswith("1.") and theirs["version"].startswith("2.")
    assert ours["tables"] == theirs["tables"]
    assert ours["views"] == theirs["views"]
    assert ours["comments"] == theirs["comments"]
    # what was compared is the warehouse: its tables and rows, its report views, comments
    assert theirs["tables"]["main.hands"] > 0 and theirs["tables"]["main.ledger"] > 0
    assert "reports.leaderboard" in theirs["views"] and theirs["views"]["reports.leaderboard"] > 0
    commented = [c for c in theirs["comments"] if c[4]]
    assert {c[0] for c in commented} == {"table", "view", "column"}
    assert len(commented) > 100
    # the JSON names every table and its rows, and the views
    assert {f"{t['schema']}.{t['table']}": t["rows"] for t in written["tables"]} == (
        theirs["tables"])
    assert written["rows"] == sum(theirs["tables"].values())
    assert written["views"] == sorted(theirs["views"])
    # the warehouse was only read; nothing is left beside the export
    assert _digest(db) == before
    assert _leftovers(tmp_path) == []


def test_storage_version_chooses_the_format_and_zh_says_it_in_chinese(
    db: Path, duckdb1: Path, tmp_path: Path
) -> None:
    out = tmp_path / "v14.duckdb"
    done = _export(db, out, "--storage-version", "v1.4.0", "--lang", "zh")
    assert done.returncode == 0, done.stderr
    tables = len(_seen(sys.executable, db)["tables"])
    assert done.stdout.startswith(f"已写入 {out}：{tables} 个表（"), done.stdout
    assert "DuckDB 存储版本 v1.4.0（DuckDB v1.4.0 及更新的版本可以打开）" in done.stdout
    assert _seen(duckdb1, out)["tables"] == _seen(sys.executable, db)["tables"]
    english = _export(db, tmp_path / "en.duckdb", "--storage-version", "v1.4.0", "--lang", "en")
    assert english.stdout == (
        f"wrote {tmp_path / 'en.duckdb'}: {tables} tables ("
        + english.stdout.split("(", 1)[1]
    )
    assert "DuckDB storage version v1.4.0 (DuckDB v1.4.0 and later open it)" in english.stdout
    # latest: DuckDB 2's own format, which DuckDB 1.x refuses as it refuses the warehouse
    latest = tmp_path / "latest.duckdb"
    assert _export(db, latest, "--storage-version", "latest").returncode == 0
    refused = subprocess.run([str(duckdb1), "-c", OPEN_SCRIPT, str(latest)],
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode != 0 and "version number" in refused.stderr, refused.stderr


# --- what the export refuses ----------------------------------------------------------------


def _one_line(
    done: subprocess.CompletedProcess[str], *wanted: str, prefix: str = "error: "
) -> str:
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(prefix), done.stderr
    for text in wanted:
        assert text in lines[0], lines[0]
    assert "Traceback" not in done.stderr and "unexpected" not in done.stderr
    return lines[0]


def test_the_export_never_writes_over_the_warehouse(db: Path, tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    os.symlink(db, tmp_path / "link.duckdb")
    os.link(db, tmp_path / "hard.duckdb")
    before = _digest(db)
    for out in (str(db), "zhuoji.duckdb", "./zhuoji.duckdb", "sub/../zhuoji.duckdb",
                "link.duckdb", "hard.duckdb", "zhuoji.duckdb.wal"):
        done = _export(db, out, "--force", cwd=tmp_path)
        _one_line(done, f"error: {Path(out)} is the database", "which export reads; give another "
                  "--database")
    assert _digest(db) == before
    assert _leftovers(tmp_path) == []
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*) FROM hands").fetchone()[0] > 0  # type: ignore[index]
    con.close()


def test_an_existing_file_is_replaced_only_with_force(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "bi.duckdb"
    out.write_bytes(b"an older export")
    done = _export(db, out)
    _one_line(done, f"error: {out} exists; give --force to replace it")
    assert out.read_bytes() == b"an older export"
    forced = _export(db, out, "--force")
    assert forced.returncode == 0, forced.stderr
    con = duckdb.connect(str(out), read_only=True)
    assert con.execute("SELECT count(*) FROM hands").fetchone()[0] > 0  # type: ignore[index]
    con.close()
    assert _leftovers(tmp_path) == []


def test_a_missing_or_unreadable_warehouse_writes_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "none.duckdb"
    out = tmp_path / "bi.duckdb"
    _one_line(_export(missing, out),
              f"error: database {missing} does not exist; create it with `zhuoji ingest`")
    not_duckdb = tmp_path / "notes.duckdb"
    not_duckdb.write_text("not a database\n", encoding="utf-8")
    _one_line(_export(not_duckdb, out), f"database {not_duckdb}")
    assert not out.exists() and _leftovers(tmp_path) == []


def test_a_storage_version_is_checked_before_anything_is_written(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "bi.duckdb"
    _one_line(_export(db, out, "--storage-version", "v9.9.9"),
              "error: --storage-version v9.9.9 is not a DuckDB release DuckDB 2.")
    _one_line(_export(db, out, "--storage-version", "1.4"),
              "error: --storage-version 1.4 is no DuckDB release; give one such as v1.0.0")
    _one_line(_export(db, out, "--storage-version", "v0.9.0"),
              "error: --storage-version v0.9.0: no DuckDB before v0.10.0 opens a file")
    zh = _one_line(_export(db, out, "--storage-version", "v9.9.9", "--lang", "zh"), prefix="错误：")
    assert "不是 DuckDB 2." in zh and "认识的版本" in zh
    as_json = _export(db, out, "--storage-version", "v9.9.9", "--json")
    assert json.loads(as_json.stdout)["error"]["message"].startswith("--storage-version v9.9.9")
    assert not out.exists() and _leftovers(tmp_path) == []


def test_a_file_a_duckdb_client_may_write_to_is_not_replaced(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "bi.duckdb"
    assert _export(db, out).returncode == 0
    before = _digest(out)
    # its write-ahead log beside it: DuckDB would apply it to the new file
    wal = Path(f"{out}.wal")
    wal.write_bytes(b"changes not yet in the file")
    _one_line(_export(db, out, "--force"), f"error: {out} has a write-ahead log {wal}")
    assert wal.read_bytes() == b"changes not yet in the file" and _digest(out) == before
    wal.unlink()
    # open for writing in another program (this test's process: the command runs in its own)
    con = duckdb.connect(str(out))
    try:
        _one_line(_export(db, out, "--force"),
                  f"error: {out} is open for writing in another program")
    finally:
        con.close()
    assert _digest(out) == before
    # open read-only, it is replaced (the reader keeps the file it opened)
    reader = duckdb.connect(str(out), read_only=True)
    try:
        assert _export(db, out, "--force").returncode == 0
    finally:
        reader.close()
    assert sorted(p.name for p in tmp_path.iterdir() if "bi.duckdb" in p.name) == ["bi.duckdb"]


def test_a_full_disk_ends_the_export_in_one_line_and_leaves_nothing(
    db: Path, tiny_disk: TinyDisk  # noqa: F811 (the fixture)
) -> None:
    # a real 2 MB tmpfs: the sample's warehouse (5.5 MB) does not fit
    before = _digest(db)
    out = tiny_disk.folder / "bi.duckdb"
    line = _one_line(_export(db, out))
    assert "no space left on device" in line, line
    assert list(tiny_disk.folder.iterdir()) == [] and _digest(db) == before


def test_the_options_of_the_two_exports_do_not_mix(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "bi.duckdb"
    _one_line(_export(db, out, "--out", str(tmp_path / "x.csv"), "--sql", "SELECT 1"),
              "error: --out, --sql and --database do not go together")
    _one_line(zhuoji("export", "--sql", "SELECT 1", "--out", str(tmp_path / "x.csv"),
                     "--db", str(db), "--storage-version", "v1.4.0"),
              "error: --storage-version goes with --database")
    _one_line(zhuoji("export", "--sql", "SELECT 1", "--db", str(db)),
              "error: Missing option '--out' / '-o'. (see `zhuoji export --help`)")
    _one_line(zhuoji("export", "--db", str(db)),
              "error: give --database OUT.duckdb (the whole warehouse) or --out FILE")
    _one_line(_export(db, ""), "error: --database is empty")
    assert list(tmp_path.iterdir()) == [db]


def test_restore_gives_the_copy_a_comment_or_a_view_it_lacks(tmp_path: Path) -> None:
    from zhuoji.flows.warehouse.export import _catalog, _differences, _restore

    con = duckdb.connect()
    con.execute("ATTACH ? AS src", [str(tmp_path / "src.duckdb")])
    con.execute("ATTACH ? AS dst", [str(tmp_path / "dst.duckdb")])
    con.execute("USE src")
    con.execute("CREATE TABLE t (a INTEGER, b VARCHAR)")
    con.execute("CREATE SCHEMA r")
    con.execute("CREATE VIEW r.v AS SELECT a FROM main.t")
    con.execute("COMMENT ON TABLE t IS 'the table'")
    con.execute("COMMENT ON COLUMN t.b IS 'it''s b'")
    con.execute("COMMENT ON VIEW r.v IS 'the view'")
    con.execute("COPY FROM DATABASE src TO dst")
    con.execute("DROP VIEW dst.r.v")
    con.execute("COMMENT ON TABLE dst.main.t IS NULL")
    con.execute("COMMENT ON COLUMN dst.main.t.b IS 'another'")
    source, copy = _catalog(con, "src"), _catalog(con, "dst")
    assert _differences(source, copy) == [
        "no column r.v.a", "no view r.v", "another comment on column main.t.b",
        "another comment on table main.t",
    ]
    _restore(con, source, copy, "dst", "src")
    assert _differences(source, _catalog(con, "dst")) == []
    assert con.execute("SELECT current_database()").fetchone() == ("src",)
    con.close()


# --- interrupted ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A DuckDB file whose copy takes seconds (20,000,000 rows)."""
    path = tmp_path_factory.mktemp("export-big") / "big.duckdb"
    con = duckdb.connect(str(path))
    con.execute("SET enable_progress_bar = false")
    con.execute("CREATE TABLE t AS SELECT range AS i, 'abc' || (range % 1000) AS s "
                "FROM range(20000000)")
    con.close()
    return path


def _start(big: Path, out: Path) -> subprocess.Popen[str]:
    code = "import sys; from zhuoji.flows.cli.main import main; sys.argv[0] = 'zhuoji'; main()"
    return subprocess.Popen(
        [sys.executable, "-c", code, "export", "--database", str(out), "--db", str(big)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
        # Ctrl-C as a terminal sends it, whatever the test runner does with SIGINT
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip


def _copying(proc: subprocess.Popen[str], out: Path) -> Path:
    """The export's file once DuckDB writes to it (bounded: 120 s)."""
    partial = out.with_name(f".partial-{proc.pid}-{out.name}")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        if partial.exists() and partial.stat().st_size > 0:
            return partial
        time.sleep(0.02)
    proc.kill()
    raise AssertionError("the export wrote nothing in 120 s")


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP],
                         ids=["ctrl-c", "sigterm", "sighup"])
def test_an_interrupted_export_stops_at_once_and_leaves_nothing(
    big: Path, tmp_path: Path, signum: int
) -> None:
    before = big.stat()
    out = tmp_path / "big-export.duckdb"
    proc = _start(big, out)
    _copying(proc, out)
    proc.send_signal(signum)
    started = time.monotonic()
    _, stderr = proc.communicate(timeout=120)
    stopped = time.monotonic() - started
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr and "FATAL" not in stderr, stderr
    # DuckDB's statement was interrupted, not run to its end (a copy takes seconds)
    assert stopped < 10, stopped
    assert not out.exists() and _leftovers(tmp_path) == []
    after = big.stat()
    assert (after.st_mtime_ns, after.st_size) == (before.st_mtime_ns, before.st_size)


@pytest.mark.slow
def test_the_next_export_removes_what_a_killed_one_left(big: Path, tmp_path: Path) -> None:
    out = tmp_path / "big-export.duckdb"
    proc = _start(big, out)
    partial = _copying(proc, out)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=120)
    assert partial.exists()  # nothing can clean up after SIGKILL
    done = _export(big, out)
    assert done.returncode == 0, done.stderr
    assert not partial.exists() and not Path(f"{partial}.wal").exists()
    assert _leftovers(tmp_path) == []
    con = duckdb.connect(str(out), read_only=True)
    assert con.execute("SELECT count(*) FROM t").fetchone() == (20_000_000,)
    con.close()
