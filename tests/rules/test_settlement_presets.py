"""Settlement under each shipped preset: one table per mechanic, one column per preset.

Every scenario is a hand written in compact notation (see :mod:`tests.support.builders`);
the expected ledgers (notation of :func:`tests.rules.test_settlement.parse_ledger`) are the
values RULES.md and ``docs/rules/presets.md`` give each preset, written out by hand:
pattern values, kongs per kind, 双杀, 憨包豆, 热炮, 抢杠, standing / flipped / gold chickens,
冲锋鸡, 责任鸡, 包鸡, 手上鸡 / 内外鸡, 闷鸡, 万能鸡, chickens at a draw, 查叫, dealer and 连庄,
报听, 杀报 and the hand-over after a multiple win.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.rules.test_settlement import (
    DEALER_HAND,
    PLAIN,
    _exhaustive,
    check_ledger,
    settle_record,
)
from tests.support.builders import make_hand
from zhuoji.rules.events import HandRecord
from zhuoji.rules.facts import Outcome
from zhuoji.rules.presets import load_preset

FOUR = ("guiyang", "guiyang-app", "guiyang-classic", "guiyang-10", "guiyang-dou3",
        "an-majiang", "guizhou", "zunyi")


@dataclass(frozen=True)
class Scenario:
    deal: dict[int, str]
    events: str
    front: str = ""
    back: str = ""
    streak: int = 0

    def record(self, preset: str) -> HandRecord:
        rs = load_preset(preset)
        record = make_hand(self.deal, self.events, front=self.front, back=self.back,
                           n_players=rs.players, wildcards=rs.wildcards)
        return HandRecord(
            hand_no=1, n_players=record.n_players, dealer=record.dealer,
            dealer_streak=self.streak, deal=record.deal, events=record.events,
            wall=record.wall,
        )


def _settle(scenario: Scenario, preset: str) -> object:
    _, s = settle_record(scenario.record(preset), load_preset(preset))
    return s


# --------------------------------------------------------------------------------------
# pattern values: seat 1 self-draws the hand on its second turn
# --------------------------------------------------------------------------------------

PATTERN_HANDS = {  # waiting hand, winning tile (two suits: 缺一门 holds for 遵义 too)
    "plain": (PLAIN, "4p"),
    "all_pungs": ("111m333m555p99p22m", "2m"),
    "seven_pairs": ("1122m3344p55p66m9m", "9m"),
    "dragon_seven_pairs": ("1111m33p44p55p66m9m", "9m"),
    "full_flush": ("123m456m789m55m23m", "4m"),
    "flush_all_pungs": ("111m333m555m99m22m", "2m"),
    "flush_seven_pairs": ("1122335577m99m4m", "4m"),
    "flush_dragon_seven_pairs": ("1111m2233m5577m9m", "9m"),
    "edge_wait": ("12m456m789m234p55p", "3m"),
    "wide_wait": ("23456m789m234p55p", "4m"),
}

# the preset's value of each pattern and of 自摸 (RULES.md / presets.md); a pattern the
# preset does not score is paid as the hand's next best pattern (plain here)
PATTERN_VALUES: dict[str, tuple[int, ...]] = {
    #        plain pungs 7pr dragon flush fpungs f7pr fdragon edge wide self_draw
    "guiyang": (1, 5, 8, 10, 10, 15, 18, 20, 1, 1, 1),
    "guiyang-app": (1, 5, 7, 10, 10, 15, 17, 20, 1, 1, 1),
    "guiyang-classic": (1, 5, 10, 20, 10, 15, 20, 30, 1, 1, 1),
    "guiyang-10": (10, 30, 40, 50, 50, 80, 90, 100, 10, 10, 10),
    "guiyang-dou3": (1, 5, 8, 10, 10, 15, 18, 20, 1, 1, 1),
    "an-majiang": (1, 5, 8, 10, 10, 15, 18, 20, 1, 1, 1),
    "guizhou": (1, 5, 10, 20, 10, 15, 20, 30, 1, 1, 1),
    "zunyi": (2, 4, 4, 10, 10, 14, 14, 20, 3, 4, 1),
    "guiyang-3p": (1, 5, 8, 10, 10, 15, 18, 20, 1, 1, 1),
    "guiyang-1-5-10": (1, 5, 5, 5, 10, 10, 10, 10, 1, 1, 1),  # 「一、五、十」 (decision 29)
    "guiyang-2p": (1, 5, 8, 10, 10, 15, 18, 20, 1, 1, 1),
}

_SECOND_TURN = {
    4: "0-9s 1+1s 1-1s 2+3s 2-3s 3+5s 3-5s 0+6s 0-6s 1+{w} 1H{w} F8s",
    3: "0-9s 1+1s 1-1s 2+3s 2-3s 0+6s 0-6s 1+{w} 1H{w} F8s",
    2: "0-9s 1+1s 1-1s 0+6s 0-6s 1+{w} 1H{w} F8s",
}
_SECOND_FRONT = {4: "1s3s5s6s{w}8s", 3: "1s3s6s{w}8s", 2: "1s6s{w}8s"}


@pytest.mark.parametrize("preset", sorted(PATTERN_VALUES))
@pytest.mark.parametrize("pattern", list(PATTERN_HANDS))
def test_pattern_value(preset: str, pattern: str) -> None:
    hand, win = PATTERN_HANDS[pattern]
    n = load_preset(preset).players
    values = PATTERN_VALUES[preset]
    value = values[list(PATTERN_HANDS).index(pattern)]
    scenario = Scenario({0: DEALER_HAND, 1: hand}, _SECOND_TURN[n].format(w=win),
                        _SECOND_FRONT[n].format(w=win))
    s = _settle(scenario, preset)
    check_ledger(s, f"*>1 hand {value}; *>1 self_draw {values[-1]}", n)
    scored = s.wins[0].patterns[0]
    if value > values[0]:
        # the pattern, or the first in pattern order among those of the same value
        assert scored == pattern or (
            load_preset(preset).patterns.value_of(scored) == value
            and list(PATTERN_HANDS).index(scored) < list(PATTERN_HANDS).index(pattern))
    else:
        assert scored == "plain"


# --------------------------------------------------------------------------------------
# scenarios of kongs, chickens, bonuses (four players)
# --------------------------------------------------------------------------------------

SCENARIOS: dict[str, Scenario] = {
    # seat 1 kongs the four 5m it was dealt and wins on the replacement (杠上开花)
    "concealed_kong_bloom": Scenario(
        {0: DEALER_HAND, 1: "5555m123p456p99p2m"}, "0-9s 1+3m 1C5m 1+4m 1H4m F7s",
        front="3m7s", back="4m"),
    # seat 1 kongs the dealer's 5m and wins on the replacement
    "exposed_kong": Scenario(
        {0: "5m2469p2468s3579s9s", 1: "555m123p456p99p2m3m"}, "0-5m 1E5m<0 1+4m 1H4m F7s",
        front="7s", back="4m"),
    # seat 1 pongs the dealer's 5m, draws the fourth a round later and adds it
    "added_kong": Scenario(
        {0: "5m7m2469p2468s3567s", 1: "55m123p456p99p2m3m9s"},
        "0-5m 1P5m<0 1-9s 2+8s 2-8s 3+3s 3-3s 0+6s 0-6s 1+5m 1A5m 1+4m 1H4m F7s",
        front="8s3s6s5m7s", back="4m"),
    # seat 2 kongs 9m but is not ready at the end (双杀)
    "kong_not_ready": Scenario(
        {0: DEALER_HAND, 1: PLAIN, 2: "9999m2468s1356p9p"},
        "0-9s 1+1m 1-1m 2+7s 2C9m 2+2p 2-2p 3+3s 3-3s 0+6s 0-6s 1+4p 1H4p F8s",
        front="1m7s3s6s4p8s", back="2p"),
    # seat 1 passes its kong chance on its first turn and kongs on its second (憨包豆)
    "delayed_kong": Scenario(
        {0: DEALER_HAND, 1: "5555m123p456p99p2m"},
        "0-9s 1+9m 1-9m 2+3s 2-3s 3+5s 3-5s 0+6s 0-6s 1+3m 1C5m 1+4m 1H4m F7s",
        front="9m3s5s6s3m7s", back="4m"),
    # seat 2 kongs 9m and its replacement 4p deals seat 1's win (热炮); seat 2 is ready
    "hot_discard": Scenario(
        {0: DEALER_HAND, 1: PLAIN, 2: "9999m234s567s88s5s"},
        "0-9s 1+1m 1-1m 2+5s 2C9m 2+4p 2-4p 1H4p<2 F1p", front="1m5s1p", back="4p"),
    # seat 2 pongs 5m, adds the fourth; seat 1 robs it (抢杠)
    "robbed_kong": Scenario(
        {0: "5m7m2469p2468s3567s", 1: "123p456p99p34m789m", 2: "55m2468s1359p79s1m"},
        "0-5m 2P5m<0 2-1m 3+3s 3-3s 0+6s 0-6s 1+1s 1-1s 2+5m 2A5m 1H5m<2 F8s",
        front="3s6s1s5m8s"),
    # seat 1 wins holding 2 x 1s, 3 x 7p, 3 x 8p and one 5s; flip 4s makes 5s the chicken
    "chickens": Scenario(
        {0: DEALER_HAND, 1: "11s777p888p23p567s"},
        "0-9s 1+1m 1-1m 2+3s 2-3s 3+5s 3-5s 0+6s 0-6s 1+4p 1H4p F4s", front="1m3s5s6s4p4s"),
    # the same hand, flip 9s: 1s is gold
    "gold_chicken": Scenario(
        {0: DEALER_HAND, 1: "11s777p888p23p567s"},
        "0-9s 1+1m 1-1m 2+3s 2-3s 3+5s 3-5s 0+6s 0-6s 1+4p 1H4p F9s", front="1m3s5s6s4p9s"),
    # seat 1 discards the first 1s, nobody claims it, seat 1 wins (冲锋鸡)
    "charging_chicken": Scenario(
        {0: DEALER_HAND, 1: PLAIN},
        "0-9s 1+1s 1-1s 2+3s 2-3s 3+5s 3-5s 0+6s 0-6s 1+4p 1H4p F8s", front="1s3s5s6s4p8s"),
    # the dealer discards the first 1s, seat 1 pongs it and wins (责任鸡)
    "responsibility_chicken": Scenario(
        {0: "1s2469p2468s3579s7m", 1: "11s234s567s23p99p9m"},
        "0-1s 1P1s<0 1-9m 2+3s 2-3s 3+5s 3-5s 0+6s 0-6s 1+4p 1H4p F8s", front="3s5s6s4p8s"),
    # seats 2 and 3, not ready, discard the first and the second 1s; seat 1 wins (包鸡)
    "chicken_penalty": Scenario(
        {0: DEALER_HAND, 1: PLAIN},
        "0-9s 1+1m 1-1m 2+1s 2-1s 3+1s 3-1s 0+6s 0-6s 1+4p 1H4p F8s", front="1m1s1s6s4p8s"),
    # seat 1 discards 5s, then the flip makes 5s the chicken (手上鸡 / 内外鸡)
    "discarded_chicken": Scenario(
        {0: DEALER_HAND, 1: PLAIN},
        "0-9s 1+5s 1-5s 2+3s 2-3s 3+6s 3-6s 0+2s 0-2s 1+4p 1H4p F4s", front="5s3s6s2s4p4s"),
    # seat 1 kongs four 1s and wins on the replacement (闷鸡)
    "chicken_kong": Scenario(
        {0: DEALER_HAND, 1: "1111s123p456p99p2p"}, "0-9s 1+3p 1C1s 1+4p 1H4p F7s",
        front="3p7s", back="4p"),
    # the dealer wins at its second turn in a streak of 2
    "dealer": Scenario(
        {0: PLAIN + "9s"}, "0-9s 1+1m 1-1m 2+3s 2-3s 3+5s 3-5s 0+4p 0H4p F8s",
        front="1m3s5s4p8s", streak=2),
    # seat 1 declares ready on its dealt hand (硬报) and self-draws
    "hard_ready": Scenario(
        {0: DEALER_HAND, 1: PLAIN},
        "1R 0-9s 1+1m 1-1m 2+3s 2-3s 3+5s 3-5s 0+6s 0-6s 1+4p 1H4p F8s",
        front="1m3s5s6s4p8s"),
    # seat 1 declares ready right after its first draw (软听) and self-draws
    "soft_ready": Scenario(
        {0: DEALER_HAND, 1: PLAIN},
        "0-9s 1+1m 1R 1-1m 2+3s 2-3s 3+5s 3-5s 0+6s 0-6s 1+4p 1H4p F8s",
        front="1m3s5s6s4p8s"),
    # seat 2 declared ready (硬报); its discard 4p deals seat 1's plain win (杀报)
    "kill_ready": Scenario(
        {0: DEALER_HAND, 1: PLAIN, 2: "123s456s789s22s66m"},
        "2R 0-9s 1+1m 1-1m 2+4p 2-4p 1H4p<2 F1p", front="1m4p1p"),
    # seat 2's 4p deals two wins: seats 1 and 3 (both all pungs)
    "two_winners": Scenario(
        {0: "2369p2468s3579s9s7m", 1: "111m333m555m44p99p", 3: "222m666m777m888m4p"},
        "0-9s 1+1p 1-1p 2+4p 2-4p 1H4p<2 3H4p<2 F8s", front="1p4p8s"),
}

EXPECTED: dict[str, dict[str, str]] = {
    "concealed_kong_bloom": {
        "guiyang": "*>1 hand 1; *>1 self_draw 1; *>1 kong_bloom 1; *>1 concealed_kong 2",
        "guiyang-app": "*>1 hand 1; *>1 self_draw 1; *>1 kong_bloom 1; *>1 concealed_kong 2",
        "guiyang-classic": "*>1 hand 1; *>1 self_draw 1; *>1 kong_bloom 1; "
                           "*>1 concealed_kong 2",
        "guiyang-10": "*>1 hand 10; *>1 self_draw 10; *>1 kong_bloom 10; "
                      "*>1 concealed_kong 20",
        "guiyang-dou3": "*>1 hand 1; *>1 self_draw 1; *>1 kong_bloom 1; *>1 concealed_kong 3",
        "an-majiang": "*>1 hand 1; *>1 self_draw 1; *>1 kong_bloom 1; *>1 concealed_kong 2",
        "guizhou": "*>1 hand 1; *>1 self_draw 1; *>1 kong_bloom 1; *>1 concealed_kong 2",
        # 杠上花 10 is a pattern of its own and beats 平胡 2; 自摸 is added
        "zunyi": "*>1 hand 10; *>1 self_draw 1; -kong_bloom; *>1 concealed_kong 2",
    },
    "exposed_kong": {
        "guiyang": "0>1 exposed_kong 1",
        "guiyang-app": "0>1 exposed_kong 1",
        "guiyang-classic": "0>1 exposed_kong 1",
        "guiyang-10": "0>1 exposed_kong 10",
        "guiyang-dou3": "0>1 exposed_kong 3",
        "an-majiang": "0>1 exposed_kong 1",
        "guizhou": "0>1 exposed_kong 1",
        "zunyi": "0>1 exposed_kong 2",
    },
    "added_kong": {
        "guiyang": "*>1 added_kong 3",
        "guiyang-app": "*>1 added_kong 3",
        "guiyang-classic": "*>1 added_kong 3",
        "guiyang-10": "*>1 added_kong 10",
        "guiyang-dou3": "*>1 added_kong 3",
        "an-majiang": "*>1 added_kong 3",
        "guizhou": "*>1 added_kong 3",
        "zunyi": "*>1 added_kong 3",
    },
    "kong_not_ready": {p: "-concealed_kong; *>1 hand {}".format(
        {"guiyang-10": 10, "zunyi": 2}.get(p, 1)) for p in FOUR},
    "delayed_kong": {p: "-concealed_kong" for p in FOUR},
    "hot_discard": {
        "guiyang": "2>1 hand 1; 2>1 hot_discard 1; -concealed_kong",
        "guiyang-app": "2>1 hand 1; 2>1 hot_discard 1; -concealed_kong",
        "guiyang-classic": "2>1 hand 1; 2>1 hot_discard 1; -concealed_kong",
        "guiyang-10": "2>1 hand 10; 2>1 hot_discard 60; -concealed_kong",  # 闷豆 60
        "guiyang-dou3": "2>1 hand 1; 2>1 hot_discard 3; -concealed_kong",  # 烧豆 3 + 平胡
        "an-majiang": "2>1 hand 1; 2>1 hot_discard 1; -concealed_kong",
        "guizhou": "2>1 hand 1; 2>1 hot_discard 1; -concealed_kong",
        "zunyi": "2>1 hand 3; -hot_discard; -concealed_kong",  # 杠上炮 3 beats 平胡 2
    },
    "robbed_kong": {
        "guiyang": "2>1 hand 10; -self_draw; -robbed_kong; -added_kong",  # as 清一色
        "guiyang-app": "2>1 hand 10; -self_draw; -robbed_kong; -added_kong",
        "guiyang-classic": "2>1 hand 10; -self_draw; -robbed_kong; -added_kong",
        # as self-drawn, the robbed player pays for all three (包三家)
        "guiyang-10": "2>1 hand 30; 2>1 self_draw 30; -robbed_kong; -added_kong",
        "guiyang-dou3": "2>1 hand 1; 2>1 robbed_kong 9; -self_draw; -added_kong",
        "an-majiang": "2>1 hand 10; -self_draw; -robbed_kong; -added_kong",
        "guizhou": "2>1 hand 3; 2>1 self_draw 3; -robbed_kong; -added_kong",
        # 「和牌家獲得的分為所和牌型的分值加3」: no 自摸 on top
        "zunyi": "2>1 hand 2; 2>1 robbed_kong 3; -self_draw; -added_kong",
    },
    "chickens": {  # 2 x 1s, 7p x 3 (an-majiang), 8p x 3 (guiyang-app, 2 each), 1 x 5s
        "guiyang": "*>1 chicken 3",
        "guiyang-app": "*>1 chicken 9",
        "guiyang-classic": "*>1 chicken 3",
        "guiyang-10": "*>1 chicken 10",  # the flipped 5s only: no standing chicken
        "guiyang-dou3": "*>1 chicken 3",
        "an-majiang": "*>1 chicken 6",
        "guizhou": "*>1 chicken 3",
        "zunyi": "*>1 chicken 3",
    },
    "gold_chicken": {  # 1s gold x2; no other flipped chicken
        "guiyang": "*>1 chicken 4",
        "guiyang-app": "*>1 chicken 10",
        "guiyang-classic": "*>1 chicken 4",
        "guiyang-10": "*>1 chicken 20",  # flip 9s: 2 x 1s as flipped chickens, not gold
        "guiyang-dou3": "*>1 chicken 4",
        "an-majiang": "*>1 chicken 7",
        "guizhou": "*>1 chicken 4",
        "zunyi": "*>1 chicken 4",
    },
    "charging_chicken": {
        "guiyang": "*>1 charging_chicken 2; -chicken",
        "guiyang-app": "*>1 charging_chicken 3; -chicken",
        "guiyang-classic": "*>1 charging_chicken 2; -chicken",
        "guiyang-10": "-charging_chicken; -chicken",  # no 冲锋鸡 in its article
        "guiyang-dou3": "*>1 charging_chicken 2; -chicken",  # 内外鸡: counted once
        "an-majiang": "*>1 charging_chicken 3; -chicken",
        "guizhou": "*>1 charging_chicken 2; -chicken",
        "zunyi": "*>1 charging_chicken 2; -chicken",
    },
    "responsibility_chicken": {  # plus the 3 x 1s of the pong
        "guiyang": "0>1 responsibility_chicken 1; *>1 chicken 3; -charging_chicken",
        "guiyang-app": "0>1 responsibility_chicken 2; *>1 chicken 3; -charging_chicken",
        "guiyang-classic": "0>1 responsibility_chicken 1; *>1 chicken 3; -charging_chicken",
        "guiyang-10": "-responsibility_chicken; -chicken; -charging_chicken",
        "guiyang-dou3": "0>1 responsibility_chicken 1; *>1 chicken 3; -charging_chicken",
        "an-majiang": "0>1 responsibility_chicken 3; *>1 chicken 3; -charging_chicken",
        "guizhou": "0>1 responsibility_chicken 1; *>1 chicken 3; -charging_chicken",
        "zunyi": "0>1 responsibility_chicken 1; *>1 chicken 3; -charging_chicken",
    },
    "chicken_penalty": {
        p: ("2>1 chicken_penalty 3; 3>1 chicken_penalty 1" if p in ("an-majiang", "guiyang-app")
            else "-chicken_penalty") + "; -charging_chicken"
        for p in FOUR
    },
    "discarded_chicken": {
        p: "*>1 chicken 1" if p in ("guiyang-dou3", "guizhou") else "-chicken" for p in FOUR
    },
    "chicken_kong": {
        "guiyang": "*>1 chicken 4; *>1 concealed_kong 2",
        "guiyang-app": "*>1 chicken 4; *>1 concealed_kong 2",
        "guiyang-classic": "*>1 chicken 4; *>1 concealed_kong 2",
        "guiyang-10": "-chicken; *>1 concealed_kong 20",  # 1s is no chicken unless flipped
        "guiyang-dou3": "*>1 chicken 4; *>1 concealed_kong 3",
        "an-majiang": "*>1 chicken 4; *>1 concealed_kong 2",
        "guizhou": "*>1 chicken 4; *>1 concealed_kong 2",
        "zunyi": "*>1 chicken 4; *>1 concealed_kong 2",
    },
    "dealer": {
        p: {"guiyang-app": "*>0 dealer 1; *>0 dealer_streak 2",
            "guiyang-classic": "-dealer; *>0 dealer_streak 2"}.get(p, "-dealer; -dealer_streak")
        for p in FOUR
    },
    "hard_ready": {
        "guiyang": "*>1 hand 10; *>1 self_draw 1; -declared_ready",
        "guiyang-app": "*>1 hand 1; *>1 declared_ready 10; *>1 self_draw 1",
        "guiyang-classic": "*>1 hand 10; *>1 self_draw 1; -declared_ready",
        "guiyang-10": "*>1 hand 100; *>1 self_draw 10; -declared_ready",
        "guiyang-dou3": "*>1 hand 10; *>1 self_draw 1; -declared_ready",
        "an-majiang": "*>1 hand 10; *>1 self_draw 1; -declared_ready",
        "guizhou": "*>1 hand 20; *>1 self_draw 1; -declared_ready",  # 硬报 20
        "zunyi": "*>1 hand 10; *>1 self_draw 1; -declared_ready",
    },
    "soft_ready": {
        "guiyang": "*>1 hand 10; -declared_ready",
        "guiyang-app": "*>1 hand 1; *>1 declared_ready 10",
        "guiyang-classic": "*>1 hand 10; -declared_ready",
        "guiyang-10": "*>1 hand 100; -declared_ready",
        "guiyang-dou3": "*>1 hand 10; -declared_ready",
        "an-majiang": "*>1 hand 10; -declared_ready",
        "guizhou": "*>1 hand 10; -declared_ready",  # 软听 10
        "zunyi": "*>1 hand 10; -declared_ready",
    },
    "kill_ready": {
        "guiyang": "2>1 hand 1; 2>1 kill_ready 10",
        "guiyang-app": "2>1 hand 1; 2>1 kill_ready 10",
        "guiyang-classic": "2>1 hand 1; 2>1 kill_ready 10",
        "guiyang-10": "2>1 hand 10; 2>1 kill_ready 100",
        "guiyang-dou3": "2>1 hand 1; 2>1 kill_ready 10",
        "an-majiang": "2>1 hand 1; 2>1 kill_ready 10",
        "guizhou": "2>1 hand 1; 2>1 kill_ready 20",
        "zunyi": "2>1 hand 2; 2>1 kill_ready 10",
    },
    "two_winners": {
        p: "2>1 hand {v}; 2>3 hand {v}".format(v={"guiyang-10": 30, "zunyi": 4}.get(p, 5))
        for p in FOUR
    },
}

NEXT_DEALER = {  # scenario -> next dealer per preset (default: the one given first)
    "two_winners": {"guiyang-dou3": 3, "*": 1},  # first after the discarder / from the dealer
    "dealer": {"*": 0},
    "robbed_kong": {"*": 1},
}


@pytest.mark.parametrize("preset", FOUR)
@pytest.mark.parametrize("name", list(EXPECTED))
def test_preset_scenario(name: str, preset: str) -> None:
    s = _settle(SCENARIOS[name], preset)
    check_ledger(s, EXPECTED[name][preset])
    if name in NEXT_DEALER:
        want = NEXT_DEALER[name]
        assert s.next_dealer == want.get(preset, want["*"])


def test_every_scenario_has_a_row_for_every_four_player_preset() -> None:
    assert set(SCENARIOS) == set(EXPECTED)
    for name, row in EXPECTED.items():
        assert set(row) == set(FOUR), name


# --------------------------------------------------------------------------------------
# mechanics of single presets
# --------------------------------------------------------------------------------------


def test_an_majiang_wildcards_are_chickens_worth_three() -> None:
    # seat 1 holds a wildcard standing for 3p and wins on 4p
    scenario = Scenario({0: DEALER_HAND, 1: "123m456m2pW99p345p"},
                        "0-9s 1+1m 1-1m 2+3s 2-3s 3+5s 3-5s 0+6s 0-6s 1+4p 1H4p F8s",
                        front="1m3s5s6s4p8s")
    s = _settle(scenario, "an-majiang")
    check_ledger(s, "*>1 chicken 3")
    assert [(c.tile.text, c.count) for c in s.chickens] == [("W", 1)]


def test_guiyang_app_quan_shao_burns_the_robbed_players_chickens() -> None:
    # seat 2 is ready with 2 x 1s when its added kong is robbed: 全烧
    scenario = Scenario(
        {0: "5m7m2469p2468s3567s", 1: "123p456p99p34m789m", 2: "55m11s234s678s66m1m"},
        "0-5m 2P5m<0 2-1m 3+3s 3-3s 0+6s 0-6s 1+2s 1-2s 2+5m 2A5m 1H5m<2 F8s",
        front="3s6s2s5m8s")
    check_ledger(_settle(scenario, "guiyang"), "*>2 chicken 2")
    s = _settle(scenario, "guiyang-app")
    check_ledger(s, "-chicken; 2>1 hand 10")


def test_ready_check_per_preset() -> None:
    values = {"guiyang": 5, "guiyang-app": 5, "guiyang-classic": 5, "guiyang-10": 30,
              "guiyang-dou3": 5, "an-majiang": 5, "guizhou": 5, "zunyi": 4}
    next_dealer = {"guiyang-10": 1, "guiyang-dou3": 1, "zunyi": 1}  # by readiness
    for preset in FOUR:
        rs = load_preset(preset)
        dealer = DEALER_HAND if not rs.wildcards else "2469p2468s3579sWW"
        record = _exhaustive(rs, {0: dealer, 1: "111m333m555p99p22m"})
        replay, s = settle_record(record, rs)
        assert replay.outcome is Outcome.EXHAUSTIVE_DRAW
        assert [x.ready for x in replay.seats] == [False, True, False, False], preset
        check_ledger(s, f"*>1 ready_check {values[preset]}; -concealed_kong")
        assert s.next_dealer == next_dealer.get(preset, 0), preset


def test_guiyang_app_settles_chickens_at_a_draw() -> None:
    for preset in FOUR:
        rs = load_preset(preset)
        dealer = DEALER_HAND if not rs.wildcards else "2469p2468s3579sWW"
        record = _exhaustive(rs, {0: dealer, 1: "11s888p234p567s99p"})
        replay, s = settle_record(record, rs)
        assert replay.seats[1].ready
        if preset == "guiyang-app":
            # 2 x 1s (1) + 3 x 8p (2), from each player not ready; no flip at a draw
            check_ledger(s, "*>1 chicken 8")
        else:
            check_ledger(s, "-chicken; -charging_chicken")


@pytest.mark.parametrize("preset", ["guiyang-3p", "guiyang-2p"])
def test_fewer_players_count_discarded_chickens(preset: str) -> None:
    n = load_preset(preset).players
    events = {3: "0-9s 1+5s 1-5s 2+3s 2-3s 0+2s 0-2s 1+4p 1H4p F4s",
              2: "0-9s 1+5s 1-5s 0+2s 0-2s 1+4p 1H4p F4s"}[n]
    front = {3: "5s3s2s4p4s", 2: "5s2s4p4s"}[n]
    s = _settle(Scenario({0: DEALER_HAND, 1: PLAIN}, events, front), preset)
    check_ledger(s, "*>1 chicken 1; *>1 hand 1; *>1 self_draw 1", n)
    assert len(s.deltas) == n and s.deltas[1] == 3 * (n - 1)


def test_three_player_multiple_win_goes_to_the_discarder() -> None:
    scenario = Scenario({0: "222m666m777m888m4p9s", 1: "111m333m555m44p99p"},
                        "0-9s 1+1p 1-1p 2+4p 2-4p 0H4p<2 1H4p<2 F8s", front="1p4p8s")
    s = _settle(scenario, "guiyang-3p")
    check_ledger(s, "2>0 hand 5; 2>1 hand 5", 3)
    assert s.next_dealer == 2
