"""The Guizhou variants no seed states (issue 21, house rules) and the four-player
「贵阳麻将(1)」 preset, each through the public interface: a legal log is written to a file
and ``zhuoji audit --json`` settles it, once with the preset and once with the setting
overridden (docs/rules/README.md, decisions 37-44). Every setting's default keeps the
preset's results."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.rules.test_seed_readings import DEALER_HAND, PLAIN, audit, codes, hand, items
from zhuoji.rules.events import RecordedResult
from zhuoji.rules.presets import load_preset
from zhuoji.rules.settings import RulesetError, apply_overrides

# --------------------------------------------------------------------------------------
# 热炮 and 抢杠 as multipliers
# --------------------------------------------------------------------------------------

# seat 1 makes a concealed kong of 5m, discards its replacement 7s, and seat 2 wins on it
HOT = ({0: DEALER_HAND, 1: "5555m123p456p99p2m", 2: "123m678m789m22s56s"},
       "0-9s 1+3m 1C5m 1+7s 1-7s 2H7s<1 F8s", "3m8s", "7s")


def test_hot_discard_multiplier_in_place_of_the_kong_value(tmp_path: Path) -> None:
    deal, events, front, back = HOT
    record = hand(deal, events, "guiyang-10", front=front, back=back)
    # guiyang-10: 「热炮…闷豆60番」, added to the plain hand (平胡 10)
    code, (row,) = audit(tmp_path, [record], "guiyang-10")
    assert code == 0, row["violations"]
    assert items(row, "hand") == [(1, 2, 10)] and items(row, "hot_discard") == [(1, 2, 60)]
    assert items(row, "concealed_kong") == []
    # a table paying 热炮 double: the win once more, the kong just made still void
    code, (row,) = audit(tmp_path, [record], "guiyang-10", {"hot_discard_multiplier": 2})
    assert code == 0, row["violations"]
    assert items(row, "hand") == [(1, 2, 10)] and items(row, "hot_discard") == [(1, 2, 10)]
    assert items(row, "concealed_kong") == []
    assert row["winners"][0]["value"] == 20
    assert "x 2" in next(i["detail"] for i in row["ledger"] if i["reason"] == "hot_discard")


# seat 2 pongs 5m, adds the fourth; seat 1 robs it with a plain hand (as in zunyi's test)
ROBBED = ({0: "5m7m2469p2468s3567s", 1: "123p456p99p34m789m", 2: "55m2468s1359p79s1m"},
          "0-5m 2P5m<0 2-1m 3+3s 3-3s 0+6s 0-6s 1+1s 1-1s 2+5m 2A5m 1H5m<2 F8s",
          "3s6s1s5m8s")


def test_robbed_kong_multiplier_paid_by_the_robbed_player_alone(tmp_path: Path) -> None:
    deal, events, front = ROBBED
    record = hand(deal, events, "guiyang", front=front)
    # guiyang: 抢杠 valued as 清一色 (10), paid by the robbed player
    code, (row,) = audit(tmp_path, [record], "guiyang")
    assert code == 0, row["violations"]
    assert items(row, "hand") == [(2, 1, 10)] and items(row, "robbed_kong") == []
    code, (row,) = audit(tmp_path, [record], "guiyang",
                         {"robbed_kong_valued_as": "pattern", "robbed_kong_multiplier": 4})
    assert code == 0, row["violations"]
    assert items(row, "hand") == [(2, 1, 1)] and items(row, "robbed_kong") == [(2, 1, 3)]
    assert [p for p, _e, _a in items(row, "hand") + items(row, "robbed_kong")] == [2, 2]


def test_robbed_kong_multiplier_excludes_paying_for_all() -> None:
    # guiyang-10 has 包三家 (「被抢杠者包3家的牌」): a multiplier there is refused, by name
    with pytest.raises(RulesetError, match=r"robbed_kong\.multiplier and "
                                           r"robbed_kong\.robbed_pays_for_all"):
        apply_overrides(load_preset("guiyang-10"), {"robbed_kong_multiplier": 4})


# --------------------------------------------------------------------------------------
# 倒赔: a not-ready kong owner pays back
# --------------------------------------------------------------------------------------

# seat 2 konges the dealer's 8m and is not ready at the end; seat 1 self-draws 4p
PAY_BACK = ({0: "2469p2468s3579s9s8m", 1: PLAIN, 2: "888m1m6m7m1s3s5s7p8p8p9s"},
            "0-8m 2E8m<0 2+4s 2-4s 3+5s 3-5s 0+6s 0-6s 1+4p 1H4p F8s", "5s6s4p8s", "4s")


def test_unready_kong_owner_pays_back(tmp_path: Path) -> None:
    deal, events, front, back = PAY_BACK
    record = hand(deal, events, "guiyang", front=front, back=back)
    code, (row,) = audit(tmp_path, [record], "guiyang")
    assert code == 0, row["violations"]
    assert items(row, "exposed_kong") == []  # 双杀: seat 2 is not ready
    code, (row,) = audit(tmp_path, [record], "guiyang", {"kong_unready_pays_back": True})
    assert code == 0, row["violations"]
    assert items(row, "exposed_kong") == [(2, 1, 1)]  # back to the winner, the only collector
    assert all("倒赔" in i["detail"] for i in row["ledger"] if i["reason"] == "exposed_kong")


# --------------------------------------------------------------------------------------
# 开局跟: the three others follow the dealer's first discard
# --------------------------------------------------------------------------------------

FOLLOW = ({0: "2469p2468s3579s9s9m", 1: PLAIN},
          "0-9m 1+9m 1-9m 2+9m 2-9m 3+9m 3-9m 0+6s 0-6s 1+4p 1H4p F8s", "9m9m9m6s4p8s")


def test_follow_the_dealer_collects_from_the_dealer(tmp_path: Path) -> None:
    deal, events, front = FOLLOW
    record = hand(deal, events, "guiyang", front=front)
    code, (row,) = audit(tmp_path, [record], "guiyang")
    assert code == 0, row["violations"]
    assert items(row, "follow_dealer") == []
    code, (row,) = audit(tmp_path, [record], "guiyang", {"bonus_follow_dealer": 1})
    assert code == 0, row["violations"]
    assert items(row, "follow_dealer") == [(0, 1, 1), (0, 2, 1), (0, 3, 1)]
    # one seat breaking the chain: no 开局跟
    broken = hand(deal, "0-9m 1+9m 1-9m 2+9m 2-9m 3+5s 3-5s 0+6s 0-6s 1+4p 1H4p F8s", "guiyang",
                  front="9m9m5s6s4p8s")
    code, (row,) = audit(tmp_path, [broken], "guiyang", {"bonus_follow_dealer": 1})
    assert code == 0, row["violations"]
    assert items(row, "follow_dealer") == []


# --------------------------------------------------------------------------------------
# 包鸡 paid by every player not ready; a claimed first chicken passing on
# --------------------------------------------------------------------------------------

# seat 2 (never ready) discards the hand's first 1s, a 冲锋鸡 it pays for under 包鸡
PENALTY = ({0: DEALER_HAND, 1: PLAIN},
           "0-9s 1+3s 1-3s 2+1s 2-1s 3+5s 3-5s 0+6s 0-6s 1+4p 1H4p F8s", "3s1s5s6s4p8s")


def test_chicken_penalty_paid_by_every_player_not_ready(tmp_path: Path) -> None:
    deal, events, front = PENALTY
    record = hand(deal, events, "guiyang-app", front=front)
    # 001: 「未聽牌…的玩家…包雞」: the discarder pays its charging 1s (3) to the winner
    code, (row,) = audit(tmp_path, [record], "guiyang-app")
    assert code == 0, row["violations"]
    assert items(row, "chicken_penalty") == [(2, 1, 3)]
    code, (row,) = audit(tmp_path, [record], "guiyang-app",
                         {"chicken_penalty_payers": "every_not_ready"})
    assert code == 0, row["violations"]
    assert items(row, "chicken_penalty") == [(0, 1, 3), (2, 1, 3), (3, 1, 3)]


# the dealer's first 1s is ponged by seat 1, which wins
PONGED = ({0: "1s2469p2468s3579s7m", 1: "11s234s567s23p99p9m"},
          "0-1s 1P1s<0 1-9m 2+3s 2-3s 3+5s 3-5s 0+6s 0-6s 1+4p 1H4p F8s", "3s5s6s4p8s")
# the ready dealer's first 1s is ponged by seat 2, which is never ready; seat 1 self-draws
PONGED_UNREADY = ({0: "1s123m456m789m55m23p", 1: PLAIN, 2: "11s7m9m2s4s6s8s9p7p5s9s3s"},
                  "0R 0-1s 2P1s<0 2-9m 3+3s 3-3s 0+6s 0-6s 1+4p 1H4p F8s", "3s6s4p8s")


def test_claimed_first_chicken_passes_to_a_ready_claimer(tmp_path: Path) -> None:
    deal, events, front = PONGED
    record = hand(deal, events, "guiyang", front=front)
    code, (row,) = audit(tmp_path, [record], "guiyang")
    assert code == 0, row["violations"]
    assert items(row, "charging_chicken") == []  # 000 来游戏 「此时不再计算冲锋鸡」
    assert items(row, "chicken") == [(p, 1, 3) for p in (2, 3, 0)]
    code, (row,) = audit(tmp_path, [record], "guiyang",
                         {"chicken_charging_claimed": "passes_to_ready"})
    assert code == 0, row["violations"]
    assert items(row, "charging_chicken") == [(p, 1, 2) for p in (2, 3, 0)]
    assert items(row, "chicken") == [(p, 1, 2) for p in (2, 3, 0)]  # the other two 1s
    assert items(row, "responsibility_chicken") == [(0, 1, 1)]


def test_claimed_first_chicken_survives_a_claim_by_a_player_not_ready(tmp_path: Path) -> None:
    deal, events, front = PONGED_UNREADY
    record = hand(deal, events, "guiyang", front=front)
    code, (row,) = audit(tmp_path, [record], "guiyang")
    assert code == 0, row["violations"]
    assert items(row, "charging_chicken") == []
    code, (row,) = audit(tmp_path, [record], "guiyang",
                         {"chicken_charging_claimed": "passes_to_ready"})
    assert code == 0, row["violations"]
    assert items(row, "charging_chicken") == [(p, 0, 2) for p in (1, 2, 3)]
    assert items(row, "responsibility_chicken") == []  # its claimer collects nothing


# --------------------------------------------------------------------------------------
# the dealer: 轮流坐庄, and 「贵阳麻将(1)」 for four
# --------------------------------------------------------------------------------------


def test_dealer_rotating_every_hand_is_checked(tmp_path: Path) -> None:
    # 000 打贵阳麻将规章制度图表: 「第一局由庄家先出牌，之后每局轮流坐庄」
    deal, events, front, back = HOT
    record = hand(deal, events, "guiyang", front=front, back=back)
    code, (row,) = audit(tmp_path, [record], "guiyang")
    assert code == 0 and row["next_dealer"] == 2  # the winner deals
    rotate = {"dealer_rotation": "every_hand"}
    code, (row,) = audit(tmp_path, [record], "guiyang", rotate)
    assert code == 0 and row["next_dealer"] == 1  # the seat after the dealer
    # a record naming the winner as the next dealer disputes the rotation
    recorded = replace(record, result=RecordedResult(tuple(row["deltas"]), 2))
    code, (row,) = audit(tmp_path, [recorded], "guiyang", rotate)
    assert code == 1 and codes(row) == ["dealer_mismatch"]
    recorded = replace(record, result=RecordedResult(tuple(row["deltas"]), 1))
    code, (row,) = audit(tmp_path, [recorded], "guiyang", rotate)
    assert code == 0 and codes(row) == []


# seats 1 and 2 declared ready on their dealt hands; both win on the dealer's 4p
DOUBLE = ({0: DEALER_HAND, 1: PLAIN, 2: "123s456s789s22s35p"},
          "1R 2R 0-4p 1H4p<0 2H4p<0 F8s", "8s")


def test_guiyang_4p_the_discarder_deals_after_two_winners(tmp_path: Path) -> None:
    # 000 贵阳麻将(1): 「若一炮双响，若一炮多响，由放炮的玩家坐庄」
    deal, events, front = DOUBLE
    code, (row,) = audit(tmp_path, [hand(deal, events, "guiyang-4p", front=front)],
                         "guiyang-4p")
    assert code == 0, row["violations"]
    assert [w["seat"] for w in row["winners"]] == [1, 2]
    assert row["next_dealer"] == 0
    code, (row,) = audit(tmp_path, [hand(deal, events, "guiyang", front=front)], "guiyang")
    assert code == 0 and row["next_dealer"] == 1  # guiyang: the first winner from the dealer


def test_guiyang_4p_counts_discarded_chickens() -> None:
    # 「然后查看所有玩家的牌，包括打出去的牌」 (内外鸡), the rest guiyang's
    rs = load_preset("guiyang-4p")
    assert rs.players == 4 and rs.chickens.scope == "hand_and_discards"
    assert rs.kongs == load_preset("guiyang").kongs


# --------------------------------------------------------------------------------------
# 相公: a false hand is a finding and pays
# --------------------------------------------------------------------------------------

# seat 3 is dealt 14 tiles; seat 2 waits on 4p with seven pairs; seat 1 self-draws 4p
FALSE_HAND = {0: DEALER_HAND, 1: PLAIN, 2: "1133557799s22m4p", 3: "11m3m6m7m8m5678p2468s"}


def test_false_hand_is_a_finding_and_pays(tmp_path: Path) -> None:
    # 004 贵州: 「如果相公包牌（多牌少牌），大家沒有聽牌情況下付給3家2倍的錢，
    # 如果聽牌則按聽牌倍數付」
    record = hand(FALSE_HAND, "0-9s 1+4p 1H4p F8s", "guizhou", front="4p8s")
    code, (row,) = audit(tmp_path, [record], "guizhou")
    assert code == 1 and codes(row) == ["false_hand"]
    (finding,) = row["violations"]
    assert finding["seat"] == 3 and not finding["fatal"] and "14 tiles" in finding["message"]
    # the dealer is not ready (2), seat 1 won (2), seat 2 is ready: its 七对 10
    assert items(row, "false_hand") == [(3, 0, 2), (3, 1, 2), (3, 2, 10)]
    assert items(row, "self_draw") == [(p, 1, 1) for p in (2, 3, 0)]
    assert sum(row["deltas"]) == 0
    # a preset without the penalty: the deal is wrong, nothing is settled
    code, (row,) = audit(tmp_path, [hand(FALSE_HAND, "0-9s 1+4p 1H4p F8s", "guiyang",
                                         front="4p8s")], "guiyang")
    assert code == 1 and codes(row) == ["bad_deal"] and row["deltas"] is None


def test_false_hand_too_far_off_stays_a_bad_deal(tmp_path: Path) -> None:
    deal = {**FALSE_HAND, 3: "11m3m6m7m8m5678p2468s9m9m"}  # 16 tiles: no 相公
    code, (row,) = audit(tmp_path, [hand(deal, "0-9s 1+4p 1H4p F8s", "guizhou",
                                         front="4p8s")], "guizhou")
    assert code == 1 and codes(row) == ["bad_deal"] and row["deltas"] is None


def test_false_hand_cannot_win(tmp_path: Path) -> None:
    # seat 1 is dealt 12 tiles: its self-drawn "win" has a tile too few
    record = hand({0: DEALER_HAND, 1: "123m456m23p99p35p"}, "0-9s 1+4p 1H4p F8s", "guizhou",
                  front="4p8s")
    code, (row,) = audit(tmp_path, [record], "guizhou")
    assert code == 1 and codes(row) == ["false_hand", "invalid_win"]
    assert row["deltas"] is None
