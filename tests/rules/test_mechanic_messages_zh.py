"""The messages of the core's optional mechanics in Chinese: 换三张 (the exchange, its
direction), 定缺 (the declarations, the declared suit discarded first, no meld of it, no win
holding it), play after a win (血战到底: a winner acting again; 血流成河 and 血战's phase
texts), the refused chow, the state carried from hand to hand and a deal's tile outside
the set, through ``zhuoji audit --lang zh`` on faulty Sichuan logs under the strict
glossary (``ZHUOJI_STRICT_GLOSSARY=1``: a message without Chinese stops the command), and
their English unchanged.

The logs are the fixtures of ``tests/rules/sichuan_faults/``, one fault each, written from
the hands of ``tests/rules/test_sichuan_table.py`` (compact notation) by
``python -m tests.rules.test_mechanic_messages_zh --write``; the test
:func:`test_the_fixtures_are_what_the_script_writes` keeps them in step.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.rules.test_sichuan_table import (
    AFTER,
    DEALT,
    DECLARE,
    EXCHANGE_DEAL,
    FRONT,
    OPENING,
)
from tests.rules.xuezhan_family.hands import hand, with_carry
from zhuoji.flows.audit.bridge import game_from_records
from zhuoji.rules.core.state import _after
from zhuoji.rules.events import DeclareSuit, Exchange, HandRecord, Suit
from zhuoji.rules.glossary import STRICT_VARIABLE, render
from zhuoji.rules.messages import Message
from zhuoji.rules.tiles import Tile

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "sichuan_faults"

EXCHANGE = {"mechanics.exchange": 3, "mechanics.exchange_to": "next"}
"""The exchange as a table plays it: three tiles of one suit, to the next seat."""
NEXT = "0>123m>1 1>789p>2 2>555s>3 3>777s>0"


class Fault:
    """One faulty log: its name, ruleset, overrides, hands (notation, deal, front), and
    the finding the audit gives: code, event, seat, English message, Chinese message."""

    def __init__(self, name: str, ruleset: str, events: str | list[HandRecord], code: str,
                 event: int | None, seat: int | None, english: str, chinese: str, *,
                 deal: Mapping[int, str] | None = None, front: str = FRONT,
                 overrides: Mapping[str, Any] | None = None) -> None:
        self.name = name
        self.ruleset = ruleset
        self.records = (events if isinstance(events, list)
                        else [hand(events, deal or DEALT, front=front)])
        self.code = code
        self.event = event
        self.seat = seat
        self.english = english
        self.chinese = chinese
        self.overrides = dict(overrides or {})

    @property
    def path(self) -> Path:
        return FIXTURES / f"{self.name}.json"

    def log(self) -> dict[str, Any]:
        game = game_from_records(self.records, game_id=f"fault-{self.name}",
                                 ruleset=self.ruleset,
                                 rule_overrides=self.overrides or None)
        data: dict[str, Any] = game.model_dump(mode="json", by_alias=True, exclude_none=True)
        return data


_HELD0 = "seat 0 holds 346689m9p3777999s"
_HELD0_ZH = "座位0手牌 346689万9筒3777999条"
_QUOTE = ("若摸牌结束只有两门花色，则以第三门花色作为定缺花色；"
          "若为一门花色，则可以在其他两门花色中选择")


def _recorded(events: str, hand_no: int, carry: Mapping[str, int] | None = None
                 ) -> HandRecord:
    return with_carry(hand(events, DEALT, front=FRONT), carry, hand_no)


FAULTS = (
    # ---------------------------------------------------------------- 定缺
    Fault("declared_suit_first", "sichuan", f"{DECLARE} 0-3s",
          "declared_suit_first", 4, 0,
          "seat 0 discards 3s but declared dots (p) and still holds 9p: the declared suit is "
          f"discarded before any other tile (定缺); {_HELD0}",
          "座位0打出3条，但它定缺筒，手中还有 9筒：须先打完定缺门的牌（定缺）；"
          f"{_HELD0_ZH}"),
    Fault("declared_suit_lacking", "sichuan", "2=p", "bad_declaration", 0, 2,
          "seat 2 declares dots (p) but holds no characters (m): a hand lacking a suit "
          f"declares one it lacks (seed 003: {_QUOTE}); seat 2 holds 123456789p1145s",
          "座位2定缺筒，但手中没有万：手牌少了哪一门花色，就须定缺那一门"
          f"（原文：{_QUOTE}）；座位2手牌 123456789筒1145条"),
    Fault("declared_twice", "sichuan", "0=p 0=m", "bad_declaration", 1, 0,
          "seat 0 declares characters (m) but seat 0 declared dots (p) at event 0; a seat "
          "declares once",
          "座位0定缺万，但座位0已在事件0定缺筒；每家只定缺一次"),
    Fault("discard_before_declaring", "sichuan", "0=p 1=s 2=m 0-9p", "bad_declaration", 3,
          0,
          "seat 0 discards 9p while the suits are being declared (定缺), seats 3 have not "
          "declared; every seat passes its tiles and declares its suit before the dealer's "
          "first discard",
          "座位0打出9筒，但正在定缺，座位3还没有定缺；各家须在庄家第一次打牌前换完牌、定好缺"),
    Fault("log_ends_declaring", "sichuan", "0=p 1=s", "bad_declaration", None, None,
          "the log ends while the suits are being declared (定缺), seats 2, 3 have not "
          "declared",
          "记录在正在定缺，座位2、3还没有定缺时就结束了"),
    Fault("win_holding_declared_suit", "sichuan",
          f"{DECLARE.replace('1=s', '1=p')} 0-9p 1+1s 1H1s", "missing_suit", 6, 1,
          "seat 1 wins on 1s by self-draw holding 11p of its declared suit dots (p) (定缺: a "
          "hand holding it cannot win)",
          "座位1自摸1条胡牌，但手中还有定缺的筒：11筒（定缺：手中有定缺门的牌不能胡）",
          deal={**DEALT, 1: "123456789m11p23s"}, front="1s1m2m5m"),
    Fault("pong_of_declared_suit", "sichuan",
          f"{DECLARE.replace('0=p', '0=m')} 0-9m 1+1p 1-6m 0P6m<1", "illegal_pong", 7, 0,
          "seat 0 pongs 6m from seat 1 but seat 0 declared characters (m) (定缺): no meld of "
          "that suit",
          "座位0碰座位1的6万，但座位0定缺万：不能碰、杠这一门的牌"),
    # ---------------------------------------------------------------- no chow
    Fault("chow", "sichuan", f"{DECLARE.replace('0=p', '0=m')} 0-9m 1Y789m<0",
          "chow_not_allowed", 5, 1,
          "seat 1 chows 789m from seat 0: chow (吃) is never allowed",
          "座位1吃座位0的789万：不许吃牌"),
    # ---------------------------------------------------------------- 血战到底, 血流成河
    Fault("xuezhan_winner_draws", "sichuan-xuezhan", f"{OPENING} 1+1m", "acted_after_win",
          7, 1,
          "seat 1 draws 1m but seat 1 won at event 6 and takes no further turns (血战到底)",
          "座位1摸1万，但座位1已在事件6胡牌，不再行动（血战到底）"),
    Fault("xuezhan_winner_discards", "sichuan-xuezhan", f"{OPENING} 2+1m 2-1m 3+2m 3-2m 1-1m",
          "acted_after_win", 11, 1,
          "seat 1 discards 1m but seat 1 won at event 6 and takes no further turns (血战到底)",
          "座位1打出1万，但座位1已在事件6胡牌，不再行动（血战到底）"),
    Fault("xuezhan_winner_pongs", "sichuan-xuezhan", f"{OPENING} 2+1m 2-1m 1P1m<2",
          "acted_after_win", 9, 1,
          "seat 1 pongs 1m from seat 2 but seat 1 won at event 6 and takes no further turns "
          "(血战到底)",
          "座位1碰座位2的1万，但座位1已在事件6胡牌，不再行动（血战到底）"),
    Fault("xuezhan_draw_out_of_turn", "sichuan-xuezhan", f"{OPENING} 3+1m", "out_of_turn",
          7, 3,
          "seat 3 draws 1m but seat 2 is due to draw (after the win, seat 2 draws next "
          "(血战到底))",
          "座位3摸1万，但应由座位2摸牌（胡牌之后，接着由座位2摸牌（血战到底））"),
    Fault("xueliu_draw_out_of_turn", "sichuan-xueliu", f"{OPENING} 3+1m", "out_of_turn",
          7, 3,
          "seat 3 draws 1m but seat 2 is due to draw (after the win, seat 2 draws next "
          "(血流成河))",
          "座位3摸1万，但应由座位2摸牌（胡牌之后，接着由座位2摸牌（血流成河））"),
    Fault("xueliu_win_after_self_draw", "sichuan-xueliu", f"{OPENING} 2H1p", "invalid_win",
          7, 2,
          "seat 2 wins on 1p by self-draw but after the win, seat 2 draws next (血流成河), "
          "after a self-drawn win",
          "座位2自摸1筒胡牌，但胡牌之后，接着由座位2摸牌（血流成河），自摸之后不能再胡这张牌"),
    Fault("xuezhan_wins_after_one_discard", "sichuan-xuezhan",
          f"{OPENING} {AFTER} 1H3s<0", "acted_after_win", 15, 1,
          "seat 1 wins on 3s from seat 0 but seat 1 won at event 6 and takes no further "
          "turns (血战到底)",
          "座位1胡座位0打出的3条，但座位1已在事件6胡牌，不再行动（血战到底）"),
    # ---------------------------------------------------------------- 换三张
    Fault("exchange_wrong_direction", "sichuan", "0>123m>2", "bad_exchange", 0, 0,
          "seat 0 passes 123m to seat 2 but every seat passes to its next seat "
          "(mechanics.exchange_to = next): seat 0 passes to seat 1",
          "座位0把 123万 换给座位2（换三张），但各家都换给下家（mechanics.exchange_to = "
          "next）：座位0应换给座位1",
          deal=EXCHANGE_DEAL, overrides=EXCHANGE),
    Fault("exchange_wrong_direction_previous", "sichuan", "0>123m>1", "bad_exchange", 0, 0,
          "seat 0 passes 123m to seat 1 but every seat passes to the seat before it "
          "(mechanics.exchange_to = previous): seat 0 passes to seat 3",
          "座位0把 123万 换给座位1（换三张），但各家都换给上家（mechanics.exchange_to = "
          "previous）：座位0应换给座位3",
          deal=EXCHANGE_DEAL, overrides={**EXCHANGE, "mechanics.exchange_to": "previous"}),
    Fault("exchange_two_suits", "sichuan", "0>12m3s>1", "bad_exchange", 0, 0,
          "seat 0 passes 12m3s to seat 1: the tiles passed are of one suit "
          "(mechanics.exchange_one_suit)",
          "座位0把 12万3条 换给座位1（换三张）：换出的牌须是同一门（mechanics.exchange_one_suit）",
          deal=EXCHANGE_DEAL, overrides=EXCHANGE),
    Fault("exchange_two_tiles", "sichuan", "0>12m>1", "bad_exchange", 0, 0,
          "seat 0 passes 12m to seat 1: 2 tiles, each seat passes 3",
          "座位0把 12万 换给座位1（换三张）：换出 2 张，每家应换 3 张",
          deal=EXCHANGE_DEAL, overrides=EXCHANGE),
    Fault("exchange_to_itself", "sichuan", "0>123m>0", "bad_exchange", 0, 0,
          "seat 0 passes 123m to seat 0: a seat passes to another seat, not to itself",
          "座位0把 123万 换给座位0（换三张）：只能换给别家，不能换给自己",
          deal=EXCHANGE_DEAL, overrides=EXCHANGE),
    Fault("exchange_not_held", "sichuan", "0>777m>1", "bad_exchange", 0, 0,
          "seat 0 passes 777m to seat 1 but seat 0 holds 123346689m9p3999s (the tiles "
          "passed come from the dealt hand)",
          "座位0把 777万 换给座位1（换三张），但座位0手牌 123346689万9筒3999条"
          "（换出的牌须来自配牌）",
          deal=EXCHANGE_DEAL, overrides=EXCHANGE),
    Fault("exchange_twice", "sichuan", "0>123m>1 0>999s>1", "bad_exchange", 1, 0,
          "seat 0 passes 999s to seat 1 but seat 0 already passed 123m at event 0",
          "座位0把 999条 换给座位1（换三张），但座位0已在事件0换出 123万",
          deal=EXCHANGE_DEAL, overrides=EXCHANGE),
    Fault("exchange_received_twice", "sichuan", "0>123m>2 1>789p>2", "bad_exchange", 1, 1,
          "seat 1 passes 789p to seat 2 but seat 2 already receives from seat 0 (event 0); "
          "each seat receives once",
          "座位1把 789筒 换给座位2（换三张），但座位2已经收到座位0换来的牌（事件0）；"
          "每家只收一次",
          deal=EXCHANGE_DEAL, overrides={"mechanics.exchange": 3}),
    Fault("exchange_other_way", "sichuan", "0>123m>2 1>789p>0", "bad_exchange", 1, 1,
          "seat 1 passes 789p to seat 0 but seat 0 passed to seat 2 (event 0): every seat "
          "passes the same way",
          "座位1把 789筒 换给座位0（换三张），但座位0换给了座位2（事件0）：各家须朝同一方向换",
          deal=EXCHANGE_DEAL, overrides={"mechanics.exchange": 3}),
    Fault("exchange_after_it_was_over", "sichuan", f"{NEXT} 0>123m>1", "bad_exchange", 4, 0,
          "seat 0 passes 123m to seat 1 after the exchange was over (the suits are being "
          "declared (定缺), seats 0, 1, 2, 3 have not declared)",
          "座位0把 123万 换给座位1（换三张），但换三张已经结束"
          "（正在定缺，座位0、1、2、3还没有定缺）",
          deal=EXCHANGE_DEAL, overrides=EXCHANGE),
    Fault("declare_during_exchange", "sichuan", "0>123m>1 0=p", "bad_exchange", 1, 0,
          "seat 0 declares dots (p) while the exchange (换三张) is under way, seats 1, 2, 3 "
          "have not passed; every seat passes its tiles and declares its suit before the "
          "dealer's first discard",
          "座位0定缺筒，但正在换三张，座位1、2、3还没有换出；各家须在庄家第一次打牌前换完牌、定好缺",
          deal=EXCHANGE_DEAL, overrides=EXCHANGE),
    Fault("discard_during_exchange", "sichuan", "0>123m>1 0-9p", "bad_exchange", 1, 0,
          "seat 0 discards 9p while the exchange (换三张) is under way, seats 1, 2, 3 have not "
          "passed; every seat passes its tiles and declares its suit before the dealer's "
          "first discard",
          "座位0打出9筒，但正在换三张，座位1、2、3还没有换出；各家须在庄家第一次打牌前换完牌、定好缺",
          deal=EXCHANGE_DEAL, overrides=EXCHANGE),
    Fault("log_ends_exchanging", "sichuan", "0>123m>1", "bad_exchange", None, None,
          "the log ends while the exchange (换三张) is under way, seats 1, 2, 3 have not passed",
          "记录在正在换三张，座位1、2、3还没有换出时就结束了",
          deal=EXCHANGE_DEAL, overrides=EXCHANGE),
    # ---------------------------------------------------------------- hand to hand
    Fault("carry_recorded", "sichuan", [_recorded(OPENING, 1, {"draw_multiplier": 2})],
          "carry_mismatch", None, None,
          "the hand records carry {'draw_multiplier': 2} but its ruleset carries no state "
          "from hand to hand (mechanics.carry off)",
          "本手记录了带分 {'draw_multiplier': 2}，但其规则不在各手之间带分"
          "（mechanics.carry 关闭）"),
)
"""Each fault: one finding (or the first of its hand), its English and its Chinese."""

BY_NAME = {f.name: f for f in FAULTS}


def write_fixtures() -> None:
    FIXTURES.mkdir(exist_ok=True)
    for fault in FAULTS:
        fault.path.write_text(json.dumps(fault.log(), ensure_ascii=False, indent=1) + "\n",
                              encoding="utf-8")


def _zhuoji(*args: str, strict: bool = True) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("LANG", "LC_ALL", "LC_MESSAGES")}
    env["ZHUOJI_STRICT_GLOSSARY"] = "1" if strict else "0"
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), *[p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]])
    return subprocess.run(
        [sys.executable, "-c", "from zhuoji.flows.cli.main import main; main()", *args],
        capture_output=True, text=True, encoding="utf-8", env=env, check=False, timeout=300)


def _findings(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [v for hand in lines for v in hand["violations"]]


_ENGLISH = re.compile(r"[A-Za-z]{3,}(?:[ ,;:'()-]+[A-Za-z]{2,})+")
"""Two English words in a row: a sentence left in English (settings keys, code names and
the log's own names, its game id in a hand's heading, taken out first)."""
_NAMES = re.compile(r"(?:mechanics|ready|fan)\.[a-z_]+(?: = [a-z]+)?|[a-z]+_[a-z_]+|"
                    r"'[^']*'|sichuan[a-z-]*|^== \S+|tests/[\w/.-]+")


def _english_left(text: str) -> list[str]:
    return _ENGLISH.findall(_NAMES.sub(" ", text))


def test_the_fixtures_are_what_the_script_writes() -> None:
    written = sorted(p.name for p in FIXTURES.glob("*.json"))
    assert written == sorted(f.path.name for f in FAULTS)
    for fault in FAULTS:
        on_disk = json.loads(fault.path.read_text(encoding="utf-8"))
        assert on_disk == fault.log(), (
            f"{fault.path} differs: run python -m tests.rules.test_mechanic_messages_zh --write")


def _json(fault: Fault, lang: str) -> list[dict[str, Any]]:
    """The audit's JSON lines (one object a hand)."""
    done = _zhuoji("audit", str(fault.path), "--json", "--lang", lang)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_each_fault_in_english_as_before(name: str) -> None:
    """The English of each message is the text the core wrote before it had a template."""
    fault = BY_NAME[name]
    first = _findings(_json(fault, "en"))[0]
    assert (first["code"], first["event_index"], first["seat"]) == (
        fault.code, fault.event, fault.seat)
    assert first["message"] == fault.english


