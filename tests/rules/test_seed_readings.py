"""Rules read from the seeds (issue 21), each through the public interface: a legal log is
written to a file and ``zhuoji audit --json`` settles it. Each test quotes the seed's words
the rule follows (docs/rules/README.md, "Decisions")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from tests.support.builders import make_hand
from zhuoji.flows.audit.bridge import game_from_records
from zhuoji.flows.cli.main import app
from zhuoji.parsers.write import write_games
from zhuoji.rules.events import HandRecord
from zhuoji.rules.presets import load_preset

runner = CliRunner()

DEALER_HAND = "2469p2468s3579s9s7m"
PLAIN = "123m456m23p99p345p"


def audit(tmp_path: Path, records: list[HandRecord], ruleset: str,
          overrides: dict[str, Any] | None = None) -> tuple[int, list[dict[str, Any]]]:
    """``zhuoji audit --json`` of one game of ``records``: the exit code and the rows."""
    path = tmp_path / f"{ruleset}.json"
    game = game_from_records(records, game_id="g1", ruleset=ruleset, rule_overrides=overrides)
    write_games(path, [game])
    result = runner.invoke(app, ["audit", "--json", str(path)])
    rows = [json.loads(line) for line in result.output.splitlines()]
    return result.exit_code, rows


def hand(deal: dict[int, str], events: str, ruleset: str, *, front: str = "",
         back: str = "", hand_no: int = 1) -> HandRecord:
    rs = load_preset(ruleset)
    return make_hand(deal, events, front=front, back=back, n_players=rs.players,
                     wildcards=rs.wildcards, hand_no=hand_no)


def items(row: dict[str, Any], reason: str) -> list[tuple[int, int, int]]:
    """(payer, payee, amount) of the row's ledger items of ``reason``."""
    return [(i["payer"], i["payee"], i["amount"]) for i in row["ledger"] if i["reason"] == reason]


def codes(row: dict[str, Any]) -> list[str]:
    return [v["code"] for v in row["violations"]]


# --------------------------------------------------------------------------------------
# zunyi: a robbed kong pays the hand + 3
# --------------------------------------------------------------------------------------

# seat 2 pongs 5m, adds the fourth; seat 1 robs it with a plain hand
ROBBED = ({0: "5m7m2469p2468s3567s", 1: "123p456p99p34m789m", 2: "55m2468s1359p79s1m"},
          "0-5m 2P5m<0 2-1m 3+3s 3-3s 0+6s 0-6s 1+1s 1-1s 2+5m 2A5m 1H5m<2 F8s",
          "3s6s1s5m8s")


def test_zunyi_robbed_kong_is_the_hand_plus_three(tmp_path: Path) -> None:
    # 004 遵义: 「搶杠可視為准備杠牌的那個玩家點炮，和牌家獲得的分為所和牌型的分值加3」
    deal, events, front = ROBBED
    code, (row,) = audit(tmp_path, [hand(deal, events, "zunyi", front=front)], "zunyi")
    assert code == 0, row["violations"]
    assert items(row, "hand") == [(2, 1, 2)]  # 平胡（2分）
    assert items(row, "robbed_kong") == [(2, 1, 3)]
    assert items(row, "self_draw") == []  # not 自摸 +1 on top
    assert items(row, "added_kong") == []
    assert row["winners"][0]["value"] == 5


# --------------------------------------------------------------------------------------
# guiyang-10: the flip is the only chicken
# --------------------------------------------------------------------------------------

# seat 1 self-draws 4p holding 2 x 1s; the flip decides which tile is the chicken
CHICKENS = {0: DEALER_HAND, 1: "11s777p888p23p567s"}
CHICKEN_EVENTS = "0-9s 1+1m 1-1m 2+3s 2-3s 3+5s 3-5s 0+6s 0-6s 1+4p 1H4p F{flip}"


