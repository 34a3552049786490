"""Each event kind declared once (``rules/event_kinds.py``, a family's ``events`` module), and
everything else that spells an event kind held to the declarations.

The log format's two readers (the pydantic models, the msgspec structs), the JSON Schema
generated from the models and the engine's value classes are checked field by field against
the declarations; the bridge's conversions, the replay's snapshots and the table's names and
descriptions of events are checked on events of every declared kind, built from the
declarations themselves (every choice, every flag, optional fields present and absent).
"""

from __future__ import annotations

import dataclasses
import importlib
import itertools
import json
from typing import Any, get_args

import msgspec
import pytest
from pydantic import TypeAdapter

from tests.support.builders import format_event, parse_event
from zhuoji.flows.audit import bridge
from zhuoji.parsers import fast, models
from zhuoji.parsers.schema import game_json_schema
from zhuoji.parsers.tiles import CANONICAL_TILES, FULL_TILE_SET
from zhuoji.rules.event_kinds import CORE_KINDS, EventField, EventKind, FieldKind, to_log
from zhuoji.rules.event_registry import all_event_kinds, describe_event, event_name, kind_of
from zhuoji.rules.events import (
    Bird,
    Chow,
    DeclareSuit,
    Discard,
    Draw,
    Exchange,
    ExhaustiveDraw,
    Flip,
    Flower,
    Kong,
    Pong,
    Ready,
    Roll,
    Seabed,
    SmallWin,
    Win,
)
from zhuoji.rules.families import families
from zhuoji.rules.snapshot import event_data
from zhuoji.rules.tiles import TILE_BY_TEXT

TEST_FAMILIES = ("toy_family", "wall_family", "wide_family", "xuezhan_family")

KINDS = all_event_kinds()
IDS = [k.name for k in KINDS]
MODELS = {
    cls.__dataclass_fields__["type"].default: cls for cls in get_args(get_args(models.Event)[0])
}
STRUCTS = {msgspec.inspect.type_info(cls).tag: cls for cls in fast.EVENT_CLASSES}


def _samples(kind: EventKind) -> list[Any]:
    """Engine events of ``kind``: every choice and flag, each optional field absent and
    present."""
    options: list[list[Any]] = []
    for f in kind.fields:
        values: list[Any]
        if f.kind is FieldKind.SEAT:
            values = [1 if f.name == "seat" else 2]
        elif f.kind is FieldKind.TILE:
            values = [TILE_BY_TEXT["5m"]]
        elif f.kind is FieldKind.TILES:
            values = [tuple(TILE_BY_TEXT[t] for t in ("3m", "4m", "5m"))]
        elif f.kind is FieldKind.DICE:
            values = [(3, 4)]
        elif f.kind is FieldKind.FLAG:
            values = [True, False]
        else:
            values = [c if f.enum is None else f.enum(c) for c in f.choices]
        if f.optional:
            values = [None, *values]
        options.append(values)
    return [kind.cls(*combo) for combo in itertools.product(*options)]


SAMPLES = [(k.name, ev) for k in KINDS for ev in _samples(k)]
SAMPLE_IDS = [f"{name}-{i}" for i, (name, _) in enumerate(SAMPLES)]


def test_every_kind_is_declared_once_and_read_by_both_readers() -> None:
    assert len(IDS) == len(set(IDS))
    assert sorted(IDS) == sorted(models.EVENT_TYPES) == sorted(STRUCTS)
    assert len({k.cls for k in KINDS}) == len(KINDS)


