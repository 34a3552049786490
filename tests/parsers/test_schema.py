from __future__ import annotations

import json
from pathlib import Path

import jsonschema  # type: ignore[import-untyped]
import orjson
import pytest

from tests.support.factories import changed, game_dict
from zhuoji.parsers.read import generate_games, is_log_path
from zhuoji.parsers.schema import format_json_schema, game_json_schema
from zhuoji.parsers.write import format_document

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_FILE = ROOT / "data" / "schema" / "zhuoji-log-1.json"


def test_the_saved_schema_is_the_generated_one() -> None:
    # Regenerate with: zhuoji schema > data/schema/zhuoji-log-1.json
    assert SCHEMA_FILE.read_text(encoding="utf-8") == format_json_schema()


def test_the_schema_describes_the_contract() -> None:
    schema = game_json_schema()
    assert set(schema["required"]) == {"game_id", "players", "hands"}
    assert schema["additionalProperties"] is False
    pong = schema["$defs"]["PongEvent"]
    assert "from" in pong["properties"] and "from_seat" not in pong["properties"]
    assert pong["required"][0] == "type"
    assert (
        schema["$defs"]["Hand"]["properties"]["events"]["items"]["discriminator"]["propertyName"]
        == "type"
    )


def test_the_samples_and_rejects_agree_with_the_schema() -> None:
    validator = jsonschema.Draft202012Validator(game_json_schema())
    for path in sorted(p for p in (ROOT / "data" / "sample").rglob("*") if is_log_path(p)):
        for game in generate_games(path):
            assert not isinstance(game, Exception)
            validator.validate(orjson.loads(format_document(game)))
    with pytest.raises(jsonschema.ValidationError):
        validator.validate(changed(game_dict(), lambda g: g["hands"][0]["events"][0].update(x=1)))
    with pytest.raises(jsonschema.ValidationError):
        validator.validate(changed(game_dict(), lambda g: g.pop("game_id")))
    json.dumps(game_json_schema())  # plain JSON data
