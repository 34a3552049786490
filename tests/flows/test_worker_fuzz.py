"""The whole worker path under mutated logs: every input ends loaded or quarantined.

The short form of ``bench/fuzz.py --target worker`` (which runs 100,000 inputs): seeded
mutated logs (``tests/support/mutate.py``) written as files, through
:func:`zhuoji.flows.ingest.worker.process_file` and, a batch at a time, the loader into a real
DuckDB
warehouse (``tests/support/worker_target.py``). No exception may escape the worker and no batch
may fail to load; and the inputs must reach both ends (a fuzzer whose inputs all fail to
parse, or all load, would prove little).
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

import tests.support.worker_target as target_module
from tests.support.mutate import Context, FuzzInput, Level, generate_input, generate_seed_games
from tests.support.worker_target import CRASH, LOST, WorkerTarget, WorkerVerdict

INPUTS = 400


def _inputs(n: int) -> list[FuzzInput]:
    seeds = generate_seed_games(simulated=1)
    ctx = Context.from_seeds(seeds)
    return [generate_input(seeds, random.Random(f"zhuoji-worker-fuzz/{i}"), ctx) for i in range(n)]


def test_mutated_logs_through_the_worker_path_all_end_loaded_or_quarantined(
    tmp_path: Path,
) -> None:
    target = WorkerTarget(tmp_path / "target", batch=50)
    verdicts: list[WorkerVerdict] = []
    levels: Counter[tuple[Level, str]] = Counter()
    inputs = _inputs(INPUTS)
    try:
        for i, inp in enumerate(inputs):
            verdicts.extend(target.run(i, inp))
        verdicts.extend(target.flush())
    finally:
        target.close()
    assert sorted(v.index for v in verdicts) == list(range(INPUTS))  # one verdict each
    failures = [v for v in verdicts if v.failure is not None]
    assert not failures, "\n\n".join(f"#{v.index}: {v.failure}" for v in failures[:3])
    for v in verdicts:
        levels[(inputs[v.index].level, v.outcome)] += 1
    outcomes = Counter(v.outcome for v in verdicts)
    assert set(outcomes) == {"loaded", "quarantined"}
    assert outcomes["loaded"] >= INPUTS // 10 and outcomes["quarantined"] >= INPUTS // 10
    assert levels[(Level.SEMANTIC, "loaded")] > 0 and levels[(Level.BYTES, "quarantined")] > 0


def test_the_target_reports_an_escaping_exception_and_a_failed_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inp = _inputs(1)[0]
    target = WorkerTarget(tmp_path / "target", batch=10)
    try:
        with monkeypatch.context() as patch:
            def explode(path: str, sha256: str | None, staging: str) -> None:
                raise RuntimeError("a defect")

            patch.setattr(target_module, "process_file", explode)
            (crashed,) = target.run(0, inp)
        assert crashed.outcome == CRASH and crashed.failure is not None
        assert "RuntimeError" in crashed.failure.key
        assert target.run(1, inp) == []
        target.con.close()  # the warehouse is gone: the batch cannot load
        (lost,) = target.flush()
        assert lost.outcome == LOST and lost.index == 1
    finally:
        target.close()

