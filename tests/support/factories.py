"""Small valid games as plain dicts (the JSON shape), for the parsers' tests."""

from __future__ import annotations

import copy
from typing import Any

import orjson

SUITED = [f"{r}{s}" for s in "mps" for r in range(1, 10)]


def game_dict(n_players: int = 4, *, hands: int = 1, game_id: str = "g-1") -> dict[str, Any]:
    """A well-formed game (not a legal one: the parsers check form, not rules)."""
    return {
        "schema": "zhuoji-log/1",
        "game_id": game_id,
        "ruleset": "guiyang",
        "base_stake": 1,
        "players": [{"seat": s, "id": f"p{s}", "name": f"player {s}"} for s in range(n_players)],
        "hands": [hand_dict(n_players, hand_no=i + 1) for i in range(hands)],
    }


def hand_dict(n_players: int = 4, *, hand_no: int = 1) -> dict[str, Any]:
    deal = [
        [SUITED[(s * 13 + i) % 27] for i in range(14 if s == 0 else 13)] for s in range(n_players)
    ]
    return {
        "hand_no": hand_no,
        "dealer": 0,
        "dealer_streak": 0,
        "dice": [3, 4],
        "wall": ["5m", "6p", "7s", "1s"],
        "deal": deal,
        "events": [
            {"type": "discard", "seat": 0, "tile": "1s", "t": 1200},
            {"type": "pong", "seat": 1, "tile": "1s", "from": 0},
            {"type": "discard", "seat": 1, "tile": "9m"},
            {"type": "draw", "seat": 1 % n_players, "tile": "5m"},
            {"type": "kong", "seat": 1, "tile": "4p", "kind": "concealed"},
            {"type": "ready", "seat": 0},
            {"type": "win", "seat": 1, "tile": "6p"},
            {"type": "flip", "tile": "7s"},
        ],
        "result": {
            "deltas": [3] + [-1] * (n_players - 1) if n_players == 4 else [0] * n_players,
            "next_dealer": 1,
            "items": [{"payer": 0, "payee": 1, "amount": 1, "reason": "hand"}],
        },
    }


def doc_bytes(game: dict[str, Any]) -> bytes:
    return orjson.dumps(game)


def stream_bytes(*games: dict[str, Any]) -> bytes:
    """The stream encoding of game dicts, written directly (no validation)."""
    lines: list[bytes] = []
    for game in games:
        header = {k: v for k, v in game.items() if k != "hands"}
        lines.append(orjson.dumps({"type": "start_game", **header}))
        for hand in game["hands"]:
            head = {k: v for k, v in hand.items() if k not in ("events", "result")}
            lines.append(orjson.dumps({"type": "start_hand", **head}))
            lines.extend(orjson.dumps(e) for e in hand["events"])
            end: dict[str, Any] = {"type": "end_hand"}
            if "result" in hand:
                end["result"] = hand["result"]
            lines.append(orjson.dumps(end))
        lines.append(b'{"type":"end_game"}')
    return b"".join(line + b"\n" for line in lines)


def changed(game: dict[str, Any], fn: Any) -> dict[str, Any]:
    """A deep copy of ``game`` after ``fn`` edited it in place."""
    out = copy.deepcopy(game)
    fn(out)
    return out
