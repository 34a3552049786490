"""The glossary (rules/glossary.toml): every term once, the engine's Chinese names equal
to it, every key the code uses present, and the templates' translation."""

from __future__ import annotations

import ast
import re
import tomllib
from collections import Counter
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest

from zhuoji.rules.facts import Outcome
from zhuoji.rules.families import families, family_names
from zhuoji.rules.families.changsha.settlement import REASONS as CHANGSHA_REASONS
from zhuoji.rules.families.guizhou.patterns import Pattern
from zhuoji.rules.families.guizhou.settlement import REASONS as GUIZHOU_REASONS
from zhuoji.rules.families.guizhou.settlement import ChickenKind, Reason
from zhuoji.rules.families.sichuan.settlement import REASONS as SICHUAN_REASONS
from zhuoji.rules.glossary import (
    GlossaryError,
    _merge_words,
    default_lang,
    expand,
    glossary,
    parse_glossary,
    term,
    text,
    tile_zh,
    tiles_zh,
    translate,
    translate_or_none,
    with_names_zh,
    zh,
)
from zhuoji.rules.melds import MeldKind
from zhuoji.rules.violations import ViolationCode

ROOT = Path(__file__).resolve().parents[2]
SOURCE = (ROOT / "rules" / "glossary.toml").read_text(encoding="utf-8")
WORDS = {path.parent.name: path.read_text(encoding="utf-8")
         for path in sorted((ROOT / "rules" / "families").glob("*/glossary.toml"))}
"""Each family's words file (rules/families/<name>/glossary.toml), added to the glossary."""


def _merged() -> dict[str, Any]:
    """The glossary's table with every family's words added (as rules/glossary.py reads it)."""
    data = tomllib.loads(SOURCE)
    for name, words in WORDS.items():
        _merge_words(data, tomllib.loads(words), name)
    return data


def _sentences() -> str:
    """The sentences and message templates: the glossary's end, from [text] on, and each
    words file's tables of texts, templates and helps."""
    parts = [SOURCE[SOURCE.index("\n[text]\n"):]]
    for words in WORDS.values():
        at = [words.index(h) for h in ("\n[text]", "\n[message.", "\n[help]") if h in words]
        if at:
            parts.append(words[min(at):])
    return "\n".join(parts)
TERM_SECTIONS = ("game", "tile", "kong", "meld", "chicken", "pattern", "ready", "reason",
                 "rule", "code", "outcome")
NAMED = ("kong", "chicken", "pattern", "ready", "reason", "rule", "code")
"""The sections whose terms the message templates quote: only by reference."""


def test_the_installed_package_reads_the_same_file() -> None:
    assert files("rules").joinpath("glossary.toml").read_text(encoding="utf-8") == SOURCE
    assert glossary().source == SOURCE


def test_each_term_is_spelt_once() -> None:
    """A Chinese term is defined by one key, a family's word too; every other use refers
    to it (``=s.k`` or ``<s.k>``)."""
    data = _merged()
    spelt: Counter[str] = Counter()
    tables = [table for section, table in data.items()
              if section not in ("text", "message", "family", "help")]
    tables += [table for sections in data["family"].values() for table in sections.values()]
    for table in tables:
        for value in table.values():
            if isinstance(value, str) and value.startswith("="):
                continue
            chinese = value if isinstance(value, str) else value[1]
            if "<" not in chinese:
                spelt[chinese] += 1
    assert [t for t, n in spelt.items() if n > 1] == []
    # the sentences and the message templates (the file's end, from [text] on) quote a
    # named term only by reference
    sentences = _sentences()
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
    shipped = [f for f in families() if f.settle.__module__.startswith("zhuoji.rules.families.")]
    assert set(g.terms["pattern"]) == {p for f in shipped for p in f.patterns}
    assert set(g.terms["reason"]) == {*GUIZHOU_REASONS, *CHANGSHA_REASONS, *SICHUAN_REASONS}
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
    for path in sorted((ROOT / "flows").rglob("*.py")):
        for line, english in _literal_calls(path, {"text", "_t", "t", "T"}):
            used += 1
            assert english in texts, f"{path.name}:{line}: {english!r} has no Chinese"
    assert used > 80


