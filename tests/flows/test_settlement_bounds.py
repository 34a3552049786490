"""Settings bounded so that no settlement leaves 64 bits, strict override types, short
quotes of what a user wrote, and the hand's ``dice``: through ``zhuoji audit`` (``--json``
and text) and ``zhuoji validate`` (docs/robustness.md, "Settlement amounts" and "Override
types and quotes")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from zhuoji.flows.cli.main import app
from zhuoji.parsers.read import generate_games
from zhuoji.parsers.write import write_games
from zhuoji.rules.presets import load_preset, resolve_ruleset
from zhuoji.rules.settings import MAX_HAND_VALUE, MAX_STAKE, RulesetError

ROOT = Path(__file__).resolve().parents[2]
CHANGSHA = ROOT / "data" / "sample" / "changsha" / "sim-changsha-birds4-2028-00000.json"
GUIYANG = ROOT / "data" / "sample" / "sim" / "document" / "sim-guiyang-1-5-10-2026-00000.json"
runner = CliRunner()


def _game(path: Path) -> Any:
    (game,) = generate_games(path)
    return game


def _stream(tmp_path: Path, bad_first: Any, good: Any) -> Path:
    """A stream of two games: ``bad_first``, then ``good`` (which must still be audited)."""
    path = tmp_path / "two.jsonl"
    write_games(path, [bad_first, good])
    return path


def _audit(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["audit", *args])
    return result.exit_code, result.output


OVERRIDES: dict[str, tuple[Path, dict[str, object], str, str]] = {
    # name: (seed log, rule_overrides, the setting named, the bound named)
    "a bird multiplier of 2**62": (CHANGSHA, {"points.bird_multiplier": 2**62},
                                   "points.bird_multiplier", "256"),
    "a big discard of 2**63-1": (CHANGSHA, {"point_big_discard": 2**63 - 1},
                                 "points.big_discard", "10000"),
    "a bird multiplier of 2**31-1": (CHANGSHA, {"point_bird_multiplier": 2**31 - 1},
                                     "points.bird_multiplier", "256"),
    "4 birds each x 8": (CHANGSHA, {"point_bird_multiplier": 8},
                         "points.bird_multiplier", "256"),
    "a plain hand of 2**63-1": (GUIYANG, {"patterns.plain": 2**63 - 1},
                                "patterns.plain", "10000"),
    "a gold chicken x 2**31": (GUIYANG, {"chicken_gold_multiplier": 2**31},
                               "chickens.gold_multiplier", "16"),
}


@pytest.mark.parametrize("name", sorted(OVERRIDES))
def test_an_override_past_its_bound_is_one_line_naming_it(tmp_path: Path, name: str) -> None:
    seed, overrides, setting, bound = OVERRIDES[name]
    good = _game(seed)
    bad = good.model_copy(update={"game_id": "bad", "rule_overrides": overrides})
    path = _stream(tmp_path, bad, good)

    code, out = _audit(str(path), "--json")
    assert code == 2
    lines = [json.loads(line) for line in out.splitlines()]
    first, rest = lines[0], lines[1:]
    assert first["game_id"] == "bad"
    message = first["error"]["message"]
    assert setting in message and bound in message
    assert "unexpected error" not in out
    assert len(rest) == len(good.hands)  # the file's other game is audited whole
    assert {line["game_id"] for line in rest} == {good.game_id}

    code, text = _audit(str(path))
    assert code == 2
    errors = [line for line in text.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and setting in errors[0] and bound in errors[0]
    assert f"2 game(s), {len(good.hands)} hand(s)" in text
    assert "unexpected error" not in text


def test_the_largest_settings_keep_a_hand_within_the_bound(tmp_path: Path) -> None:
    """Every Changsha points value at its bound, 4 birds x 4: each hand of the sample
    settles at the largest stake within 2**62 (its JSON line printed, its text too)."""
    good = _game(CHANGSHA)
    points = {f"points.{f}": 10_000 for f in type(load_preset("changsha").points).model_fields
              if f not in ("bird_multiplier", "big_wins_add", "small_wins_add")}
    big = good.model_copy(update={"rule_overrides": {**points, "points.bird_multiplier": 4},
                                  "base_stake": MAX_STAKE})
    path = tmp_path / "big.jsonl"
    write_games(path, [big])
    code, out = _audit(str(path), "--json")
    assert code in (0, 1)
    lines = [json.loads(line) for line in out.splitlines()]
    assert len(lines) == len(good.hands)
    moved = [sum(item["amount"] for item in line["ledger"] or ()) for line in lines]
    assert max(moved) > 2**50  # the stake does carry the amounts far
    assert all(m <= MAX_HAND_VALUE * MAX_STAKE < 2**62 for m in moved)
    code, text = _audit(str(path))
    assert code in (0, 1) and "error" not in text


def test_a_dealer_streak_past_every_bound_is_refused_for_its_game(tmp_path: Path) -> None:
    """The 连庄 term grows with the log's own dealer_streak: a game whose recomputed
    settlement would move more than a hand may is one error line; the others are kept."""
    good = _game(GUIYANG)
    hands = tuple(h.model_copy(update={"dealer_streak": 2**31 - 1}) for h in good.hands)
    bad = good.model_copy(update={
        "game_id": "bad", "hands": hands, "base_stake": MAX_STAKE,
        "rule_overrides": {"dealer.streak_bonus": 10_000},
    })
    path = _stream(tmp_path, bad, good)
    code, out = _audit(str(path), "--json")
    assert code == 2
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines[0]["game_id"] == "bad"
    assert "beyond what one hand may move" in lines[0]["error"]["message"]
    assert len(lines) == 1 + len(good.hands)
    code, text = _audit(str(path))
    assert code == 2 and "beyond what one hand may move" in text
    assert "unexpected error" not in text


STRICT: dict[str, tuple[dict[str, object], str]] = {
    "true for a whole number": ({"point_big_discard": True}, "expected a whole number"),
    "2.0 for a whole number": ({"points.big_discard": 2.0}, "expected a whole number"),
    "'true' for a switch": ({"point_big_wins_add": "true"}, "expected true or false"),
    "1 for a switch": ({"multiple_winners": 1}, "expected true or false"),
    "false for 0 or 3": ({"exchange": False}, "expected one of 0, 3"),
}


@pytest.mark.parametrize("name", sorted(STRICT))
def test_an_override_of_the_wrong_json_type_is_refused(tmp_path: Path, name: str) -> None:
    overrides, said = STRICT[name]
    good = _game(CHANGSHA)
    bad = good.model_copy(update={"game_id": "bad", "rule_overrides": overrides})
    code, out = _audit(str(_stream(tmp_path, bad, good)), "--json")
    assert code == 2
    lines = [json.loads(line) for line in out.splitlines()]
    (key,) = overrides
    assert key in lines[0]["error"]["message"] and said in lines[0]["error"]["message"]
    assert len(lines) == 1 + len(good.hands)


GUIZHOU_STRICT: dict[str, tuple[dict[str, object], str]] = {
    "true for a chicken's value": ({"chickens.standing": [{"tile": "1s", "value": True}]},
                                   "entry 0, 'value' = True: expected a whole number"),
    "a tile as a number": ({"chicken_standing": [{"tile": 5}]},
                           "a tile is written as text"),
    "'4' for the player count": ({"players": "4"}, "expected a whole number"),
}


@pytest.mark.parametrize("name", sorted(GUIZHOU_STRICT))
def test_a_section_entry_of_the_wrong_json_type_is_refused(tmp_path: Path, name: str) -> None:
    overrides, said = GUIZHOU_STRICT[name]
    good = _game(GUIYANG)
    bad = good.model_copy(update={"game_id": "bad", "rule_overrides": overrides})
    code, out = _audit(str(_stream(tmp_path, bad, good)), "--json")
    assert code == 2
    lines = [json.loads(line) for line in out.splitlines()]
    assert said in lines[0]["error"]["message"]
    assert len(lines) == 1 + len(good.hands)


def test_the_types_presets_give_still_resolve() -> None:
    """A choice that also takes true/false (penalties.missed_win) and tiles as text."""
    rs = resolve_ruleset("guiyang", {"penalty_missed_win": True,
                                     "chickens.standing": [{"tile": "8p", "value": 2}]})
    assert rs.family == "guizhou"
    with pytest.raises(RulesetError, match="expected one of 'hand'"):
        resolve_ruleset("guiyang", {"chicken_scope": 3})


def test_a_long_override_key_or_value_is_quoted_short(tmp_path: Path) -> None:
    good = _game(CHANGSHA)
    for overrides in ({"k" * 100_000: 1}, {"points.big_discard": "v" * 100_000},
                      {"multiple_winners": "s" * 100_000}):
        bad = good.model_copy(update={"game_id": "bad", "rule_overrides": overrides})
        code, out = _audit(str(_stream(tmp_path, bad, good)), "--json")
        assert code == 2
        first = out.splitlines()[0]
        assert len(first) < 400 and "…" in json.loads(first)["error"]["message"]
        code, text = _audit(str(_stream(tmp_path, bad, good)))
        assert code == 2
        assert max(len(line) for line in text.splitlines()) < 400


@pytest.mark.parametrize("dice", [[1, 2, 3], [4], [], [0, 7], [True, 2], [1.0, 2]])
def test_a_hand_s_dice_are_two_dice_of_1_to_6(tmp_path: Path, dice: list[object]) -> None:
    doc = json.loads(CHANGSHA.read_text(encoding="utf-8"))
    doc["hands"][1]["dice"] = dice
    document = tmp_path / "dice.json"
    document.write_text(json.dumps(doc), encoding="utf-8")
    result = runner.invoke(app, ["validate", str(document)])
    assert result.exit_code == 2
    assert f"{document}, game " in result.output and "field hands[1].dice" in result.output

    stream = tmp_path / "dice.jsonl"
    assert runner.invoke(app, ["convert", str(CHANGSHA), str(stream)]).exit_code == 0
    lines = stream.read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if json.loads(line).get("hand_no") == 2)
    hand = json.loads(lines[at])
    hand["dice"] = dice
    lines[at] = json.dumps(hand)
    stream.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["validate", str(stream)])
    assert result.exit_code == 2
    assert f"{stream} line {at + 1}" in result.output and "dice" in result.output