def test_guiyang_10_pays_only_the_flipped_chicken(tmp_path: Path) -> None:
    # 000 贵州麻将规则: 「以下介绍捉鸡川麻将关于"捉鸡"、"包牌"和"一炮三响"的特殊规则」
    # 「翻到九条则一条为鸡…玩家手中每有1张鸡，则其他3个玩家给该玩家10番的钱」
    records = [
        hand(CHICKENS, CHICKEN_EVENTS.format(flip=flip), "guiyang-10",
             front=f"1m3s5s6s4p{flip}", hand_no=no)
        for no, flip in enumerate(("4s", "9s"), start=1)
    ]
    code, (flip_4s, flip_9s) = audit(tmp_path, records, "guiyang-10")
    assert code == 0
    # flip 4s: 5s is the chicken; seat 1's two 1s are no chickens (no 幺鸡)
    assert items(flip_4s, "chicken") == [(p, 1, 10) for p in (2, 3, 0)]
    assert all("5s flipped" in i["detail"] for i in flip_4s["ledger"]
               if i["reason"] == "chicken")
    # flip 9s: 1s is the chicken, 10 each like any flipped tile (no 金鸡 double)
    assert items(flip_9s, "chicken") == [(p, 1, 20) for p in (2, 3, 0)]
    assert all("1s flipped" in i["detail"] for i in flip_9s["ledger"]
               if i["reason"] == "chicken")


def test_guiyang_10_has_no_charging_or_responsibility_chicken(tmp_path: Path) -> None:
    charging = hand({0: DEALER_HAND, 1: PLAIN},
                    "0-9s 1+1s 1-1s 2+3s 2-3s 3+5s 3-5s 0+6s 0-6s 1+4p 1H4p F8s", "guiyang-10",
                    front="1s3s5s6s4p8s")
    ponged = hand({0: "1s2469p2468s3579s7m", 1: "11s234s567s23p99p9m"},
                  "0-1s 1P1s<0 1-9m 2+3s 2-3s 3+5s 3-5s 0+6s 0-6s 1+4p 1H4p F8s", "guiyang-10",
                  front="3s5s6s4p8s", hand_no=2)
    code, rows = audit(tmp_path, [charging, ponged], "guiyang-10")
    assert len(rows) == 2
    assert code == 0
    for row in rows:
        assert items(row, "charging_chicken") == []
        assert items(row, "responsibility_chicken") == []
        assert items(row, "chicken") == []  # the flip 8s names 9s, which nobody holds


def test_guiyang_10_chicken_concealed_kong_is_sixty_when_flipped(tmp_path: Path) -> None:
    # 「如果某玩家手中有鸡的闷豆，则其他3个玩家给该玩家60番的钱」: the flip 9s names 1s
    record = hand({0: DEALER_HAND, 1: "1111s123p456p99p2p"}, "0-9s 1+3p 1C1s 1+4p 1H4p F9s",
                  "guiyang-10", front="3p9s", back="4p")
    code, (row,) = audit(tmp_path, [record], "guiyang-10")
    assert code == 0
    assert items(row, "chicken") == [(p, 1, 60) for p in (2, 3, 0)]
    assert items(row, "concealed_kong") == [(p, 1, 20) for p in (2, 3, 0)]


# --------------------------------------------------------------------------------------
# guiyang-dou3: 不可先碰后杠
# --------------------------------------------------------------------------------------

# seat 1 holds three 5m and pongs the dealer's 5m (it could have konged it), then adds its
# fourth 5m at its next turn and wins on the replacement
PONG_THEN_KONG = ({0: "5m7m2469p2468s3567s", 1: "555m123p456p99p2m9s"},
                  "0-5m 1P5m<0 1-9s 2+8s 2-8s 3+3s 3-3s 0+6s 0-6s 1+3m 1A5m 1+4m 1H4m F7s",
                  "8s3s6s3m7s", "4m")


