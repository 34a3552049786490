"""Replay speed: full replay with legality of generated legal hands, on one core.

``run()`` returns rows ``(label, value, unit)``; ``bench/replay.py`` prints them after the
hand-check figures, and ``python bench/_replay_hands.py`` prints them alone.

The hands are random legal playouts (seeded; the players choose only among
``Table.legal_actions()``; tests/support/builders.py), about 100 events each, with their
walls. Replay means :func:`zhuoji.rules.replay.replay_hand` on each: the deal check, every event
checked and applied, the end-of-hand checks and every fact of :class:`HandReplay`
(winners with patterns and passes, seats with hands, melds, discards, waits, kongs).
Generating the hands is not timed. Figures are the best of a few rounds; the CPU-time
figure counts only this process's time, so it moves less when other work shares the
machine than the wall-clock one.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import _checkout  # noqa: F401  (first: the checkout's root on sys.path, for tests.support)

from tests.support.builders import random_hands
from zhuoji.rules.events import HandRecord
from zhuoji.rules.families.guizhou.settings import Ruleset
from zhuoji.rules.hand import clear_tables
from zhuoji.rules.presets import load_preset
from zhuoji.rules.replay import replay_hand
from zhuoji.rules.table import Table

Row = tuple[str, float, str]

HANDS = 2_000
ROUNDS = 5
SEED = 20261101


def _best(fn: Callable[[], object], clock: Callable[[], float], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = clock()
        fn()
        best = min(best, clock() - start)
    return best


def _replay_all(hands: list[HandRecord], ruleset: Ruleset) -> None:
    for record in hands:
        result = replay_hand(record, ruleset)
        if result.violations:
            raise AssertionError(f"generated hand {record.hand_no}: {result.violations[0]}")


def _legal_actions_calls(hands: list[HandRecord], ruleset: Ruleset) -> int:
    calls = 0
    for record in hands:
        table = Table.from_record(record, ruleset)
        for event in record.events:
            table.legal_actions()
            table.apply(event)
            calls += 1
    return calls


def run(hands: int = HANDS, rounds: int = ROUNDS) -> list[Row]:
    ruleset = load_preset("guiyang")
    records = random_hands(SEED, hands, ruleset)
    events = sum(len(r.events) for r in records)
    # Start from empty hand-analysis tables (bench/replay.py's hand checks before this
    # leave them full of random hands play never meets), then warm them with the hands.
    clear_tables()
    _replay_all(records, ruleset)
    wall = _best(lambda: _replay_all(records, ruleset), time.perf_counter, rounds)
    cpu = _best(lambda: _replay_all(records, ruleset), time.process_time, rounds)
    few = records[: max(1, hands // 10)]
    calls = _legal_actions_calls(few, ruleset)
    legal = _best(lambda: _legal_actions_calls(few, ruleset), time.process_time, 2)
    return [
        ("generated legal hands (mean events per hand)", events / hands, "events"),
        ("full replay with legality, one core (wall clock)", hands / wall, "hands/s"),
        ("full replay with legality, one core (CPU time)", hands / cpu, "hands/s"),
        ("full replay with legality, events (CPU time)", events / cpu, "events/s"),
        ("legal_actions() + apply per event (CPU time)", calls / legal, "calls/s"),
    ]


def main() -> None:
    import argparse
    import json

    parser = argparse.ArgumentParser(description="replay speed on this process's engine")
    parser.add_argument("--hands", type=int, default=HANDS)
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--json", action="store_true", help="the rows as one JSON list")
    args = parser.parse_args()
    rows = run(args.hands, args.rounds)
    if args.json:
        print(json.dumps(rows))
        return
    width = max(len(label) for label, _, _ in rows)
    for label, value, unit in rows:
        print(f"{label:<{width}}  {value:>12,.1f}  {unit}")


if __name__ == "__main__":
    main()
