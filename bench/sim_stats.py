"""Realism check: the rates a player would recognise, over simulated hands of each preset.

For every preset (or those named) it simulates ``--hands`` hands (default 10,000, in games
of 8 hands) and prints:

* win rate by seat, counted from the dealer (庄 dealer, then the seats after it in turn);
* the self-draw share of wins, the share of hands won on a discard by several players at
  once (一炮多响), the robbed-kong share of wins;
* the exhaustive-draw share of hands (黄庄);
* the pattern frequencies: the share of wins whose scored value includes each pattern;
* kongs per hand by kind, pongs and 报听 declarations per hand;
* the average hand length in events, and the tiles left in the wall when a hand ends;
* for the Changsha family: 起手小胡 declarations, chows, dice thrown after kongs, the 海底
  (hands that reach the offer, offers taken, wins on it) and bird tiles per hand, and the
  patterns of the wins (the table's shape and situational patterns);
* for the Sichuan family: winners per hand (血战到底: up to three; "several winners" counts
  those on one discard, 一炮多响), wins at the 番 cap, the hands with each payment (kongs,
  自摸加底, 呼叫转移 or its refund, 查花猪, 查大叫, 退税), and the patterns of the wins as
  settled.

Run: ``.venv/bin/python bench/sim_stats.py [--hands N] [--preset NAME ...] [--workers W]``
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from itertools import pairwise

import _checkout  # noqa: F401  (first: the checkout's root on sys.path)

from zhuoji.rules.bots import bots_of
from zhuoji.rules.events import Bird, Chow, Kong, Pong, Ready, Roll, Seabed, SmallWin
from zhuoji.rules.facts import Outcome
from zhuoji.rules.families import family_of
from zhuoji.rules.presets import load_preset, preset_names
from zhuoji.rules.table import table_rules_of

HANDS_PER_GAME = 8
SEED = 20260105


@dataclass
class Stats:
    """Counts over simulated hands (added up across worker processes)."""

    hands: int = 0
    wins: int = 0  # winning hands (a multiple win counts once)
    winners: int = 0  # winners (a multiple win counts each)
    by_position: Counter[int] = field(default_factory=Counter)  # seats after the dealer
    self_drawn: int = 0
    robbed: int = 0
    multiple: int = 0
    draws: int = 0
    patterns: Counter[str] = field(default_factory=Counter)
    kongs: Counter[str] = field(default_factory=Counter)
    pongs: int = 0
    readies: int = 0
    events: int = 0
    wall_left: int = 0
    small_wins: Counter[str] = field(default_factory=Counter)  # 起手小胡 by kind
    chows: int = 0
    rolls: int = 0
    seabed_hands: int = 0  # hands where the last tile was offered
    seabed_taken: int = 0
    birds: int = 0  # bird tiles shown
    winners_per_hand: Counter[int] = field(default_factory=Counter)
    capped: int = 0  # wins worth the 番 cap
    reasons: Counter[str] = field(default_factory=Counter)  # hands with a ledger reason

    def add(self, other: Stats) -> None:
        for name in self.__dataclass_fields__:
            mine = getattr(self, name)
            theirs = getattr(other, name)
            if isinstance(mine, Counter):
                mine.update(theirs)
            else:
                setattr(self, name, mine + theirs)


def collect(preset: str, first_game: int, games: int) -> Stats:
    """The counts of games ``first_game`` .. ``first_game + games - 1`` of a preset."""
    rs = load_preset(preset)
    simulate_game = bots_of(rs).simulate_game
    guizhou = rs.family == "guizhou"
    sichuan = rs.family == "sichuan"
    cap = getattr(rs, "fan_cap", None)
    st = Stats()
    for game_no in range(first_game, first_game + games):
        for sim in simulate_game(rs, seed=SEED, game_no=game_no, hands=HANDS_PER_GAME).hands:
            replay = sim.replay
            record = sim.record
            st.hands += 1
            st.events += len(record.events)
            st.wall_left += replay.wall_left
            for e in record.events:
                if isinstance(e, Kong):
                    st.kongs[e.kind.value] += 1
                elif isinstance(e, Pong):
                    st.pongs += 1
                elif isinstance(e, Ready):
                    st.readies += 1
                elif isinstance(e, Chow):
                    st.chows += 1
                elif isinstance(e, SmallWin):
                    st.small_wins[e.kind] += 1
                elif isinstance(e, Roll):
                    st.rolls += 1
                elif isinstance(e, Seabed):
                    st.seabed_taken += e.take
                elif isinstance(e, Bird):
                    st.birds += len(e.tiles)
            st.seabed_hands += any(isinstance(e, Seabed) for e in record.events)
            if sichuan:
                _sichuan(st, sim, cap)
            if replay.outcome is Outcome.EXHAUSTIVE_DRAW and not replay.winners:
                st.draws += 1
                continue
            st.wins += 1
            st.multiple += len(replay.winners) > 1 and not sichuan  # Sichuan: _sichuan
            for w in replay.winners:
                st.winners += 1
                st.by_position[(w.seat - record.dealer) % record.n_players] += 1
                st.self_drawn += w.self_drawn
                st.robbed += w.robbed_kong
            if not guizhou and not sichuan:
                for w in replay.winners:
                    st.patterns.update(w.patterns)
                continue
            for value in sim.settlement.wins:
                for p in value.patterns:
                    st.patterns[p.split()[0]] += 1
    return st


def _sichuan(st: Stats, sim: object, cap: int | None) -> None:
    """The Sichuan counts of one simulated hand."""
    replay = sim.replay  # type: ignore[attr-defined]
    settlement = sim.settlement  # type: ignore[attr-defined]
    winners = replay.winners
    st.winners_per_hand[len(winners)] += 1
    st.multiple += any(
        a.from_seat is not None and (a.tile, a.from_seat) == (b.tile, b.from_seat)
        and b.event_index == a.event_index + 1 for a, b in pairwise(winners))
    st.reasons.update({str(i.reason) for i in settlement.items})
    if cap is not None:
        st.capped += sum(1 for v in settlement.wins if v.value >= 2**cap)


def gather(preset: str, hands: int, workers: int) -> Stats:
    games = max(1, hands // HANDS_PER_GAME)
    if workers <= 1:
        return collect(preset, 0, games)
    step = -(-games // workers)
    parts = [(preset, first, min(step, games - first)) for first in range(0, games, step)]
    total = Stats()
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for part in pool.map(collect, *zip(*parts, strict=True)):
            total.add(part)
    return total


def _pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:5.1f}%" if whole else "    -"


def report(name: str, st: Stats, seconds: float) -> list[str]:
    rs = load_preset(name)
    n = table_rules_of(rs).players
    h = st.hands
    seats = ["dealer", "next", "across", "before"] if n == 4 else (
        ["dealer", "next", "before"] if n == 3 else ["dealer", "other"])
    lines = [f"{name} ({n} players): {h:,} hands in {seconds:.0f} s"]
    lines.append("  win rate by seat:   " + "  ".join(
        f"{label} {_pct(st.by_position[i], h)}" for i, label in enumerate(seats)))
    lines.append(f"  wins {_pct(st.wins, h)} of hands; exhaustive draws {_pct(st.draws, h)}; "
                 f"several winners on one discard {_pct(st.multiple, h)}")
    lines.append(f"  self-drawn {_pct(st.self_drawn, st.winners)} of wins; robbed kongs "
                 f"{_pct(st.robbed, st.winners)} of wins")
    lines.append(f"  per hand: kongs {sum(st.kongs.values()) / h:.2f} (exposed "
                 f"{st.kongs['exposed'] / h:.2f}, concealed {st.kongs['concealed'] / h:.2f}, "
                 f"added {st.kongs['added'] / h:.2f}); pongs {st.pongs / h:.2f}; "
                 f"报听 {st.readies / h:.3f}")
    if rs.family == "sichuan":
        more = sum(v for k, v in st.winners_per_hand.items() if k >= n)
        lines.append("  wins per hand: " + ", ".join(
            f"{k} {_pct(st.winners_per_hand[k], h).strip()}" for k in range(n)) +
            f", {n}+ {_pct(more, h).strip()} (mean {st.winners / h:.2f}); wins at the 番 "
            f"cap {_pct(st.capped, st.winners).strip()}")
        lines.append("  hands paying: " + ", ".join(
            f"{r} {_pct(st.reasons[r], h).strip()}" for r in (
                "kong", "self_draw", "kong_transfer", "kong_refund", "flower_pig",
                "not_ready", "tax_refund")))
    elif rs.family != "guizhou":
        lines.append(f"  per hand: chows {st.chows / h:.2f}; 起手小胡 "
                     f"{sum(st.small_wins.values()) / h:.3f} (" + ", ".join(
                         f"{k} {v / h:.3f}" for k, v in sorted(st.small_wins.items()))
                     + f"); dice after a kong {st.rolls / h:.2f}; bird tiles "
                     f"{st.birds / h:.2f}")
        lines.append(f"  海底 offered in {_pct(st.seabed_hands, h)} of hands, taken in "
                     f"{_pct(st.seabed_taken, h)}")
    lines.append(f"  hand length {st.events / h:.1f} events; wall left at the end "
                 f"{st.wall_left / h:.1f} tiles")
    shown = [p for p in family_of(rs).patterns if st.patterns[p]]
    lines.append("  patterns (share of wins): " + ", ".join(
        f"{p} {_pct(st.patterns[p], st.winners).strip()}" for p in shown))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=10_000, help="hands per preset")
    parser.add_argument("--preset", action="append", help="preset (repeat); default: all")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    for name in args.preset or [*preset_names("guizhou"), *preset_names("changsha"),
                                *preset_names("sichuan")]:
        started = time.perf_counter()
        st = gather(name, args.hands, args.workers)
        print("\n".join(report(name, st, time.perf_counter() - started)), flush=True)


if __name__ == "__main__":
    main()
