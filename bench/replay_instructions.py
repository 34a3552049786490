"""Replay's instructions per hand, counted by valgrind: the compiled and the pure engine, and
another checkout beside this one, compared with a figure the machine's load does not move.

    .venv/bin/python bench/replay_instructions.py [--hands 300] [--checkout PATH ...]

For each checkout (this one first, then each ``--checkout``, which must have its own
``.venv``) and each engine (compiled, then pure with ``ZHUOJI_PURE=1``), one process runs
under ``valgrind --tool=callgrind`` with counting off: it generates the seeded legal hands
of ``bench/_replay_hands.py`` (``tests.support.builders.random_hands``, the guiyang preset),
replays them once to warm the engine's tables, turns counting on with
``callgrind_control``, replays them again (:func:`zhuoji.rules.replay.replay_hand`: the deal check,
every event checked and applied, every fact of the replay), and turns counting off. Prints
the instructions per hand and per event for each run, and the ratios: pure / compiled
within a checkout (how much the compiled engine saves), and each checkout against the
first. The hands' digest is printed so that two checkouts are seen to replay the same
hands. About a minute a run on a quiet machine (valgrind is some 50 times slower).

Counts are not times: memory and cache effects are not counted, and an instruction of the
interpreter's dispatch loop costs less than a cache miss. They are repeatable to about
0.1 % whatever else the machine runs, which is what a comparison on a shared machine needs;
``bench/replay.py`` gives the hands per second.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEED = 20261101


def _child(hands: int) -> None:
    sys.path.insert(0, os.getcwd())  # the checkout under test (for its tests.support.builders)
    try:
        from tests.support.builders import random_hands
    except ImportError:  # a checkout from before tests/support/
        from tests.rules.builders import random_hands  # type: ignore[no-redef]
    from zhuoji.rules.engine import engine_kind
    from zhuoji.rules.presets import load_preset
    from zhuoji.rules.replay import replay_hand

    ruleset = load_preset("guiyang")
    records = random_hands(SEED, hands, ruleset)
    events = sum(len(r.events) for r in records)
    digest = hashlib.sha256(repr([(r.deal, r.wall, r.events) for r in records]).encode())
    for record in records:  # warm: the hand-analysis tables filled, every module imported
        if replay_hand(record, ruleset).violations:
            raise SystemExit(f"generated hand {record.hand_no} is not clean")
    control = ["callgrind_control", "-i"]
    subprocess.run([*control, "on", str(os.getpid())], capture_output=True, check=True)
    for record in records:
        replay_hand(record, ruleset)
    subprocess.run([*control, "off", str(os.getpid())], capture_output=True, check=True)
    print(f"engine {engine_kind()}")
    print(f"hands {hands} events {events} digest {digest.hexdigest()[:12]}")


def _count(checkout: Path, pure: bool, hands: int) -> tuple[str, int, int, str, int]:
    python = checkout / ".venv" / "bin" / "python"
    env = dict(os.environ)
    env.pop("ZHUOJI_PURE", None)
    if pure:
        env["ZHUOJI_PURE"] = "1"
    with tempfile.TemporaryDirectory() as tmp:
        run = subprocess.run(
            ["valgrind", "--tool=callgrind", "--instr-atstart=no",
             f"--callgrind-out-file={Path(tmp) / 'callgrind.out'}",
             str(python), str(Path(__file__).resolve()), "--child", str(hands)],
            capture_output=True, text=True, cwd=checkout, env=env, check=False,
        )
    counted = re.search(r"Collected : (\d+)", run.stderr)
    found = re.search(r"^hands (\d+) events (\d+) digest (\w+)$", run.stdout, re.MULTILINE)
    kind = re.search(r"^engine (\w+)$", run.stdout, re.MULTILINE)
    if run.returncode or counted is None or found is None or kind is None:
        sys.exit(f"{checkout}: no count (exit {run.returncode}):\n"
                 f"{run.stdout[-1000:]}\n{run.stderr[-2000:]}")
    return (kind.group(1), int(found.group(1)), int(found.group(2)), found.group(3),
            int(counted.group(1)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=300, help="hands replayed")
    parser.add_argument("--checkout", type=Path, action="append", default=[],
                        help="another checkout (with its own .venv) to count beside this one")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child)
        return
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        sys.exit("valgrind (with callgrind_control) is not installed")
    checkouts = [ROOT, *(c.resolve() for c in args.checkout)]
    first: dict[bool, float] = {}
    for checkout in checkouts:
        per_hand: dict[bool, float] = {}
        for pure in (False, True):
            kind, hands, events, digest, total = _count(checkout, pure, args.hands)
            per_hand[pure] = total / hands
            first.setdefault(pure, per_hand[pure])
            against = per_hand[pure] / first[pure]
            print(f"{checkout.name:<16} {kind:<9} {hands:,} hands ({events:,} events, {digest})"
                  f"  {total / hands:>12,.0f} a hand  {total / events:>9,.0f} an event"
                  f"  {against:.2f}x the first checkout's")
        if per_hand[False] and per_hand[True]:
            print(f"{checkout.name:<16} pure / compiled instructions: "
                  f"{per_hand[True] / per_hand[False]:.2f}x")


if __name__ == "__main__":
    main()
