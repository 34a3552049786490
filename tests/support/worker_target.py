"""The whole worker path as a fuzz target: a mutated log as a file, through
:func:`zhuoji.flows.ingest.worker.process_file` (parse, bridge, audit, Parquet shards) and, a batch
at
a time, :func:`zhuoji.flows.ingest.load.load_outcomes` into a DuckDB warehouse.

Shared by ``bench/fuzz.py --target worker`` and ``tests/flows/test_worker_fuzz.py``. An
input ends ``loaded`` or ``quarantined``; anything else is a failure: ``crash`` (an
exception escaped ``process_file``), ``lost`` (the batch holding the input could not be
loaded, or the warehouse's bookkeeping does not show the input where its outcome says).
"""

from __future__ import annotations

import shutil
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from tests.support.mutate import Failure, FuzzInput, describe_crash
from zhuoji.flows.ingest.load import load_outcomes
from zhuoji.flows.ingest.worker import process_file
from zhuoji.flows.warehouse import store as warehouse
from zhuoji.flows.warehouse.rows import FileOutcome

CRASH = "crash"
LOST = "lost"
BATCH = 100
"""Inputs loaded per transaction."""


@dataclass(frozen=True, slots=True)
class WorkerVerdict:
    outcome: str  # loaded, quarantined, crash, lost
    index: int
    failure: Failure | None = None


class WorkerTarget:
    """A folder for the inputs' files, a staging folder and a warehouse of its own."""

    def __init__(self, root: Path, batch: int = BATCH) -> None:
        self.root = root
        self.logs = root / "logs"
        self.staging = root / "staging"
        shutil.rmtree(root, ignore_errors=True)
        self.logs.mkdir(parents=True)
        self.staging.mkdir()
        self.con = warehouse.open_writer(root / "fuzz.duckdb", threads=1)
        self.batch = batch
        self._pending: list[tuple[int, FuzzInput, FileOutcome]] = []
        self._run_id = 0

    def close(self) -> None:
        with suppress(Exception):
            self.con.close()
        shutil.rmtree(self.root, ignore_errors=True)

    def run(self, index: int, inp: FuzzInput) -> list[WorkerVerdict]:
        """Process one input; returns the verdicts settled so far (a batch's, once full)."""
        path = self.logs / f"{index}{inp.suffix}"
        path.write_bytes(inp.data)
        try:
            outcome = process_file(path.as_posix(), None, self.staging.as_posix())
        except Exception as exc:  # the point of the target: nothing may escape
            path.unlink()
            return [WorkerVerdict(CRASH, index, describe_crash(exc))]
        self._pending.append((index, inp, outcome))
        return self.flush() if len(self._pending) >= self.batch else []

    def flush(self) -> list[WorkerVerdict]:
        """Load the pending outcomes in one batch and check where each input ended."""
        pending, self._pending = self._pending, []
        if not pending:
            return []
        self._run_id += 1
        outcomes = [o for _, _, o in pending]
        paths = [o.path for o in outcomes]
        try:
            final = load_outcomes(self.con, outcomes, self._run_id)
            stored = dict(
                self.con.execute(
                    "SELECT path, status FROM files WHERE path IN (SELECT unnest($p))",
                    {"p": paths},
                ).fetchall()
            )
        except Exception as exc:
            failure = describe_crash(exc)
            return [WorkerVerdict(LOST, i, failure) for i, _, _ in pending]
        finally:
            with suppress(Exception):  # (a failed load may leave no usable connection)
                warehouse.forget_files(self.con, paths)  # the next batch starts from empty
            for _, _, o in pending:
                Path(o.path).unlink(missing_ok=True)
        verdicts: list[WorkerVerdict] = []
        by_path = {o.path: o for o in final}
        for index, _, outcome in pending:
            ended = by_path.get(outcome.path)
            status = stored.get(outcome.path)
            if ended is None or status != ended.status.value:
                detail = f"{outcome.path}: outcome {ended and ended.status}, files row {status}"
                verdicts.append(WorkerVerdict(LOST, index, Failure("bookkeeping", detail)))
            else:
                verdicts.append(WorkerVerdict(status, index))
        return verdicts