def test_the_families_declare_only_their_own_kinds_and_play_only_declared_ones() -> None:
    for name in TEST_FAMILIES:
        importlib.import_module(f"tests.rules.{name}")
    core = {k.name for k in CORE_KINDS}
    declared = set(IDS)
    for family in families():
        own = {k.name for k in family.event_declarations}
        assert own <= set(family.event_kinds), family.name
        assert not own & core, family.name
        assert set(family.event_kinds) <= declared, family.name


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
def test_the_engine_value_has_the_declared_fields(kind: EventKind) -> None:
    names = [f.name for f in dataclasses.fields(kind.cls)]
    assert names == [f.name for f in kind.fields]


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
def test_the_model_has_the_declared_fields(kind: EventKind) -> None:
    model = MODELS[kind.name]
    fields = model.__pydantic_fields__
    assert [n for n in fields if n not in ("type", "t")] == [f.name for f in kind.fields]
    for f in kind.fields:
        info = fields[f.name]
        assert (info.validation_alias or f.name) == f.log_key, f.name
        assert info.is_required() == (not f.optional), f.name
        assert info.description == f.description, f.name
        if not f.optional:
            continue
        assert info.default is None, f.name


def _tile_schema() -> dict[str, Any]:
    return models._TileNotation.__get_pydantic_json_schema__(None, None)  # type: ignore[arg-type]


def _field_schema(f: EventField) -> dict[str, Any]:
    """The JSON Schema of a declared field, as the models must give it."""
    base: dict[str, Any]
    if f.kind is FieldKind.SEAT:
        base = {"type": "integer", "minimum": 0, "maximum": models.MAX_PLAYERS - 1}
    elif f.kind is FieldKind.TILE:
        base = _tile_schema()
    elif f.kind is FieldKind.TILES:
        base = {"type": "array", "items": _tile_schema()}
        if f.min_length:
            base["minItems"] = f.min_length
    elif f.kind is FieldKind.DICE:
        base = {"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": 6},
                "minItems": 2, "maxItems": 2}
    elif f.kind is FieldKind.FLAG:
        base = {"type": "boolean"}
    else:
        base = {"type": "string", "enum": list(f.choices)}
    out = {"anyOf": [base, {"type": "null"}], "default": None} if f.optional else dict(base)
    if f.description is not None:
        out["description"] = f.description
    return out


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
def test_the_json_schema_has_the_declared_fields(kind: EventKind) -> None:
    schema = game_json_schema()["$defs"][MODELS[kind.name].__name__]
    props = schema["properties"]
    assert set(props) == {"type", "t", *(f.log_key for f in kind.fields)}
    assert props["type"]["const"] == kind.name
    assert set(schema["required"]) == {"type", *(f.log_key for f in kind.fields
                                                  if not f.optional)}
    for f in kind.fields:
        actual = {k: v for k, v in props[f.log_key].items() if k != "title"}
        expected = {k: v for k, v in _field_schema(f).items() if k != "title"}
        assert actual == expected, f.name


def _struct_type(f: EventField) -> Any:
    mi = msgspec.inspect
    tile = mi.LiteralType(tuple(sorted(CANONICAL_TILES)))
    base: Any
    if f.kind is FieldKind.SEAT:
        base = mi.IntType(ge=0, le=models.MAX_PLAYERS - 1)
    elif f.kind is FieldKind.TILE:
        base = tile
    elif f.kind is FieldKind.TILES:
        base = mi.VarTupleType(tile, min_length=f.min_length or None)
    elif f.kind is FieldKind.DICE:
        base = mi.VarTupleType(mi.IntType(ge=1, le=6), min_length=2, max_length=2)
    elif f.kind is FieldKind.FLAG:
        base = mi.BoolType()
    else:
        base = mi.LiteralType(tuple(sorted(f.choices)))
    return mi.UnionType((base, mi.NoneType())) if f.optional else base


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
def test_the_fast_reader_has_the_declared_fields(kind: EventKind) -> None:
    info = msgspec.inspect.type_info(STRUCTS[kind.name])
    fields = [f for f in info.fields if f.name != "t"]
    assert [f.name for f in fields] == [f.name for f in kind.fields]
    for got, f in zip(fields, kind.fields, strict=True):
        assert got.encode_name == f.log_key, f.name
        assert got.required == (not f.optional), f.name
        assert got.type == _struct_type(f), f.name


_EVENT = TypeAdapter(models.Event)


