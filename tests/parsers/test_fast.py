"""The fast form (parsers/fast.py) against the pydantic models: same fields, same games.

The contract: a document the fast decoder accepts on its own is accepted by the models
with the same values; everything else goes to the models, so errors are theirs.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import random
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from tests.support.factories import changed, game_dict, stream_bytes
from zhuoji.parsers import fast, models
from zhuoji.parsers.errors import MalformedLogError
from zhuoji.parsers.read import (
    JSON_DEPTH_LIMIT,
    Encoding,
    generate_fast_games,
    generate_fast_games_from_bytes,
    generate_games,
    generate_games_from_bytes,
    is_log_path,
    parse_encoding,
)

ROOT = Path(__file__).resolve().parents[2]
LOG_DIRS = ("data/sample", "data/faulty", "tests/data/disputes")

PAIRS: tuple[tuple[Any, Any], ...] = (
    (models.DrawEvent, fast.DrawEvent),
    (models.DiscardEvent, fast.DiscardEvent),
    (models.PongEvent, fast.PongEvent),
    (models.KongEvent, fast.KongEvent),
    (models.ReadyEvent, fast.ReadyEvent),
    (models.WinEvent, fast.WinEvent),
    (models.FlipEvent, fast.FlipEvent),
    (models.ExhaustiveDrawEvent, fast.ExhaustiveDrawEvent),
    (models.ChowEvent, fast.ChowEvent),
    (models.FlowerEvent, fast.FlowerEvent),
    (models.ExchangeEvent, fast.ExchangeEvent),
    (models.DeclareSuitEvent, fast.DeclareSuitEvent),
    (models.Player, fast.Player),
    (models.ResultItem, fast.ResultItem),
    (models.Result, fast.Result),
    (models.Hand, fast.Hand),
    (models.Game, fast.Game),
)


def _model_fields(cls: Any) -> dict[str, tuple[str, bool, Any]]:
    """attribute -> (JSON key, required, default) of a model or pydantic dataclass."""
    fields = cls.__pydantic_fields__ if dataclasses.is_dataclass(cls) else cls.model_fields
    out = {}
    for name, info in fields.items():
        if name == "type":
            continue  # the union's tag; the structs carry it as their tag
        key = info.validation_alias or info.alias or name
        required = info.is_required()
        out[name] = (key, required, None if required else info.default)
    return out


def _struct_fields(cls: Any) -> dict[str, tuple[str, bool, Any]]:
    out = {}
    for f in msgspec.structs.fields(cls):
        required = f.required
        out[f.name] = (f.encode_name, required, None if required else f.default)
    return out


@pytest.mark.parametrize(("model", "struct"), PAIRS, ids=[m.__name__ for m, _ in PAIRS])
def test_every_struct_has_the_models_fields_keys_and_defaults(model: Any, struct: Any) -> None:
    assert _struct_fields(struct) == _model_fields(model)


def test_event_tags_are_the_models_event_types() -> None:
    tags = [msgspec.inspect.type_info(cls).tag for cls in fast.EVENT_CLASSES]
    assert tuple(tags) == models.EVENT_TYPES


def _log_files() -> list[Path]:
    files = []
    for folder in LOG_DIRS:
        files.extend(p for p in sorted((ROOT / folder).rglob("*")) if is_log_path(p))
    return files


def _same(
    items: list[fast.Game | MalformedLogError], expected: list[models.Game | MalformedLogError]
) -> None:
    assert len(items) == len(expected)
    for item, model in zip(items, expected, strict=True):
        if isinstance(model, MalformedLogError):
            assert isinstance(item, MalformedLogError)
            assert str(item) == str(model)
        else:
            assert item == fast.from_model(model)


def test_every_bundled_log_reads_the_same_in_both_forms() -> None:
    files = _log_files()
    assert len(files) > 30
    errors = games = 0
    for path in files:
        expected = list(generate_games(path))
        items = list(generate_fast_games(path))
        _same(items, expected)
        errors += sum(isinstance(m, MalformedLogError) for m in expected)
        games += sum(isinstance(m, models.Game) for m in expected)
    assert errors >= 3 and games > 50  # the faulty logs are in, and the good ones


def test_the_sample_games_are_decoded_without_the_models() -> None:
    for path in _log_files():
        if "faulty" in path.parts or parse_encoding(path)[1]:
            continue
        data = path.read_bytes()
        if parse_encoding(path)[0] == "document":
            assert fast.decode_game(data) is not None, path


# --- documents the fast decoder must leave to the models --------------------------------------


def _doc(game: dict[str, Any]) -> bytes:
    """JSON of any integer size (orjson stops at 64 bits)."""
    return json.dumps(game, ensure_ascii=False).encode()


def _edit(game: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    def fn(g: dict[str, Any]) -> None:
        target: Any = g
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return changed(game, fn)


BASE = game_dict(3, hands=2)
HANDED_OVER: dict[str, dict[str, Any]] = {
    "a Chinese tile name": _edit(BASE, ("hands", 0, "events", 0, "tile"), "幺鸡"),
    "a mahjong glyph": _edit(BASE, ("hands", 0, "deal", 1, 0), "\U0001f007"),
    "a traditional tile name": _edit(BASE, ("hands", 0, "events", 0, "tile"), "五萬"),
    "a unix timestamp": _edit(BASE, ("started_at",), 1_700_000_000),
    "a float override": _edit(BASE, ("rule_overrides",), {"stake": {"ratio": 1.5}}),
    "a huge integer override": _edit(BASE, ("rule_overrides",), {"x": 2**70}),
    "a seat beyond three players": _edit(BASE, ("hands", 1, "events", 2, "seat"), 3),
    "a from beyond three players": _edit(BASE, ("hands", 0, "events", 1, "from"), 3),
    "four deltas for three players": _edit(BASE, ("hands", 0, "result", "deltas"), [1, 1, -1, -1]),
    "a payee beyond three players": _edit(BASE, ("hands", 0, "result", "items", 0, "payee"), 3),
}
REJECTED: dict[str, dict[str, Any]] = {
    "an unknown tile": _edit(BASE, ("hands", 0, "events", 0, "tile"), "0m"),
    "a float seat": _edit(BASE, ("hands", 0, "events", 0, "seat"), 1.0),
    "a boolean seat": _edit(BASE, ("hands", 0, "events", 0, "seat"), True),
    "the attribute name from_seat": changed(
        BASE, lambda g: g["hands"][0]["events"][1].update({"from_seat": 0})
    ),
    "an unknown event field": changed(
        BASE, lambda g: g["hands"][0]["events"][0].update({"extra": 1})
    ),
    "an unknown event type": _edit(BASE, ("hands", 0, "events", 0, "type"), "shout"),
    "a die of 7": _edit(BASE, ("hands", 0, "dice"), [7, 1]),
    "three dice": _edit(BASE, ("hands", 0, "dice"), [1, 2, 3]),
    "one die": _edit(BASE, ("hands", 0, "dice"), [4]),
    "no dice": _edit(BASE, ("hands", 0, "dice"), []),
    "a die that is true": _edit(BASE, ("hands", 0, "dice"), [True, 2]),
    "an empty chow": changed(
        BASE,
        lambda g: g["hands"][0]["events"].append(
            {"type": "chow", "seat": 0, "tiles": [], "from": 1}
        ),
    ),
    "an amount beyond 64 bits": _edit(BASE, ("hands", 0, "result", "items", 0, "amount"), 2**63),
    "a negative time": _edit(BASE, ("hands", 0, "events", 0, "t"), -1),
    "an empty game id": _edit(BASE, ("game_id",), ""),
    "one player": _edit(BASE, ("players",), BASE["players"][:1]),
    "another schema": _edit(BASE, ("schema",), "zhuoji-log/2"),
    "a seat listed twice": _edit(BASE, ("players", 1, "seat"), 0),
    "a base stake of 0": _edit(BASE, ("base_stake",), 0),
}


@pytest.mark.parametrize("name", sorted(HANDED_OVER))
def test_what_the_models_read_otherwise_is_handed_to_them(name: str) -> None:
    doc = _doc(HANDED_OVER[name])
    assert fast.decode_game(doc) is None
    try:
        model = models.validate_game_json(doc)
    except ValidationError as exc:
        with pytest.raises(ValidationError) as caught:
            fast.parse_game(doc)
        assert caught.value.errors(include_context=False) == exc.errors(include_context=False)
    else:
        assert fast.parse_game(doc) == fast.from_model(model)


def test_handed_over_documents_include_accepted_ones() -> None:
    accepted = 0
    for game in HANDED_OVER.values():
        try:
            models.validate_game_json(_doc(game))
            accepted += 1
        except ValidationError:
            pass
    assert accepted >= 4  # tile spellings, floats: read by the models alone


@pytest.mark.parametrize("name", sorted(REJECTED))
def test_bad_documents_get_the_models_error(name: str) -> None:
    doc = _doc(REJECTED[name])
    assert fast.decode_game(doc) is None
    with pytest.raises(ValidationError) as expected:
        models.validate_game_json(doc)
    with pytest.raises(ValidationError) as caught:
        fast.parse_game(doc)
    assert caught.value.errors(include_context=False) == expected.value.errors(
        include_context=False
    )


@pytest.mark.parametrize("depth", [1_500, 20_000])
def test_nesting_too_deep_for_the_fast_decoder_gets_the_models_error(depth: int) -> None:
    # msgspec stops with a RecursionError where the models' JSON parser stops first with
    # its depth limit: the fast form hands the document over (found by bench/fuzz.py)
    deep = b"[" * depth + b"]" * depth
    head = b'"rule_overrides":{"x":%s},"hands":' % deep
    doc = _doc(game_dict(hands=1)).replace(b'"hands":', head)
    assert fast.decode_game(doc) is None
    expected = list(generate_games_from_bytes(doc, Encoding.DOCUMENT))
    items = list(generate_fast_games_from_bytes(doc, Encoding.DOCUMENT))
    _same(items, expected)
    (error,) = items
    assert isinstance(error, MalformedLogError)
    # the reason in words of our own, whatever orjson's release calls it
    assert error.reason == (
        "invalid JSON (nested deeper than 1024 arrays and objects: depth limit exceeded)"
    )
    start = doc.index(deep)  # the column of the bracket past the limit, inside the block
    assert error.line == 1 and error.column is not None
    assert start + JSON_DEPTH_LIMIT - 2 < error.column <= start + JSON_DEPTH_LIMIT + 1


@pytest.mark.parametrize(
    ("where", "old", "new"),
    [
        ("a player's name", b'"player 1"', b'"pl\xe9yer 1"'),
        ("a tile", b'"tile": "1s"', b'"tile": "1\xffs"'),
        ("a key", b'"seat"', b'"s\xffat"'),
    ],
    ids=["name", "tile", "key"],
)
def test_invalid_utf8_in_a_document_gets_the_models_error(
    where: str, old: bytes, new: bytes
) -> None:
    # msgspec 0.19 raises UnicodeDecodeError (not a DecodeError) on bad bytes in a string:
    # the fast form hands the document over and reports it as the other path does
    data = json.dumps(game_dict(hands=1), indent=1).encode()
    assert old in data, where
    doc = data.replace(old, new, 1)
    assert fast.decode_game(doc) is None
    expected = list(generate_games_from_bytes(doc, Encoding.DOCUMENT, path="g.json"))
    items = list(generate_fast_games_from_bytes(doc, Encoding.DOCUMENT, path="g.json"))
    _same(items, expected)
    (error,) = items
    assert isinstance(error, MalformedLogError)
    byte = next(i for i in range(doc.index(new), len(doc)) if doc[i] >= 0x80)
    assert error.path == "g.json"
    assert error.line == doc[:byte].count(b"\n") + 1
    assert error.reason == f"invalid UTF-8 (byte 0x{doc[byte]:02x})"


@pytest.mark.parametrize(
    "text",
    [
        "2026-03-01T08:30:00.25+08:00",
        "2026-03-01T08:30:00Z",
        "2026-03-01T08:30:00",
        "2026-03-01 08:30",
        "2026-03-01T08:30:00.1234567Z",  # rounded and truncated differently by other parsers
        "2026-03-01",
    ],
)
def test_dates_are_read_as_the_models_read_them(text: str) -> None:
    doc = _doc(_edit(BASE, ("started_at",), text))
    decoded = fast.decode_game(doc)
    assert decoded is not None
    expected = models.validate_game_json(doc).started_at
    assert decoded.started_at == expected
    assert decoded.started_at is not None and expected is not None
    assert decoded.started_at.utcoffset() == expected.utcoffset()


def test_streams_read_the_same_in_both_forms() -> None:
    games = [
        game_dict(4, hands=2, game_id="a"),
        REJECTED["an unknown tile"],
        HANDED_OVER["a Chinese tile name"],
    ]
    data = stream_bytes(*games)
    _same(
        list(generate_fast_games_from_bytes(data, parse_encoding("x.jsonl")[0])),
        list(generate_games_from_bytes(data, parse_encoding("x.jsonl")[0])),
    )


# --- random edits: whatever the fast decoder accepts, the models accept the same -------------

_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**65), max_value=2**65),
    st.sampled_from([0, 1, 2, 3, 4, -1, 6, 7, 2**63 - 1, 2**63]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(
        [
            "1m",
            "9s",
            "W",
            "w",
            "5M",
            "五万",
            "幺鸡",
            "\U0001f010",
            "exposed",
            "added",
            "draw",
            "discard",
            "pong",
            "kong",
            "win",
            "",
            "2026-01-01T00:00:00Z",
            "2026-01-01 00:00",
            "zhuoji-log/1",
            "guiyang",
        ]
    ),
    st.text(max_size=4),
    st.lists(st.sampled_from(["1m", "2p", "W", 1, None]), max_size=3),
    st.dictionaries(st.sampled_from(["a", "b"]), st.integers(), max_size=2),
)


def _paths(tree: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(tree, dict):
        for key, value in tree.items():
            out.extend(_paths(value, (*prefix, key)))
    elif isinstance(tree, list):
        for i, value in enumerate(tree):
            out.extend(_paths(value, (*prefix, i)))
    return out


_SEED_GAMES = [game_dict(4, hands=2), game_dict(3), game_dict(2)]


@settings(max_examples=300, derandomize=True, database=None, deadline=None)
@given(
    base=st.sampled_from(_SEED_GAMES),
    edits=st.lists(
        st.tuples(
            st.randoms(use_true_random=False), st.sampled_from(["set", "drop", "add"]), _VALUES
        ),
        min_size=1,
        max_size=3,
    ),
)
def test_random_edits_never_read_apart(
    base: dict[str, Any], edits: list[tuple[random.Random, str, Any]]
) -> None:
    game = copy.deepcopy(base)
    for rng, how, value in edits:
        path = rng.choice(_paths(game)[1:])
        parent: Any = game
        for key in path[:-1]:
            parent = parent[key]
        if how == "set":
            parent[path[-1]] = value
        elif how == "drop" and isinstance(parent, dict):
            del parent[path[-1]]
        elif how == "add" and isinstance(parent, dict):
            parent[rng.choice(["from", "seat", "tile", "t", "kind", "extra", "from_seat"])] = value
    doc = _doc(game)
    decoded = fast.decode_game(doc)
    try:
        model = models.validate_game_json(doc)
    except ValidationError:
        assert decoded is None, "the fast form accepted what the models reject"
        return
    if decoded is not None:
        assert decoded == fast.from_model(model)
    assert fast.parse_game(doc) == fast.from_model(model)
