"""``zhuoji audit``: the human view, ``--hand N``, ``--json``, exit codes, and three disputed
hands whose recorded results are wrong (``tests/data/disputes/``)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.support.builders import make_hand
from zhuoji.flows.audit.bridge import game_from_records
from zhuoji.flows.cli.main import app
from zhuoji.parsers.models import Player
from zhuoji.parsers.write import write_games
from zhuoji.rules.events import HandRecord, RecordedItem, RecordedResult
from zhuoji.rules.families.guizhou.settlement import settle
from zhuoji.rules.presets import load_preset
from zhuoji.rules.replay import replay_hand

ROOT = Path(__file__).resolve().parents[2]
DISPUTES = ROOT / "tests" / "data" / "disputes"
runner = CliRunner()

NAMES = ["张三", "李四", "王五", "赵六"]
PLAYERS = [Player(seat=s, id=f"p{s}", name=n) for s, n in enumerate(NAMES)]
DEALER = "2469p2468s3579s9s7m"
PLAIN = "123m456m23p99p345p"
SELF_DRAW = "0-9s 1+1m 1-1m 2+3s 2-3s 3+5s 3-5s 0+6s 0-6s 1+4p 1H4p F8s"


def _clean_hand(hand_no: int = 1) -> HandRecord:
    """Seat 1 self-draws a plain hand, with the correct result recorded."""
    record = make_hand({0: DEALER, 1: PLAIN}, SELF_DRAW, front="1m3s5s6s4p8s", hand_no=hand_no)
    rs = load_preset("guiyang")
    s = settle(replay_hand(record, rs), rs)
    assert s is not None
    items = tuple(RecordedItem(i.payer, i.payee, i.amount, i.reason.value) for i in s.items)
    return replace(record, result=RecordedResult(s.deltas, s.next_dealer, items))


def _write(path: Path, records: list[HandRecord], *, game_id: str = "g1",
           ruleset: str = "guiyang") -> Path:
    game = game_from_records(records, game_id=game_id, players=PLAYERS, ruleset=ruleset)
    write_games(path, [game])
    return path


def _audit(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["audit", *args])
    return result.exit_code, result.output


# --------------------------------------------------------------------------------------
# three disputed hands: what a referee reads out
# --------------------------------------------------------------------------------------


def test_dispute_wrong_charging_chicken() -> None:
    code, out = _audit("--hand", "1", str(DISPUTES / "wrong_charging_chicken.json"))
    assert code == 1
    lines = out.splitlines()
    assert "  score_mismatch (event -, seat -): recorded deltas differ: seat 0: recorded -10, "\
        "recomputed -7 (off by -3); seat 1: recorded 0, recomputed +3 (off by -3); seat 2: "\
        "recorded +6, recomputed +9 (off by -3); seat 3: recorded +4, recomputed -5 "\
        "(off by +9)" in lines
    assert "  item_mismatch (event -, seat -): 3 recorded items differ from the recomputed "\
        "ledger: seat 0 -> seat 3 charging_chicken 冲锋鸡: recorded 3, "\
        "not due (extra in the record); seat 1 -> seat 3 charging_chicken 冲锋鸡: recorded 3, "\
        "not due (extra in the record); seat 2 -> seat 3 charging_chicken 冲锋鸡: recorded 3, "\
        "not due (extra in the record)" in lines
    assert ("  no charging chicken 冲锋鸡 for 1s: the first one (seat 0 (张三), event 0) was "
            "ponged by seat 2 (王五)") in lines
    assert ("  the first 1s was discarded by seat 0 (张三) (event 0) and ponged by seat 2 (王五): "
            "responsibility chicken 责任鸡, seat 0 (张三) pays seat 2 (王五) 2") in lines
    verdict = lines[lines.index("what the record has wrong:") + 1:]
    assert verdict[0] == ("  seat 0 (张三) -> seat 3 (赵六) charging_chicken 冲锋鸡: the record "
                          "has 3, the rules give nothing")
    assert verdict[1].strip().startswith("because no charging chicken 冲锋鸡 for 1s")
    assert "  seat 3 (赵六)          -5        +4   <- differs" in lines


def test_dispute_kong_paid_though_its_owner_was_not_ready() -> None:
    code, out = _audit("--hand", "1", str(DISPUTES / "kong_owner_not_ready.json"))
    assert code == 1
    lines = out.splitlines()
    assert ("  seat 2 (黄三)'s concealed kong 闷豆 of 9m does not score: seat 2 (黄三) neither "
            "won nor is ready (双杀)") in lines
    assert "  seat 2 (黄三): 13569p24678s  [not ready]" in lines
    assert "      melds: concealed kong 闷豆 9m" in lines
    assert ("  seat 1 (林二) -> seat 2 (黄三) concealed_kong 闷豆: the record has 2, the rules "
            "give nothing") in lines
    assert "  seat 2 (黄三)          -2        +4   <- differs" in lines
    assert "concealed_kong" not in "\n".join(
        lines[lines.index("ledger (recomputed):"):lines.index("deltas:")])


def test_a_guizhou_hand_keeps_its_kong_words(tmp_path: Path) -> None:
    """Guizhou's words for kongs (its base words in rules/glossary.toml), beside the English
    and in Chinese, in the text and on the hand's page: another family's words (Changsha's
    明杠, tests/flows/test_changsha_audit.py) change none of them."""
    log = ROOT / "data" / "sample" / "sim" / "document" / "sim-guiyang-10-2026-00001.json"
    code, out = _audit("--hand", "1", str(log))
    lines = out.splitlines()
    assert ("      melds: added kong 转弯豆 4m from seat 2, pong 3p from seat 0, pong 3m from "
            "seat 0") in lines
    assert "      melds: exposed kong 点豆 5s from seat 0, pong 8s from seat 1" in lines
    assert "  added_kong 转弯豆: 30" in lines and "明杠" not in out
    code, out = _audit("--hand", "1", "--lang", "zh", str(log))
    assert "      副露：转弯豆 4万（来自座位2）、碰 3筒（来自座位0）、碰 3万（来自座位0）" in (
        out.splitlines())
    assert "明杠" not in out
    page = tmp_path / "h.html"
    code, out = _audit("--hand", "1", "--html", str(page), str(log))
    assert code in (0, 1), out
    html = page.read_text(encoding="utf-8")
    assert '<span class="kind">转弯豆</span>' in html and "adds {tile} to a pong 转弯豆" in html
    assert "明杠" not in html


def test_dispute_missed_responsibility_chicken() -> None:
    code, out = _audit("--hand", "1", str(DISPUTES / "missed_responsibility_chicken.json"))
    assert code == 1
    lines = out.splitlines()
    assert ("  the first 1s was discarded by seat 0 (吴一) (event 0) and ponged by seat 1 (郑二): "
            "responsibility chicken 责任鸡, seat 0 (吴一) pays seat 1 (郑二) 1") in lines
    assert ("  seat 0 (吴一) -> seat 1 (郑二) responsibility_chicken 责任鸡: the rules give 1, "
            "the record has nothing") in lines
    assert "  responsibility_chicken 责任鸡: 1" in lines
    assert "    seat 0 -> seat 1     1  responsibility 责任鸡 1s ponged at event 0 (1)" in lines
    assert "  seat 1 (郑二): 3 x 1s standing" in lines
    assert "flip: 8s" in lines


def test_disputes_as_json_name_the_differing_items() -> None:
    code, out = _audit("--json", str(DISPUTES))
    assert code == 1
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["game_id"] for r in rows] == ["dispute-0002", "dispute-0003", "dispute-0001"]
    for row in rows:
        score, item = row["violations"]
        assert score["code"] == "score_mismatch"
        assert item["code"] == "item_mismatch" and "from the recomputed ledger: seat " in (
            item["message"])
        assert row["deltas"] != row["recorded_deltas"]
        assert sum(row["deltas"]) == 0


# --------------------------------------------------------------------------------------
# the views, the JSON lines and the exit codes
# --------------------------------------------------------------------------------------


def test_clean_hands_exit_0_with_the_ledger_by_reason(tmp_path: Path) -> None:
    path = _write(tmp_path / "g.json", [_clean_hand(1), _clean_hand(2)])
    code, out = _audit(str(path))
    assert code == 0, out
    lines = out.splitlines()
    assert lines[0] == f"== g1 hand 1 | ruleset guiyang | dealer seat 0 (张三) | {path}"
    assert "outcome: seat 1 (李四) won by self-draw on 4p" in lines
    assert "  winner seat 1 (李四): plain 平胡; scored plain + self_draw: 2 from seat(s) 2, 3, 0" \
        in lines
    assert "  self_draw 自摸: 3" in lines
    assert "  seat 1 (李四)          +6        +6" in lines
    assert "findings:" in lines and "  none" in lines
    assert lines[-1] == "1 file(s), 1 game(s), 2 hand(s): 2 clean, 0 with findings"
    assert "explanation:" not in lines  # only with --hand


def test_json_lines_have_every_field(tmp_path: Path) -> None:
    path = _write(tmp_path / "g.jsonl", [_clean_hand(1)])
    code, out = _audit("--json", str(path))
    assert code == 0
    (row,) = [json.loads(line) for line in out.splitlines()]
    assert row["file"] == str(path) and row["game_id"] == "g1" and row["hand_no"] == 1
    assert row["ruleset"] == "guiyang" and row["violations"] == []
    assert row["winners"] == [{
        "seat": 1, "tile": "4p", "from": None, "self_drawn": True, "patterns": ["plain"],
        "scored": ["plain", "self_draw"], "value": 2, "penalty": False}]
    assert row["next_dealer"] == 1 and row["recorded_next_dealer"] == 1
    assert row["deltas"] == [-2, 6, -2, -2] == row["recorded_deltas"]
    assert row["ledger"][0] == {"payer": 2, "payee": 1, "amount": 1, "reason": "hand",
            "detail": "plain 平胡 1"}
    assert len(row["ledger"]) == 6
    assert row["flip"] == "8s" and "chickens" in row  # the chicken family's keys


def test_fatal_violation_gives_null_deltas_and_exit_1(tmp_path: Path) -> None:
    bad = make_hand({0: DEALER, 1: PLAIN}, "0-9s 2+1m", front="1m")  # seat 2 out of turn
    path = _write(tmp_path / "g.json", [_clean_hand(1), replace(bad, hand_no=2)])
    code, out = _audit("--json", str(path))
    assert code == 1
    first, second = (json.loads(line) for line in out.splitlines())
    assert first["violations"] == []
    assert second["deltas"] is None and second["ledger"] is None
    assert second["next_dealer"] is None
    (v,) = second["violations"]
    assert v["code"] == "out_of_turn" and v["event_index"] == 1 and v["seat"] == 2
    code, out = _audit(str(path))
    assert "outcome: incomplete: the replay stopped at event 1 (out_of_turn); the hand is " \
           "not settled" in out.splitlines()


def test_malformed_file_and_unknown_preset_exit_2(tmp_path: Path) -> None:
    good = _write(tmp_path / "a.json", [_clean_hand(1)])
    (tmp_path / "b.json").write_text('{"schema": "zhuoji-log/1", "game_id": ')
    _write(tmp_path / "c.json", [_clean_hand(1)], game_id="g3", ruleset="nowhere")
    code, out = _audit("--json", str(tmp_path))
    assert code == 2
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows[0]["file"] == str(good) and rows[0]["violations"] == []
    assert rows[1]["file"] == str(tmp_path / "b.json") and "message" in rows[1]["error"]
    assert rows[1]["error"]["line"] == 1
    assert rows[2]["game_id"] == "g3"
    assert "unknown preset 'nowhere'" in rows[2]["error"]["message"]
    code, out = _audit(str(tmp_path / "missing.json"))
    assert code == 2 and "error: " in out


def test_hand_and_game_filters(tmp_path: Path) -> None:
    _write(tmp_path / "a.json", [_clean_hand(1), _clean_hand(2)], game_id="a")
    _write(tmp_path / "b.json", [_clean_hand(1)], game_id="b")
    code, out = _audit("--json", "--game", "a", "--hand", "2", str(tmp_path))
    assert code == 0
    (row,) = [json.loads(line) for line in out.splitlines()]
    assert (row["game_id"], row["hand_no"]) == ("a", 2)
    code, out = _audit("--hand", "2", "--game", "a", str(tmp_path))
    lines = out.splitlines()
    assert "tiles as the hand ended:" in lines and "explanation:" in lines
    assert "  seat 1 (李四): 123456m23344599p  [won]" in lines
    code, out = _audit("--hand", "7", str(tmp_path))
    assert code == 2 and "error: no hand 7 found" in out


@pytest.mark.parametrize("name", ["wrong_charging_chicken", "kong_owner_not_ready",
                                  "missed_responsibility_chicken"])
def test_dispute_logs_replay_cleanly(name: str) -> None:
    code, out = _audit("--json", str(DISPUTES / f"{name}.json"))
    assert code == 1
    (row,) = [json.loads(line) for line in out.splitlines()]
    # the records are consistent in themselves (their items add up to their deltas) and
    # wrong: the deltas and the items differ from the recomputation
    assert [v["code"] for v in row["violations"]] == ["score_mismatch", "item_mismatch"]


# --------------------------------------------------------------------------------------
# the recorded itemisation: wrong items with the right deltas, items off their deltas
# --------------------------------------------------------------------------------------


def _with_items(record: HandRecord, items: list[RecordedItem],
                deltas: tuple[int, ...] | None = None) -> HandRecord:
    assert record.result is not None
    result = record.result
    return replace(record, result=RecordedResult(
        result.deltas if deltas is None else deltas, result.next_dealer, tuple(items)))


def test_wrong_items_with_the_right_deltas_are_found(tmp_path: Path) -> None:
    clean = _clean_hand(1)
    assert clean.result is not None and clean.result.items
    items = list(clean.result.items)
    # the right amount between the right seats, for another reason: the deltas agree
    first = items[0]
    items[0] = RecordedItem(first.payer, first.payee, first.amount, "concealed_kong")
    path = _write(tmp_path / "g.json", [_with_items(clean, items), _clean_hand(2)])
    code, out = _audit("--json", str(path))
    assert code == 1
    bad, good = [json.loads(line) for line in out.splitlines()]
    assert good["violations"] == []
    assert bad["deltas"] == bad["recorded_deltas"]
    (finding,) = bad["violations"]
    assert finding["code"] == "item_mismatch" and not finding["fatal"]
    assert f"seat {first.payer} -> seat {first.payee} concealed_kong 闷豆: recorded " \
        f"{first.amount}, not due (extra in the record)" in finding["message"]
    # the human view: the finding, and the verdict names the item
    code, out = _audit("--hand", "1", str(path))
    assert code == 1
    lines = out.splitlines()
    assert any(line.startswith("  item_mismatch (event -, seat -): 2 recorded items differ")
               for line in lines)
    verdict = lines[lines.index("what the record has wrong:") + 1:]
    assert any(f"-> seat {first.payee} ({NAMES[first.payee]}) concealed_kong 闷豆: the record "
               f"has {first.amount}, the rules give nothing" in line for line in verdict)
    assert "the recorded deltas differ" not in out


def test_items_that_do_not_add_up_to_the_deltas_are_found(tmp_path: Path) -> None:
    clean = _clean_hand(1)
    assert clean.result is not None and clean.result.items
    items = list(clean.result.items)
    first = items[0]
    items[0] = RecordedItem(first.payer, first.payee, first.amount + 1, first.reason)
    path = _write(tmp_path / "g.json", [_with_items(clean, items)])
    code, out = _audit("--json", str(path))
    assert code == 1
    (row,) = [json.loads(line) for line in out.splitlines()]
    assert [v["code"] for v in row["violations"]] == ["item_mismatch", "item_sum_mismatch"]
    unbalanced = row["violations"][1]
    assert unbalanced["message"].startswith(
        "the recorded items do not add up to the recorded deltas: ")
    assert f"seat {first.payee}: items " in unbalanced["message"]
    # the deltas alone do not make it clean; nor does a record that says nothing of items
    path = _write(tmp_path / "plain.json", [replace(clean, result=RecordedResult(
        clean.result.deltas, clean.result.next_dealer, None))])
    code, _ = _audit("--json", str(path))
    assert code == 0


def test_wrong_deltas_over_right_items(tmp_path: Path) -> None:
    clean = _clean_hand(1)
    assert clean.result is not None
    deltas = list(clean.result.deltas)
    deltas[0] += 1
    deltas[2] -= 1
    path = _write(tmp_path / "g.json", [_with_items(clean, list(clean.result.items or ()),
                                                    tuple(deltas))])
    code, out = _audit("--hand", "1", str(path))
    assert code == 1
    lines = out.splitlines()
    codes = [line.split()[0] for line in lines[lines.index("findings:") + 1:]
             if line.startswith("  ") and "(event" in line]
    assert codes == ["score_mismatch", "item_sum_mismatch"]
    verdict = lines[lines.index("what the record has wrong:") + 1:]
    assert verdict[0] == ("  the recorded deltas differ, and its items, which are right, do "
                          "not add up to them: see findings")