@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_each_fault_in_chinese_under_the_strict_glossary(name: str) -> None:
    """``--lang zh`` with ``ZHUOJI_STRICT_GLOSSARY=1``: the finding in Chinese, no
    traceback, in the JSON and in the text report, and no English sentence left."""
    fault = BY_NAME[name]
    first = _findings(_json(fault, "zh"))[0]
    assert (first["code"], first["message"]) == (fault.code, fault.english)
    assert first["message_zh"] == fault.chinese
    assert not _english_left(first["message_zh"]), first["message_zh"]
    text = _zhuoji("audit", str(fault.path), "--lang", "zh")
    assert text.returncode == 1, text.stdout + text.stderr
    assert "Traceback" not in text.stderr and text.stderr == "", text.stderr
    assert fault.chinese in text.stdout
    left = [line for line in text.stdout.splitlines() if _english_left(line)]
    assert left == [], left


def test_winners_stay_without_play_after_win_in_chinese(tmp_path: Path) -> None:
    """A log whose overrides turn 血流成河 on in the base game: the one-line error (exit
    status 2) in English as before, in Chinese under the strict glossary."""
    log = BY_NAME["chow"].log()
    log["rule_overrides"] = {"mechanics.winners_stay": True}
    path = tmp_path / "xueliu.json"
    path.write_text(json.dumps(log, ensure_ascii=False), encoding="utf-8")
    english = _zhuoji("audit", str(path), "--lang", "en")
    assert english.returncode == 2, english.stdout + english.stderr
    [line] = [x for x in (english.stdout + english.stderr).splitlines() if x.startswith("error:")]
    assert line.startswith(f"error: {path}, game 'fault-chow': ruleset 'sichuan': bad override: "
                           "setting 'mechanics' = ")
    assert line.endswith(": Value error, mechanics.winners_stay (血流成河) needs "
                         "mechanics.play_after_win: a winner stays only where play goes on after "
                         "a win")
    chinese = _zhuoji("audit", str(path), "--lang", "zh")
    assert chinese.returncode == 2, chinese.stdout + chinese.stderr
    assert "Traceback" not in chinese.stderr
    [line] = [x for x in (chinese.stdout + chinese.stderr).splitlines() if x.startswith("错误：")]
    assert line.startswith(f"错误：{path}，牌局 'fault-chow'：规则 'sichuan'：覆盖无效：设置 "
                           "'mechanics' = ")
    assert line.endswith("：mechanics.winners_stay（血流成河）须同时开启 "
                         "mechanics.play_after_win：只有胡牌后继续打的玩法，胡牌者才留在本手中")
    shown = _zhuoji("rules", "show", "sichuan", "--set", "mechanics.winners_stay=true",
                    "--lang", "zh")
    assert shown.returncode == 2 and "Traceback" not in shown.stderr
    assert "须同时开启 mechanics.play_after_win" in shown.stderr


