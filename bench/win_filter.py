"""What a family's win filter costs its replay (``TableRules.win_filter``, Changsha's
"ready to win": a wait counts only when it makes a 小胡 with a 2-5-8 pair or a big shape).

Replays the same seeded Changsha hands with the filter and without it (the waits then
being the core's shapes'), alternating in one process, the best CPU time of each kept,
and prints hands per second of each and the filter's cost. The engine is the one this
process has (``ZHUOJI_PURE=1`` for the pure one).

Run: ``.venv/bin/python bench/win_filter.py [--games N] [--rounds R]``
"""

from __future__ import annotations

import argparse
import time

import zhuoji.rules.engine as engine
from zhuoji.rules.families.changsha.simulate import generate_games
from zhuoji.rules.presets import resolve_ruleset
from zhuoji.rules.replay import replay_hand
from zhuoji.rules.table import table_rules_of


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=60, help="games of 8 hands")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    ruleset = resolve_ruleset("changsha")
    records = [h.record for g in generate_games(ruleset, seed=7, games=args.games,
                                                 hands_per_game=8) for h in g.hands]
    rules = table_rules_of(ruleset)
    keep = rules.win_filter
    best = {"with the filter": float("inf"), "without": float("inf")}
    try:
        for _ in range(args.rounds):
            for name, hook in (("with the filter", keep), ("without", None)):
                rules.win_filter = hook
                start = time.process_time()
                for record in records:
                    replay_hand(record, ruleset)
                best[name] = min(best[name], time.process_time() - start)
    finally:
        rules.win_filter = keep
    print(f"engine: {engine.engine_kind()}; {len(records):,} Changsha hands, best of "
          f"{args.rounds}")
    for name, seconds in best.items():
        print(f"{name:16s} {len(records) / seconds:9,.0f} hands/s")
    print(f"the filter's cost {best['with the filter'] / best['without'] - 1:+.1%}")


if __name__ == "__main__":
    main()
