"""Reading and writing ``zhuoji-log/1`` game logs (no game rules here)."""

from parsers.errors import MalformedLogError, TileNotationError
from parsers.limits import Limits
from parsers.models import (
    SCHEMA_ID,
    ChowEvent,
    DiscardEvent,
    DrawEvent,
    Event,
    ExhaustiveDrawEvent,
    FlipEvent,
    Game,
    Hand,
    KongEvent,
    Player,
    PongEvent,
    ReadyEvent,
    Result,
    ResultItem,
    WinEvent,
)
from parsers.read import (
    LOG_SUFFIXES,
    Encoding,
    generate_games,
    generate_games_from_bytes,
    generate_stream_games,
    is_log_path,
    parse_document,
    parse_encoding,
)
from parsers.schema import game_json_schema
from parsers.tiles import CANONICAL_TILES, parse_tile_text
from parsers.write import format_document, format_stream, generate_stream_lines, write_games

__all__ = [
    "CANONICAL_TILES",
    "LOG_SUFFIXES",
    "SCHEMA_ID",
    "ChowEvent",
    "DiscardEvent",
    "DrawEvent",
    "Encoding",
    "Event",
    "ExhaustiveDrawEvent",
    "FlipEvent",
    "Game",
    "Hand",
    "KongEvent",
    "Limits",
    "MalformedLogError",
    "Player",
    "PongEvent",
    "ReadyEvent",
    "Result",
    "ResultItem",
    "TileNotationError",
    "WinEvent",
    "format_document",
    "format_stream",
    "game_json_schema",
    "generate_games",
    "generate_games_from_bytes",
    "generate_stream_games",
    "generate_stream_lines",
    "is_log_path",
    "parse_document",
    "parse_encoding",
    "parse_tile_text",
    "write_games",
]
