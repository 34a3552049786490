"""File damage: a game's document or stream lines truncated, a JSON line broken, a tile
written as text no parser accepts (the kinds are :mod:`zhuoji.flows.simulation.faults`)."""

from __future__ import annotations

import random
from typing import Any

import orjson

from zhuoji.flows.simulation.faults import CoreFault, Fault

__all__ = ["damage_document", "damage_stream_lines"]


# --------------------------------------------------------------------------------------
# file damage
# --------------------------------------------------------------------------------------


def _common_prefix(a: bytes, b: bytes) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def _event_offset(data: dict[str, Any], full: bytes, hand: int, event: int) -> tuple[int, int]:
    """Byte offset and length of ``hands[hand].events[event]`` in the compact document."""
    events = data["hands"][hand]["events"]
    head = dict(data)
    hands = [dict(h) for h in data["hands"][: hand + 1]]
    hands[-1]["events"] = events[:event]
    head["hands"] = hands
    start = _common_prefix(orjson.dumps(head), full)
    if event:
        start += 1  # the comma before the event
    return start, len(orjson.dumps(events[event]))


def damage_document(data: bytes, fault: Fault, rng: random.Random) -> bytes:
    """A compact document (as :func:`zhuoji.parsers.write.format_document` writes it) with the
    file damage of ``fault`` at its hand and event."""
    game = orjson.loads(data)
    hand = next(i for i, h in enumerate(game["hands"]) if h["hand_no"] == fault.hand_no)
    event = fault.event_index if fault.event_index is not None else 0
    if fault.kind == CoreFault.BAD_TILE_TEXT:
        _spoil_tile(game["hands"][hand]["events"][event], rng)
        return orjson.dumps(game) + b"\n"
    if fault.kind == CoreFault.TRUNCATED_FILE:
        start, length = _event_offset(game, data.rstrip(b"\n"), hand, event)
        return data[: start + max(1, length // 2)]
    # a programming error, never a user's: not translated
    raise ValueError(f"{fault.kind} is not damage a document can have")


def damage_stream_lines(
    lines: list[bytes], fault: Fault, rng: random.Random, *, last: bool
) -> list[bytes]:
    """One game's stream lines with the file damage of ``fault``. ``last`` says whether
    the game ends the file (a truncated game elsewhere is followed by a line break, as
    when a server restarts and appends the next game)."""
    at = _stream_line(lines, fault)
    out = list(lines)
    if fault.kind == CoreFault.BAD_TILE_TEXT:
        event = orjson.loads(out[at])
        _spoil_tile(event, rng)
        out[at] = orjson.dumps(event) + b"\n"
        return out
    if fault.kind == CoreFault.BROKEN_JSON_LINE:
        text = out[at].rstrip(b"\n")
        out[at] = text[:-1] + b"\n"  # the closing brace is lost
        return out
    if fault.kind == CoreFault.TRUNCATED_FILE:
        text = out[at]
        cut = text[: max(1, len(text) // 2)]
        return [*out[:at], cut if last else cut + b"\n"]
    # a programming error, never a user's: not translated
    raise ValueError(f"{fault.kind} is not damage a stream can have")


def _stream_line(lines: list[bytes], fault: Fault) -> int:
    """The line of the fault's event among a game's stream lines."""
    hand_no = -1
    event = 0
    for i, line in enumerate(lines):
        if line.startswith(b'{"type":"start_hand"'):
            hand_no = orjson.loads(line)["hand_no"]
            event = 0
            continue
        if hand_no == fault.hand_no and not line.startswith(b'{"type":"end_hand"'):
            if event == (fault.event_index or 0):
                return i
            event += 1
    # a programming error, never a user's: not translated
    raise ValueError(f"hand {fault.hand_no} event {fault.event_index} is not in the game")


def _spoil_tile(event: dict[str, Any], rng: random.Random) -> None:
    """Write the event's tile as text no parser accepts (the event must carry a tile)."""
    if "tile" not in event:
        # a programming error, never a user's: not translated
        raise ValueError(f"a {event.get('type')} event carries no tile to spoil")
    event["tile"] = rng.choice(("10m", "0p", "5x", "Z", "十条"))
