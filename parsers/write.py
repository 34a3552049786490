"""Writing games in both encodings, with deterministic bytes.

Keys come in the models' field order (``rule_overrides`` sorted by key), text is UTF-8,
there is no whitespace but the newline ending each line (documents may be indented with
two spaces), and absent optional fields stay absent. Reading what is written gives back
equal games: document -> stream -> document is lossless.
"""

from __future__ import annotations

import gzip
import io
import os
from collections.abc import Iterable, Iterator
from typing import Any

import orjson

from zhuoji.parsers.models import Game
from zhuoji.parsers.read import Encoding, parse_encoding
from zhuoji.rules.messages import Message


def _game_dict(game: Game) -> dict[str, Any]:
    data = game.model_dump(mode="json", by_alias=True, exclude_none=True)
    overrides = data.get("rule_overrides")
    if overrides is not None:
        data["rule_overrides"] = dict(sorted(overrides.items()))
    return data


def format_document(game: Game, *, indent: bool = False) -> bytes:
    """One game as a document: a JSON object and a final newline."""
    option = orjson.OPT_INDENT_2 if indent else 0
    return orjson.dumps(_game_dict(game), option=option) + b"\n"


def generate_stream_lines(game: Game) -> Iterator[bytes]:
    """One game as stream lines, each a JSON object ending in a newline."""
    data = _game_dict(game)
    hands = data.pop("hands")
    yield orjson.dumps({"type": "start_game", **data}) + b"\n"
    for hand in hands:
        events = hand.pop("events")
        result = hand.pop("result", None)
        yield orjson.dumps({"type": "start_hand", **hand}) + b"\n"
        for event in events:
            yield orjson.dumps(event) + b"\n"
        end: dict[str, Any] = {"type": "end_hand"}
        if result is not None:
            end["result"] = result
        yield orjson.dumps(end) + b"\n"
    yield b'{"type":"end_game"}\n'


def format_stream(games: Iterable[Game]) -> bytes:
    """Games as the bytes of one stream."""
    return b"".join(line for game in games for line in generate_stream_lines(game))


def write_games(
    path: str | os.PathLike[str], games: Iterable[Game], *, indent: bool = False
) -> int:
    """Write ``games`` to ``path`` in the encoding its name implies; returns the count.

    A document file holds exactly one game: ``ValueError`` otherwise (nothing is left
    behind). Gzip output carries no file name and a zero time stamp, so equal games give
    equal bytes.
    """
    name = os.fspath(path)
    encoding, gzipped = parse_encoding(name)
    if encoding is Encoding.DOCUMENT:
        items = list(games)
        if len(items) != 1:
            raise ValueError(Message("{name:any}: a document file holds one game, got {n:n}",
                                     name, len(items)))
        data = format_document(items[0], indent=indent)
        if gzipped:
            data = gzip.compress(data, mtime=0)
        with open(name, "wb") as handle:
            handle.write(data)
        return 1
    count = 0
    with open(name, "wb") as raw:
        sink: gzip.GzipFile | io.BufferedWriter = (
            gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) if gzipped else raw
        )
        try:
            for game in games:
                sink.writelines(generate_stream_lines(game))
                count += 1
        finally:
            if sink is not raw:
                sink.close()
    return count