UNREACHED = (
    # a declaration once play began (a seat that has not declared cannot have played)
    (Message("{e:event}{r:after_event}", Message("seat {seat} declares {s:suit}", 1,
                                                 Message("bamboo (s)")),
             Message(" after play began ({phase}); the suits are declared before the dealer's "
                     "first discard", Message("seat {seat} must discard", 0))),
     "seat 1 declares bamboo (s) after play began (seat 0 must discard); the suits are "
     "declared before the dealer's first discard",
     "座位1定缺条，但已经开始打牌（应由座位0打牌）；须在庄家第一次打牌前定缺"),
    # a hand lacking two suits (a one-suit hand) declaring the third
    (_after(DeclareSuit(2, Suit.DOTS), " but holds no {s:suit} or {s2:suit}: a hand lacking a "
            f"suit declares one it lacks (seed 003: {_QUOTE}); {{held}}", Message("characters (m)"),
            Message("bamboo (s)"), Message("seat {seat} holds {t:tiles}", 2, "1112345678999p")),
     "seat 2 declares dots (p) but holds no characters (m) or bamboo (s): a hand lacking a "
     f"suit declares one it lacks (seed 003: {_QUOTE}); seat 2 holds 1112345678999p",
     f"座位2定缺筒，但手中没有万也没有条：须定缺手中没有的一门（原文：{_QUOTE}）；"
     "座位2手牌 1112345678999筒"),
    # the log's seats are checked before the exchange (a seat past the table, the seat
    # across at a table of three)
    (_after(Exchange(0, (Tile.M1, Tile.M2, Tile.M3), 5),
            ": a seat passes to another seat, not to seat {seat}, not at a {n}-player table",
            5, 4),
     "seat 0 passes 123m to seat 5: a seat passes to another seat, not to seat 5, not at a "
     "4-player table",
     "座位0把 123万 换给座位5（换三张）：只能换给别家，4人牌桌没有座位5"),
    (_after(Exchange(0, (Tile.M1, Tile.M2, Tile.M3), 1),
            ": ruleset {r:ruleset} passes to the seat across (mechanics.exchange_to = across), "
            "and a {n}-player table has none", "'sichuan'", 3),
     "seat 0 passes 123m to seat 1: ruleset 'sichuan' passes to the seat across "
     "(mechanics.exchange_to = across), and a 3-player table has none",
     "座位0把 123万 换给座位1（换三张）：规则 'sichuan' 换给对家（mechanics.exchange_to = "
     "across），而3人牌桌没有对家"),
    # the state carried from hand to hand (a family that carries some)
    (Message("hand {n} follows hand {p:n} in the game, hand {q:n} expected; the state carried "
             "from hand to hand is computed in log order", 3, 1, 2),
     "hand 3 follows hand 1 in the game, hand 2 expected; the state carried from hand to "
     "hand is computed in log order",
     "本局中第3手接在第1手之后，应为第2手；各手之间的带分按记录顺序计算"),
    (Message("the hand records carry {w:external} = {n}, which the family does not carry (it "
             "carries {k:external*, })", "bogus", 2, ["dealer_streak", "draw_multiplier"]),
     "the hand records carry bogus = 2, which the family does not carry (it carries "
     "dealer_streak, draw_multiplier)",
     "本手记录了带分 bogus = 2，而该玩法不带这一项（它带的是 dealer_streak、draw_multiplier）"),
    (Message("the hand records carry {w:external} = {n}, which the family does not carry (it "
             "carries nothing)", "bogus", 2),
     "the hand records carry bogus = 2, which the family does not carry (it carries nothing)",
     "本手记录了带分 bogus = 2，而该玩法不带这一项（它什么也不带）"),
    (Message("the hand records carry {w:external} = {n}, the earlier hands of the game give "
             "{m:n}", "draw_multiplier", 2, 3),
     "the hand records carry draw_multiplier = 2, the earlier hands of the game give 3",
     "本手记录了带分 draw_multiplier = 2，按本局之前各手应为 3"),
    # a tile outside the family's set (the log's reader refuses it first)
    (Message("{w:dealpart} holds {tile}, which is not one of the {n} tiles ruleset "
             "{r:ruleset} plays with", Message("seat {seat}'s deal", 1), "1z", 108,
             "'sichuan'"),
     "seat 1's deal holds 1z, which is not one of the 108 tiles ruleset 'sichuan' plays with",
     "座位1的配牌中有东，不是规则 'sichuan' 所用的 108 张牌之一"),
    (Message("{w:dealpart} holds {t:n}, which is not one of the {n} tiles ruleset "
             "{r:ruleset} plays with", Message("the wall"), 99, 108, "'sichuan'"),
     "the wall holds 99, which is not one of the 108 tiles ruleset 'sichuan' plays with",
     "牌墙中有牌 99，不是规则 'sichuan' 所用的 108 张牌之一"),
)
"""Messages of the same code that no log of a shipped family reaches (an earlier check,
or the log's reader, refuses first), made as the core makes them: their English, and
their Chinese under the strict glossary."""


@pytest.mark.parametrize(("message", "english", "chinese"), UNREACHED)
def test_the_messages_no_log_reaches(message: Message, english: str, chinese: str,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(STRICT_VARIABLE, "1")
    assert message == english
    assert render(message, "zh") == chinese


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        write_fixtures()
    else:
        sys.exit("usage: python -m tests.rules.test_mechanic_messages_zh --write")
