"""Speed of the hand checks (and of replay, when bench/_replay_hands.py is present).

Prints rows ``label  value  unit`` measured on one core:

* complete-hand checks per second, ours (:func:`zhuoji.rules.hand.is_complete`) against the
  ``mahjong`` package's ``Agari().is_agari``, on the same seeded hands in the same run;
* ready checks per second, ours (:func:`zhuoji.rules.hand.waiting_tiles` and
  :func:`zhuoji.rules.hand.is_ready`) against ``Shanten.calculate_shanten(...) == 0`` and against
  finding the waits with 27 ``is_agari`` calls;
* the speed ratios, and our first pass over fresh tables (cold) beside the steady state;
* replay (bench/_replay_hands.py) on the compiled and on the pure engine in the same run:
  each engine in its own process (``ZHUOJI_PURE=1`` for the pure one, docs/install.md),
  the two alternating ``--pairs`` times on the same core, the best of each kept, and the
  ratio compiled / pure.

The hand checks run on the engine this process has (the header says which).

Two kinds of hands (``tests/support/hands.py``, the tests' generator): *uniform* draws from
the wall (most are far from complete, which lets both sides stop early) and *built* hands
(four sets and a pair, half of them with one tile moved), the hands a win or ready check
meets in play. Each timing is the CPU time of the
best of several rounds, ours and theirs alternating, so that a busy machine hurts both
alike.

Run: ``.venv/bin/python bench/replay.py [--hands N] [--rounds R] [--seed S]
[--replay-hands N] [--pairs P]``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import _checkout  # noqa: F401  (first: the checkout's root on sys.path, for tests.support)
from mahjong.agari import Agari
from mahjong.shanten import Shanten

from tests.support.hands import built_hand, drop_tile, move_tile, uniform_hand
from zhuoji.rules.hand import clear_tables, is_complete, is_ready, waiting_tiles

Row = tuple[str, float, str]
Counts = list[int]


def pin_one_core() -> str:
    """Run on a single core where the platform allows it; returns a note for the output."""
    if hasattr(os, "sched_setaffinity") and hasattr(os, "sched_getaffinity"):
        core = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {core})
        return f"pinned to core {core}"
    return "not pinned (no sched_setaffinity)"


def uniform_hands(seed: int, n: int, size: int) -> list[Counts]:
    """``n`` hands of ``size`` tiles drawn uniformly from the 108-tile wall."""
    rng = random.Random(seed)
    return [uniform_hand(rng, size) for _ in range(n)]


def built_hands(seed: int, n: int, size: int) -> list[Counts]:
    """``n`` hands built as four sets and a pair (14 tiles), half with one tile moved;
    ``size`` 13 then drops one tile at random (waiting or nearly waiting hands)."""
    rng = random.Random(seed)
    out: list[Counts] = []
    while len(out) < n:
        suits = rng.sample(range(3), rng.choice([1, 2, 3]))
        h = built_hand(rng, suits, pung=0.4)
        if len(out) % 2:
            move_tile(rng, h, lambda _: rng.randrange(27))
        if size == 13:
            drop_tile(rng, h)
        if max(h) <= 4:
            out.append(h)
    return out


def to34(counts: Sequence[int]) -> list[int]:
    """Our 28-count vector as the ``mahjong`` package's 34-kind array (honours empty)."""
    return list(counts[:27]) + [0] * 7


def agari_waits(tiles34: list[int]) -> list[int]:
    """The waits of a 13-tile hand found the ``mahjong`` way: one ``is_agari`` per tile."""
    agari = Agari()
    out = []
    for t in range(27):
        if tiles34[t] < 4:
            tiles34[t] += 1
            if agari.is_agari(tiles34):
                out.append(t)
            tiles34[t] -= 1
    return out


_SHANTEN = Shanten()  # an instance: mahjong 1.x has instance methods only (2.x static)


def shanten_ready(tiles34: list[int]) -> bool:
    """Ready: shanten 0 (mahjong 1.x has no ``TENPAI_STATE``)."""
    return _SHANTEN.calculate_shanten(tiles34, use_kokushi=False) == 0


def _run(fn: Callable[[Any], object], items: Sequence[Any]) -> float:
    """CPU seconds of this process for ``fn`` over ``items`` (time other work takes from
    this process is not counted)."""
    start = time.process_time()
    for x in items:
        fn(x)
    return time.process_time() - start


def race(
    contenders: Sequence[tuple[Callable[[Any], object], Sequence[Any]]], rounds: int
) -> list[float]:
    """Best seconds per call of each contender, rounds alternating between them."""
    best = [float("inf")] * len(contenders)
    for _ in range(rounds):
        for i, (fn, items) in enumerate(contenders):
            best[i] = min(best[i], _run(fn, items) / len(items))
    return best


def bench_complete(kind: str, hands: list[Counts], rounds: int) -> list[Row]:
    agari = Agari()
    theirs_input = [to34(h) for h in hands]
    clear_tables()
    cold = _run(is_complete, hands) / len(hands)
    ours, theirs = race([(is_complete, hands), (agari.is_agari, theirs_input)], rounds)
    return [
        (f"complete, {kind}: ours is_complete", 1 / ours, "checks/s"),
        (f"complete, {kind}: ours, first pass (tables filling)", 1 / cold, "checks/s"),
        (f"complete, {kind}: mahjong Agari().is_agari", 1 / theirs, "checks/s"),
        (f"complete, {kind}: speed ratio ours / Agari", theirs / ours, "x"),
    ]