def test_every_label_the_pages_use_is_in_the_glossary() -> None:
    g = glossary()
    pattern = re.compile(r"""\bL\(["']([a-z_0-9]+)["']\)|\bT\("((?:[^"\\]|\\.)+)"[,)]""")
    for path in sorted((ROOT / "flows" / "dashboard" / "assets").glob("*.html")):
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


_HELD = "seat 1 holds 2355s [chow 1p, pong 4m]"
_MECHANICS_MESSAGES = [
    # rules/wall_events.py
    "seat 2 throws the dice [3, 4] but no kong replacement is due (seat 2 must discard)",
    "seat 1 throws the dice [3, 4] but seat 2 made the kong and throws for its replacement",
    "seat 2 throws the dice [3, 4] but the dice were already thrown for this kong",
    "seat 2 throws the dice [0, 7]: two dice are thrown, each 1-6",
    "seat 1 throws the dice [6, 6] but only a ready hand may throw the dice after a kong "
    f"(mechanics.kong_dice_needs_ready); {_HELD}",
    "seat 1 takes the last tile (海底) but the last tile is not offered now: the kong's "
    "replacement takes the last tile (no offer this hand)",
    "seat 1 declines the last tile (海底) but the last tile is not offered now: 12 tiles are "
    "left in the wall",
    "seat 1 takes the last tile (海底) but the last tile is not offered now: no draw is due "
    "(seat 1 must discard)",
    "seat 3 declines the last tile (海底) but the last tile is offered in turn: seat 0 next",
    "seat 0 discards 5m but seat 2 took the last tile and must draw it first",
    "seat 0 draws 5m but every seat declined the last tile: the hand ends drawn (exhaustive draw)",
    "seat 1 wins on 5m by self-draw but the last tile is being offered: seat 2 takes or declines "
    "it next",
    "birds 3s but the birds were already shown (3s)",
    "birds 3s but there was no win (seat 0 must discard)",
    "birds 3s but no tile is left in the wall",
    "birds 3s but the birds are 7m (the last tile, won on, is the bird)",
    "birds 3s4p but the birds are 7m1s (the next 2 at the wall's front)",
    "birds none but 1 bird is due (mechanics.birds = 1, 20 tiles left)",
    "birds 3s but 2 birds are due (mechanics.birds = 2, 20 tiles left)",
    "birds 3s3s but all 4 copies of 3s are out",
    "seat 1 draws 5m but the wall holds only its last tile: it is offered first (a `seabed` "
    "event by seat 1)",
    "seat 2 discards 7m but threw the dice after a kong: every tile it draws is discarded until "
    "it wins (mechanics.kong_dice_locks_hand); it drew 5m",
    "seat 2 makes a concealed kong of 7m but threw the dice after a kong: every tile it draws is "
    "discarded until it wins (mechanics.kong_dice_locks_hand); it drew 5m",
    "seat 2 discards 7m but took the last tile (5m): unless it wins, it shows that tile",
    "seat 3 pongs 5m from seat 2 but the shown last tile may only be won on",
    "seat 3 wins on 5m from seat 2 after the birds were shown",
    "seat 3 wins on 5m from seat 2 but the kong's player threw the dice for its replacement: the "
    "kong stands (a robbing win comes before the dice)",
    "the log ends after seat 2 took the last tile, without its draw",
    "the log ends without the birds after the win (3s due)",
    "the log ends without the birds after the win (2 tiles due)",
    "the log ends without the birds after the win (1 tile due)",
    "seat 0 discards 5m but seat 1 took the last tile and draws it next",
    "seat 0 discards 5m but every seat declined the last tile: the hand ends drawn (exhaustive "
    "draw)",
    "seat 0 discards 5m but the last tile is offered to seat 3 next",
    "seat 1 draws 5m but the next tile at the wall's back (kong replacement) is 9p",
    "seat 1 draws 5m but the next tile at the wall's back (flower replacement) is 9p",
    # rules/claims.py
    "seat 2 chows 345p from seat 1 but there is no discard to claim (seat 1 must discard)",
    "seat 2 chows 345p from seat 1 but the last discard is 7m by seat 0",
    "seat 3 chows 345p from seat 1 but only the discarder's next player (seat 2) may chow",
    "seat 2 chows 357p from seat 1: a chow is three tiles in rank order of one suit (万 筒 条; "
    "honours never chow)",
    f"seat 2 chows 345p from seat 1 without 5p: {_HELD}",
    f"seat 2 chows 345p from seat 1 but declared ready (a chow changes the hand); {_HELD}",
    "seat 1 shows 5m but 5m is not a flower",
    f"seat 1 shows 2f but {_HELD}",
    "seat 1 shows 2f but a flower is shown by the player to act, or on the dealt hand before the "
    "dealer's first discard (seat 0 must discard)",
    "seat 1 discards 5m while holding a flower, which is shown and replaced before the discard; "
    f"{_HELD}",
    "seat 1 draws 5m but seat 1 must draw its flower replacement",
    # rules/families/changsha/legality.py
    "seat 1 declares four_of_a_kind (起手小胡) showing 5555m but ruleset 'x' has no 起手小胡 "
    "(small_wins off)",
    "seat 1 declares bogus (起手小胡) showing 5555m: unknown kind 'bogus'; the kinds are: "
    "four_of_a_kind, missing_suit, no_258, two_triplets",
    "seat 1 declares two_triplets (起手小胡) showing 555m777p too late: 起手小胡 are declared on "
    "the dealt hand, before the dealer's first discard",
    "seat 1 declares four_of_a_kind (起手小胡) showing 1z: 1z is not a suited tile",
    "seat 1 declares four_of_a_kind (起手小胡) showing 5555m but the tiles are not in its hand; "
    f"{_HELD}",
    "seat 1 declares four_of_a_kind (起手小胡) showing 555m but it shows four of one tile (四喜) "
    f"only; {_HELD}",
    "seat 1 declares two_triplets (起手小胡) showing 555m but it shows two triplets (六六顺), "
    f"six tiles only; {_HELD}",
    "seat 1 declares no_258 (起手小胡) showing 555m but it shows the whole hand, holding no 2, 5 "
    f"or 8 (板板胡) only; {_HELD}",
    "seat 1 declares missing_suit (起手小胡) showing 555m but it shows the whole hand, missing a "
    f"suit (缺一色) only; {_HELD}",
    "seat 1: small_win after the hand ended (the hand has ended)",
    "seat 1 wins on 3s but a 小胡 needs a pair of 2, 5 or 8 (二五八做将) and the hand is none of "
    f"碰碰胡, 将将胡, 清一色, 七小对; {_HELD}",
    "seat 1 wins on 3s from another player but let a win on 3s pass (seat 2, event 40) and has "
    f"drawn no tile since (漏胡); {_HELD}",
    # rules/table.py, a robbing win where the kong is no added one
    "seat 1 wins on 3s from seat 2 but only an added kong can be robbed, on its own tile",
]
"""One message of each form the wall mechanics (rules/wall_events.py), chow and flowers
(rules/claims.py) and Changsha's table (rules/families/changsha/legality.py) write."""
_TWO_WORDS = re.compile(r"[A-Za-z]+[ ,;:'()-]+[A-Za-z]+")


