"""What becomes of a chunk of files whose task was lost: retried once, then quarantined.

A worker of the local pool that dies mid-task (the kernel's out-of-memory killer, a
``kill -9``) fails its task and every task of the broken pool
(:meth:`zhuoji.flows.runtime.pool.ForkServerTaskRunner.repair` replaces the pool);
:func:`collect_chunks` submits each failed chunk again, alone, and quarantines the files
of a chunk that fails twice (:func:`lost_chunk_outcomes`). On a Dask cluster, Dask retries
a task that killed its workers itself; :class:`DaskChunkWatch` quarantines the files of a
task Dask gave up on (:func:`killed_outcome`). Either way the run goes on and a later run
skips the quarantined files until they change.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from concurrent.futures.process import BrokenProcessPool
from contextlib import suppress
from typing import Any

from prefect.futures import PrefectFuture

from zhuoji.flows.ingest.discover import FileDigest, hash_file
from zhuoji.flows.runtime.dask_cluster import DaskWatch, dask_tries, first_line
from zhuoji.flows.warehouse.rows import FileError, FileOutcome, FileStatus

__all__ = ["DaskChunkWatch", "collect_chunks", "killed_outcome", "lost_chunk_outcomes"]


ChunkTask = Callable[[list[FileDigest]], PrefectFuture[list[FileOutcome]]]


def collect_chunks(
    chunks: Sequence[list[FileDigest]],
    futures: Sequence[PrefectFuture[list[FileOutcome]]],
    resubmit: ChunkTask,
    repair: Callable[[], object],
    in_flight: Sequence[PrefectFuture[list[FileOutcome]]] = (),
) -> list[FileOutcome]:
    """The outcomes of a batch's chunks, in chunk order, whatever became of their tasks.

    A chunk whose task failed (its worker was killed, the pool it ran in broke, a Dask
    worker was lost) is submitted again, alone, once the pool is repaired (``repair``):
    a chunk that only shared a broken pool with another then succeeds. Alone means after
    the tasks still ``in_flight`` (the next batch's, already submitted) have ended, so
    that a fault of theirs cannot fail the retry. A chunk that fails a second time has
    each of its files quarantined with the reason (:func:`lost_chunk_outcomes`), and the
    run goes on.
    """
    results: list[list[FileOutcome] | None] = []
    failed: list[int] = []
    for index, future in enumerate(futures):
        try:
            results.append(future.result())
        except Exception:
            results.append(None)
            failed.append(index)
    if failed:
        for future in in_flight:
            with suppress(Exception):  # a failed one is retried when its batch is collected
                future.wait()
    for index in failed:
        repair()
        chunk = chunks[index]
        try:
            results[index] = resubmit(chunk).result()
        except Exception as exc:
            repair()
            results[index] = lost_chunk_outcomes(chunk, exc)
    return [outcome for result in results if result is not None for outcome in result]


def lost_chunk_outcomes(chunk: Sequence[FileDigest], exc: BaseException) -> list[FileOutcome]:
    """Each file of a chunk whose task failed twice, quarantined with the reason."""
    if isinstance(exc, BrokenProcessPool):
        cause = "the worker processing it died (killed, or out of memory)"
    else:
        cause = f"its task failed ({type(exc).__name__}: {exc})"
    reason = f"{cause}, twice; the {len(chunk)} file(s) of its task are quarantined"
    outcomes: list[FileOutcome] = []
    for d in chunk:
        try:  # the hash of the file as it is: a later run skips it until it changes
            digest = hash_file(d.path)
            sha256, size = digest.sha256 or "", digest.size
        except OSError:  # unreadable: the hash of no bytes (a later run tries again)
            sha256, size = hashlib.sha256().hexdigest(), d.size
        outcomes.append(
            FileOutcome(
                path=d.path,
                sha256=sha256,
                size=size,
                status=FileStatus.QUARANTINED,
                errors=(FileError(sentence=f"{d.path}: {reason}", message=reason),),
            )
        )
    return outcomes


class DaskChunkWatch(DaskWatch):
    """Waits for a chunk's task on a Dask cluster (:class:`DaskWatch`); the files of a
    task that killed its workers are quarantined (:func:`killed_outcome`)."""

    def result(self, future: Any, chunk: Sequence[FileDigest]) -> list[FileOutcome]:
        """The outcomes of one chunk's task (a ``PrefectDaskFuture``)."""
        from distributed import KilledWorker

        try:
            outcomes: list[FileOutcome] = self.wait(future, len(chunk))
        except KilledWorker as exc:
            return [killed_outcome(d, exc) for d in chunk]
        return outcomes


def killed_outcome(digest: FileDigest, exc: BaseException) -> FileOutcome:
    """A file of a chunk whose task killed its workers, quarantined with the reason."""
    reason = (
        "the Dask workers processing this file's task died "
        f"({dask_tries()} tries: {first_line(exc)})"
    )
    return FileOutcome(
        path=digest.path,
        sha256=digest.sha256 if digest.sha256 is not None else _hash_or_empty(digest.path),
        size=digest.size,
        status=FileStatus.QUARANTINED,
        errors=(FileError(sentence=f"{digest.path}: {reason}", message=reason),),
    )


def _hash_or_empty(path: str) -> str:
    try:
        return hash_file(path).sha256 or ""
    except OSError:
        return ""