def test_dou3_kong_after_a_pong_holding_the_fourth_scores_nothing(tmp_path: Path) -> None:
    # 000 来游戏: 「C.点豆（直杠）…不可先碰后杠，有杠不杠，再杠的时候就不算豆（杠钱），只算通行证」
    deal, events, front, back = PONG_THEN_KONG
    code, (row,) = audit(tmp_path, [hand(deal, events, "guiyang-dou3", front=front, back=back)],
                         "guiyang-dou3")
    assert code == 0, row["violations"]
    assert items(row, "added_kong") == []
    assert items(row, "kong_bloom") == [(p, 1, 1) for p in (2, 3, 0)]  # still 杠上开花


def test_pong_then_kong_scores_where_the_setting_is_off(tmp_path: Path) -> None:
    deal, events, front, back = PONG_THEN_KONG
    record = hand(deal, events, "guiyang", front=front, back=back)
    code, (row,) = audit(tmp_path, [record], "guiyang")
    assert code == 0
    assert items(row, "added_kong") == [(p, 1, 3) for p in (2, 3, 0)]
    # the same setting as a log's override
    code, (row,) = audit(tmp_path, [record], "guiyang",
                         {"kong_pong_then_kong_delayed": True})
    assert code == 0
    assert items(row, "added_kong") == []


# --------------------------------------------------------------------------------------
# 过水不胡: penalty, finding or none
# --------------------------------------------------------------------------------------

# seat 1 (all pungs, waits 9p/2m) lets seat 2's 9p pass, then wins on seat 3's 2m before
# drawing again
MISSED = ({0: DEALER_HAND, 1: "111m333m555p99p22m"},
          "0-9s 1+7s 1-7s 2+9p 2-9p 3+2m 3-2m 1H2m<3 F8s", "7s9p2m8s")


def test_missed_win_false_means_no_finding(tmp_path: Path) -> None:
    deal, events, front = MISSED
    record = hand(deal, events, "guiyang-classic", front=front)
    # guiyang-classic's source has no 包牌: the win is paid and reported (family default)
    code, (row,) = audit(tmp_path, [record], "guiyang-classic")
    assert code == 1 and codes(row) == ["missed_win"]
    assert items(row, "hand") == [(3, 1, 5)]
    # a table without the 过水 rule: nothing reported, the audit is clean
    code, (row,) = audit(tmp_path, [record], "guiyang-classic", {"penalty_missed_win": False})
    assert code == 0 and codes(row) == []
    assert items(row, "hand") == [(3, 1, 5)]
    # 002 「…則要根據自己胡牌番數付3家的錢」: the winner pays instead
    code, (row,) = audit(tmp_path, [record], "guiyang-classic", {"penalty_missed_win": True})
    assert codes(row) == ["missed_win"]
    assert items(row, "hand") == [(1, p, 5) for p in (2, 3, 0)]
    assert row["winners"][0]["penalty"] is True


# --------------------------------------------------------------------------------------
# an-majiang: 包鸡 charges discards, 责任鸡 is a pong
# --------------------------------------------------------------------------------------

# the dealer's first 1s is ponged by seat 2, who is not ready at the end; seat 1 wins
PONGED_BY_UNREADY = ({0: "1s2469p2468s3579s7m", 1: PLAIN, 2: "11s2468m1357p88s9s"},
                     "0-1s 2P1s<0 2-9s 3+3s 3-3s 0+6s 0-6s 1+4p 1H4p F8s", "3s6s4p8s")
# the dealer's first 1s is konged by seat 1, who wins on the replacement
KONGED_FIRST = ({0: "1s2469p2468s3579s7m", 1: "111s234s567s23p99p"},
                "0-1s 1E1s<0 1+4p 1H4p F8s", "8s", "4p")


def test_an_majiang_chicken_penalty_counts_discards_not_melds(tmp_path: Path) -> None:
    # 000 贵阳暗麻将: 「包鸡：游戏结束后，打出幺鸡和七筒且未叫牌的玩家给赢家和叫牌玩家包鸡」
    deal, events, front = PONGED_BY_UNREADY
    rows = {}
    for preset in ("an-majiang", "guiyang-app"):
        code, (rows[preset],) = audit(tmp_path, [hand(deal, events, preset, front=front)],
                                      preset)
        assert code == 0, rows[preset]["violations"]
    assert items(rows["an-majiang"], "chicken_penalty") == []
    # 001 「已亮出（包括打出、碰、杠）的幺雞、烏骨雞」: the pong's three 1s
    assert items(rows["guiyang-app"], "chicken_penalty") == [(2, 1, 3)]


