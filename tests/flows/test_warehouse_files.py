"""What ``--db`` may name: every command that opens the warehouse refuses, in one line and
with exit status 2, a path that is no DuckDB file (a FIFO, a folder, a device, random
bytes, a SQLite database, an empty file) before DuckDB sees it, and a warehouse cut short;
no connection the project opens installs or loads an extension.

The commands run in a process of their own (the real entry point): a FIFO would block
the old code in ``open()`` for ever, so each run has a timeout, as a safety bound only.
"""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest

from zhuoji.flows.warehouse import store as warehouse
from zhuoji.flows.warehouse.analyst import open_warehouse
from zhuoji.flows.warehouse.reader import open_reader

ROOT = Path(__file__).resolve().parents[2]
LOG = ROOT / "data" / "sample" / "t7-20261101-0001.json"
BOUND = 120  # seconds: a safety bound; a refusal takes about a second

# The commands that open --db, as run on a database path (forget names a file it holds;
# deploy checks its --db before it asks for a Prefect server, which none is configured).
COMMANDS: dict[str, Callable[[Path, Path], list[str]]] = {
    "sql": lambda db, tmp: ["sql", "SELECT count(*) FROM games", "--db", str(db)],
    "report": lambda db, tmp: ["report", "leaderboard", "--db", str(db)],
    "dashboard": lambda db, tmp: ["dashboard", "--db", str(db), "--out", str(tmp / "site"),
                                  "--workers", "1", "--quiet"],
    "ingest": lambda db, tmp: ["ingest", str(LOG), "--db", str(db)],
    "forget": lambda db, tmp: ["forget", str(LOG), "--db", str(db)],
    "export": lambda db, tmp: ["export", "--sql", "SELECT 1 AS one", "--db", str(db),
                               "--out", str(tmp / "one.csv")],
    "deploy": lambda db, tmp: ["deploy", str(tmp), "--db", str(db), "--interval", "60"],
}


