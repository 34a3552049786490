"""The audit's JSON object of a hand under the core's 换三张 / 定缺 / 血战到底 / carry
mechanics (the xuezhan test family), and a Guizhou hand's object without their keys."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.rules.xuezhan_family import xuezhan_ruleset
from tests.rules.xuezhan_family.hands import SETUP, hand, play_out, with_carry
from zhuoji.flows.audit.files import GameAudit, add_mechanics_json, generate_file_audits, hand_json
from zhuoji.rules.audit import audit_game

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"


def test_the_hand_object_holds_the_mechanics_facts() -> None:
    rules = xuezhan_ruleset()
    start = f"{SETUP} 0-9p 1+1p 1H1p"
    events = play_out(hand(start), start, [2, 3, 0], start=1)
    records = [with_carry(hand(events), {"draw_multiplier": 1}, 1),
               with_carry(hand(events), {"draw_multiplier": 3}, 2)]
    audits = audit_game(records, rules)
    assert [a.settlement.deltas for a in audits] == [(-1, 3, -1, -1)] * 2  # type: ignore[union-attr]
    objects = []
    for audit in audits:
        obj: dict[str, Any] = {
            "winners": [{"seat": w.seat} for w in audit.replay.winners],
            "violations": [v.code.value for v in audit.findings],
        }
        add_mechanics_json(obj, rules, audit.replay)
        objects.append(obj)
    first, second = objects
    assert first["winners"] == [{"seat": 1, "event_index": 10}]
    assert first["exchanges"][0] == {"seat": 0, "tiles": ["1m", "2m", "3m"], "to": 1,
                                     "event_index": 0}
    assert [x["to"] for x in first["exchanges"]] == [1, 2, 3, 0]
    assert first["declared_suits"] == ["p", "s", "m", "m"]
    assert first["carry"] == {"dealer_streak": 0, "draw_multiplier": 1}
    assert first["violations"] == []
    assert second["violations"] == ["carry_mismatch"]
    assert "draw_multiplier = 3, the earlier hands of the game give 1" in (
        audits[1].findings[0].message)


def test_a_guizhou_hand_object_has_none_of_their_keys() -> None:
    path = sorted(SAMPLE.glob("*.json"))[0]
    for item in generate_file_audits(path):
        assert isinstance(item, GameAudit) and item.ruleset is not None
        for hand_audit in item.hands:
            obj = hand_json(item, hand_audit)
            assert not {"exchanges", "declared_suits", "carry"} & set(obj)
            assert all("event_index" not in w for w in obj["winners"])
        break
