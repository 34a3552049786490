"""The glossary (rules/glossary.toml): every term once, the engine's Chinese names equal
to it, every key the code uses present, and the templates' translation."""

from __future__ import annotations

import ast
import re
import tomllib
from collections import Counter
from importlib.resources import files
from pathlib import Path

import pytest

from rules.facts import Outcome
from rules.families import families
from rules.families.changsha.settlement import Settlement as ChangshaSettlement
from rules.families.guizhou.patterns import Pattern
from rules.families.guizhou.settlement import ChickenKind, Reason, Settlement
from rules.glossary import (
    GlossaryError,
    default_lang,
    expand,
    glossary,
    parse_glossary,
    text,
    tile_zh,
    tiles_zh,
    translate,
    translate_or_none,
    with_names_zh,
)
from rules.melds import MeldKind
from rules.violations import ViolationCode

ROOT = Path(__file__).resolve().parents[2]
SOURCE = (ROOT / "rules" / "glossary.toml").read_text(encoding="utf-8")
TERM_SECTIONS = ("game", "tile", "kong", "meld", "chicken", "pattern", "ready", "reason",
                 "rule", "code", "outcome")
NAMED = ("kong", "chicken", "pattern", "ready", "reason", "rule", "code")
"""The sections whose terms the message templates quote: only by reference."""


def test_the_installed_package_reads_the_same_file() -> None:
    assert files("rules").joinpath("glossary.toml").read_text(encoding="utf-8") == SOURCE
    assert glossary().source == SOURCE


def test_each_term_is_spelt_once() -> None:
    """A Chinese term is defined by one key; every other use refers to it (``=s.k`` or
    ``<s.k>``)."""
    data = tomllib.loads(SOURCE)
    spelt: Counter[str] = Counter()
    for section, table in data.items():
        if section in ("text", "message"):
            continue
        for value in table.values():
            if isinstance(value, str) and value.startswith("="):
                continue
            chinese = value if isinstance(value, str) else value[1]
            if "<" not in chinese:
                spelt[chinese] += 1
    assert [t for t, n in spelt.items() if n > 1] == []
    # the sentences and the message templates (the file's end, from [text] on) quote a
    # named term only by reference
    sentences = SOURCE[SOURCE.index("\n[text]\n"):]
    for section in NAMED:
        for key, value in data[section].items():
            chinese = value if isinstance(value, str) else value[1]
            if (isinstance(value, str) and value.startswith("=")) or len(chinese) < 2:
                continue
            assert chinese not in sentences, f"{section}.{key} {chinese} is spelt out"


@pytest.mark.parametrize("term", ["点豆", "转弯豆", "闷豆"])
def test_the_kong_terms_come_from_the_glossary_only(term: str) -> None:
    """Once in the glossary; in no module, template or asset of flows/ (they read it)."""
    assert SOURCE.count(term) == 1
    for path in sorted((ROOT / "flows").rglob("*")):
        if path.is_file() and path.suffix in (".py", ".html", ".js", ".toml", ".css"):
            assert term not in path.read_text(encoding="utf-8"), path


def test_the_engine_names_agree_with_the_glossary() -> None:
    g = glossary()
    assert {p.value: p.chinese for p in Pattern} == {
        k: v[1] for k, v in g.terms["pattern"].items() if k in set(Pattern)}
    assert {r.value: r.chinese for r in Reason} == {
        k: v[1] for k, v in g.terms["reason"].items() if k in set(Reason)}
    # every family's patterns and ledger reasons have their Chinese, and nothing else does
    shipped = [f for f in families() if f.settle.__module__.startswith("rules.families.")]
    assert set(g.terms["pattern"]) == {p for f in shipped for p in f.patterns}
    assert set(g.terms["reason"]) == {*Settlement.reasons, *ChangshaSettlement.reasons}
    assert set(g.terms["code"]) == {c.value for c in ViolationCode}
    assert set(g.terms["chicken"]) >= {c.value for c in ChickenKind}
    assert set(g.terms["meld"]) >= {k.value for k in MeldKind}
    assert set(g.terms["outcome"]) >= {o.value for o in Outcome}


def _literal_calls(path: Path, names: set[str]) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else None
        first = node.args[0]
        if name in names and isinstance(first, ast.Constant) and isinstance(first.value, str):
            out.append((node.lineno, first.value))
    return out


