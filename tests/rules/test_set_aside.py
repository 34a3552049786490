"""暗麻将's set-aside tiles (issue 21 item 1, decision 18): two ordinary tiles are set aside
before the deal, 108 are in play, and the winner chooses the flip among the two. Through
the public interface: logs in both encodings and ``zhuoji audit --json``."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from tests.rules.test_seed_readings import DEALER_HAND, PLAIN, codes, hand, items
from zhuoji.flows.audit.bridge import game_from_records
from zhuoji.flows.cli.main import app
from zhuoji.parsers.read import generate_fast_games, generate_games
from zhuoji.parsers.schema import game_json_schema
from zhuoji.parsers.write import write_games
from zhuoji.rules.events import HandRecord
from zhuoji.rules.tiles import parse_tiles

runner = CliRunner()


def set_aside(record: HandRecord, tiles: str, front: int) -> HandRecord:
    """``record`` with ``tiles`` taken out of its wall (after its first ``front`` tiles)
    and recorded as set aside."""
    assert record.wall is not None
    wall = list(record.wall)
    aside = parse_tiles(tiles)
    for tile in aside:
        del wall[wall.index(tile, front)]
    return replace(record, wall=tuple(wall), set_aside=tuple(aside))


def audit_file(path: Path, records: list[HandRecord], ruleset: str) -> tuple[int, list[Any]]:
    write_games(path, [game_from_records(records, game_id="g1", ruleset=ruleset)])
    result = runner.invoke(app, ["audit", "--json", str(path)])
    return result.exit_code, [json.loads(line) for line in result.output.splitlines()]


# seat 1 self-draws 4p on its first turn; 9m and 3s are set aside
EVENTS = "0-9s 1+4p 1H4p F{flip}"


def genuine(flip: str, hand_no: int = 1) -> HandRecord:
    record = hand({0: DEALER_HAND, 1: PLAIN}, EVENTS.format(flip=flip), "an-majiang",
                  front="4p", hand_no=hand_no)
    return set_aside(record, "9m3s", front=1)


def test_a_genuine_deal_sets_two_tiles_aside(tmp_path: Path) -> None:
    # 000 贵阳暗麻将: 「系统随机抽出两张普通麻将，然后将两张"万能鸡"替换到其中」
    record = genuine("9m")
    assert record.wall is not None
    assert sum(map(len, record.deal)) + len(record.wall) == 108
    code, (row,) = audit_file(tmp_path / "g.json", [record], "an-majiang")
    assert code == 0, row["violations"]
    # 「这张牌的后1张牌即为"鸡"」: the chosen 9m makes 1m the chicken; seat 1 holds one
    assert items(row, "chicken") == [(p, 1, 1) for p in (2, 3, 0)]
    assert any("1m flipped" in i["detail"] for i in row["ledger"])


def test_the_flip_is_chosen_among_the_set_aside_tiles(tmp_path: Path) -> None:
    # 「系统弹出开局前所替换的两张牌，提供给胡牌玩家选择一张牌」: either tile, not the wall's
    record = genuine("3s")
    code, (row,) = audit_file(tmp_path / "g.json", [record], "an-majiang")
    assert code == 0 and items(row, "chicken") == []  # 4s: nobody holds one
    assert record.wall is not None
    wall_front = record.wall[1]
    assert wall_front not in record.set_aside  # type: ignore[operator]
    code, (row,) = audit_file(tmp_path / "g.json", [genuine(str(wall_front))], "an-majiang")
    assert code == 1 and codes(row) == ["bad_flip"]
    assert "chosen among the set-aside tiles 9m3s" in row["violations"][0]["message"]


def test_both_encodings_carry_the_set_aside_tiles(tmp_path: Path) -> None:
    records = [genuine("9m"), genuine("3s", hand_no=2)]
    code, document = audit_file(tmp_path / "g.json", records, "an-majiang")
    assert code == 0
    code, stream = audit_file(tmp_path / "g.jsonl", records, "an-majiang")
    assert code == 0
    assert [r["deltas"] for r in stream] == [r["deltas"] for r in document]
    for path in (tmp_path / "g.json", tmp_path / "g.jsonl"):
        for reader in (generate_games, generate_fast_games):
            (game,) = list(reader(path))
            assert [h.set_aside for h in game.hands] == [("9m", "3s"), ("9m", "3s")], reader
    schema = game_json_schema()
    assert "set_aside" in schema["$defs"]["Hand"]["properties"]


def test_set_aside_tiles_must_leave_the_family_tiles(tmp_path: Path) -> None:
    # the tiles set aside are out of play: deal + wall + set-aside hold the 110 tiles
    record = genuine("9m")
    assert record.wall is not None
    doubled = replace(record, wall=(*record.wall, *parse_tiles("9m3s")))
    code, (row,) = audit_file(tmp_path / "g.json", [doubled], "an-majiang")
    assert code == 1 and codes(row) == ["tile_overflow"]
    # a count other than the ruleset's
    one = replace(record, set_aside=tuple(parse_tiles("9m")),
                  wall=(*record.wall, *parse_tiles("3s")))
    code, (row,) = audit_file(tmp_path / "g.json", [one], "an-majiang")
    assert code == 1 and codes(row) == ["bad_deal"]
    assert "sets aside 1 tiles" in row["violations"][0]["message"]


def test_other_presets_refuse_set_aside_tiles(tmp_path: Path) -> None:
    record = hand({0: DEALER_HAND, 1: PLAIN}, "0-9s 1+4p 1H4p F9m", "guiyang", front="4p")
    record = set_aside(record, "9m3s", front=1)
    code, (row,) = audit_file(tmp_path / "g.json", [record], "guiyang")
    assert code == 1 and codes(row) == ["bad_deal"] and row["deltas"] is None
    assert "ruleset 'guiyang' sets no tile aside" in row["violations"][0]["message"]
