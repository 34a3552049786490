"""Errors of the environment, for real: a full disk and a read-only file system (a tiny
tmpfs mounted for the test, remounted read-only), a database another process reads.

Mounting needs root (or CAP_SYS_ADMIN); where it is not permitted the tests skip and say so.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from tests.flows.test_cli_conventions import zhuoji
from zhuoji.flows.warehouse import store as warehouse
from zhuoji.flows.warehouse.sqlfiles import rollback

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample"
DISPUTE = ROOT / "tests" / "data" / "disputes" / "kong_owner_not_ready.json"


class TinyDisk:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def fill(self, leave: int) -> None:
        """Write a file that leaves about ``leave`` bytes free."""
        free = os.statvfs(self.folder).f_bavail * os.statvfs(self.folder).f_frsize
        with (self.folder / "filler").open("ab") as f:
            f.write(b"\0" * max(free - leave, 0))

    def read_only(self) -> None:
        subprocess.run(["mount", "-o", "remount,ro", str(self.folder)], check=True,
                       capture_output=True)


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[TinyDisk]:
    folder = tmp_path / "disk"
    folder.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(folder)], capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {mounted.stderr.strip()}")
    try:
        yield TinyDisk(folder)
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def test_a_full_disk_says_so_when_the_database_is_opened(tiny_disk: TinyDisk) -> None:
    tiny_disk.fill(leave=4096)
    with pytest.raises(warehouse.DatabaseStorageError) as caught:
        warehouse.open_writer(tiny_disk.folder / "w.duckdb")
    assert caught.value.errno == errno.ENOSPC
    assert "no space left on device" in str(caught.value)
    assert "cannot rollback" not in str(caught.value)


def test_a_failed_commit_is_not_hidden_by_its_rollback(tiny_disk: TinyDisk) -> None:
    con = warehouse.open_writer(tiny_disk.folder / "w.duckdb")
    tiny_disk.fill(leave=0)
    with pytest.raises(duckdb.Error) as caught:
        con.begin()
        try:
            con.execute("CREATE TABLE big AS SELECT range AS n, md5(range::VARCHAR) AS h "
                        "FROM range(200000)")
            con.commit()
        except BaseException:
            rollback(con)
            raise
    assert warehouse.storage_errno(caught.value) == errno.ENOSPC, caught.value
    assert "no transaction is active" not in str(caught.value)
    con.close()


def test_ingest_onto_a_full_disk_is_one_clear_line(tiny_disk: TinyDisk) -> None:
    tiny_disk.fill(leave=64 * 1024)
    result = zhuoji("ingest", str(SAMPLE), "--db", str(tiny_disk.folder / "w.duckdb"),
                    "--quiet", "--workers", "1")
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    assert "cannot rollback" not in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("error: ") and "no space left on device" in last, result.stderr


def test_a_read_only_file_system_says_so(tiny_disk: TinyDisk) -> None:
    db = tiny_disk.folder / "w.duckdb"
    warehouse.open_writer(db).close()
    tiny_disk.read_only()
    with pytest.raises(warehouse.DatabaseStorageError) as caught:
        warehouse.open_writer(db)
    assert caught.value.errno == errno.EROFS
    for target in (db, tiny_disk.folder / "new.duckdb"):
        result = zhuoji("ingest", str(DISPUTE), "--db", str(target), "--quiet")
        assert result.returncode == 2
        assert result.stderr.strip().splitlines() == [
            result.stderr.strip()] and "read-only file system" in result.stderr, result.stderr
    # Reading is still possible.
    read = zhuoji("sql", "SELECT count(*) AS n FROM files", "--db", str(db), "-f", "csv")
    assert read.returncode == 0, read.stderr
    assert read.stdout.splitlines() == ["n", "0"]
    exported = zhuoji("export", "--sql", "SELECT 1", "--out", str(tiny_disk.folder / "x.csv"),
                      "--db", str(db))
    assert exported.returncode == 2 and "read-only file system" in exported.stderr


@pytest.fixture(params=["plain", "flow"])
def ingest_env(request: pytest.FixtureRequest) -> dict[str, str]:
    """The environment of an ingest of a small file: no Prefect server configured (the
    run takes no Prefect), or the session's server (a flow run)."""
    if request.param == "plain":
        return {}
    return {"PREFECT_API_URL": request.getfixturevalue("prefect_harness")}


@pytest.mark.xdist_group("prefect")
def test_a_reader_holding_the_database_makes_ingest_say_busy(
    tmp_path: Path, ingest_env: dict[str, str]
) -> None:
    db = tmp_path / "w.duckdb"
    warehouse.open_writer(db).close()
    reader = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sys, duckdb
            con = duckdb.connect({str(db)!r}, read_only=True)
            print("open", flush=True)
            sys.stdin.read()
        """)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert reader.stdout is not None and reader.stdout.readline().strip() == "open"
        result = zhuoji("ingest", str(DISPUTE), "--db", str(db), "--quiet", env=ingest_env)
        assert result.returncode == 2
        line = result.stderr.strip()
        assert line.startswith(f"error: database {db} is busy: a reader (PID {reader.pid}) "
                               "holds it open read-only"), line
        assert "\n" not in line
    finally:
        assert reader.stdin is not None
        reader.stdin.close()
        reader.wait(timeout=30)


@pytest.mark.xdist_group("prefect")
def test_ingest_json_and_its_human_lines_escape_names(
    tmp_path: Path, ingest_env: dict[str, str]
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "good.json").write_bytes(DISPUTE.read_bytes())
    bad_name = "bad\x1b[2J\x1b]0;owned\x07.jsonl"
    (logs / bad_name).write_text("{\n", encoding="utf-8")
    db = tmp_path / "w.duckdb"
    result = zhuoji("ingest", str(logs), "--db", str(db), "--json", env=ingest_env)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert (summary["files_seen"], summary["files_loaded"], summary["files_quarantined"]) == (
        2, 1, 1)
    assert summary["hands"] == 1 and summary["quarantined"][0]["file"].endswith(bad_name)
    assert summary["quarantined"][0]["reason"]
    (logs / "bad2\x1b[31m.jsonl").write_text("not json\n", encoding="utf-8")
    human = zhuoji("ingest", str(logs), "--db", str(db), "--quiet", env=ingest_env)
    assert human.returncode == 0, human.stderr
    assert "\x1b" not in human.stdout and "bad2\\x1b[31m.jsonl" in human.stdout
    assert "quarantined" in human.stdout