def test_an_majiang_responsibility_chicken_is_a_pong_only(tmp_path: Path) -> None:
    # 000 贵阳暗麻将: 「若玩家打出的第一张幺鸡和七筒被其他玩家碰走，则此鸡称为"责任鸡"」
    deal, events, front, back = KONGED_FIRST
    rows = {}
    for preset in ("an-majiang", "guiyang-app"):
        code, (rows[preset],) = audit(
            tmp_path, [hand(deal, events, preset, front=front, back=back)], preset)
        assert code == 0, rows[preset]["violations"]
    assert items(rows["an-majiang"], "responsibility_chicken") == []
    assert items(rows["guiyang-app"], "responsibility_chicken") == [(0, 1, 2)]
    # a pong still makes one in an-majiang (responsibility 3)
    deal = {0: "1s2469p2468s3579s7m", 1: "11s234s567s23p99p9m"}
    record = hand(deal, "0-1s 1P1s<0 1-9m 2+3s 2-3s 3+5s 3-5s 0+6s 0-6s 1+4p 1H4p F8s",
                  "an-majiang", front="3s5s6s4p8s")
    code, (row,) = audit(tmp_path, [record], "an-majiang")
    assert code == 0
    assert items(row, "responsibility_chicken") == [(0, 1, 3)]


# --------------------------------------------------------------------------------------
# guiyang-1-5-10: 平和 1, 混 5, 清 10
# --------------------------------------------------------------------------------------

ONE_FIVE_TEN = {  # seat 1's waiting hand and its self-drawn tile -> the hand's value
    (PLAIN, "4p"): 1,  # 「平和就1番」
    ("111m333m555p99p22m", "2m"): 5,  # 大对子: 「混色和就5番」
    ("1122m3344p55p66m9m", "9m"): 5,  # 七对
    ("1111m33p44p55p66m9m", "9m"): 5,  # 龙七对
    ("123m456m789m55m23m", "4m"): 10,  # 「清一色就10番」
    ("111m333m555m99m22m", "2m"): 10,  # 清大对: a flush is 10 whatever its shape
    ("1111m2233m5577m9m", "9m"): 10,  # 青龙背
}


def test_one_five_ten_scale(tmp_path: Path) -> None:
    # 000 贵阳捉鸡麻将简介: 「现在流行一、五、十的打法…平和就1番…混色和就5番…清一色就10番」
    records = [
        hand({0: DEALER_HAND, 1: waiting},
             f"0-9s 1+1s 1-1s 2+3s 2-3s 3+5s 3-5s 0+6s 0-6s 1+{tile} 1H{tile} F8s",
             "guiyang-1-5-10", front=f"1s3s5s6s{tile}8s", hand_no=i)
        for i, (waiting, tile) in enumerate(ONE_FIVE_TEN, start=1)
    ]
    code, rows = audit(tmp_path, records, "guiyang-1-5-10")
    assert code == 0, [r["violations"] for r in rows]
    for row, value in zip(rows, ONE_FIVE_TEN.values(), strict=True):
        assert items(row, "hand") == [(p, 1, value) for p in (2, 3, 0)]
        assert items(row, "self_draw") == [(p, 1, 1) for p in (2, 3, 0)]


# --------------------------------------------------------------------------------------
# chickens as data: one 冲锋鸡 per hand, who pays, 责任鸡 on a not-ready discarder
# --------------------------------------------------------------------------------------

# seat 1 discards the first 1s and then the first 8p, both unclaimed, and wins
TWO_CHARGING = ({0: DEALER_HAND, 1: "123m456m23p99p345p"},
                "0-9s 1+1s 1-1s 2+3s 2-3s 3+5s 3-5s 0+6s 0-6s 1+8p 1-8p 2+7s 2-7s 3+6m 3-6m "
                "0+5s 0-5s 1+4p 1H4p F8s", "1s3s5s6s8p7s6m5s4p8s")


