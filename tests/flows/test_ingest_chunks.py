"""How a run's files are cut into load batches, and a batch's files shared out into tasks."""

from __future__ import annotations

import gc

import pytest

from zhuoji.flows.ingest.discover import FileDigest
from zhuoji.flows.ingest.planning import plan_batches, plan_chunks
from zhuoji.flows.ingest.worker import rare_collections


def _files(*sizes: int) -> list[FileDigest]:
    return [
        FileDigest(path=f"/logs/f{i:03d}.jsonl", sha256="0" * 64, size=s)
        for i, s in enumerate(sizes)
    ]


def _flat(chunks: list[list[FileDigest]]) -> list[FileDigest]:
    return [d for chunk in chunks for d in chunk]


def test_no_files_no_chunks() -> None:
    assert plan_chunks([], workers=2) == []


def test_small_files_still_give_every_worker_a_chunk() -> None:
    files = _files(*[1_000] * 16)
    chunks = plan_chunks(files, workers=2, chunk_bytes=8 * 2**20)
    assert [len(c) for c in chunks] == [8, 8]
    assert _flat(chunks) == files  # every file once, in order


def test_fewer_files_than_workers() -> None:
    files = _files(5_000)
    assert plan_chunks(files, workers=4) == [files]


def test_big_batches_are_cut_by_bytes() -> None:
    files = _files(*[3 * 2**20] * 16)  # 48 MiB
    chunks = plan_chunks(files, workers=2, chunk_bytes=8 * 2**20)
    assert len(chunks) == 6
    assert _flat(chunks) == files
    assert max(sum(d.size for d in c) for c in chunks) <= 9 * 2**20


def test_a_huge_file_does_not_pull_the_rest_into_its_chunk() -> None:
    files = _files(100, 64 * 2**20, 100, 100)
    chunks = plan_chunks(files, workers=2, chunk_bytes=8 * 2**20)
    assert chunks == [files[:2], files[2:]]


@pytest.mark.parametrize("workers", [1, 2, 3, 8])
def test_empty_files_count_as_one_byte(workers: int) -> None:
    files = _files(0, 0, 0, 0, 0)
    chunks = plan_chunks(files, workers=workers)
    assert _flat(chunks) == files
    assert len(chunks) == min(5, workers)


def test_batches_hold_about_one_chunk_per_worker() -> None:
    files = _files(*[3 * 2**20] * 30)  # 90 MiB
    batches = plan_batches(files, workers=2, chunk_bytes=16 * 2**20)
    # 32 MiB batches; the last one's final 6 MiB (a quarter at most) is a batch of its own
    assert [len(b) for b in batches] == [10, 10, 8, 2]
    assert _flat(batches) == files
    assert all(len(plan_chunks(b, workers=2, chunk_bytes=16 * 2**20)) == 2 for b in batches)


def test_the_last_batch_is_at_most_a_quarter_of_a_batch() -> None:
    files = _files(*[2**20] * 45)  # two full 16 MiB batches and 13 MiB
    batches = plan_batches(files, workers=1, chunk_bytes=16 * 2**20)
    assert [len(b) for b in batches] == [16, 16, 9, 4]
    assert _flat(batches) == files


def test_a_short_last_batch_is_not_cut() -> None:
    files = _files(*[2**20] * 20)  # one full batch and 4 MiB: already a quarter
    batches = plan_batches(files, workers=1, chunk_bytes=16 * 2**20)
    assert [len(b) for b in batches] == [16, 4]


def test_a_last_batch_of_one_big_file_is_not_cut() -> None:
    files = _files(2**20, 2**20, 14 * 2**20)
    batches = plan_batches(files, workers=1, chunk_bytes=16 * 2**20)
    assert batches == [files]


def test_a_file_larger_than_a_batch_is_a_batch_of_its_own() -> None:
    files = _files(100, 64 * 2**20, 100, 100)
    batches = plan_batches(files, workers=1, chunk_bytes=8 * 2**20)
    assert batches == [files[:1], files[1:2], files[2:]]


def test_no_files_no_batches() -> None:
    assert plan_batches([], workers=2) == []


def test_rare_collections_raise_the_threshold_and_restore_it() -> None:
    before = gc.get_threshold()
    with rare_collections(threshold=123_456):
        assert gc.get_threshold() == (123_456, before[1], before[2])
    assert gc.get_threshold() == before
    with pytest.raises(RuntimeError), rare_collections(threshold=123_456):
        raise RuntimeError("a failing file")
    assert gc.get_threshold() == before
