"""Honours and flowers in the logs: read by the tiles of the game's ruleset.

The readers take ``tiles`` (a ruleset's name to the canonical texts its games may hold)
from their caller; without it a game is held to the 108-tile notation. Both readers (the
models and the fast form) and both encodings give the same games and the same errors,
and the writers give back canonical text that reads as the same game.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from pydantic import ValidationError

from tests.support.factories import changed, doc_bytes, game_dict, stream_bytes
from zhuoji.parsers import fast, models
from zhuoji.parsers.errors import MalformedLogError
from zhuoji.parsers.read import (
    Encoding,
    format_loc,
    generate_fast_games_from_bytes,
    generate_games_from_bytes,
)
from zhuoji.parsers.tiles import (
    FLOWER_TILES,
    FULL_TILE_SET,
    HONOUR_TILES,
    SUITED_TILE_SET,
    TileSetOf,
)
from zhuoji.parsers.write import format_document, format_stream

HONOURS_SET = SUITED_TILE_SET | frozenset(HONOUR_TILES)  # a 136-tile family
SETS: dict[str, frozenset[str]] = {"wide": FULL_TILE_SET, "honours": HONOURS_SET}


def by_ruleset(name: str) -> frozenset[str]:
    """What a caller who knows the rules passes: each ruleset's tiles, 108 for the rest."""
    return SETS.get(name, SUITED_TILE_SET)


def wide_game(ruleset: str = "wide") -> dict[str, Any]:
    """A game holding honours and flowers in the deal, the wall and the events, spelled
    canonically, in Chinese and as glyphs."""
    game = game_dict()
    game["ruleset"] = ruleset
    hand = game["hands"][0]
    hand["deal"][0][:3] = ["1z", "东", "\U0001f026"]  # 1z 1z 1f
    hand["deal"][2][-2:] = ["红中", "7z"]
    hand["wall"] = ["2f", "白", "\U0001f004\ufe0f", "5m", "梅"]  # 2f 5z 7z 5m 5f
    hand["events"][3:3] = [
        {"type": "flower", "seat": 1, "tile": "春"},
        {"type": "draw", "seat": 1, "tile": "南"},
        {"type": "discard", "seat": 1, "tile": "2z", "t": 3000},
        {"type": "chow", "seat": 2, "tiles": ["1z", "2z", "3z"], "from": 1},
        {"type": "bird", "tiles": ["菊", "9s"]},
    ]
    return game


CANONICAL_EVENTS = [
    ("flower", 1, "1f"), ("draw", 1, "2z"), ("discard", 1, "2z"),
]


def read(data: bytes, encoding: Encoding, tiles: TileSetOf | None, *, fast_form: bool,
         path: str = "t.jsonl") -> list[Any]:
    reader = generate_fast_games_from_bytes if fast_form else generate_games_from_bytes
    return list(reader(data, encoding, path=path, tiles=tiles))


def encodings(game: dict[str, Any]) -> Iterator[tuple[Encoding, bytes, str]]:
    yield Encoding.DOCUMENT, doc_bytes(game), "t.json"
    yield Encoding.STREAM, stream_bytes(game), "t.jsonl"


def test_both_readers_and_encodings_read_honours_and_flowers_alike() -> None:
    games: list[fast.Game] = []
    for encoding, data, path in encodings(wide_game()):
        (model,) = read(data, encoding, by_ruleset, fast_form=False, path=path)
        (struct,) = read(data, encoding, by_ruleset, fast_form=True, path=path)
        assert isinstance(model, models.Game) and isinstance(struct, fast.Game)
        assert fast.from_model(model) == struct
        games.append(struct)
    assert games[0] == games[1]
    hand = games[0].hands[0]
    assert hand.deal[0][:3] == ("1z", "1z", "1f") and hand.deal[2][-2:] == ("7z", "7z")
    assert hand.wall == ("2f", "5z", "7z", "5m", "5f")
    flower, draw, discard, chow, bird = hand.events[3:8]
    assert flower == fast.FlowerEvent(seat=1, tile="1f")  # type: ignore[arg-type]
    assert [(type(e).__name__, e.seat, e.tile) for e in (draw, discard)] == [
        ("DrawEvent", 1, "2z"), ("DiscardEvent", 1, "2z")]
    assert isinstance(chow, fast.ChowEvent) and chow.tiles == ("1z", "2z", "3z")
    assert isinstance(bird, fast.BirdEvent) and bird.tiles == ("8f", "9s")


def test_the_writers_give_canonical_text_that_reads_back_the_same() -> None:
    (game,) = read(doc_bytes(wide_game()), Encoding.DOCUMENT, by_ruleset, fast_form=False)
    document = format_document(game)
    stream = format_stream([game])
    assert b'{"type":"flower","seat":1,"tile":"1f"}' in document
    assert b'{"type":"flower","seat":1,"tile":"1f"}\n' in stream
    assert "东".encode() not in document + stream  # canonical text only
    (from_doc,) = read(document, Encoding.DOCUMENT, by_ruleset, fast_form=False)
    (from_stream,) = read(stream, Encoding.STREAM, by_ruleset, fast_form=False)
    assert from_doc == from_stream == game
    assert format_stream([from_doc]) == stream and format_document(from_stream) == document
    (struct,) = read(document, Encoding.DOCUMENT, by_ruleset, fast_form=True)
    assert struct == fast.from_model(game)


# --- a game of a ruleset without those tiles: the error any unknown tile gets --------------