@pytest.mark.parametrize("message", _MECHANICS_MESSAGES)
def test_the_mechanics_messages_translate(message: str) -> None:
    """Each has a template; its Chinese keeps no English phrase (settings keys and code
    names aside)."""
    chinese = translate_or_none(message)
    assert chinese is not None, message
    assert not _TWO_WORDS.search(re.sub(r"[a-z]+(?:[_.][a-z0-9_]+)+", " ", chinese)), chinese


def test_the_changsha_words() -> None:
    assert translate(
        "seat 3 chows 345p from seat 1 but only the discarder's next player (seat 2) may chow"
    ) == "座位3吃座位1的345筒，但只有打牌者的下家（座位2）可以吃"
    assert translate(
        f"seat 1 wins on 3s but a 小胡 needs a pair of 2, 5 or 8 (二五八做将) and the hand is "
        f"none of 碰碰胡, 将将胡, 清一色, 七小对; {_HELD}"
    ) == ("座位1胡3条，但小胡须二五八做将，而这手牌不是碰碰胡、将将胡、清一色、七对中的任何一种；"
          "座位1手牌 2355条［吃（1筒起）、碰4万］")
    assert translate(
        "seat 2 wins on 8m from another player but let a win on 8m pass (seat 3, event 97) "
        "and has drawn no tile since (漏胡); seat 2 holds 67m55p"
    ) == ("座位2胡别家打出的8万，但它已放过座位3的8万（事件97），此后还没有摸牌（漏胡）；"
          "座位2手牌 67万55筒")
    assert translate("seat 1 takes the last tile (海底) but the last tile is offered in turn: "
                     "seat 2 next") == "座位1要海底牌，但海底牌按顺序问：下一个是座位2"
    assert translate("the log ends without the birds after the win (3s due)") == (
        "记录在胡后没有扎鸟就结束了（鸟牌应为 3条）")


