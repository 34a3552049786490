"""zhuoji.rules.audit: replay + settlement + the checks against the record, findings in order."""

from __future__ import annotations

from dataclasses import replace

from tests.rules.test_settlement import DEALER_HAND, PLAIN
from tests.support.builders import make_hand
from zhuoji.rules.audit import audit_game, audit_hand
from zhuoji.rules.events import RecordedItem, RecordedResult
from zhuoji.rules.families.guizhou.settlement import Settlement
from zhuoji.rules.families.guizhou.simulate import simulate_game
from zhuoji.rules.presets import load_preset, preset_names
from zhuoji.rules.violations import ViolationCode

SELF_DRAW = "0-9s 1+1m 1-1m 2+3s 2-3s 3+5s 3-5s 0+6s 0-6s 1+4p 1H4p F8s"
FRONT = "1m3s5s6s4p8s"


def _recorded(s: Settlement) -> RecordedResult:
    items = tuple(RecordedItem(i.payer, i.payee, i.amount, i.reason.value) for i in s.items)
    return RecordedResult(s.deltas, s.next_dealer, items)


def test_a_hand_matching_its_record_is_clean() -> None:
    rs = load_preset("guiyang")
    record = make_hand({0: DEALER_HAND, 1: PLAIN}, SELF_DRAW, front=FRONT)
    first = audit_hand(record, rs)
    assert first.settlement is not None and first.findings == () and first.is_clean
    audited = audit_hand(replace(record, result=_recorded(first.settlement)), rs)
    assert audited.is_clean


def test_findings_list_replay_violations_before_settlement_checks() -> None:
    rs = load_preset("guiyang")
    # seat 1 (all pungs) lets seat 2's 9p pass and wins on seat 3's 2m: missed_win is
    # settled as 包牌 under guiyang; the record pays the win normally and says seat 3 deals
    record = make_hand({0: DEALER_HAND, 1: "111m333m555p99p22m"},
                       "0-9s 1+7s 1-7s 2+9p 2-9p 3+2m 3-2m 1H2m<3 F8s", front="7s9p2m8s")
    record = replace(record, result=RecordedResult((0, 5, 0, -5), 3, None))
    audit = audit_hand(record, rs)
    assert [f.code for f in audit.findings] == [
        ViolationCode.MISSED_WIN, ViolationCode.SCORE_MISMATCH, ViolationCode.DEALER_MISMATCH]
    assert audit.settlement is not None and audit.settlement.deltas == (5, -15, 5, 5)


def test_a_fatal_violation_leaves_the_hand_unsettled_but_checks_the_record() -> None:
    rs = load_preset("guiyang")
    record = make_hand({0: DEALER_HAND, 1: PLAIN}, "0-9s 2+1m", front="1m")
    record = replace(record, result=RecordedResult((1, 0, 0, 0)))
    audit = audit_hand(record, rs)
    assert audit.settlement is None
    assert [f.code for f in audit.findings] == [ViolationCode.OUT_OF_TURN,
                                                ViolationCode.NOT_ZERO_SUM]


def test_the_records_stake_and_streak_are_used() -> None:
    rs = load_preset("guiyang-app")
    dealer_win = "0-9s 1+1m 1-1m 2+3s 2-3s 3+5s 3-5s 0+4p 0H4p F8s"
    record = make_hand({0: PLAIN + "9s"}, dealer_win, front="1m3s5s4p8s")
    record = replace(record, dealer_streak=3, base_stake=5)
    audit = audit_hand(record, rs)
    s = audit.settlement
    assert s is not None
    # plain 1 + self-draw 1 + dealer 1 + streak 3 x 1 = 6 from each, times the stake 5
    assert s.deltas == (90, -30, -30, -30)


def test_audit_game_audits_each_hand_on_its_own() -> None:
    rs = load_preset("guiyang")
    good = make_hand({0: DEALER_HAND, 1: PLAIN}, SELF_DRAW, front=FRONT, hand_no=1)
    bad = make_hand({0: DEALER_HAND, 1: PLAIN}, "0-9s 2+1m", front="1m", hand_no=2)
    audits = audit_game([good, bad, replace(good, hand_no=3)], rs)
    assert [a.record.hand_no for a in audits] == [1, 2, 3]
    assert [a.settlement is None for a in audits] == [False, True, False]
    assert audits[0].settlement == audits[2].settlement


def test_simulated_games_audit_clean_at_their_stake_and_streaks() -> None:
    # the simulator records settle's result (next dealer, 连庄 counts, stake 2): the audit
    # of those records must find nothing, whatever the preset
    streaks = 0
    for name in preset_names("guizhou"):
        rs = load_preset(name)
        game = simulate_game(rs, seed=3, game_no=0, hands=5, base_stake=2)
        for audit in audit_game(game.records, rs):
            assert audit.findings == (), (name, audit.findings)
            assert audit.settlement is not None
            assert all(d % 2 == 0 for d in audit.settlement.deltas)
            streaks += audit.record.dealer_streak > 0
    assert streaks  # some dealer kept the deal, so 连庄 counts were audited
