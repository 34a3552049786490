"""The 平胡 family's bots and the logs they write: hands played through the table's
``legal_actions()`` only (legal by construction), each bot taking every win, a kong or a
pong when offered, and discarding the tile that leaves its hand nearest to complete
(fewest tiles from ready, ``zhuoji.rules.shanten``); ``write_logs`` writes the games as
``zhuoji-log/1`` documents, each hand's result recorded as the family settles it. The same
seed gives the same bytes. Run as ``python -m <package>.logs OUT [GAMES] [PRESET]`` (the
package's name: that of the folder)."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

from zhuoji.rules.events import Discard, Draw, Event, HandRecord, Kong, Pong, Win
from zhuoji.rules.families import family_of
from zhuoji.rules.presets import load_preset
from zhuoji.rules.replay import replay_hand
from zhuoji.rules.settings import RulesetBase
from zhuoji.rules.shanten import shanten
from zhuoji.rules.table import Table
from zhuoji.rules.tiles import NUM_KINDS, NUM_SUITED, Tile

PLAYERS = (("p-ann", "安"), ("p-bo", "博"), ("p-cy", "翠"), ("p-dai", "黛"), ("p-eli", "伊"))


def _deal(rng: random.Random, n: int, dealer: int) -> tuple[list[list[Tile]], list[Tile]]:
    tiles = [Tile(t) for t in range(NUM_SUITED) for _ in range(4)]
    rng.shuffle(tiles)
    hands: list[list[Tile]] = [[] for _ in range(n)]
    for k in range(n):
        seat = (dealer + k) % n
        hands[seat] = tiles[13 * k : 13 * k + 13]
    hands[dealer].append(tiles[13 * n])
    return hands, tiles[13 * n + 1 :]


def _after_discard(table: Table, event: Discard) -> int:
    counts = [0] * NUM_KINDS
    for t in table.concealed(event.seat):
        counts[t] += 1
    counts[event.tile] -= 1
    return shanten(counts, len(table.melds(event.seat)))


def _choose(rng: random.Random, table: Table, actions: list[Event]) -> Event:
    for kind in (Win, Kong, Pong):
        found = [a for a in actions if isinstance(a, kind)]
        if found and (kind is Win or rng.random() < 0.7):
            return found[0]
    discards = [a for a in actions if isinstance(a, Discard)]
    if discards:
        best = min(_after_discard(table, d) for d in discards)
        return rng.choice([d for d in discards if _after_discard(table, d) == best])
    plain = [a for a in actions if isinstance(a, Draw)] or actions
    return plain[0]


def play_hand(rng: random.Random, ruleset: RulesetBase, hand_no: int, dealer: int,
              n: int) -> HandRecord:
    """One hand played to its end by the bots (no result yet)."""
    hands, wall = _deal(rng, n, dealer)
    deal = tuple(tuple(h) for h in hands)
    record = HandRecord(hand_no=hand_no, n_players=n, dealer=dealer, dealer_streak=0,
                        deal=deal, events=(), wall=tuple(wall))
    table = Table.from_record(record, ruleset)
    events: list[Event] = []
    while True:
        actions = table.legal_actions()
        if table.is_over:
            actions = [a for a in actions if isinstance(a, Win)]
        if not actions:
            break
        event = _choose(rng, table, actions)
        table.apply(event)
        events.append(event)
    return HandRecord(hand_no=hand_no, n_players=n, dealer=dealer, dealer_streak=0,
                      deal=deal, events=tuple(events), wall=tuple(wall))


def _event_json(event: Event) -> dict[str, Any]:
    if isinstance(event, Draw | Discard):
        kind = "draw" if isinstance(event, Draw) else "discard"
        return {"type": kind, "seat": event.seat, "tile": str(event.tile)}
    if isinstance(event, Pong):
        return {"type": "pong", "seat": event.seat, "tile": str(event.tile),
                "from": event.from_seat}
    if isinstance(event, Kong):
        out: dict[str, Any] = {"type": "kong", "seat": event.seat, "tile": str(event.tile),
                               "kind": event.kind.value}
        if event.from_seat is not None:
            out["from"] = event.from_seat
        return out
    if isinstance(event, Win):
        won: dict[str, Any] = {"type": "win", "seat": event.seat, "tile": str(event.tile)}
        if event.from_seat is not None:
            won["from"] = event.from_seat
        return won
    return {"type": "exhaustive_draw"}


def game_document(seed: int, preset: str, game_no: int, hands: int = 4,
                  players: int = 4) -> dict[str, Any]:
    """One game of ``hands`` hands under ``preset``, as a ``zhuoji-log/1`` document."""
    ruleset = load_preset(preset)
    settle = family_of(ruleset).settle
    rng = random.Random(f"pinghu/{seed}/{preset}/{game_no}")
    seated = rng.sample(PLAYERS, players)
    dealer, out = 0, []
    for hand_no in range(1, hands + 1):
        record = play_hand(rng, ruleset, hand_no, dealer, players)
        settlement = settle(replay_hand(record, ruleset), ruleset, 1)
        out.append({
            "hand_no": hand_no, "dealer": dealer, "dealer_streak": 0,
            "wall": [str(t) for t in record.wall or ()],
            "deal": [[str(t) for t in hand] for hand in record.deal],
            "events": [_event_json(e) for e in record.events],
            "result": {
                "deltas": list(settlement.deltas), "next_dealer": settlement.next_dealer,
                "items": [{"payer": i.payer, "payee": i.payee, "amount": i.amount,
                           "reason": str(i.reason)} for i in settlement.items],
            },
        })
        dealer = settlement.next_dealer
    return {
        "schema": "zhuoji-log/1", "game_id": f"pinghu-{preset}-{seed}-{game_no:03d}",
        "ruleset": preset, "base_stake": 1,
        "started_at": f"2026-12-0{1 + game_no % 9}T20:00:00+08:00",
        "players": [{"seat": s, "id": pid, "name": name}
                    for s, (pid, name) in enumerate(seated)],
        "hands": out,
    }


def write_logs(out: Path, games: int, presets: tuple[str, ...] = ("pinghu",),
               seed: int = 0) -> list[Path]:
    """``games`` games of each preset, one document file each, in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for preset in presets:
        for game_no in range(1, games + 1):
            doc = game_document(seed, preset, game_no)
            path = out / f"{doc['game_id']}.json"
            path.write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n",
                            encoding="utf-8")
            written.append(path)
    return written


if __name__ == "__main__":
    args = sys.argv[1:]
    presets = tuple(args[2].split(",")) if len(args) > 2 else ("pinghu",)
    for p in write_logs(Path(args[0]), int(args[1]) if len(args) > 1 else 3, presets):
        print(p)