_NO_258 = ("seat 1 wins on 3s but a 小胡 needs a pair of 2, 5 or 8 (二五八做将) and the hand "
           "is none of 碰碰胡, 将将胡, 清一色, 七小对; seat 1 holds 2355s [added_kong 4m, "
           "concealed_kong 9p]")


def test_the_changsha_words_of_its_terms() -> None:
    """[family.changsha.*]: a Changsha hand says 明杠 for an exposed or an added kong (「暗杠
    不能抢杠胡，只有明杠可以抢胡」: the added kong is the robbable 明杠), 暗杠 for a concealed
    one, 杠 for kongs, 七小对, 听牌, 通炮, 漏胡; what refers to those terms follows; the
    English stays; the base words (Guizhou's) and the other families' are unchanged."""
    base, changsha = glossary(), glossary("changsha")
    assert changsha.family == "changsha" and base.family is None
    assert glossary("guizhou") is base and glossary(None) is base and glossary("nobody") is base
    assert glossary("changsha") is changsha
    words = {("kong", "exposed"): "明杠", ("kong", "added"): "明杠",
             ("kong", "concealed"): "暗杠", ("kong", "kongs"): "杠",
             ("meld", "exposed_kong"): "明杠", ("meld", "added_kong"): "明杠",
             ("meld", "concealed_kong"): "暗杠", ("reason", "added_kong"): "明杠",
             ("label", "kongs"): "杠", ("pattern", "seven_pairs"): "七小对",
             ("ready", "ready"): "听牌", ("label", "ready"): "听牌",
             ("rule", "multiple_win"): "通炮", ("code", "missed_win"): "漏胡",
             ("outcome", "multiple_win"): "通炮局"}
    for (section, key), chinese in words.items():
        assert zh(section, key, "changsha") == chinese, (section, key)
        assert term(section, key, "zh", family="changsha") == chinese
        assert term(section, key, "en", family="changsha") == term(section, key, "en")
    assert (zh("kong", "exposed"), zh("kong", "added"), zh("kong", "concealed"),
            zh("kong", "kongs"), zh("pattern", "seven_pairs")) == (
        "点豆", "转弯豆", "闷豆", "豆", "七对")
    # the terms the family names and those that refer to them or quote them; every other
    # term is the base's
    changed = {(s, k) for s, table in base.terms.items() for k in table
               if changsha.terms[s][k] != table[k]}
    assert changed == {
        *words, ("meld", "late"), ("label", "ready_rate"), ("column", "ready_rate"),
        ("label", "kongs_per_hand"), ("column", "kongs_per_hand"),
        ("rule", "missed_win"),
        ("reason", "exposed_kong"), ("reason", "concealed_kong"), ("column", "exposed_kongs"),
        ("column", "added_kongs"), ("column", "concealed_kongs"), ("replay", "kong_exposed"),
        ("replay", "kong_added"), ("replay", "kong_concealed")}
    assert changsha.terms["meld"]["late"] == ("late kong", "后杠")
    # the templates' Chinese and the replay's sentences
    assert translate(_NO_258) == (
        "座位1胡3条，但小胡须二五八做将，而这手牌不是碰碰胡、将将胡、清一色、七对中的任何一种；"
        "座位1手牌 2355条［转弯豆4万、闷豆9筒］")
    assert translate(_NO_258, family="changsha") == (
        "座位1胡3条，但小胡须二五八做将，而这手牌不是碰碰胡、将将胡、清一色、七小对中的任何一种；"
        "座位1手牌 2355条［明杠4万、暗杠9筒］")
    assert translate(_NO_258, family="guizhou") == translate(_NO_258)
    assert translate_or_none("seat 0 makes a concealed kong of 7m", "event", "changsha") == (
        "座位0杠7万（暗杠）")
    assert changsha.terms["replay"]["kong_added"] == (
        "seat {seat} adds {tile} to a pong 明杠", "座位{seat}补杠{tile}（明杠）")
    # a sentence quoting a term: its Chinese, and its English, in the family's words
    assert text("not ready", "zh", "changsha") == "未听牌"
    assert text("ready 叫牌", "en", "changsha") == "ready 听牌"
    assert text("ready 叫牌", "en") == "ready 叫牌"
    assert expand("<kong.added> / <pattern.seven_pairs>", "changsha") == "明杠 / 七小对"
    assert expand("<kong.added> / <pattern.seven_pairs>") == "转弯豆 / 七对"
    # the families the file gives words are registered ones
    assert set(base.family_terms) <= set(family_names())


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
        # a family's words name terms of the base
        ('[a]\nx = "甲"\n[family.f.a]\ny = "乙"\n', "family.f.a.y names no term a.y"),
        ('[a]\nx = "甲"\n[family.f.b]\nx = "乙"\n', "family.f.b names no section"),
        ('[a]\nx = "甲"\n[family.f.a]\nx = 1\n', "neither a string"),
        ('[a]\nx = "甲"\n[family.f.a]\nx = "=a.z"\n', "not a term"),
        ('[a]\nx = "甲"\n[family.f.a]\nx = "<a.z>"\n', "is not a term"),
        ('[a]\nx = "甲"\n[family]\nf = 1\n', "not a table of sections"),
    ],
)
def test_a_bad_glossary_is_refused(source: str, error: str) -> None:
    with pytest.raises(GlossaryError, match=error):
        parse_glossary(source)


