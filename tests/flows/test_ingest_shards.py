"""One set of Parquet shards per task: a chunk of files shares its shards, each row keeps
its file, and quarantining or replacing one file of a chunk leaves the others' rows."""

from __future__ import annotations

import errno
import shutil
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

import zhuoji.flows.ingest.worker
from tests.flows.conftest import Corpus, ingest_plain, snapshot
from zhuoji.flows.ingest.discover import hash_file
from zhuoji.flows.ingest.worker import process_files
from zhuoji.flows.warehouse.rows import DATA_TABLES, SOURCE_COLUMN, FileStatus, RowBuffer
from zhuoji.parsers.write import write_games


def test_a_task_writes_one_set_of_shards_for_all_its_files(
    corpus: Corpus, tmp_path: Path
) -> None:
    files = [hash_file(p) for p in corpus.files]
    outcomes = process_files(files, (tmp_path / "stage").as_posix())
    loaded = [o for o in outcomes if o.status is FileStatus.LOADED]
    assert [o.path for o in outcomes] == corpus.files
    assert {o.path for o in loaded} == set(corpus.games)
    assert {o.shard_dir for o in loaded} == {loaded[0].shard_dir}, "one shard folder"
    assert all(o.shard_dir is None for o in outcomes if o.status is FileStatus.QUARANTINED)
    assert [p.name for p in (tmp_path / "stage").iterdir()] == [Path(loaded[0].shard_dir).name]  # type: ignore[arg-type]
    assert sorted(p.name for p in Path(loaded[0].shard_dir).iterdir()) == sorted(  # type: ignore[arg-type]
        f"{t}.parquet" for t in DATA_TABLES
    )
    hands = pq.read_table(loaded[0].shard("hands"), columns=[SOURCE_COLUMN]).to_pylist()
    per_file = {o.path: o.hands for o in loaded}
    assert {p: sum(r[SOURCE_COLUMN] == p for r in hands) for p in per_file} == per_file


@pytest.mark.parametrize("flush_hands", [20_000, 3], ids=["buffered", "written"])
def test_one_task_per_batch_loads_what_one_task_per_file_loads(
    corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flush_hands: int
) -> None:
    """The quarantined files' rows are left out whether they were still buffered or
    already written to the shards (a flush every few hands) when the fault was read."""
    per_file = tmp_path / "per-file.duckdb"
    ingest_plain([str(corpus.root)], per_file, tmp_path / "s1")
    monkeypatch.setattr(zhuoji.flows.ingest.worker, "FLUSH_HANDS", flush_hands)
    per_task = tmp_path / "per-task.duckdb"
    counts = ingest_plain([str(corpus.root)], per_task, tmp_path / "s2", batch=50, one_task=True)
    assert counts["quarantined"] == len(corpus.quarantined)
    assert snapshot(per_task) == snapshot(per_file)
    assert not any((tmp_path / "s2").iterdir()), "the loaded task's shards are removed"


def test_a_clash_quarantines_one_file_of_a_task_and_keeps_the_others(
    corpus: Corpus, tmp_path: Path
) -> None:
    first, second = sorted(corpus.games)[:2]
    folder = tmp_path / "in"
    folder.mkdir()
    write_games(folder / "a.jsonl", corpus.games[first])
    write_games(folder / "b.jsonl", corpus.games[first][:1])  # a's first game again
    write_games(folder / "c.jsonl", corpus.games[second])
    db = tmp_path / "w.duckdb"
    counts = ingest_plain([str(folder)], db, tmp_path / "stage", one_task=True)
    assert (counts["loaded"], counts["quarantined"]) == (2, 1)
    con = duckdb.connect(str(db), read_only=True)
    games = con.execute("SELECT path, count(*) FROM games GROUP BY ALL ORDER BY 1").fetchall()
    hands = con.execute("SELECT count(*) FROM hands").fetchone()
    con.close()
    a, c = (folder / "a.jsonl").as_posix(), (folder / "c.jsonl").as_posix()
    assert games == [(a, len(corpus.games[first])), (c, len(corpus.games[second]))]
    n_hands = sum(len(g.hands) for g in [*corpus.games[first], *corpus.games[second]])
    assert hands == (n_hands,)


def test_replacing_one_file_of_a_task_keeps_the_others_rows(
    corpus: Corpus, tmp_path: Path
) -> None:
    names = sorted(corpus.games)[-3:]  # stream files of two games each
    folder = tmp_path / "in"
    folder.mkdir()
    for i, name in enumerate(names):
        write_games(folder / f"f{i}.jsonl", corpus.games[name])
    db = tmp_path / "w.duckdb"
    ingest_plain([str(folder)], db, tmp_path / "stage", one_task=True)
    write_games(folder / "f1.jsonl", corpus.games[names[1]][1:])  # f1 loses its first game
    counts = ingest_plain([str(folder)], db, tmp_path / "stage", one_task=True)
    assert (counts["skipped"], counts["loaded"]) == (2, 1)
    # the reference: the same three files loaded from scratch, each a task of its own
    fresh = tmp_path / "fresh.duckdb"
    ingest_plain([str(folder)], fresh, tmp_path / "stage2")
    skip = ("ingest_runs", "schema_version", "files")
    assert snapshot(db, skip) == snapshot(fresh, skip)


def test_a_failed_task_leaves_no_shards(
    corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(zhuoji.flows.ingest.worker, "FLUSH_HANDS", 3)  # rows are written as it goes
    files = [hash_file(p) for p in sorted(corpus.games)[-3:]]
    stage = tmp_path / "stage"

    def full_disk(self: RowBuffer) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(RowBuffer, "close", full_disk)  # the shards cannot be finished
    with pytest.raises(OSError, match="No space left"):
        process_files(files, stage.as_posix())
    assert stage.is_dir() and not any(stage.iterdir())


def test_a_file_that_keeps_changing_is_quarantined_and_the_others_keep_their_rows(
    corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(zhuoji.flows.ingest.worker, "FLUSH_HANDS", 3)  # rows are written as it goes
    files = [hash_file(p) for p in sorted(corpus.games)[-3:]]
    changed = tmp_path / Path(files[2].path).name
    shutil.copyfile(files[2].path, changed)
    planned = hash_file(changed)
    with open(changed, "ab") as handle:
        handle.write(b"\n")  # the chunk's last file changes after planning
    stage = tmp_path / "stage"
    outcomes = process_files([*files[:2], planned], stage.as_posix())
    assert [o.status for o in outcomes] == [FileStatus.LOADED] * 2 + [FileStatus.QUARANTINED]
    assert "the file changed while it was being read" in outcomes[2].errors[0].message
    (shard_dir,) = {o.shard_dir for o in outcomes[:2]}  # one set of shards for the task
    assert shard_dir is not None and outcomes[2].shard_dir is None
    # its rows written before the change was seen stay in the shards; the loader keeps
    # only the loaded files' rows (test_one_task_per_batch_loads_what_one_task_per_file_loads)
    hands = pq.read_table(outcomes[0].shard("hands"), columns=[SOURCE_COLUMN]).column(0)
    assert {files[0].path, files[1].path} <= set(hands.to_pylist())
