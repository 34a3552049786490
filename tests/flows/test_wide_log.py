"""A log of a family with honours and flowers, from its text to its replay: the readers
take the family's tiles (``zhuoji.flows.audit.rulesets.ruleset_tiles``, or the test family's through
``tile_texts``), the bridge hands the flower events to the engine, and the hand replays
and settles as the family says. The same text under a Guizhou preset is refused by the
readers, naming the file, the line and the field.

The family is the test one of ``tests/rules/wide_family/`` (144 tiles, chow, flowers); its
hand is the clean hand of ``tests/rules/test_wide_family.py``, written here as a log.
"""

from __future__ import annotations

import orjson

from tests.rules.test_wide_family import CLEAN, record
from tests.rules.wide_family import FAMILY, settle, wide_ruleset
from zhuoji.flows.audit.bridge import game_from_records, hand_records
from zhuoji.flows.audit.rulesets import ruleset_tiles, tile_texts
from zhuoji.parsers import fast
from zhuoji.parsers.errors import MalformedLogError
from zhuoji.parsers.models import Game
from zhuoji.parsers.read import (
    Encoding,
    generate_fast_games_from_bytes,
    generate_games_from_bytes,
)
from zhuoji.parsers.write import format_document, format_stream
from zhuoji.rules.families.guizhou.settings import Ruleset
from zhuoji.rules.presets import load_preset
from zhuoji.rules.replay import replay_hand
from zhuoji.rules.tiles import Tile, TileSet
from zhuoji.rules.violations import ViolationCode

LOG = """\
{"type":"start_game","schema":"zhuoji-log/1","game_id":"wide-1","ruleset":"wide-test",\
"players":[{"seat":0,"id":"a"},{"seat":1,"id":"b"},{"seat":2,"id":"c"},{"seat":3,"id":"d"}]}
{"type":"start_hand","hand_no":3,"dealer":0,"deal":[\
["一万","2m","九万","1p","9筒","幺鸡","9s","南","西风","北","白板","發","红中","春"],\
["2m","3m","4p","5p","6p","7s","8s","9s","\U0001f000","5z","白","\U0001f006","3f"],\
["东","夏","4m","4m","5m","5m","6m","6m","7m","7m","8m","8m","3p"],\
["1m","1m","1m","7z","中","\U0001f004\ufe0f","6m","6m","2p","2p","2p","2p","7p"]]}
{"type":"flower","seat":0,"tile":"春"}
{"type":"draw","seat":0,"tile":"8s"}
{"type":"flower","seat":1,"tile":"秋","t":900}
{"type":"draw","seat":1,"tile":"6s"}
{"type":"flower","seat":2,"tile":"\U0001f027"}
{"type":"draw","seat":2,"tile":"8p"}
{"type":"discard","seat":0,"tile":"1m"}
{"type":"chow","seat":1,"tiles":["1m","2m","3m"],"from":0}
{"type":"discard","seat":1,"tile":"6s"}
{"type":"draw","seat":2,"tile":"3s"}
{"type":"discard","seat":2,"tile":"东"}
{"type":"win","seat":1,"tile":"1z","from":2}
{"type":"end_hand","result":{"deltas":[-3,9,-3,-3]}}
{"type":"end_game"}
"""


def family_tiles(ruleset: str) -> frozenset[str]:
    """The shipped presets' tiles, and the test family's for its ruleset."""
    return tile_texts(FAMILY.tile_set) if ruleset == "wide-test" else ruleset_tiles(ruleset)


def test_a_log_of_honours_and_flowers_reads_and_replays_end_to_end() -> None:
    data = LOG.encode()
    (game,) = generate_games_from_bytes(data, Encoding.STREAM, path="w.jsonl",
                                        tiles=family_tiles)
    (struct,) = generate_fast_games_from_bytes(data, Encoding.STREAM, path="w.jsonl",
                                               tiles=family_tiles)
    assert isinstance(game, Game) and isinstance(struct, fast.Game)
    (rec,) = hand_records(game)
    assert hand_records(struct) == [rec]
    assert rec.deal == record(CLEAN, known_wall=False).deal  # the spellings read as meant
    assert rec.events == record(CLEAN, known_wall=False).events
    result = replay_hand(rec, wide_ruleset())
    assert result.violations == ()
    (win,) = result.winners
    assert (win.seat, win.tile, win.from_seat) == (1, Tile.EAST, 2)
    assert [s.flowers for s in result.seats] == [
        (Tile.SPRING,), (Tile.AUTUMN,), (Tile.SUMMER,), ()]
    assert rec.result is not None and settle(result, wide_ruleset()) == rec.result.deltas
    # written back (canonical text) and read again: the same hand
    for encoding, text in ((Encoding.STREAM, format_stream([game])),
                           (Encoding.DOCUMENT, format_document(game))):
        assert "春".encode() not in text and b'"tile":"1f"' in text
        (again,) = generate_games_from_bytes(text, encoding, tiles=family_tiles)
        assert isinstance(again, Game) and hand_records(again) == [rec]


def test_a_hand_with_its_144_tile_wall_goes_through_the_writer_and_back() -> None:
    rec = record(CLEAN)  # with the wall: the replacement draws come from its back
    assert rec.wall is not None and sum(map(len, rec.deal)) + len(rec.wall) == 144
    written = game_from_records([rec], game_id="wide-2", ruleset="wide-test")
    for encoding, text in ((Encoding.STREAM, format_stream([written])),
                           (Encoding.DOCUMENT, format_document(written))):
        (game,) = generate_fast_games_from_bytes(text, encoding, tiles=family_tiles)
        assert isinstance(game, fast.Game)
        (back,) = hand_records(game)
        assert back == rec
        assert replay_hand(back, wide_ruleset()).violations == ()


def test_the_same_log_under_a_guizhou_preset_is_refused_naming_file_line_and_field() -> None:
    assert ruleset_tiles("guiyang") == tile_texts(TileSet.SUITED)
    data = LOG.replace('"ruleset":"wide-test"', '"ruleset":"guiyang"').encode()
    for reader in (generate_games_from_bytes, generate_fast_games_from_bytes):
        (item,) = reader(data, Encoding.STREAM, path="w.jsonl", tiles=ruleset_tiles)
        assert isinstance(item, MalformedLogError)
        assert str(item).startswith(
            "w.jsonl line 2, game 'wide-1', field hands[0].deal[0][7]: unknown tile '南' (and ")
    document = orjson.dumps({**orjson.loads(format_document(_wide_game())),
                             "ruleset": "guiyang"})
    (item,) = generate_fast_games_from_bytes(document, Encoding.DOCUMENT, path="w.json",
                                             tiles=ruleset_tiles)
    assert isinstance(item, MalformedLogError)
    assert str(item).startswith("w.json, game 'wide-1', field hands[0].deal[0][7]: "
                                "unknown tile '2z' (and ")


def test_the_engine_refuses_the_honours_of_a_game_that_bypassed_the_readers() -> None:
    """A game built without a reader (the models take the format's whole notation) still
    meets the family's tile set in the replay: a fatal bad_deal naming the tile."""
    (rec,) = hand_records(_wide_game())
    ruleset = load_preset("guiyang")
    assert isinstance(ruleset, Ruleset)
    result = replay_hand(rec, ruleset)
    (violation,) = result.violations
    assert violation.code is ViolationCode.BAD_DEAL and violation.fatal
    assert "which is not one of the 108 tiles" in violation.message


def _wide_game() -> Game:
    (game,) = generate_games_from_bytes(LOG.encode(), Encoding.STREAM, tiles=family_tiles)
    assert isinstance(game, Game)
    return game
