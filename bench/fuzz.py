"""Robustness fuzzing: mutated logs through parse -> bridge -> ruleset -> audit.

    .venv/bin/python bench/fuzz.py [--inputs 1000000] [--seed 1] [--workers 2]
                                   [--out bench/out] [--timeout 20] [--target audit]
    .venv/bin/python bench/fuzz.py --target worker --inputs 100000 --workers 1
    .venv/bin/python bench/fuzz.py --seed 1 --only 123456 [--write case.json]

``--target audit`` (the default) runs each input through the parsers and the engine in
memory, then as a file through ``zhuoji audit --json`` and ``zhuoji audit`` (text), the
command's own code in this process with its output captured (``tests/support/mutate.py``'s
``run_input`` and ``run_cli_audit``: exit status 0, 1 or 2, no "unexpected error", JSON
lines only). ``--target worker`` runs the whole worker
path of ``zhuoji ingest`` instead (``tests/support/worker_target.py``): the input as a file
through ``zhuoji.flows.ingest.worker.process_file`` (parse, bridge, audit, Parquet shards), then a
hundred at a time through the loader into a DuckDB warehouse; every input must end
``loaded`` or ``quarantined`` (a ``crash``: an exception escaped the worker; ``lost``: the
batch holding it failed to load, or the warehouse's ``files`` row disagrees).

Input ``i`` of a run is drawn by ``tests/support/mutate.py`` from
``random.Random(f"zhuoji-fuzz/{seed}/{i}")``: a seed game (sample and dispute logs, and
games simulated under every preset) mutated at the semantic, JSON tree, stream line or
byte level, in either encoding, sometimes gzipped. Any input can be regenerated alone
with ``--only``. Inputs are shared out in chunks over a process pool.

Prints the inputs per second, the count of each outcome class (overall and per mutation
level), the violation codes the run reached, the slowest inputs, and every failure
(``crash``: an exception other than MalformedLogError / RulesetError, or the command
failing as above; ``diverged``: the
fast form and the pydantic models read the input differently; ``broken``: an
audit that breaks an invariant; ``hang``: an input over ``--timeout`` seconds),
deduplicated by exception type and innermost project frame. The smallest input of each
failure is saved under ``<out>/crashes/`` (as a log file ``zhuoji audit`` reads, plus a
``.txt`` with the traceback and the command that regenerates it), and the figures in
``<out>/fuzz-summary.json``. Outcome counts are deterministic for a seed and input count;
times are not.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import re
import shutil
import signal
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

import _checkout  # noqa: F401  (first: the checkout's root on sys.path, for tests.support)
import orjson

from tests.support.mutate import (
    Context,
    Failure,
    FuzzInput,
    Level,
    Outcome,
    SeedGame,
    generate_input,
    generate_seed_games,
    run_input,
)
from zhuoji.parsers.read import Encoding
from zhuoji.rules.violations import ViolationCode

AUDIT, WORKER = "audit", "worker"

HANG = "hang"
HARNESS = "harness_error"
CHUNK = 500
SLOWEST = 5


class _Timeout(BaseException):
    """Raised in a worker when one input runs past the limit (not an Exception, so that
    no handler in the code under test catches it)."""


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    raise _Timeout


@dataclass(slots=True)
class FailureRecord:
    """One deduplicated failure: how often, and its smallest input."""

    kind: str  # crash, broken, hang, harness_error
    count: int
    index: int  # the input of the smallest reproducer
    size: int
    detail: str
    steps: tuple[str, ...]
    seed_game: str
    suffix: str
    data: bytes

    def merge(self, other: FailureRecord) -> None:
        self.count += other.count
        if (other.size, other.index) < (self.size, self.index):
            self.index, self.size, self.detail = other.index, other.size, other.detail
            self.steps, self.seed_game = other.steps, other.seed_game
            self.suffix, self.data = other.suffix, other.data


@dataclass(slots=True)
class Tally:
    """What a chunk (or the whole run) found."""

    inputs: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    by_level: Counter[tuple[str, str]] = field(default_factory=Counter)
    games: int = 0
    hands: int = 0
    codes: Counter[str] = field(default_factory=Counter)
    failures: dict[str, FailureRecord] = field(default_factory=dict)
    slowest: list[tuple[float, int]] = field(default_factory=list)
    busy: float = 0.0  # seconds spent in the inputs (all workers)

    def add_failure(self, key: str, record: FailureRecord) -> None:
        if key in self.failures:
            self.failures[key].merge(record)
        else:
            self.failures[key] = record

    def merge(self, other: Tally) -> None:
        self.inputs += other.inputs
        self.outcomes.update(other.outcomes)
        self.by_level.update(other.by_level)
        self.games += other.games
        self.hands += other.hands
        self.codes.update(other.codes)
        for key, record in other.failures.items():
            self.add_failure(key, record)
        self.slowest = sorted(self.slowest + other.slowest, reverse=True)[:SLOWEST]
        self.busy += other.busy


# --- the worker ---------------------------------------------------------------------------

_SEEDS: list[SeedGame] = []
_CTX: Context | None = None
_TIMEOUT = 20.0
_TARGET = AUDIT
_WORKER_ROOT: Path | None = None


def _init_worker(timeout: float, target: str = AUDIT, out: Path | None = None) -> None:
    global _SEEDS, _CTX, _TIMEOUT, _TARGET, _WORKER_ROOT
    _SEEDS = generate_seed_games()
    _CTX = Context.from_seeds(_SEEDS)
    _TIMEOUT = timeout
    _TARGET = target
    if out is not None:
        _WORKER_ROOT = out / "worker-target" / str(os.getpid())
    signal.signal(signal.SIGALRM, _on_alarm)


def input_at(seed: int, index: int) -> FuzzInput:
    assert _CTX is not None
    return generate_input(_SEEDS, random.Random(f"zhuoji-fuzz/{seed}/{index}"), _CTX)


def _record(kind: str, index: int, inp: FuzzInput, failure: Failure) -> FailureRecord:
    return FailureRecord(
        kind, 1, index, len(inp.data), failure.detail, inp.steps, inp.seed, inp.suffix, inp.data
    )


def run_worker_chunk(seed: int, start: int, stop: int) -> Tally:
    """The inputs ``start .. stop`` through the whole worker path (``--target worker``)."""
    from tests.support.worker_target import WorkerTarget, WorkerVerdict

    assert _WORKER_ROOT is not None
    tally = Tally()
    target = WorkerTarget(_WORKER_ROOT)
    inputs: dict[int, FuzzInput] = {}

    def settle(verdicts: list[WorkerVerdict]) -> None:
        for v in verdicts:
            inp = inputs.pop(v.index)
            tally.outcomes[v.outcome] += 1
            tally.by_level[(inp.level.value, v.outcome)] += 1
            if v.failure is not None:
                key = f"{v.outcome}: {v.failure.key}"
                tally.add_failure(key, _record(v.outcome, v.index, inp, v.failure))

    try:
        for index in range(start, stop):
            inp = input_at(seed, index)
            inputs[index] = inp
            began = time.perf_counter()
            signal.setitimer(signal.ITIMER_REAL, _TIMEOUT)
            try:
                verdicts = target.run(index, inp)
            except _Timeout:
                inputs.pop(index)
                key = f"hang: over {_TIMEOUT:g} s"
                tally.outcomes[HANG] += 1
                tally.by_level[(inp.level.value, HANG)] += 1
                tally.add_failure(key, _record(HANG, index, inp, Failure(key, key)))
                verdicts = []
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            spent = time.perf_counter() - began
            tally.busy += spent
            tally.inputs += 1
            if len(tally.slowest) < SLOWEST or spent > tally.slowest[-1][0]:
                tally.slowest = sorted([*tally.slowest, (spent, index)], reverse=True)[:SLOWEST]
            settle(verdicts)
        settle(target.flush())
    finally:
        target.close()
    return tally


def run_chunk(task: tuple[int, int, int]) -> Tally:
    seed, start, stop = task
    if _TARGET == WORKER:
        return run_worker_chunk(seed, start, stop)
    tally = Tally()
    for index in range(start, stop):
        try:
            inp = input_at(seed, index)
        except Exception as exc:  # a fault of the harness, reported apart
            tally.inputs += 1
            tally.outcomes[HARNESS] += 1
            key = f"{HARNESS}: {type(exc).__name__}: {exc}"
            empty = FuzzInput(b"", Encoding.DOCUMENT, False, Level.SEMANTIC, "?", ())
            tally.add_failure(key, _record(HARNESS, index, empty, Failure(key, repr(exc))))
            continue
        began = time.perf_counter()
        signal.setitimer(signal.ITIMER_REAL, _TIMEOUT)
        try:
            verdict = run_input(inp.data, inp.encoding, inp.gzipped)
        except _Timeout:
            verdict = None
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        spent = time.perf_counter() - began
        tally.busy += spent
        tally.inputs += 1
        if len(tally.slowest) < SLOWEST or spent > tally.slowest[-1][0]:
            tally.slowest = sorted([*tally.slowest, (spent, index)], reverse=True)[:SLOWEST]
        if verdict is None:
            key = f"hang: over {_TIMEOUT:g} s"
            tally.outcomes[HANG] += 1
            tally.by_level[(inp.level.value, HANG)] += 1
            tally.add_failure(key, _record(HANG, index, inp, Failure(key, key)))
            continue
        tally.outcomes[verdict.outcome.value] += 1
        tally.by_level[(inp.level.value, verdict.outcome.value)] += 1
        tally.games += verdict.games
        tally.hands += verdict.hands
        tally.codes.update(verdict.codes)
        if verdict.failure is not None:
            kind = verdict.outcome.value
            key = f"{kind}: {verdict.failure.key}"
            tally.add_failure(key, _record(kind, index, inp, verdict.failure))
    return tally


# --- the run ------------------------------------------------------------------------------


def _slug(key: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", key).strip("-")[:80]


def save_reproducers(tally: Tally, seed: int, out: Path) -> list[Path]:
    """The smallest input of each failure under ``out/crashes/`` (the folder is emptied
    first), with a ``.txt`` beside it."""
    folder = out / "crashes"
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    written = []
    for n, key in enumerate(sorted(tally.failures), 1):
        record = tally.failures[key]
        stem = f"{n:02d}-{_slug(key)}"
        case = folder / (stem + record.suffix)
        case.write_bytes(record.data)
        (folder / (stem + ".txt")).write_text(
            f"{key}\n"
            f"count: {record.count}\n"
            f"input: {record.index} of seed {seed} ({record.size} bytes, from "
            f"{record.seed_game})\n"
            f"mutations: {', '.join(record.steps) or '(none)'}\n"
            f"regenerate: .venv/bin/python bench/fuzz.py --seed {seed} --only {record.index}\n"
            f"audit it: .venv/bin/zhuoji audit {case}\n\n{record.detail}\n",
            encoding="utf-8",
        )
        written.append(case)
    return written


def _report(tally: Tally, seed: int, workers: int, wall: float, out: Path) -> dict[str, object]:
    rate = tally.inputs / wall if wall else 0.0
    codes = [c.value for c in ViolationCode]
    reached = [c for c in codes if tally.codes[c]]
    classes = [o.value for o in Outcome] + [HANG, HARNESS]
    classes += sorted(set(tally.outcomes) - set(classes))  # the worker target's classes
    print(f"inputs      {tally.inputs:,} (seed {seed}, {workers} workers)")
    print(f"time        {wall:,.1f} s wall clock, {tally.busy:,.1f} s in inputs")
    print(f"rate        {rate:,.0f} inputs/s")
    print(f"games read  {tally.games:,}; hands audited {tally.hands:,}")
    print("outcomes")
    for name in classes:
        count = tally.outcomes[name]
        if count or name in (o.value for o in Outcome):
            print(f"  {name:<14}{count:>10,}  {100 * count / max(1, tally.inputs):6.2f} %")
    print("outcomes by mutation level")
    levels = [lv.value for lv in Level]
    shown = [c for c in classes if tally.outcomes[c]]
    print("  " + f"{'':<10}" + "".join(f"{c:>15}" for c in shown))
    for lv in levels:
        row = "".join(f"{tally.by_level[(lv, c)]:>15,}" for c in shown)
        print(f"  {lv:<10}{row}")
    print(f"violation codes reached: {len(reached)} of {len(codes)}")
    print("  " + ", ".join(f"{c} {tally.codes[c]:,}" for c in reached))
    missing = [c for c in codes if not tally.codes[c]]
    if missing:
        print("  not reached: " + ", ".join(missing))
    print("slowest inputs: " + ", ".join(f"#{i} {t * 1000:,.0f} ms" for t, i in tally.slowest))
    failures = sum(r.count for r in tally.failures.values())
    print(f"failures    {failures:,} inputs, {len(tally.failures)} distinct")
    written = save_reproducers(tally, seed, out) if tally.failures else []
    for (key, record), path in zip(sorted(tally.failures.items()), written, strict=True):
        print(f"  {key}")
        print(f"    {record.count:,} inputs; smallest #{record.index} ({record.size} bytes)")
        print(f"    {path}")
    summary: dict[str, object] = {
        "seed": seed,
        "inputs": tally.inputs,
        "workers": workers,
        "wall_seconds": round(wall, 1),
        "inputs_per_second": round(rate, 1),
        "games": tally.games,
        "hands": tally.hands,
        "outcomes": {name: tally.outcomes[name] for name in classes},
        "by_level": {
            lv: {c: tally.by_level[(lv, c)] for c in classes if tally.by_level[(lv, c)]}
            for lv in levels
        },
        "codes": {c: tally.codes[c] for c in reached},
        "failures": {
            key: {"count": r.count, "index": r.index, "size": r.size}
            for key, r in sorted(tally.failures.items())
        },
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / "fuzz-summary.json").write_bytes(orjson.dumps(summary, option=orjson.OPT_INDENT_2))
    return summary


def run(
    inputs: int, seed: int, workers: int, timeout: float, out: Path, target: str = AUDIT
) -> Tally:
    tasks = [(seed, start, min(inputs, start + CHUNK)) for start in range(0, inputs, CHUNK)]
    total = Tally()
    began = time.perf_counter()
    step = max(1, len(tasks) // 20)
    out.mkdir(parents=True, exist_ok=True)
    with multiprocessing.get_context("fork").Pool(
        workers, initializer=_init_worker, initargs=(timeout, target, out.resolve())
    ) as pool:
        for done, tally in enumerate(pool.imap_unordered(run_chunk, tasks), 1):
            total.merge(tally)
            if done % step == 0 or done == len(tasks):
                spent = time.perf_counter() - began
                bad = sum(r.count for r in total.failures.values())
                print(
                    f"  {total.inputs:>10,} inputs  {spent:>7,.0f} s  "
                    f"{total.inputs / spent:>6,.0f}/s  failures {bad}",
                    file=sys.stderr, flush=True,
                )
    shutil.rmtree(out / "worker-target", ignore_errors=True)
    _report(total, seed, workers, time.perf_counter() - began, out)
    return total


def run_one(seed: int, index: int, write: Path | None) -> int:
    """Regenerate one input, run it here and show what happened."""
    _init_worker(float("inf"))
    inp = input_at(seed, index)
    print(f"input {index} of seed {seed}: {inp.level.value}, {inp.encoding.value}"
          f"{', gzipped' if inp.gzipped else ''}, {len(inp.data)} bytes, from {inp.seed}")
    print(f"mutations: {', '.join(inp.steps) or '(none)'}")
    if write is not None:
        write.write_bytes(inp.data)
        print(f"written to {write} (read it as a {inp.suffix} file)")
    verdict = run_input(inp.data, inp.encoding, inp.gzipped)
    print(f"outcome: {verdict.outcome.value}; games {verdict.games}, malformed "
          f"{verdict.malformed}, ruleset errors {verdict.ruleset_errors}, hands "
          f"{verdict.hands}, codes {', '.join(verdict.codes) or '-'}")
    if verdict.failure is not None:
        print(verdict.failure.key)
        print(verdict.failure.detail)
        return 1
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--timeout", type=float, default=20.0,
                        help="seconds one input may take before it counts as a hang")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "out")
    parser.add_argument("--only", type=int, help="regenerate and run this one input")
    parser.add_argument("--write", type=Path, help="with --only: save the input here")
    parser.add_argument("--target", choices=(AUDIT, WORKER), default=AUDIT,
                        help="audit: parse and replay in memory; worker: the ingest's "
                        "whole worker path, files to shards to the warehouse")
    args = parser.parse_args()
    if args.only is not None:
        sys.exit(run_one(args.seed, args.only, args.write))
    total = run(args.inputs, args.seed, args.workers, args.timeout, args.out, args.target)
    sys.exit(1 if total.failures else 0)


if __name__ == "__main__":
    main()
