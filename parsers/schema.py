"""The JSON Schema of ``zhuoji-log/1`` (document encoding), generated from the models."""

from __future__ import annotations

import json
from typing import Any

from zhuoji.parsers.models import Game

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def game_json_schema() -> dict[str, Any]:
    """The JSON Schema of one game document, as pydantic generates it from :class:`Game`."""
    schema = Game.model_json_schema(by_alias=True, mode="validation")
    return {"$schema": JSON_SCHEMA_DIALECT, **schema}


def format_json_schema() -> str:
    """:func:`game_json_schema` as text: two-space indent, UTF-8, final newline."""
    return json.dumps(game_json_schema(), indent=2, ensure_ascii=False) + "\n"
