"""Which files an ingest processes: renamed files move their rows, vanished files are
pruned (``--prune``) or forgotten (``zhuoji forget``), clashes are retried once their owner
leaves; every case through the command line, with real renames and deletions on disk."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner, Result

from tests.flows.conftest import Corpus, build_corpus, snapshot
from zhuoji.flows.cli.main import app
from zhuoji.flows.ingest.discover import hash_file
from zhuoji.flows.ingest.planning import plan_files
from zhuoji.flows.warehouse.rows import FileStatus
from zhuoji.flows.warehouse.store import KnownFile
from zhuoji.rules.version import ENGINE_VERSION

pytestmark = pytest.mark.xdist_group("prefect")


def _ingest(db: Path, *args: str) -> Result:
    result = CliRunner().invoke(
        app, ["ingest", *args, "--db", str(db), "--workers", "1", "--quiet"]
    )
    assert result.exit_code == 0, result.output
    return result


def _forget(db: Path, *paths: str) -> Result:
    return CliRunner().invoke(app, ["forget", *paths, "--db", str(db)])


def _rows(db: Path, sql: str, params: list[object] | None = None) -> list[tuple[object, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


def _last_run(db: Path) -> tuple[object, ...]:
    (row,) = _rows(
        db,
        "SELECT command, files_seen, files_loaded, files_skipped, files_quarantined,"
        " files_renamed, files_reaudited, files_forgotten FROM ingest_runs"
        " ORDER BY run_id DESC LIMIT 1",
    )
    return row


def _small(tmp_path: Path) -> Corpus:
    return build_corpus(tmp_path / "logs", clean_files=3, games_per_file=2)


def _fresh(tmp_path: Path, *args: str) -> Path:
    db = tmp_path / "fresh.duckdb"
    db.unlink(missing_ok=True)
    _ingest(db, *args)
    return db


# --- renames ---------------------------------------------------------------------------------


def test_a_renamed_file_moves_its_rows_without_a_replay(
    tmp_path: Path, prefect_harness: str
) -> None:
    small = _small(tmp_path)
    db = tmp_path / "w.duckdb"
    _ingest(db, str(small.root))
    old = sorted(small.games)[0]
    new = (Path(old).parent / "moved" / "renamed.json").as_posix()
    Path(new).parent.mkdir()
    os.rename(old, new)
    broken = next(p for p in small.quarantined if p.endswith("broken.jsonl"))
    broken_new = broken.replace("broken.jsonl", "broken-2.jsonl")
    os.rename(broken, broken_new)  # quarantined again: its reasons name the new path
    result = _ingest(db, str(small.root))
    assert f"renamed {old} -> {new}" in result.output
    assert f"renamed {broken} -> {broken_new}" in result.output
    n = len(small.files)
    # a renamed loaded file counts as skipped, a renamed quarantined file is processed
    assert _last_run(db) == ("ingest", n, 0, n - 1, 1, 2, 0, 0)
    game_ids = [g.game_id for g in small.games[old]]
    assert _rows(db, "SELECT DISTINCT path FROM games WHERE game_id IN ?", [game_ids]) == [
        (new,)
    ]
    assert _rows(db, "SELECT path FROM quarantine WHERE reason LIKE '%broken%'") == [
        (broken_new,)
    ]
    assert snapshot(db) == snapshot(_fresh(tmp_path, str(small.root)))
    _ingest(db, str(small.root))
    assert _last_run(db) == ("ingest", n, 0, n, 0, 0, 0, 0)


def test_a_copy_beside_its_original_is_a_clash_until_the_original_is_forgotten(
    tmp_path: Path, prefect_harness: str
) -> None:
    small = _small(tmp_path)
    db = tmp_path / "w.duckdb"
    _ingest(db, str(small.root))
    original = sorted(small.games)[0]
    copy = (small.root / "zz-copy.json").resolve().as_posix()
    shutil.copyfile(original, copy)
    result = _ingest(db, str(small.root))
    assert "renamed /" not in result.output
    assert f"quarantined {copy}" in result.output
    assert f"already loaded from {original}" in result.output
    assert _rows(db, "SELECT clashes_with FROM quarantine WHERE path = ?", [copy]) == [
        ([original],)
    ]
    # Forgetting the original releases the copy: the next ingest loads it.
    os.unlink(original)
    forgot = _forget(db, original)
    assert forgot.exit_code == 0, forgot.output
    result = _ingest(db, str(small.root))
    assert "re-audited 1 file: the file it clashed with changed or was forgotten" in result.output
    assert _rows(db, "SELECT status FROM files WHERE path = ?", [copy]) == [("loaded",)]
    assert snapshot(db) == snapshot(_fresh(tmp_path, str(small.root)))


def test_a_renamed_owner_keeps_its_clashing_copy_quarantined_under_its_new_name(
    tmp_path: Path, prefect_harness: str
) -> None:
    small = _small(tmp_path)
    db = tmp_path / "w.duckdb"
    original = sorted(small.games)[0]
    copy = (small.root / "zz-copy.json").resolve().as_posix()  # after the original by path
    shutil.copyfile(original, copy)
    _ingest(db, str(small.root))
    moved = (small.root / "moved.json").resolve().as_posix()
    os.rename(original, moved)
    result = _ingest(db, str(small.root))
    assert f"renamed {original} -> {moved}" in result.output
    assert _rows(db, "SELECT clashes_with FROM quarantine WHERE path = ?", [copy]) == [
        ([moved],)
    ]
    assert _last_run(db)[2:6] == (0, len(small.files) + 1, 0, 1)


def test_renames_hash_only_new_files_of_a_vanished_size(tmp_path: Path) -> None:
    a = tmp_path / "a.json"
    a.write_bytes(b'{"x": 1}')
    b = tmp_path / "b.json"
    b.write_bytes(b'{"x": 2}')
    known = {
        p.path: KnownFile(p.path, p.sha256 or "", p.size, FileStatus.LOADED, ENGINE_VERSION)
        for p in (hash_file(a), hash_file(b))
    }
    os.rename(a, tmp_path / "c.json")  # same size as b, same content as a
    shutil.copyfile(tmp_path / "c.json", tmp_path / "c.jsonl")  # a's content, read otherwise
    (tmp_path / "d.json").write_bytes(b"{}")  # another size: never hashed
    (tmp_path / "e.json").write_bytes(b'{"x": 3}')  # a's size, other content
    os.unlink(b)
    hashed: list[str] = []

    def hasher(path: str) -> object:
        hashed.append(Path(path).name)
        return hash_file(path)

    plan = plan_files([str(tmp_path)], known, hasher, prune=True)  # type: ignore[arg-type]
    root = tmp_path.resolve().as_posix()
    assert plan.renamed == ((f"{root}/a.json", f"{root}/c.json"),)
    assert sorted(hashed) == ["c.json", "c.jsonl", "e.json"]
    assert [Path(d.path).name for d in plan.to_process] == ["c.jsonl", "d.json", "e.json"]
    assert plan.pruned == (f"{root}/b.json",)
    assert (plan.seen, plan.skipped) == (4, 1)


# --- vanished files: --prune and zhuoji forget ---------------------------------------------


def test_prune_drops_vanished_files_under_the_given_folders_only(
    tmp_path: Path, prefect_harness: str
) -> None:
    small = _small(tmp_path)
    db = tmp_path / "w.duckdb"
    _ingest(db, str(small.root))
    streams = small.root / "streams"
    gone = next(p for p in sorted(small.games) if "/streams/" in p)
    gone_top = (small.root / "d00.json").resolve().as_posix()  # beside streams/, not in it
    os.unlink(gone)
    os.unlink(gone_top)
    result = _ingest(db, str(streams))
    assert "pruned /" not in result.output  # without --prune, rows of vanished files stay
    assert _rows(db, "SELECT count(*) FROM files WHERE path = ?", [gone]) == [(1,)]
    result = _ingest(db, str(streams), "--prune")
    assert f"pruned {gone}: it no longer exists" in result.output
    assert gone_top not in result.output
    assert _last_run(db)[7] == 1
    game_ids = [g.game_id for g in small.games[gone]]
    for table in ("games", "players", "hands", "hand_players", "hand_tiles", "ledger"):
        assert _rows(db, f"SELECT count(*) FROM {table} WHERE game_id IN ?", [game_ids]) == [
            (0,)
        ], table
    assert _rows(db, "SELECT count(*) FROM files WHERE path = ?", [gone_top]) == [(1,)]
    # a glob prunes under its leading folder
    result = _ingest(db, str(small.root / "*.json*"), "--prune")
    assert f"pruned {gone_top}" in result.output
    assert _rows(db, "SELECT count(*) FROM files WHERE path = ?", [gone_top]) == [(0,)]
    assert snapshot(db) == snapshot(_fresh(tmp_path, str(small.root)))


def test_forget_drops_named_files_and_folders_and_names_what_it_does_not_hold(
    tmp_path: Path, prefect_harness: str
) -> None:
    small = _small(tmp_path)
    db = tmp_path / "w.duckdb"
    _ingest(db, str(small.root))
    one = sorted(small.games)[0]
    n_games = len(small.games[one])
    missing = str(tmp_path / "never-loaded.json")
    result = _forget(db, one, str(small.root / "bad"), missing)
    assert result.exit_code == 2, result.output
    assert f"forgot {one}" in result.output
    for path in small.quarantined:
        assert f"forgot {path}" in result.output
    assert "not in the warehouse" in result.output and missing in result.output
    n_hands = sum(len(g.hands) for g in small.games[one])
    assert f"3 files forgotten (their games: {n_games}, hands: {n_hands})" in result.output
    assert _last_run(db) == ("forget", 0, 0, 0, 0, 0, 0, 3)
    held = {str(r[0]) for r in _rows(db, "SELECT path FROM files")}
    assert held == set(small.files) - {one, *small.quarantined}
    assert _rows(db, "SELECT count(*) FROM quarantine") == [(0,)]
    # the files are still on disk: the next ingest loads them again
    _ingest(db, str(small.root))
    assert snapshot(db) == snapshot(_fresh(tmp_path, str(small.root)))
    # nothing known: exit 2, no run recorded
    runs = _rows(db, "SELECT count(*) FROM ingest_runs")
    result = _forget(db, missing)
    assert result.exit_code == 2 and "not in the warehouse" in result.output
    assert _rows(db, "SELECT count(*) FROM ingest_runs") == runs


def test_forget_refuses_a_missing_database(tmp_path: Path) -> None:
    result = _forget(tmp_path / "nope.duckdb", "x.json")
    assert result.exit_code == 2
    assert "does not exist" in result.output
    assert not (tmp_path / "nope.duckdb").exists()