def bench_ready(kind: str, hands: list[Counts], rounds: int) -> list[Row]:
    theirs_input = [to34(h) for h in hands]
    clear_tables()
    cold = _run(waiting_tiles, hands) / len(hands)
    waits, ready, shanten, agari = race(
        [
            (waiting_tiles, hands),
            (is_ready, hands),
            (shanten_ready, theirs_input),
            (agari_waits, theirs_input),
        ],
        rounds,
    )
    return [
        (f"ready, {kind}: ours waiting_tiles", 1 / waits, "checks/s"),
        (f"ready, {kind}: ours waiting_tiles, first pass", 1 / cold, "checks/s"),
        (f"ready, {kind}: ours is_ready", 1 / ready, "checks/s"),
        (f"ready, {kind}: mahjong Shanten == 0", 1 / shanten, "checks/s"),
        (f"ready, {kind}: mahjong waits by 27 x is_agari", 1 / agari, "checks/s"),
        (f"ready, {kind}: speed ratio ours waits / Shanten", shanten / waits, "x"),
        (f"ready, {kind}: speed ratio ours waits / 27 x Agari", agari / waits, "x"),
    ]


def engine_replay(pure: bool, hands: int, rounds: int) -> dict[str, tuple[float, str]]:
    """One run of bench/_replay_hands.py in a fresh process on one engine:
    label -> (value, unit)."""
    env = {k: v for k, v in os.environ.items() if k != "ZHUOJI_PURE"}
    if pure:
        env["ZHUOJI_PURE"] = "1"
    script = Path(__file__).with_name("_replay_hands.py")
    probe = "import zhuoji.rules.engine as e; print(e.engine_kind())"
    kind = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                          text=True, check=True).stdout.strip()
    if kind != ("pure" if pure else "compiled"):
        raise SystemExit(f"asked for the {'pure' if pure else 'compiled'} engine, got {kind}")
    out = subprocess.run(
        [sys.executable, str(script), "--json", "--hands", str(hands), "--rounds", str(rounds)],
        env=env, capture_output=True, text=True, check=True,
    ).stdout
    return {label: (value, unit) for label, value, unit in json.loads(out)}


def replay_rows(hands: int, rounds: int, pairs: int) -> list[Row]:
    """Replay on both engines, alternating, best of ``pairs`` runs each (hands/s and calls/s
    are higher-is-better; the mean events per hand is the same for both)."""
    import zhuoji.rules.engine as engine

    has_compiled = engine.compiled_available()
    kinds = [False, True] if has_compiled else [True]
    best: dict[bool, dict[str, float]] = {}
    units: dict[str, str] = {}
    for _ in range(pairs):
        for pure in kinds:
            got = engine_replay(pure, hands, rounds)
            mine = best.setdefault(pure, {})
            for label, (value, unit) in got.items():
                mine[label] = max(mine.get(label, 0.0), value)
                units[label] = unit
    rows: list[Row] = []
    for label, value in best[True].items():
        if label.startswith("generated"):
            rows.append((label, value, units[label]))
            continue
        if has_compiled:
            rows.append((f"{label}, compiled", best[False][label], units[label]))
        rows.append((f"{label}, pure", value, units[label]))
        if has_compiled:
            rows.append((f"{label}, speed ratio compiled / pure",
                         best[False][label] / value, "x"))
    if not has_compiled:
        rows.append(("no compiled engine in this installation: pure only", 0.0, ""))
    return rows


def format_rows(rows: Sequence[Row]) -> str:
    width = max(len(label) for label, _, _ in rows)
    lines = []
    for label, value, unit in rows:
        shown = f"{value:,.1f}" if unit == "x" or value < 100 else f"{value:,.0f}"
        lines.append(f"{label:<{width}}  {shown:>12}  {unit}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--hands", type=int, default=20_000, help="hands per set")
    parser.add_argument("--ready-hands", type=int, default=3_000, help="13-tile hands per set")
    parser.add_argument("--rounds", type=int, default=5, help="timing rounds (best is kept)")
    parser.add_argument("--seed", type=int, default=20261101)
    parser.add_argument("--replay-hands", type=int, default=2_000, help="hands replayed")
    parser.add_argument("--pairs", type=int, default=3,
                        help="replay runs per engine, alternating (best is kept)")
    args = parser.parse_args(argv)

    import zhuoji.rules.engine as engine

    note = pin_one_core()
    print(f"# hand checks, python {sys.version.split()[0]}, {note}, "
          f"{args.hands} hands, best of {args.rounds} rounds, "
          f"{engine.engine_kind()} engine")
    rows: list[Row] = []
    rows += bench_complete("uniform", uniform_hands(args.seed, args.hands, 14), args.rounds)
    rows += bench_complete("built", built_hands(args.seed + 1, args.hands, 14), args.rounds)
    ready_rounds = max(1, args.rounds // 2)
    rows += bench_ready("uniform", uniform_hands(args.seed + 2, args.ready_hands, 13),
                        ready_rounds)
    rows += bench_ready("built", built_hands(args.seed + 3, args.ready_hands, 13), ready_rounds)
    print(format_rows(rows))
    replay = replay_rows(args.replay_hands, args.rounds, args.pairs)
    print(f"# replay of {args.replay_hands} generated hands, each engine in its own process, "
          f"best of {args.pairs} alternating runs of {args.rounds} rounds, {note}")
    print(format_rows(replay))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