def test_every_text_the_commands_use_is_in_the_glossary() -> None:
    texts = glossary().texts
    used = 0
    for path in sorted((ROOT / "flows").glob("*.py")):
        for line, english in _literal_calls(path, {"text", "_t", "t", "T"}):
            used += 1
            assert english in texts, f"{path.name}:{line}: {english!r} has no Chinese"
    assert used > 80


def test_every_label_the_pages_use_is_in_the_glossary() -> None:
    g = glossary()
    pattern = re.compile(r"""\bL\(["']([a-z_0-9]+)["']\)|\bT\("((?:[^"\\]|\\.)+)"[,)]""")
    for path in sorted((ROOT / "flows" / "dashboard_assets").glob("*.html")):
        for m in pattern.finditer(path.read_text(encoding="utf-8")):
            key, english = m.groups()
            if key is not None:
                assert key in g.terms["label"], f"{path.name}: L({key!r})"
            else:
                english = expand(english.replace('\\"', '"'))
                assert english in g.texts, f"{path.name}: T({english!r}) has no Chinese"


def test_text_formats_both_languages() -> None:
    assert text("{n} rows", "en", n=3) == "3 rows"
    assert text("{n} rows", "zh", n=3) == "共 3 行"
    with pytest.raises(KeyError, match="no Chinese"):
        text("a sentence nobody wrote", "zh")


def test_translate_by_templates() -> None:
    message = ("seat 0 pongs 9m from seat 2 without two 9m: seat 0 holds 445779p1136788s "
               "[exposed_kong 7p]")
    assert translate(message) == ("座位0碰座位2的9万，但手中没有两张9万：座位0手牌 "
                                  "445779筒1136788条［点豆7筒］")
    assert translate(message, "en") == message
    assert translate_or_none("no template says this") is None
    assert translate("no template says this") == "no template says this"
    win = ("seat 0 won by self-draw on 3p: all_pungs 大对子 5 + self_draw 自摸 1 = 6, "
           "paid by each of seats 1, 2, 3 (18 in all)")
    assert translate(win) == "座位0自摸3筒胡牌：大对子 5 + 自摸 1 = 6，由座位1、2、3各付（共 18）"


def test_tiles_in_chinese() -> None:
    assert tile_zh("5m") == "5万"
    assert tile_zh("W") == "万能"
    assert tile_zh("1z") == "东"
    assert tiles_zh("123m55p9s") == "123万55筒9条"
    assert with_names_zh("座位1付座位0", ["张三", "李四"]) == "座位1（李四）付座位0（张三）"


def test_the_locale_decides_the_default() -> None:
    assert default_lang({}) == "en"
    assert default_lang({"LANG": "zh_CN.UTF-8"}) == "zh"
    assert default_lang({"LANG": "zh_CN.UTF-8", "LC_ALL": "C"}) == "en"
    assert default_lang({"LANG": "en_US", "LC_MESSAGES": "zh_TW"}) == "zh"
    assert default_lang({"LC_ALL": "", "LANG": "zh_HK"}) == "zh"


@pytest.mark.parametrize(
    ("source", "error"),
    [
        ('[a]\nx = "=b.y"\n', "not a term"),
        ('[message.m]\n"seat {seat}" = "{tile}"\n', "does not have"),
        ('[message.m]\n"{x:nothing}" = "x"\n', "names no kind"),
        ('[message.m]\n"{x:m}" = "x"\n', "contains itself"),
        ('[a]\nx = "=a.x"\n', "refers to itself"),
        ('[message.m]\n"a" = "<a.b>"\n', "is not a term"),
    ],
)
def test_a_bad_glossary_is_refused(source: str, error: str) -> None:
    with pytest.raises(GlossaryError, match=error):
        parse_glossary(source)


def test_every_template_compiles_though_none_is_compiled_before_its_first_use() -> None:
    """The templates are compiled on first use (a command in English never pays for
    them); each of the shipped glossary's compiles, once."""
    g = parse_glossary(SOURCE)
    assert not g.compiled
    templates = [t for group in g.templates.values() for t in group]
    assert len(templates) > 100
    for template in templates:
        assert g.regex(template) is g.regex(template)
    assert len(g.compiled) == len({t.pattern for t in templates})
