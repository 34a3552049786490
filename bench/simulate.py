"""Simulation speed: hands per second with one and with two processes.

Prints rows ``label  value  unit``:

* simulated and settled hands per second in memory, one process
  (:mod:`zhuoji.rules.families.guizhou.simulate`);
* hands per second written as logs (simulate, settle, convert, write) by
  :func:`zhuoji.flows.simulation.writer.run_simulation` with one and with two worker processes, in
  the
  stream encoding (gzip) and the document encoding;
* the projected time for 1,000,000 hands with two processes, against the one-hour goal.

Each figure is wall time on this machine, caches cold at the start of each process (as a
real run starts), after one short warm-up run that only loads the modules. The machine may
be shared: the CPU seconds are printed beside the wall time, and the 1,000,000-hand
projection is given both from the measured two-process rate and from the hands per CPU
second (what two otherwise idle cores give).

Run: ``.venv/bin/python bench/simulate.py [--hands N] [--preset NAME] [--seed S]``
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from collections.abc import Callable

import _checkout  # noqa: F401  (first: the checkout's root on sys.path)

from zhuoji.flows.simulation.writer import SimulationRequest, run_simulation
from zhuoji.parsers.read import Encoding
from zhuoji.rules.families.guizhou.simulate import simulate_game
from zhuoji.rules.presets import load_preset

Row = tuple[str, float, str]
HANDS_PER_GAME = 8
GOAL_HANDS = 1_000_000
GOAL_SECONDS = 3600.0


def _timed(run: Callable[[], int]) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds of this process and its children, and the hand count."""
    cpu0 = _cpu()
    t0 = time.perf_counter()
    hands = run()
    return time.perf_counter() - t0, _cpu() - cpu0, hands


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def in_memory(preset: str, hands: int, seed: int) -> int:
    rs = load_preset(preset)
    games = max(1, hands // HANDS_PER_GAME)
    for game_no in range(games):
        simulate_game(rs, seed=seed, game_no=game_no, hands=HANDS_PER_GAME)
    return games * HANDS_PER_GAME


def written(preset: str, hands: int, seed: int, workers: int, encoding: Encoding) -> int:
    games = max(1, hands // HANDS_PER_GAME)
    request = SimulationRequest(
        rulesets=(preset,), games=games, seed=seed, hands_per_game=HANDS_PER_GAME,
        encoding=encoding, gzip=encoding is Encoding.STREAM,
        games_per_file=max(1, games // (4 * workers)),
    )
    out = tempfile.mkdtemp(prefix="zhuoji-bench-sim-")
    try:
        return run_simulation(request, out, workers=workers).hands
    finally:
        shutil.rmtree(out, ignore_errors=True)


def run(hands: int = 4000, preset: str = "guiyang", seed: int = 1) -> list[Row]:
    written(preset, 16, seed + 1, 1, Encoding.STREAM)  # import everything once
    rows: list[Row] = []
    cases: list[tuple[str, Callable[[], int]]] = [
        ("simulate + settle in memory, 1 process", lambda: in_memory(preset, hands, seed)),
        ("write stream logs (gzip), 1 process",
         lambda: written(preset, hands, seed, 1, Encoding.STREAM)),
        ("write stream logs (gzip), 2 processes",
         lambda: written(preset, hands, seed, 2, Encoding.STREAM)),
        ("write document logs, 2 processes",
         lambda: written(preset, hands, seed, 2, Encoding.DOCUMENT)),
    ]
    two = per_cpu = 0.0
    for label, case in cases:
        wall, cpu, n = _timed(case)
        rate = n / wall
        rows.append((label, rate, f"hands/s ({n:,} hands, {wall:.1f} s wall, {cpu:.1f} s CPU, "
                                  f"{n / cpu:,.0f} hands per CPU second)"))
        if label == "write stream logs (gzip), 2 processes":
            two = rate
            per_cpu = n / cpu
    for label, rate in (("measured", two), ("2 idle cores, from CPU time", 2 * per_cpu)):
        minutes = GOAL_HANDS / rate / 60
        verdict = "within" if minutes * 60 < GOAL_SECONDS else "over"
        rows.append((f"1,000,000 hands, 2 processes, {label} ({verdict} 1 h)", minutes,
                     "minutes (projected)"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=4000, help="hands per measurement")
    parser.add_argument("--preset", default="guiyang")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"simulation speed, preset {args.preset}, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.2f}")
    for label, value, unit in run(args.hands, args.preset, args.seed):
        print(f"  {label:<58s} {value:>10,.1f}  {unit}")


if __name__ == "__main__":
    main()