def test_guiyang_app_one_charging_chicken_per_hand(tmp_path: Path) -> None:
    # 001: 「沖鋒雞為每局打出的第一只幺雞或烏骨雞，沖幺雞+3倍，沖烏骨雞+6倍」
    deal, events, front = TWO_CHARGING
    record = hand(deal, events, "guiyang-app", front=front)
    code, (row,) = audit(tmp_path, [record], "guiyang-app")
    assert code == 0, row["violations"]
    assert items(row, "charging_chicken") == [(p, 1, 3) for p in (2, 3, 0)]  # the 1s only
    code, (row,) = audit(tmp_path, [record], "guiyang-app", {"chicken_charging_scope": "per_tile"})
    assert items(row, "charging_chicken") == [(p, 1, a) for a in (3, 6) for p in (2, 3, 0)]


def test_chickens_paid_only_by_players_not_ready(tmp_path: Path) -> None:
    # seat 1 wins holding 2 x 1s; seat 3 is ready (硬报) at the end, seats 0 and 2 are not
    record = hand({0: DEALER_HAND, 1: "11s777p888p23p567s", 3: "123s456s789s22s66m"},
                  "3R 0-9s 1+1m 1-1m 2+3s 2-3s 3+5p 3-5p 0+6s 0-6s 1+4p 1H4p F2m", "guiyang",
                  front="1m3s5p6s4p2m")
    code, (every,) = audit(tmp_path, [record], "guiyang")
    assert code == 0, every["violations"]
    # seat 1's two 1s from every other player, seat 3's one 1s likewise
    assert items(every, "chicken") == [
        (2, 1, 2), (3, 1, 2), (0, 1, 2), (0, 3, 1), (1, 3, 1), (2, 3, 1)]
    code, (row,) = audit(tmp_path, [record], "guiyang", {"chicken_payers": "not_ready"})
    assert items(row, "chicken") == [(2, 1, 2), (0, 1, 2), (0, 3, 1), (2, 3, 1)]
    # seat 1 no longer gets 2 from seat 3 nor pays it 1
    assert sum(row["deltas"]) == 0 and row["deltas"][1] - every["deltas"][1] == -1


def test_responsibility_chicken_only_on_a_not_ready_discarder(tmp_path: Path) -> None:
    # the dealer discards the first 1s, seat 1 pongs it and wins; the dealer is ready (it
    # declared on its dealt hand, waiting on 1p/4p)
    deal = {0: "1s123m456m789m55m23p", 1: "11s234s567s23p99p9m"}
    events = "0R 0-1s 1P1s<0 1-9m 2+3s 2-3s 3+5s 3-5s 0+6s 0-6s 1+4p 1H4p F8s"
    record = hand(deal, events, "guiyang", front="3s5s6s4p8s")
    code, (row,) = audit(tmp_path, [record], "guiyang")
    assert code == 0, row["violations"]
    assert items(row, "responsibility_chicken") == [(0, 1, 1)]
    code, (row,) = audit(tmp_path, [record], "guiyang",
                         {"chicken_responsibility_unready_discarder": True})
    assert items(row, "responsibility_chicken") == []


# --------------------------------------------------------------------------------------
# 杀报: the pass and the payment are two settings
# --------------------------------------------------------------------------------------

# seat 2 declared ready on its dealt hand (硬报); its discard 4p deals seat 1's plain win
KILL_READY = ({0: DEALER_HAND, 1: PLAIN, 2: "123s456s789s22s66m"},
              "2R 0-9s 1+1m 1-1m 2+4p 2-4p 1H4p<2 F1p", "1m4p1p")


