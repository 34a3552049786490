"""The Sichuan family's words (issue 34): every pattern, ledger reason and kong kind in both
languages, every message template of its modules in Chinese (a Sichuan hand's explanation
renders under ``ZHUOJI_STRICT_GLOSSARY=1``), ``zhuoji rules show`` naming each setting's
source, and the referee's text and JSON naming the kong or win that moved a disputed
seat's amount.

The two logs are legal hands of the ``sichuan`` preset written by hand
(``tests/rules/data/sichuan/``), each with a record the referee disputes:

* ``kong_discard.json``: seat 0 discards 5m, seat 1 makes an exposed kong (直杠) of it
  (event 5: seat 0 pays it 2 x base = 2), draws 2s and discards it, and seat 2 wins on it
  (event 8, 杠上炮): 平胡 0 + 杠上炮 1 = 1 番, worth 1 x 2**1 = 2, paid by seat 1; 呼叫转移
  hands seat 1's kong income (2) to seat 2. Deltas -2, -2, +4, 0. The record leaves out the
  transfer (-2, 0, +2, 0): seats 1 and 2 are disputed.
* ``capped_self_draw.json``: the dealer, seat 0, makes a concealed kong (暗杠) of 1p (event 12:
  2 from each of the three others, +6), draws 5p on its replacement draw and wins (event 14):
  清对 3 + 根 1 (the kong) + 杠上花 1 = 5 番, capped at 4: 1 x 2**4 = 16 from each, plus
  自摸加底 1 from each: +57; the others -2 - 16 - 1 = -19. The record pays the uncapped 32.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from zhuoji.flows.cli.main import app
from zhuoji.rules.families.sichuan.patterns import Pattern
from zhuoji.rules.families.sichuan.settlement import Reason
from zhuoji.rules.glossary import expand, glossary, render, text
from zhuoji.rules.messages import Message
from zhuoji.rules.presets import preset_names
from zhuoji.rules.settings import settings_of

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).parent / "data" / "sichuan"
KONG_DISCARD = DATA / "kong_discard.json"
CAPPED = DATA / "capped_self_draw.json"
FAMILY = ROOT / "rules" / "families" / "sichuan"
PRESETS = ("sichuan", "sichuan-sbr", "sichuan-xueliu", "sichuan-xuezhan")
SOURCES = ("「", "common form (not in the seed text)",
           "tournament rules (Sichuan Bloody Rules, World Mahjong Tour)")
"""What a Sichuan preset's comment names as a setting's source."""

runner = CliRunner()
_CJK = re.compile(r"[\u3400-\u9fff]")


@pytest.fixture
def strict(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZHUOJI_STRICT_GLOSSARY", "1")


def run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        result.output, result.exception)
    return result.exit_code, result.output


# --- the words ---------------------------------------------------------------------------

@pytest.mark.parametrize("section, keys", [
    ("pattern", [p.value for p in Pattern]),
    ("reason", [r.value for r in Reason]),
    ("kong", ["exposed", "added", "concealed", "kong"]),
])
def test_every_pattern_reason_and_kong_kind_has_both_languages(section: str,
                                                               keys: list[str]) -> None:
    terms = glossary("sichuan").terms[section]
    for key in keys:
        english, chinese = terms[key]
        assert english.strip() and _CJK.search(chinese), (section, key, english, chinese)


def test_the_sichuan_words_of_its_terms() -> None:
    """A Sichuan hand says 直杠, 巴杠, 暗杠, 对对胡, 杠上花; the base words stay."""
    words = {("kong", "exposed"): "直杠", ("kong", "added"): "巴杠",
             ("kong", "concealed"): "暗杠", ("kong", "kongs"): "杠",
             ("pattern", "all_pungs"): "对对胡", ("pattern", "kong_bloom"): "杠上花",
             ("pattern", "full_flush_pungs"): "清对", ("pattern", "root"): "根",
             ("pattern", "robbed_kong"): "抢杠胡", ("reason", "kong_transfer"): "呼叫转移",
             ("reason", "flower_pig"): "查花猪", ("reason", "not_ready"): "查大叫",
             ("reason", "tax_refund"): "退税", ("reason", "kong"): "刮风下雨"}
    sichuan = glossary("sichuan").terms
    for (section, key), chinese in words.items():
        assert sichuan[section][key][1] == chinese, (section, key)
    base = glossary().terms
    assert (base["kong"]["exposed"][1], base["pattern"]["all_pungs"][1]) == ("点豆", "大对子")
    assert glossary("changsha").terms["kong"]["concealed"][1] == "暗杠"


def _templates() -> set[str]:
    """Every template the family's modules give a Message or the explanation (``say``)."""
    found: set[str] = set()
    for path in sorted(FAMILY.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else (
                func.attr if isinstance(func, ast.Attribute) else None)
            first = node.args[0]
            if name in ("Message", "say") and isinstance(first, ast.Constant) and isinstance(
                    first.value, str):
                found.add(first.value)
    return found


def test_every_template_of_the_family_has_chinese() -> None:
    templates = _templates()
    assert "seat {seat} pays seat {p:seat} {n}: {r:reason} ({d:scdetail})" in templates
    known = glossary("sichuan").index("")
    assert sorted(t for t in templates if t not in known) == []


# every template of the explanation, with values a hand gives it, and its Chinese
_FAN = Message("{p:scpart* + } = {t:n} 番, counted {c:n} (cap {k:n}), event {e:n}",
               [Message("{p:pattern} {f:n}", "all_pungs", 1),
                Message("{p:pattern} {f:n}", "golden_hook", 1),
                Message("{p:pattern} x{c:n} {f:n}", "root", 2, 2),
                Message("{p:pattern} {f:n}", "seabed_draw", 1)], 5, 4, 4, 61)
EXPLAINED = [
    (Message("seat {seat} pays seat {p:seat} {n}: {r:reason} ({d:scdetail})", 1, 0, 2,
             "kong", Message("{k:kongkind} {t:tile}, event {e:n}", "added", "7s", 33)),
     "座位1付座位0 2：刮风下雨（巴杠7条，事件33）"),
    (Message("seat {seat} wins {h:schow}: {f:scfan}", 0, Message("by self-draw"), _FAN),
     "座位0自摸胡：对对胡 1 + 金钩钓 1 + 根 ×2 2 + 海底捞月 1 = 5 番，封顶 4 番，计 4 番，事件61"),
    (Message("seat {seat} wins {h:schow}: {f:scfan}", 2,
             Message("on seat {seat}'s exposed kong's replacement tile", 1),
             Message("{p:scpart* + } = {t:n} 番, event {e:n}",
                     [Message("{p:pattern} {f:n}", "full_flush", 2),
                      Message("{p:pattern} {f:n}", "kong_bloom", 1)], 3, 20)),
     "座位2摸座位1所点直杠的补牌胡：清一色 2 + 杠上花 1 = 3 番，事件20"),
    (Message("seat {seat} wins {h:schow}: {f:scfan}", 3,
             Message("robbing seat {seat}'s kong", 1),
             Message("{p:scpart* + } = {t:n} 番, event {e:n}",
                     [Message("{p:pattern} {f:n}", "plain", 0),
                      Message("{p:pattern} {f:n}", "robbed_kong", 1)], 1, 40)),
     "座位3抢座位1的杠胡：平胡 0 + 抢杠胡 1 = 1 番，事件40"),
    (Message("seat {seat}'s added kong of {t:tile} is robbed: not made, no payment", 1, "4m"),
     "座位1的巴杠4万被抢：杠不成立，不收分"),
    (Message("seat {seat} pays seat {p:seat} {n}: {r:reason} ({d:scdetail})", 3, 1, 1,
             "self_draw", Message("event {e:n}", 61)), "座位3付座位1 1：自摸（事件61）"),
    (Message("the wall's end: {p:scpig} flower pigs, ready: {r:scready}", 1, "0, 2"),
     "牌墙摸完：花猪 1 家，叫牌：座位0、2"),
    (Message("the wall's end: {p:scpig} flower pigs, ready: {r:scready}", 0, "-"),
     "牌墙摸完：花猪 0 家，叫牌：无"),
    (Message("seat {seat} pays seat {p:seat} {n}: {r:reason} ({d:scdetail})", 3, 0, 16,
             "flower_pig", Message("{f:n} 番", 4)), "座位3付座位0 16：查花猪（4 番）"),
    (Message("seat {seat} pays seat {p:seat} {n}: {r:reason} ({d:scdetail})", 1, 2, 4,
             "not_ready", Message("{f:n} 番 on {t:tile}", 2, "5p")),
     "座位1付座位2 4：查大叫（2 番，胡5筒）"),
    (Message("seat {seat} pays seat {p:seat} {n}: {r:reason} ({d:scdetail})", 1, 3, 2,
             "tax_refund", Message("{k:kongkind} {t:tile}, event {e:n}", "concealed", "9s", 7)),
     "座位1付座位3 2：退税（暗杠9条，事件7）"),
    (Message("seat {seat} pays seat {p:seat} {n}: {r:reason} ({d:scdetail})", 1, 0, 2,
             "kong_refund", Message("{k:kongkind} {t:tile}, event {e:n}", "exposed", "3m", 9)),
     "座位1付座位0 2：退杠钱（直杠3万，事件9）"),
    (Message("next dealer: seat {seat} ({w:scwhy})", 2,
             "several players won on one discard: the winner nearest the discarder"),
     "下一庄：座位2（一炮多响：离点炮者最近的胡牌者）"),
    (Message("next dealer: seat {seat} ({w:scwhy})", 1,
             "several players won on one discard: the discarder"),
     "下一庄：座位1（一炮多响：点炮者）"),
    (Message("next dealer: seat {seat} ({w:scwhy})", 0, "nobody won: the dealer stays"),
     "下一庄：座位0（无人胡：庄家不变）"),
    (Message("next dealer: seat {seat} ({w:scwhy})", 1, "nobody won: the next seat deals"),
     "下一庄：座位1（无人胡：下家坐庄）"),
    (Message("next dealer: seat {seat} ({w:scwhy})", 3, "the first winner"),
     "下一庄：座位3（第一个胡牌者）"),
]


@pytest.mark.parametrize("message, chinese", EXPLAINED)
def test_each_line_of_the_explanation_renders_in_chinese(strict: None, message: Message,
                                                         chinese: str) -> None:
    assert render(message, "zh", "sichuan") == chinese


@pytest.mark.parametrize("path", [KONG_DISCARD, CAPPED])
def test_a_sichuan_hand_is_explained_in_chinese_with_no_missing_entry(strict: None,
                                                                      path: Path) -> None:
    """The full view of the hand in Chinese: its ledger, explanation and verdict (a
    message without Chinese would fail under the strict glossary)."""
    code, out = run("audit", str(path), "--hand", "1", "--lang", "zh")
    assert code == 1, out  # the record is disputed
    assert "说明：" in out and "记录的错误：" in out
    if path == KONG_DISCARD:
        assert "座位1（李强）付座位2（周婷） 2：呼叫转移（直杠5万，事件5）" in out
        assert "座位2（周婷）捉座位1（李强）的炮胡：平胡 0 + 杠上炮 1 = 1 番，事件8" in out
        assert "定缺：座位0（王芳）条、座位1（李强）筒、座位2（周婷）万、座位3（陈杰）万" in out
    else:
        assert ("座位0（王芳）自摸胡：清对 3 + 根 1 + 杠上花 1 = 5 番，封顶 4 番，计 4 番，"
                "事件14") in out
        assert "座位1（李强）付座位0（王芳） 2：刮风下雨（暗杠1筒，事件12）" in out
    code, out = run("audit", str(path), "--json", "--lang", "zh")
    assert code == 1, out
    row = json.loads(out.splitlines()[0])
    assert all(item["detail_zh"] and _CJK.search(item["detail_zh"]) for item in row["ledger"])


# --- rules show ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", PRESETS)
def test_rules_show_lists_every_setting_with_its_source(name: str) -> None:
    assert name in preset_names()
    code, out = run("rules", "show", name)
    assert code == 0, out
    assert "not in the preset file" not in out
    lines = [line for line in out.splitlines() if re.match(r"^[a-z_0-9]+\s+= ", line)]
    from zhuoji.rules.presets import load_preset

    paths = settings_of(load_preset(name))
    assert len(lines) == len(paths)
    for line in lines:
        assert any(mark in line.split("#", 1)[1] for mark in SOURCES), line
    code, out = run("rules", "show", name, "--json")
    settings: dict[str, Any] = json.loads(out)["settings"]
    assert set(settings) == set(paths)
    for path, setting in settings.items():
        assert any(mark in (setting["source"] or "") for mark in SOURCES), (path, setting)


def test_the_seed_quotes_of_the_presets_are_the_seeds_words() -> None:
    seed = (ROOT.parent / "shared" / "seeds").glob("003_*.txt")
    texts = [p.read_text(encoding="utf-8") for p in seed]
    if not texts:
        pytest.skip("the seed documents are not beside the repository")
    for name in PRESETS:
        text = (FAMILY / "presets" / f"{name}.toml").read_text(encoding="utf-8")
        for line in text.splitlines():
            if "=" in line and "#" in line and not line.startswith("#"):
                for quote in re.findall(r"「(.*?)」", line.split("#", 1)[1]):
                    assert quote in texts[0], (name, quote)


@pytest.mark.parametrize("name", ["sichuan", "sichuan-sbr"])
def test_a_cap_or_a_limit_may_be_none(name: str) -> None:
    code, out = run("rules", "show", name, "--set", 'fan.root_max="none"', "--json")
    assert code == 0, out
    assert json.loads(out)["settings"]["fan.root_max"]["value"] is None
    code, out = run("rules", "show", name, "--set", 'fan.root_max="all"')
    assert code == 2
    assert 'expected a whole number or "none"' in out


# --- the referee ----------------------------------------------------------------------------

def test_the_referee_names_the_kong_and_the_win_that_moved_a_disputed_amount() -> None:
    code, out = run("audit", str(KONG_DISCARD))
    assert code == 1, out
    at = out.index("what moved each disputed seat's amount:")
    assert out[at:].splitlines()[1:12] == [
        "  seat 1 (李强): recorded 0, recomputed -2",
        "    event 5, seat 1 (李强)'s kong (exposed 直杠) of 5m: +2",
        "      +2 from seat 0 (王芳): kong 刮风下雨 (exposed 5m, event 5)",
        "    event 8, seat 2 (周婷)'s win on 2s from seat 1 (李强): -4",
        "      -2 to seat 2 (周婷): win 胡牌 (plain 0 + kong_discard 1 = 1 番, event 8)",
        "      -2 to seat 2 (周婷): kong_transfer 呼叫转移 (exposed 5m, event 5)",
        "  seat 2 (周婷): recorded +2, recomputed +4",
        "    event 8, seat 2 (周婷)'s win on 2s from seat 1 (李强): +4",
        "      +2 from seat 1 (李强): win 胡牌 (plain 0 + kong_discard 1 = 1 番, event 8)",
        "      +2 from seat 1 (李强): kong_transfer 呼叫转移 (exposed 5m, event 5)",
        "ledger (recomputed):",
    ]


def test_the_referee_in_chinese(strict: None) -> None:
    code, out = run("audit", str(CAPPED), "--lang", "zh")
    assert code == 1, out
    at = out.index("有争议座位的得失分来自：")
    assert out[at:].splitlines()[1:5] == [
        "  座位0（王芳）：记录 +105，重算 +57",
        "    事件12，座位0（王芳）暗杠1筒：+6",
        "      +2 来自座位1（李强）：刮风下雨（暗杠1筒，事件12）",
        "      +2 来自座位2（周婷）：刮风下雨（暗杠1筒，事件12）",
    ]
    assert "    事件14，座位0（王芳）自摸5筒：+51" in out
    assert ("      -16 付给座位0（王芳）：胡牌（清对 3 + 根 1 + 杠上花 1 = 5 番，封顶 4 番，"
            "计 4 番，事件14）") in out


def test_the_referee_json_keys() -> None:
    code, out = run("audit", str(CAPPED), "--json")
    assert code == 1, out
    row = json.loads(out.splitlines()[0])
    # the declared suits are the core's key (mechanics.declare_suit); no exchange is played
    assert row["declared_suits"] == ["s", "p", "p", "p"] and "exchanges" not in row
    assert row["winners"][0]["fan"] == {
        "items": [{"pattern": "full_flush_pungs", "count": 1, "fan": 3},
                  {"pattern": "root", "count": 1, "fan": 1},
                  {"pattern": "kong_bloom", "count": 1, "fan": 1}],
        "total": 5, "counted": 4, "cap": 4, "capped": True}
    assert row["item_events"] == [12, 12, 12, 14, 14, 14, 14, 14, 14]
    disputed = {d["seat"]: d for d in row["disputed"]}
    assert sorted(disputed) == [0, 1, 2, 3]
    one = disputed[1]
    assert (one["recorded"], one["recomputed"]) == (-35, -19)
    assert [(m["event"], m["by"], m["reason"], m["amount"]) for m in one["moves"]] == [
        (12, "kong", "kong", -2), (14, "win", "win", -16), (14, "win", "self_draw", -1)]


def test_an_undisputed_hand_has_no_dispute_lines(tmp_path: Path) -> None:
    game = json.loads(KONG_DISCARD.read_text(encoding="utf-8"))
    game["hands"][0]["result"] = {
        "deltas": [-2, -2, 4, 0], "next_dealer": 2,
        "items": [{"payer": 0, "payee": 1, "amount": 2, "reason": "kong"},
                  {"payer": 1, "payee": 2, "amount": 2, "reason": "win"},
                  {"payer": 1, "payee": 2, "amount": 2, "reason": "kong_transfer"}]}
    path = tmp_path / "clean.json"
    path.write_text(json.dumps(game, ensure_ascii=False), encoding="utf-8")
    code, out = run("audit", str(path), "--hand", "1")
    assert code == 0, out
    assert "disputed seat" not in out
    code, out = run("audit", str(path), "--json")
    row = json.loads(out.splitlines()[0])
    assert row["disputed"] == [] and row["violations"] == []


# --- the rules page -------------------------------------------------------------------------

DOC = ROOT / "docs" / "rules" / "sichuan.md"


@pytest.mark.parametrize("path", [KONG_DISCARD, CAPPED])
def test_the_pages_worked_ledgers_are_what_the_audit_prints(path: Path) -> None:
    code, out = run("audit", str(path), "--hand", "1")
    assert code == 1, out
    lines = out.splitlines()
    start = lines.index("ledger (recomputed):")
    ledger = lines[start:lines.index("deltas:", start)]
    assert "\n".join(ledger) in DOC.read_text(encoding="utf-8")


def test_the_page_is_linked_and_names_its_sources() -> None:
    page = DOC.read_text(encoding="utf-8")
    for mark in ("not in the seed text", "Sichuan Bloody Rules", "World Mahjong Tour",
                 "declared_suit_first", "bad_declaration", "bad_exchange", "acted_after_win",
                 "missing_suit", "event_not_in_family", *PRESETS):
        assert mark in page, mark
    for reason in Reason:
        assert f"| `{reason.value}` |" in page, reason
    for linking in ("docs/rules/README.md", "docs/rules/presets.md", "README.md"):
        assert "sichuan.md" in (ROOT / linking).read_text(encoding="utf-8"), linking


def test_every_sentence_of_the_referee_has_chinese_and_is_used() -> None:
    """The family's [text] entries are the referee's sentences: each one used by
    referee.py, each with the same fields in Chinese."""
    import tomllib

    texts = tomllib.loads((FAMILY / "glossary.toml").read_text(encoding="utf-8"))["text"]
    source = (FAMILY / "referee.py").read_text(encoding="utf-8")
    used = {node.value for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Constant) and isinstance(node.value, str)}
    assert set(texts) <= used, set(texts) - used
    for english, chinese in texts.items():
        fields = sorted(re.findall(r"\{(\w+)\}", english))
        assert sorted(re.findall(r"\{(\w+)\}", chinese)) == fields, english
        values = {name: "X" for name in fields}
        assert text(english, "zh", "sichuan", **values) == expand(chinese, "sichuan").format(
            **values)