@pytest.mark.parametrize("tiles", [None, by_ruleset], ids=["no tiles given", "by ruleset"])
@pytest.mark.parametrize(
    ("edit", "line", "field", "shown"),
    [
        (lambda g: g["hands"][0]["events"][3].update(tile="1z"), 6,
         "hands[0].events[3].tile", "1z"),
        (lambda g: g["hands"][0]["events"][3].update(tile="东"), 6,
         "hands[0].events[3].tile", "东"),
        (lambda g: g["hands"][0]["events"].insert(2, {"type": "flower", "seat": 1,
                                                      "tile": "\U0001f026"}), 5,
         "hands[0].events[2].tile", "\U0001f026"),
        (lambda g: g["hands"][0]["deal"][1].__setitem__(4, "中"), 2,
         "hands[0].deal[1][4]", "中"),
        (lambda g: g["hands"][0]["wall"].append("8f"), 2, "hands[0].wall[4]", "8f"),
    ],
    ids=["honour drawn", "honour in Chinese", "flower shown", "honour dealt", "flower in wall"],
)
def test_a_guizhou_game_with_an_honour_or_a_flower_is_refused_naming_file_line_and_field(
    tiles: TileSetOf | None, edit: Callable[[dict[str, Any]], None], line: int, field: str,
    shown: str,
) -> None:
    bad = changed(game_dict(), edit)  # ruleset "guiyang": 108 tiles
    reason = f"unknown tile {shown!r}"
    for fast_form in (False, True):
        (item,) = read(stream_bytes(bad), Encoding.STREAM, tiles, fast_form=fast_form)
        assert isinstance(item, MalformedLogError)
        assert str(item) == f"t.jsonl line {line}, game 'g-1', field {field}: {reason}"
        (item,) = read(doc_bytes(bad), Encoding.DOCUMENT, tiles, fast_form=fast_form,
                       path="t.json")
        assert isinstance(item, MalformedLogError)
        assert str(item) == f"t.json, game 'g-1', field {field}: {reason}"


def test_a_136_tile_ruleset_takes_the_honours_and_refuses_a_flower() -> None:
    honours_only = changed(wide_game("honours"), lambda g: g["hands"][0].update(
        wall=["5z", "7z", "5m"], deal=[[t for t in seat if t != "\U0001f026"] + ["5m"]
                                      for seat in g["hands"][0]["deal"]],
        events=[e for e in g["hands"][0]["events"] if e["type"] not in ("flower", "bird")]))
    for encoding, data, path in encodings(honours_only):
        for fast_form in (False, True):
            (game,) = read(data, encoding, by_ruleset, fast_form=fast_form, path=path)
            assert not isinstance(game, MalformedLogError), game
            assert game.hands[0].deal[0][:2] == ("1z", "1z")
    for encoding, data, path in encodings(wide_game("honours")):
        for fast_form in (False, True):
            (item,) = read(data, encoding, by_ruleset, fast_form=fast_form, path=path)
            assert isinstance(item, MalformedLogError)
            # the first flower (the wall is validated before the deal), and the others counted
            assert item.json_path == "hands[0].wall[0]" and item.reason == "unknown tile '2f'"
            assert item.more == 4  # 梅 in the wall, the dealt 1f, the flower shown, 菊
            assert item.line == (2 if encoding is Encoding.STREAM else None)


def test_a_suited_game_never_asks_for_its_tiles() -> None:
    """The tiles are looked up only for a game holding an honour or a flower: the 108-tile
    logs are read as they always were."""

    def no_lookup(name: str) -> frozenset[str]:
        raise AssertionError(f"tiles of {name!r} looked up")

    for encoding, data, path in encodings(game_dict()):
        for fast_form in (False, True):
            (game,) = read(data, encoding, no_lookup, fast_form=fast_form, path=path)
            assert not isinstance(game, MalformedLogError)


def test_the_models_take_the_tiles_their_context_allows() -> None:
    data = doc_bytes(wide_game("guiyang"))
    with pytest.raises(ValidationError, match="unknown tile"):
        models.Game.model_validate_json(data)  # no context: the 108-tile notation
    with pytest.raises(ValidationError, match="unknown tile"):
        models.validate_game_json(data, tiles=by_ruleset)
    context = models.TileContext(FULL_TILE_SET)
    game = models.Game.model_validate_json(data, context=context)
    assert context.wide and game.hands[0].deal[0][:3] == ("1z", "1z", "1f")
    suited = models.TileContext(FULL_TILE_SET)
    models.Game.model_validate_json(doc_bytes(game_dict()), context=suited)
    assert not suited.wide
    assert models.holds_only(game, FULL_TILE_SET)
    assert not models.holds_only(game, HONOURS_SET)
    assert not models.holds_only(fast.from_model(game), SUITED_TILE_SET)
    assert set(FLOWER_TILES) <= FULL_TILE_SET and "W" in SUITED_TILE_SET


def test_a_fault_inside_a_flower_event_is_named_by_its_field() -> None:
    bad = changed(wide_game(), lambda g: g["hands"][0]["events"][3].update(seat=7))
    (item,) = read(stream_bytes(bad), Encoding.STREAM, by_ruleset, fast_form=True)
    assert isinstance(item, MalformedLogError)
    assert str(item) == "t.jsonl line 6, game 'g-1', field hands[0].events[3].seat: seat 7 " \
                        "out of range"
    assert format_loc(("hands", 0, "events", 3, "flower", "tile")) == "hands[0].events[3].tile"
