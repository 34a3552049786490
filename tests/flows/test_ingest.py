"""The ingest: per-file processing, batch loading, quarantine accounting, idempotence,
changed files (plain functions first, then the Prefect flow itself)."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from tests.flows.conftest import Corpus, build_corpus, copy_db, ingest_plain, snapshot
from zhuoji.flows.ingest.discover import hash_file
from zhuoji.flows.ingest.load import load_outcomes
from zhuoji.flows.ingest.run import run_ingest
from zhuoji.flows.ingest.steps import LOCAL_WRITER_THREADS
from zhuoji.flows.ingest.worker import FileChangedError, audit_file, process_file
from zhuoji.flows.warehouse import store as warehouse
from zhuoji.flows.warehouse.rows import DATA_TABLES, FileStatus, RowBuffer
from zhuoji.parsers.write import write_games


def _process(path: str, staging: Path) -> object:
    d = hash_file(path)
    return process_file(d.path, d.sha256, staging.as_posix())


# --- one file ----------------------------------------------------------------------------


def test_a_good_file_gives_one_shard_per_table_with_its_rows(
    corpus: Corpus, tmp_path: Path
) -> None:
    path = sorted(corpus.games)[0]
    games = corpus.games[path]
    outcome = _process(path, tmp_path)
    assert outcome.status is FileStatus.LOADED  # type: ignore[attr-defined]
    assert outcome.game_ids == tuple(g.game_id for g in games)  # type: ignore[attr-defined]
    n_hands = sum(len(g.hands) for g in games)
    assert outcome.hands == n_hands  # type: ignore[attr-defined]
    rows = {t: pq.read_table(outcome.shard(t)).num_rows for t in DATA_TABLES}  # type: ignore[attr-defined]
    assert rows["games"] == len(games)
    assert rows["players"] == sum(len(g.players) for g in games)
    assert rows["hands"] == n_hands
    assert rows["hand_players"] == sum(len(g.players) * len(g.hands) for g in games)


def test_a_file_with_one_malformed_game_is_quarantined_whole(
    corpus: Corpus, tmp_path: Path
) -> None:
    broken = next(p for p in corpus.quarantined if p.endswith("broken.jsonl"))
    outcome = _process(broken, tmp_path)
    assert outcome.status is FileStatus.QUARANTINED  # type: ignore[attr-defined]
    assert outcome.shard_dir is None and outcome.hands == 0  # type: ignore[attr-defined]
    assert not any(tmp_path.iterdir()), "no shard of a quarantined file is left behind"
    (error,) = outcome.errors  # type: ignore[attr-defined]
    assert error.line == corpus.bad_line
    assert "10m" in error.message and broken in error.sentence


def test_a_file_that_is_not_json_is_quarantined_with_its_reason(
    corpus: Corpus, tmp_path: Path
) -> None:
    garbage = next(p for p in corpus.quarantined if p.endswith("garbage.json"))
    outcome = _process(garbage, tmp_path)
    assert outcome.status is FileStatus.QUARANTINED  # type: ignore[attr-defined]
    assert "binary" in outcome.errors[0].message  # type: ignore[attr-defined]


def test_a_new_file_is_hashed_as_it_is_parsed(corpus: Corpus, tmp_path: Path) -> None:
    for path in [*sorted(corpus.games)[:2], *corpus.quarantined]:
        outcome = process_file(path, None, (tmp_path / "stage").as_posix())
        expected = hash_file(path)
        assert (outcome.sha256, outcome.size) == (expected.sha256, expected.size), path
        assert outcome.status is (
            FileStatus.LOADED if path in corpus.games else FileStatus.QUARANTINED
        )


def test_a_file_changed_after_hashing_is_refused(corpus: Corpus, tmp_path: Path) -> None:
    src = sorted(corpus.games)[0]
    path = tmp_path / Path(src).name
    shutil.copyfile(src, path)
    d = hash_file(path)
    with open(path, "ab") as handle:
        handle.write(b"\n")
    with pytest.raises(FileChangedError):
        audit_file(d.path, d.sha256, RowBuffer(tmp_path / "stage" / "one"))
    # through the task's function: tried CHANGED_TRIES times, then quarantined, no shards
    outcome = process_file(d.path, d.sha256, (tmp_path / "stage").as_posix())
    assert outcome.status is FileStatus.QUARANTINED
    assert "the file changed while it was being read" in outcome.errors[0].message
    assert not (tmp_path / "stage").exists() or not any((tmp_path / "stage").iterdir())


# --- batches -------------------------------------------------------------------------------


def test_every_file_ends_loaded_or_quarantined(corpus: Corpus, tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    counts = ingest_plain([str(corpus.root)], db, tmp_path / "stage")
    assert counts == {
        "seen": len(corpus.files),
        "skipped": 0,
        "loaded": len(corpus.games),
        "quarantined": len(corpus.quarantined),
    }
    con = duckdb.connect(str(db), read_only=True)
    status = dict(con.execute("SELECT path, status FROM files").fetchall())
    quarantine = dict(con.execute("SELECT path, n_errors FROM quarantine").fetchall())
    loaded_paths = {p for (p,) in con.execute("SELECT DISTINCT path FROM games").fetchall()}
    con.close()
    assert sorted(status) == corpus.files
    assert {p for p, s in status.items() if s == "quarantined"} == set(corpus.quarantined)
    assert set(quarantine) == set(corpus.quarantined)
    assert loaded_paths == set(corpus.games)


def test_plain_reingest_skips_everything(corpus: Corpus, tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    ingest_plain([str(corpus.root)], db, tmp_path / "stage")
    before = snapshot(db)
    again = ingest_plain([str(corpus.root)], db, tmp_path / "stage")
    assert again == {
        "seen": len(corpus.files),
        "skipped": len(corpus.files),
        "loaded": 0,
        "quarantined": 0,
    }
    assert snapshot(db) == before


def test_a_game_id_already_loaded_elsewhere_quarantines_the_later_file(
    corpus: Corpus, tmp_path: Path
) -> None:
    first = sorted(corpus.games)[0]
    a = tmp_path / "in" / "a.jsonl"
    b = tmp_path / "in" / "b.jsonl"
    a.parent.mkdir()
    shutil.copyfile(first, a) if first.endswith(".jsonl") else write_games(a, corpus.games[first])
    write_games(b, corpus.games[first][:1])  # a copy of a's first game
    counts = ingest_plain([str(a.parent)], tmp_path / "w.duckdb", tmp_path / "stage")
    assert counts["loaded"] == 1 and counts["quarantined"] == 1
    con = duckdb.connect(str(tmp_path / "w.duckdb"), read_only=True)
    (reason,) = con.execute("SELECT reason FROM quarantine").fetchone() or ("",)
    games = con.execute("SELECT DISTINCT path FROM games").fetchall()
    con.close()
    assert "already loaded from" in reason and a.resolve().as_posix() in reason
    assert games == [(a.resolve().as_posix(),)]


def test_a_failed_batch_leaves_the_database_as_before(corpus: Corpus, tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    paths = sorted(corpus.games)
    ingest_plain(paths[:2], db, tmp_path / "stage")
    before = snapshot(db)
    con = warehouse.open_writer(db)
    outcomes = [_process(p, tmp_path / "stage") for p in paths[2:5]]
    shutil.rmtree(outcomes[-1].shard_dir)  # type: ignore[attr-defined]  # a shard goes missing
    with pytest.raises(duckdb.Error):
        load_outcomes(con, outcomes, 99)  # type: ignore[arg-type]
    con.close()
    assert snapshot(db) == before


# --- the flow -----------------------------------------------------------------------------


@pytest.mark.xdist_group("prefect")
def test_reingesting_the_same_files_adds_nothing(
    corpus: Corpus, clean_db: Path, tmp_path: Path
) -> None:
    db = copy_db(clean_db, tmp_path / "again.duckdb")
    before = snapshot(db)
    summary = run_ingest([str(corpus.root)], db, workers=1)
    assert (summary.files_seen, summary.files_skipped) == (len(corpus.files), len(corpus.files))
    assert (summary.files_loaded, summary.files_quarantined, summary.hands) == (0, 0, 0)
    assert snapshot(db) == before
    con = duckdb.connect(str(db), read_only=True)
    runs = con.execute(
        "SELECT status, files_seen, files_loaded, files_skipped, files_quarantined, hands "
        "FROM ingest_runs ORDER BY run_id"
    ).fetchall()
    con.close()
    n_loaded = len(corpus.games)
    n_hands = sum(len(g.hands) for g in corpus.all_games())
    assert runs == [
        ("completed", len(corpus.files), n_loaded, 0, len(corpus.quarantined), n_hands),
        ("completed", len(corpus.files), 0, len(corpus.files), 0, 0),
    ]


@pytest.mark.xdist_group("prefect")
def test_a_changed_file_replaces_its_rows(tmp_path: Path, prefect_harness: str) -> None:
    small = build_corpus(tmp_path / "logs", clean_files=3, games_per_file=2)
    db = tmp_path / "w.duckdb"
    ingest_plain([str(small.root)], db, tmp_path / "stage")
    # A file loses a game, which moves to the repaired quarantined file; a loaded file
    # turns malformed.
    shrink, spoil = sorted(p for p in small.games if "/streams/" in p)[:2]
    moved = small.games[shrink][1]
    write_games(shrink, small.games[shrink][:1])
    garbage = next(p for p in small.quarantined if p.endswith("garbage.json"))
    write_games(garbage, [moved])
    Path(spoil).write_bytes(b"{ not json")
    summary = run_ingest([str(small.root)], db, workers=2, batch_size=2)
    assert (summary.files_seen, summary.files_skipped) == (len(small.files), len(small.files) - 3)
    assert (summary.files_loaded, summary.files_quarantined) == (2, 1)
    fresh = tmp_path / "fresh.duckdb"
    ingest_plain([str(small.root)], fresh, tmp_path / "stage")
    assert snapshot(db) == snapshot(fresh)
    con = duckdb.connect(str(db), read_only=True)
    owner = con.execute("SELECT path FROM games WHERE game_id = ?", [moved.game_id]).fetchall()
    spoiled = con.execute("SELECT count(*) FROM games WHERE path = ?", [spoil]).fetchall()
    con.close()
    assert owner == [(garbage,)]
    assert spoiled == [(0,)]


@pytest.mark.xdist_group("prefect")
def test_beside_a_local_pool_the_loader_keeps_to_one_duckdb_thread(
    tmp_path: Path, prefect_harness: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    small = build_corpus(tmp_path / "logs", clean_files=1, games_per_file=1)
    seen: list[object] = []
    real = warehouse.open_writer

    def spy(path: str | Path, *, threads: int | None = None, wait: float = 0) -> object:
        con = real(path, threads=threads)
        row = con.execute("SELECT current_setting('threads')").fetchone()
        seen.append(None if row is None else row[0])
        return con

    monkeypatch.setattr(warehouse, "open_writer", spy)
    summary = run_ingest([str(small.root)], tmp_path / "w.duckdb", workers=1)
    assert summary.files_loaded == len(small.games)
    assert seen == [LOCAL_WRITER_THREADS] == [1]
