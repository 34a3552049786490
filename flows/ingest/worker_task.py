"""The Prefect task over a chunk of files (:func:`zhuoji.flows.ingest.worker.process_files`), which
the
ingest flow submits to its workers: a worker imports this module and
:mod:`zhuoji.flows.ingest.worker`,
not the flow's module (no DuckDB or polars); a run without Prefect calls
:func:`~zhuoji.flows.ingest.worker.process_files` directly and never imports this."""

from __future__ import annotations

from prefect import task
from prefect.cache_policies import NO_CACHE

from zhuoji.flows.ingest.discover import FileDigest
from zhuoji.flows.ingest.worker import process_files
from zhuoji.flows.warehouse.rows import FileOutcome

__all__ = ["process_files_task"]


@task(name="process-files", retries=2, retry_delay_seconds=1, cache_policy=NO_CACHE)
def process_files_task(files: list[FileDigest], staging_dir: str) -> list[FileOutcome]:
    return process_files(files, staging_dir)
