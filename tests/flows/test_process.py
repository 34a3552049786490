"""The worker's side of the ingest (flows/ingest/worker.py) on files the reader refuses.

A game id twice in a file and a ``hand_no`` twice in a game are found by the reader
(``zhuoji.parsers.read``: the duplicate-id check of the stream reader, ``find_game_fault`` on
every game of both encodings), before the worker sees a game: the quarantine names the
line and the field, as ``zhuoji validate`` does, on every encoding the worker reads.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from tests.support.factories import doc_bytes, game_dict, stream_bytes
from zhuoji.flows.ingest.worker import process_file
from zhuoji.flows.warehouse.rows import FileStatus
from zhuoji.parsers.read import generate_fast_games


def _line_of(data: bytes, needle: bytes, nth: int) -> int:
    """The number of the line holding the ``nth`` (from 1) occurrence of ``needle``."""
    hits = [i for i, line in enumerate(data.splitlines(), start=1) if needle in line]
    return hits[nth - 1]


def _twice_hand() -> dict[str, object]:
    game = game_dict(game_id="h-1", hands=2)
    game["hands"][1]["hand_no"] = game["hands"][0]["hand_no"]
    return game


_DUP_GAME = stream_bytes(game_dict(game_id="d-1"), game_dict(game_id="d-1"))
_DUP_HAND_STREAM = stream_bytes(_twice_hand())

CASES = {
    "dup-game.jsonl": (
        _DUP_GAME,
        "the game id 'd-1' appears twice in the file (first at line 1)",
        _line_of(_DUP_GAME, b'"start_game"', 2),
        "game_id",
    ),
    "dup-game.jsonl.gz": (
        gzip.compress(_DUP_GAME, mtime=0),
        "the game id 'd-1' appears twice in the file (first at line 1)",
        _line_of(_DUP_GAME, b'"start_game"', 2),
        "game_id",
    ),
    "dup-hand.jsonl": (
        _DUP_HAND_STREAM,
        "hand_no 1 appears twice in the game",
        _line_of(_DUP_HAND_STREAM, b'"start_hand"', 2),
        "hands[1].hand_no",
    ),
    "dup-hand.json": (doc_bytes(_twice_hand()), "hand_no 1 appears twice in the game", None,
                      "hands[1].hand_no"),
    "dup-hand.json.gz": (gzip.compress(doc_bytes(_twice_hand()), mtime=0),
                         "hand_no 1 appears twice in the game", None, "hands[1].hand_no"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_duplicate_is_refused_by_the_reader_before_the_worker_sees_the_game(
    tmp_path: Path, name: str
) -> None:
    data, reason, line, json_path = CASES[name]
    path = tmp_path / name
    path.write_bytes(data)

    items = list(generate_fast_games(path))
    faults = [item for item in items if isinstance(item, Exception)]
    assert len(faults) == 1, items
    assert faults[0].reason == reason and faults[0].line == line

    outcome = process_file(path.as_posix(), None, (tmp_path / "staging").as_posix())
    assert outcome.status is FileStatus.QUARANTINED
    (error,) = outcome.errors
    assert (error.message, error.line, error.json_path) == (reason, line, json_path)
    assert error.sentence == str(faults[0])
    assert outcome.games == 0 and outcome.hands == 0
