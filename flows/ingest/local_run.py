"""A small ingest with no Prefect server configured: the run's steps as plain calls.

:func:`run_local` runs :func:`zhuoji.flows.ingest.steps.ingest_steps` in this process,
without importing Prefect or starting a server: the plan, the processing of each chunk
(:func:`zhuoji.flows.ingest.worker.process_files`) and each batch's load are plain calls,
retried as the flow's tasks are (:data:`TRIES`), and the run logs to the standard logger
:data:`LOGGER` (silent unless the command line asks for its lines). The run is recorded
in ``ingest_runs``, and its rows and summary are those the flow gives the same files
(the runner ``in-process`` either way): no flow run, task runs, logs or artifact exist
anywhere, since no server is configured.

:func:`zhuoji.flows.ingest.run.run_ingest` takes this path for a small run
(:data:`zhuoji.flows.ingest.steps.SMALL_RUN_BYTES`) when no server is configured
(:func:`zhuoji.flows.runtime.prefect_config.configured_api_url`) and the flow is not asked
for (``zhuoji ingest --prefect``, :data:`zhuoji.flows.ingest.run.FLOW_PATH_ENV`).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TypeVar

import duckdb

from zhuoji.flows.ingest.discover import FileDigest
from zhuoji.flows.ingest.load import load_outcomes
from zhuoji.flows.ingest.planning import FilePlan, plan_chunks, plan_files
from zhuoji.flows.ingest.steps import (
    IN_PROCESS,
    LOCAL_WRITER_THREADS,
    RunRequest,
    RunSummary,
    ingest_steps,
    marked_flow_run,
)
from zhuoji.flows.ingest.worker import process_files
from zhuoji.flows.warehouse.rows import FileOutcome
from zhuoji.flows.warehouse.store import KnownFile

__all__ = ["LOGGER", "TRIES", "LocalSteps", "log_to_stderr", "run_local"]

LOGGER = logging.getLogger("zhuoji.ingest")
"""Where a run without Prefect logs what a flow run logs through Prefect's run logger."""
LOGGER.addHandler(logging.NullHandler())

TRIES: dict[str, tuple[int, float]] = {
    "plan-files": (3, 1.0),
    "process-files": (3, 1.0),
    "load-batch": (3, 2.0),
}
"""Each step's tries and the seconds between them: the flow's tasks' retries (2) and
retry delays, so that both paths give up alike."""

T = TypeVar("T")


def _retried(name: str, call: Callable[[], T]) -> T:
    tries, delay = TRIES[name]
    for attempt in range(1, tries + 1):
        try:
            return call()
        except Exception as exc:
            if attempt == tries:
                raise
            LOGGER.warning(
                "%s failed (try %d of %d: %s: %s); trying again in %.0f s",
                name, attempt, tries, type(exc).__name__, exc, delay,
            )
            time.sleep(delay)
    raise AssertionError("unreachable")


class LocalSteps:
    """:class:`zhuoji.flows.ingest.steps.RunSteps` as plain calls in this process."""

    logger = LOGGER

    def mark_crashed(self, staging_root: Path) -> str | None:
        # A run without Prefect leaves no flow run; one killed on the flow path does,
        # and only then is Prefect imported (and its server reached) to mark it.
        if marked_flow_run(staging_root) is None:
            return None
        from zhuoji.flows.ingest.steps import mark_crashed_run
        from zhuoji.flows.runtime.prefect_api import prefect_api

        with prefect_api():
            return mark_crashed_run(
                staging_root, by=f"a run without Prefect (PID {os.getpid()})"
            )

    def plan(
        self,
        args: list[str],
        files: list[str],
        known: dict[str, KnownFile],
        stale: dict[str, str],
        full_refresh: bool,
        prune: bool,
    ) -> FilePlan:
        return _retried(
            "plan-files",
            lambda: plan_files(
                args, known, stale=stale, full_refresh=full_refresh, prune=prune, found=files
            ),
        )

    def marker(self) -> dict[str, object]:
        return {"flow_run_id": None, "pid": os.getpid()}

    def process(
        self, batches: Sequence[list[FileDigest]], workers: int, staging: Path
    ) -> Iterator[list[FileOutcome]]:
        for batch in batches:
            outcomes: list[FileOutcome] = []
            for chunk in plan_chunks(batch, workers):
                outcomes += _retried(
                    "process-files",
                    lambda chunk=chunk: process_files(chunk, staging.as_posix()),  # type: ignore[misc]
                )
            yield outcomes

    def load(
        self,
        con: duckdb.DuckDBPyConnection,
        outcomes: list[FileOutcome],
        run_id: int,
        counts: dict[str, int],
    ) -> list[FileOutcome]:
        return _retried("load-batch", lambda: load_outcomes(con, outcomes, run_id, counts))

    def publish(self, summary: RunSummary) -> None:
        """Nothing: with no server configured there is no UI to publish to; the run is in
        ``ingest_runs`` and the command's summary."""


def run_local(request: RunRequest) -> RunSummary:
    """The small run ``request`` as plain calls in this process (one worker: this one)."""
    return ingest_steps(
        LocalSteps(),
        args=request.args,
        files=request.files,
        db=request.db,
        workers=1,
        batch_size=request.batch_size,
        runner_label=IN_PROCESS,
        progress=request.progress,
        writer_threads=LOCAL_WRITER_THREADS,
        full_refresh=request.full_refresh,
        prune=request.prune,
        wait=request.wait_left,
    )


def log_to_stderr(level: int) -> None:
    """Print the lines of runs without Prefect on standard error from ``level`` on."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s | %(levelname)-7s | %(message)s"))
    handler.setLevel(level)
    LOGGER.addHandler(handler)
    LOGGER.setLevel(level)