def test_a_family_word_and_what_follows_it() -> None:
    """A family's word is its Chinese (the English the term's, unless it gives both); a
    term referring to it, a ``<section.key>`` quoting it and a template's Chinese follow;
    the English a template matches stays the base's."""
    source = ('[a]\nx = ["Ex", "甲"]\ny = "=a.x"\nz = "<a.x>之"\nw = "丁"\n'
              '[family.f.a]\nx = "乙"\nw = ["Double-u", "戊"]\n'
              '[message.message]\n"say <a.x> {n}" = "说<a.y> {n}"\n'
              '[text]\n"<a.x> here" = "<a.z>这里"\n')
    base, f = parse_glossary(source), parse_glossary(source, "f")
    assert base.terms["a"] == {"x": ("Ex", "甲"), "y": ("Ex", "甲"), "z": ("z", "甲之"),
                               "w": ("w", "丁")}
    assert f.terms["a"] == {"x": ("Ex", "乙"), "y": ("Ex", "乙"), "z": ("z", "乙之"),
                            "w": ("Double-u", "戊")}
    assert parse_glossary(source, "g") == base  # a family with no words: the base's
    message = "say 甲 3"  # the engine writes the base's word
    assert base.templates["message"][0].chinese == "说甲 {n}"
    assert f.templates["message"][0].chinese == "说乙 {n}"
    assert f.regex(f.templates["message"][0]).fullmatch(message)
    assert base.texts == {"甲 here": "甲之这里"} and f.texts == {"甲 here": "乙之这里"}
    assert f.english == {"甲 here": "乙 here"} and base.english == {}


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