@pytest.mark.parametrize(("name", "event"), SAMPLES, ids=SAMPLE_IDS)
def test_both_readers_and_the_bridge_carry_every_declared_event(name: str, event: Any) -> None:
    kind = kind_of(event)
    assert kind.name == name == event_name(event)
    data = to_log(kind, event)
    assert data == bridge._event_dict(event)
    model = _EVENT.validate_python(data, by_alias=True, by_name=False,
                                   context=models.TileContext(FULL_TILE_SET))
    assert bridge._generate_events([model]) == [event]
    struct = msgspec.json.decode(json.dumps(data), type=fast.Event)
    assert struct == fast._event_from_model(model)
    assert bridge._generate_fast_events([struct]) == [event]
    written = json.loads(msgspec.json.encode(struct))
    assert {k: v for k, v in written.items() if v is not None} == data


# --- the description of a kind declared without one (the table's messages call
# event_registry.describe_event and event_name themselves)


@pytest.mark.parametrize("event", [ev for name, ev in SAMPLES if name == "small_win"])
def test_a_kind_declared_without_a_description_is_described_by_its_name(event: Any) -> None:
    assert describe_event(event) == f"seat {event.seat}: small_win"


# --- the replay's snapshots, as they were before the declarations


def _previous_event_data(event: Any) -> dict[str, Any]:
    if isinstance(event, Draw):
        return {"kind": "draw", "seat": event.seat, "tile": event.tile.text}
    if isinstance(event, Discard):
        return {"kind": "discard", "seat": event.seat, "tile": event.tile.text}
    if isinstance(event, Pong):
        return {"kind": "pong", "seat": event.seat, "tile": event.tile.text,
                "from": event.from_seat}
    if isinstance(event, Kong):
        return {"kind": f"kong_{event.kind.value}", "seat": event.seat,
                "tile": event.tile.text, "from": event.from_seat}
    if isinstance(event, Ready):
        return {"kind": "ready", "seat": event.seat}
    if isinstance(event, Win):
        return {"kind": "win" if event.from_seat is not None else "self_draw_win",
                "seat": event.seat, "tile": event.tile.text, "from": event.from_seat}
    if isinstance(event, Flip):
        return {"kind": "flip", "tile": event.tile.text}
    if isinstance(event, ExhaustiveDraw):
        return {"kind": "exhaustive_draw"}
    if isinstance(event, Flower):
        return {"kind": "flower", "seat": event.seat, "tile": event.tile.text}
    if isinstance(event, Chow):
        return {"kind": "chow", "seat": event.seat, "tiles": [t.text for t in event.tiles],
                "from": event.from_seat}
    if isinstance(event, Roll):
        return {"kind": "roll", "seat": event.seat, "dice": list(event.dice)}
    if isinstance(event, Seabed):
        return {"kind": "seabed_take" if event.take else "seabed_decline", "seat": event.seat}
    if isinstance(event, Bird):
        return {"kind": "bird", "tiles": [t.text for t in event.tiles]}
    # the exchange and the declared suit: their fields (a hand page's replay says who
    # passed which tiles to whom, and who declared which suit)
    if isinstance(event, Exchange):
        return {"kind": "exchange", "seat": event.seat, "tiles": [t.text for t in event.tiles],
                "to": event.to}
    if isinstance(event, DeclareSuit):
        return {"kind": "declare_suit", "seat": event.seat, "suit": event.suit.value}
    if isinstance(event, SmallWin):
        return {"kind": "small_win", "seat": event.seat, "small_win": event.kind,
                "tiles": [t.text for t in event.tiles]}
    return {"kind": type(event).__name__.lower()}


@pytest.mark.parametrize(("name", "event"), SAMPLES, ids=SAMPLE_IDS)
def test_the_snapshot_of_every_declared_event_is_as_before(name: str, event: Any) -> None:
    data = event_data(event)
    assert json.dumps(data) == json.dumps(_previous_event_data(event))


# --- the tests' compact notation


@pytest.mark.parametrize(("name", "event"), SAMPLES, ids=SAMPLE_IDS)
def test_every_token_reads_back_as_its_event(name: str, event: Any) -> None:
    kind = kind_of(event)
    if kind.token is None:
        with pytest.raises(ValueError, match="has no token"):
            format_event(event)
        return
    assert parse_event(format_event(event)) == event