def zhuoji(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The console script's entry point in a process of its own, with no Prefect server
    configured (a small ingest then runs in its process)."""
    code = "import sys; from zhuoji.flows.cli.main import main; sys.argv[0] = 'zhuoji'; main()"
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=cwd, capture_output=True, text=True, timeout=BOUND, env=env,
    )  # fmt: skip


def one_line_refusal(done: subprocess.CompletedProcess[str], *wanted: str) -> str:
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    (line,) = lines
    assert line.startswith("error: database "), line
    for text in wanted:
        assert text in line, line
    for bad in ("unexpected error", "report it", "Traceback", "extension", "IO Error"):
        assert bad not in line, line
    return line


def _fifo(tmp: Path) -> Path:
    path = tmp / "w.duckdb"
    os.mkfifo(path)
    return path


def _folder(tmp: Path) -> Path:
    path = tmp / "w.duckdb"
    path.mkdir()
    return path


def _dev_null(tmp: Path) -> Path:
    return Path(os.devnull)


def _random_bytes(tmp: Path) -> Path:
    path = tmp / "w.duckdb"
    path.write_bytes(os.urandom(64 * 1024))
    return path


def _sqlite(tmp: Path) -> Path:
    path = tmp / "w.duckdb"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE games (game_id TEXT PRIMARY KEY)")
    con.commit()
    con.close()
    return path


def _empty(tmp: Path) -> Path:
    path = tmp / "w.duckdb"
    path.touch()
    return path


KINDS: dict[str, tuple[Callable[[Path], Path], str]] = {
    "fifo": (_fifo, "is a FIFO (named pipe), not a DuckDB file"),
    "folder": (_folder, "is a folder, not a DuckDB file"),
    "dev-null": (_dev_null, "is a character device, not a DuckDB file"),
    "random-bytes": (_random_bytes, "is not a DuckDB file"),
    "sqlite": (_sqlite, "is a SQLite database, not a DuckDB file"),
    "empty": (_empty, "is an empty file, not a DuckDB file"),
}


def _state(path: Path) -> tuple[int, bytes] | None:
    """A regular file's size and bytes, to check a refusal left it as it was."""
    if not path.is_file():
        return None
    return path.stat().st_size, path.read_bytes()


@pytest.mark.parametrize("command", ["sql", "report", "dashboard", "ingest"])
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_path_that_is_no_duckdb_file_is_refused_in_one_line(
    tmp_path: Path, kind: str, command: str
) -> None:
    make, what = KINDS[kind]
    db = make(tmp_path)
    before = _state(db)
    done = zhuoji(*COMMANDS[command](db, tmp_path), cwd=tmp_path)
    one_line_refusal(done, str(db), what)
    assert _state(db) == before  # nothing written to it
    assert not Path(f"{db}.wal").exists()
    assert not (tmp_path / "site").exists()


@pytest.mark.parametrize("command", ["forget", "export", "deploy"])
def test_forget_export_and_deploy_refuse_a_fifo(tmp_path: Path, command: str) -> None:
    db = _fifo(tmp_path)
    done = zhuoji(*COMMANDS[command](db, tmp_path), cwd=tmp_path)
    one_line_refusal(done, str(db), "is a FIFO")
    assert not (tmp_path / "one.csv").exists()


@pytest.mark.parametrize("command", ["sql", "ingest"])
def test_a_fifo_as_the_write_ahead_log_is_refused(
    ingested: Path, tmp_path: Path, command: str
) -> None:
    # DuckDB opens <file>.wal when it exists: a FIFO there blocked it as one as --db did.
    db = tmp_path / "w.duckdb"
    db.write_bytes(ingested.read_bytes())
    os.mkfifo(f"{db}.wal")
    done = zhuoji(*COMMANDS[command](db, tmp_path), cwd=tmp_path)
    one_line_refusal(done, str(db), f"{db}.wal", "is a FIFO (named pipe), not a file")


def test_the_analyst_entry_point_refuses_what_the_commands_refuse(tmp_path: Path) -> None:
    for name, (make, what) in sorted(KINDS.items()):
        folder = tmp_path / name
        folder.mkdir()
        db = make(folder)
        with pytest.raises(warehouse.DatabaseFileError, match=re.escape(what)):
            open_warehouse(db)
        with pytest.raises(warehouse.DatabaseFileError, match=re.escape(what)):
            warehouse.open_writer(db)
    with pytest.raises(warehouse.DatabaseMissingError, match="does not exist"):
        open_warehouse(tmp_path / "none.duckdb")  # a missing one keeps its message


# --- a warehouse cut short ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A warehouse built by a real ingest of a sample log."""
    folder = tmp_path_factory.mktemp("ingested")
    db = folder / "w.duckdb"
    done = zhuoji("ingest", str(LOG), "--db", str(db), "--json", cwd=folder)
    assert done.returncode == 0, done.stderr
    return db


def _cut_to_half(src: Path, dst: Path) -> Path:
    dst.write_bytes(src.read_bytes())
    os.truncate(dst, dst.stat().st_size // 2)
    return dst


@pytest.mark.parametrize("command", ["sql", "report", "dashboard", "ingest", "forget"])
def test_a_warehouse_cut_to_half_is_refused_in_one_line(
    ingested: Path, tmp_path: Path, command: str
) -> None:
    # DuckDB itself opens such a file and answers the queries that read none of the
    # missing blocks (a count of the games, the leaderboard) as if nothing were wrong.
    db = _cut_to_half(ingested, tmp_path / "half.duckdb")
    before = _state(db)
    done = zhuoji(*COMMANDS[command](db, tmp_path), cwd=tmp_path)
    one_line_refusal(done, str(db), "is damaged", "cut short")
    assert _state(db) == before


def test_the_whole_warehouse_still_answers(ingested: Path, tmp_path: Path) -> None:
    done = zhuoji(*COMMANDS["sql"](ingested, tmp_path), "--format", "csv", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1:] == ["1"]


def test_a_warehouse_cut_within_its_headers_is_refused(ingested: Path, tmp_path: Path) -> None:
    db = tmp_path / "short.duckdb"
    db.write_bytes(ingested.read_bytes()[:5000])
    done = zhuoji(*COMMANDS["report"](db, tmp_path), cwd=tmp_path)
    one_line_refusal(done, str(db), "is damaged", "shorter than a DuckDB file's headers")


def test_free_blocks_cut_off_the_end_are_no_damage(tmp_path: Path) -> None:
    # DuckDB cuts free blocks off the end of the file but keeps counting them in its
    # header: only the blocks in use must be in the file.
    db = tmp_path / "w.duckdb"
    con = duckdb.connect(str(db))
    for table in ("a", "b"):
        con.execute(f"CREATE TABLE {table} AS SELECT range AS i, random() AS r "
                    "FROM range(3000000)")
    con.close()
    grown = db.stat().st_size
    for table in ("b", "a"):
        con = duckdb.connect(str(db))
        con.execute(f"DROP TABLE {table}")
        con.close()
    con = duckdb.connect(str(db), read_only=True)
    counted = con.execute("SELECT total_blocks, block_size FROM pragma_database_size()")
    blocks, size = counted.fetchone() or (0, 0)
    con.close()
    assert db.stat().st_size < grown
    assert db.stat().st_size < 3 * 4096 + blocks * size  # the header counts the cut blocks
    open_reader(db).close()
    with open_warehouse(db) as wh:
        assert wh.tables() == []
    warehouse.open_writer(db).close()
    with open_warehouse(db) as wh:
        assert "games" in wh.tables()


def test_a_file_with_free_blocks_cut_by_one_block_is_refused(tmp_path: Path) -> None:
    # Shorter than the blocks its header counts but longer than the blocks in use: the
    # blocks in use decide (or DuckDB's open, when the lost block held the metadata).
    db = tmp_path / "w.duckdb"
    con = duckdb.connect(str(db))
    for table in ("a", "b"):
        con.execute(f"CREATE TABLE {table} AS SELECT range AS i, random() AS r "
                    "FROM range(3000000)")
    con.close()
    con = duckdb.connect(str(db))
    con.execute("DROP TABLE a")
    con.close()
    open_reader(db).close()
    con = duckdb.connect(str(db), read_only=True)
    counted = con.execute(
        "SELECT block_size, total_blocks, used_blocks FROM pragma_database_size()"
    )
    block_size, blocks, used = counted.fetchone() or (0, 0, 0)
    con.close()
    os.truncate(db, db.stat().st_size - block_size)
    held = (db.stat().st_size - 3 * 4096) // block_size
    assert used <= held < blocks
    with pytest.raises(warehouse.DatabaseFileError, match=r"is damaged: .*cut short"):
        open_reader(db)
    done = zhuoji(*COMMANDS["report"](db, tmp_path), cwd=tmp_path)
    one_line_refusal(done, str(db), "is damaged", "cut short")


# --- extensions --------------------------------------------------------------------------------


_SETTINGS = ("SELECT current_setting('autoinstall_known_extensions'), "
             "current_setting('autoload_known_extensions')")


def test_no_connection_installs_or_loads_an_extension(ingested: Path, tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    db.write_bytes(ingested.read_bytes())
    for opener in (
        lambda: warehouse.open_writer(db),
        lambda: warehouse.open_writer(db, threads=1),
        lambda: open_reader(db),
        lambda: open_reader(db, sealed=True),
    ):
        con = opener()
        try:
            assert con.execute(_SETTINGS).fetchone() == (False, False)
        finally:
            con.close()
    with open_warehouse(db) as wh:
        assert wh.sql(_SETTINGS).rows() == [(False, False)]


def test_a_plain_connection_beside_the_analysts_still_opens(ingested: Path) -> None:
    # The settings are set on the open connection, not given to duckdb.connect: DuckDB
    # refuses a second connection to a file with another configuration.
    with open_warehouse(ingested) as wh:
        plain = duckdb.connect(str(ingested), read_only=True)
        try:
            assert plain.execute("SELECT count(*) FROM games").fetchone() == (1,)
            assert plain.execute(_SETTINGS).fetchone() == (False, False)
        finally:
            plain.close()
        assert wh.table("games").height == 1


def test_the_sql_command_reports_the_settings_off(ingested: Path, tmp_path: Path) -> None:
    done = zhuoji("sql", _SETTINGS, "--db", str(ingested), "--format", "csv", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1:] == ["False,False"]
