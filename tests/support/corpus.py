"""A deterministic corpus of well-formed (not legal) game logs for the parsing benchmark."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from zhuoji.parsers.models import Game
from zhuoji.parsers.write import format_document, generate_stream_lines

SUITED = [f"{r}{s}" for s in "mps" for r in range(1, 10)]
HANDS_PER_GAME = 16


def generate_game_dicts(seed: int) -> Iterator[dict[str, Any]]:
    """Endless games: 4 players, 16 hands of 100-130 events, a 55-tile wall, a result."""
    rng = random.Random(seed)
    number = 0
    while True:
        number += 1
        hands = [_hand(rng, i + 1) for i in range(HANDS_PER_GAME)]
        yield {
            "schema": "zhuoji-log/1",
            "game_id": f"bench-{seed}-{number:06d}",
            "ruleset": "guiyang",
            "base_stake": 1,
            "started_at": "2026-11-01T20:15:00+08:00",
            "players": [{"seat": s, "id": f"p{seed}{s:04d}", "name": f"玩家{s}"} for s in range(4)],
            "hands": hands,
        }


def _hand(rng: random.Random, hand_no: int) -> dict[str, Any]:
    tiles = [t for t in SUITED for _ in range(4)]
    rng.shuffle(tiles)
    dealer = rng.randrange(4)
    deal = [[tiles.pop() for _ in range(14 if s == dealer else 13)] for s in range(4)]
    wall = tiles
    events: list[dict[str, Any]] = []
    t = 0
    seat = dealer
    for _ in range(rng.randint(100, 130)):
        t += rng.randint(300, 4000)
        roll = rng.random()
        tile = rng.choice(SUITED)
        if roll < 0.46:
            events.append({"type": "draw", "seat": seat, "tile": tile, "t": t})
        elif roll < 0.92:
            events.append({"type": "discard", "seat": seat, "tile": tile, "t": t})
            seat = (seat + 1) % 4
        elif roll < 0.96:
            frm = (seat + 3) % 4
            events.append({"type": "pong", "seat": seat, "tile": tile, "from": frm, "t": t})
        elif roll < 0.98:
            kind = rng.choice(["exposed", "added", "concealed"])
            event: dict[str, Any] = {"type": "kong", "seat": seat, "tile": tile, "kind": kind}
            if kind == "exposed":
                event["from"] = (seat + 3) % 4
            event["t"] = t
            events.append(event)
        else:
            events.append({"type": "ready", "seat": seat, "t": t})
    winner = rng.randrange(4)
    events.append({"type": "win", "seat": winner, "tile": rng.choice(SUITED), "t": t + 500})
    events.append({"type": "flip", "tile": wall[0], "t": t + 900})
    amount = rng.randint(1, 20)
    deltas = [-amount] * 4
    deltas[winner] = 3 * amount
    return {
        "hand_no": hand_no,
        "dealer": dealer,
        "dealer_streak": 0,
        "dice": [rng.randint(1, 6), rng.randint(1, 6)],
        "wall": wall,
        "deal": deal,
        "events": events,
        "result": {"deltas": deltas, "next_dealer": winner},
    }


@dataclass(frozen=True, slots=True)
class Corpus:
    folder: Path
    documents: tuple[Path, ...]
    stream: Path
    games: int
    hands: int
    events: int
    document_bytes: int
    stream_bytes: int


def build_corpus(folder: Path, *, min_mb: float, seed: int = 1) -> Corpus:
    """Write (or reuse) a corpus of at least ``min_mb`` MB per encoding under ``folder``.

    Documents go to ``folder/documents/*.json`` (one game each), the same games as one
    stream file ``folder/stream.jsonl``. The bytes depend only on ``seed`` and ``min_mb``.
    """
    target = folder / f"seed{seed}-{min_mb:g}mb"
    manifest = target / "manifest.json"
    if manifest.exists():
        info = orjson.loads(manifest.read_bytes())
        return Corpus(
            folder=target,
            documents=tuple(target / "documents" / n for n in info["documents"]),
            stream=target / "stream.jsonl",
            games=info["games"],
            hands=info["hands"],
            events=info["events"],
            document_bytes=info["document_bytes"],
            stream_bytes=info["stream_bytes"],
        )
    (target / "documents").mkdir(parents=True, exist_ok=True)
    names: list[str] = []
    games = hands = events = doc_bytes = stream_bytes = 0
    with open(target / "stream.jsonl", "wb") as stream:
        for data in generate_game_dicts(seed):
            if min(doc_bytes, stream_bytes) >= min_mb * 1e6:
                break
            game = Game.model_validate(data)
            document = format_document(game)
            name = f"{game.game_id}.json"
            (target / "documents" / name).write_bytes(document)
            names.append(name)
            doc_bytes += len(document)
            for line in generate_stream_lines(game):
                stream.write(line)
                stream_bytes += len(line)
            games += 1
            hands += len(game.hands)
            events += sum(len(h.events) for h in game.hands)
    info = {
        "documents": names,
        "games": games,
        "hands": hands,
        "events": events,
        "document_bytes": doc_bytes,
        "stream_bytes": stream_bytes,
    }
    manifest.write_bytes(orjson.dumps(info))
    return build_corpus(folder, min_mb=min_mb, seed=seed)