def test_kill_ready_pass_without_its_payment(tmp_path: Path) -> None:
    # 002: anyone may win on a 报听 player's discard (杀报), and that player pays 报听 10
    deal, events, front = KILL_READY
    record = hand(deal, events, "guiyang", front=front)
    code, (row,) = audit(tmp_path, [record], "guiyang")
    assert code == 0, row["violations"]
    assert items(row, "hand") == [(2, 1, 1)] and items(row, "kill_ready") == [(2, 1, 10)]
    # the pass alone: the plain win needs no kong, and nothing more is paid
    code, (row,) = audit(tmp_path, [record], "guiyang", {"ready_kill_ready_payment": False})
    assert code == 0, row["violations"]
    assert items(row, "hand") == [(2, 1, 1)] and items(row, "kill_ready") == []
    # no 杀报 at all: the plain win without a pass is illegal
    code, (row,) = audit(tmp_path, [record], "guiyang", {"ready_kill_ready": False})
    assert code == 1 and codes(row) == ["no_pass"] and row["deltas"] is None


# --------------------------------------------------------------------------------------
# 天胡 / 地胡 apart from the other situational values
# --------------------------------------------------------------------------------------


def test_heavenly_competes_while_kong_bloom_adds(tmp_path: Path) -> None:
    # the dealer wins on its dealt hand (天和 10 in zunyi); seat 1 wins on a kong replacement
    heavenly = hand({0: "123m456m23p99p567p4p"}, "0H4p F8s", "zunyi", front="8s")
    bloom = hand({0: DEALER_HAND, 1: "5555m123p456p99p2m"}, "0-9s 1+3m 1C5m 1+4m 1H4m F7s",
                 "zunyi", front="3m7s", back="4m", hand_no=2)
    # zunyi: every situational value is a pattern (「天和…（10分）」「杠上花（10分）」)
    code, (h, b) = audit(tmp_path, [heavenly, bloom], "zunyi")
    assert code == 0, (h["violations"], b["violations"])
    assert items(h, "hand") == [(p, 0, 10) for p in (1, 2, 3)]
    assert items(b, "hand") == [(p, 1, 10) for p in (2, 3, 0)] and items(b, "kong_bloom") == []
    # a table where 天胡 competes with the pattern and 杠上花 adds to it
    overrides = {"bonus_mode": "add", "bonus_first_turn_mode": "pattern"}
    code, (h, b) = audit(tmp_path, [heavenly, bloom], "zunyi", overrides)
    assert code == 0
    assert items(h, "hand") == [(p, 0, 10) for p in (1, 2, 3)]
    assert items(b, "hand") == [(p, 1, 2) for p in (2, 3, 0)]
    assert items(b, "kong_bloom") == [(p, 1, 10) for p in (2, 3, 0)]
    # and the other way round: 天胡 added to the pattern, 杠上花 competing
    overrides = {"bonus_mode": "pattern", "bonus_first_turn_mode": "add"}
    code, (h, b) = audit(tmp_path, [heavenly, bloom], "zunyi", overrides)
    assert code == 0
    assert items(h, "hand") == [(p, 0, 12) for p in (1, 2, 3)]  # 平胡 2 + 天和 10
    assert items(b, "hand") == [(p, 1, 10) for p in (2, 3, 0)] and items(b, "kong_bloom") == []


def test_no_kong_after_declaring_ready(tmp_path: Path) -> None:
    # seat 1 declares ready on its dealt hand (waits 1m/4m), kongs the dealer's 5m, which
    # leaves its waits as they were, and wins on the replacement
    record = hand({0: "5m2469p2468s3579s9s", 1: "555m123p456p99p2m3m"},
                  "1R 0-5m 1E5m<0 1+4m 1H4m F7s", "guiyang", front="7s", back="4m")
    code, (row,) = audit(tmp_path, [record], "guiyang")
    assert code == 0, row["violations"]
    assert items(row, "exposed_kong") == [(0, 1, 1)]
    # a table with no kong at all after 报听: the kong is a fatal frozen_hand
    code, (row,) = audit(tmp_path, [record], "guiyang", {"ready_kong_after_ready": False})
    assert code == 1 and codes(row) == ["frozen_hand"] and row["deltas"] is None
    assert row["violations"][0]["event_index"] == 2
