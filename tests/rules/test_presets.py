"""The shipped presets: every file loads, says what RULES.md says, cites its seed."""

from __future__ import annotations

import itertools
import re
import tomllib
from typing import Any

import pytest

from zhuoji.rules import presets
from zhuoji.rules.events import KongKind
from zhuoji.rules.families.guizhou.settings import (
    ChickenScope,
    DrawDealer,
    Forfeit,
    HandValuation,
    MultiWinDealer,
    Ruleset,
)
from zhuoji.rules.presets import (
    DEFAULT_PRESET,
    UnknownPresetError,
    load_preset,
    parent_of,
    parse_preset_table,
    preset_names,
    preset_text,
    resolve_ruleset,
)
from zhuoji.rules.settings import RulesetError, setting_value, settings_of
from zhuoji.rules.tiles import Tile

SEEDS = {
    "000_1f7fb64d63d6ccbe.txt",
    "001_82ae1cc9d30ff2a8.txt",
    "002_11583926db928b7a.txt",
    "003_11bdde6cd4e09882.txt",
    "004_a9ae80a61ad7745a.txt",
}

# The presets of RULES.md's table with the seed each follows.
RULES_TABLE_SEEDS = {
    "changsha": "003_11bdde6cd4e09882.txt",
    "changsha-birds2": "003_11bdde6cd4e09882.txt",
    "changsha-birds4": "003_11bdde6cd4e09882.txt",
    "guiyang": "002_11583926db928b7a.txt",
    "guiyang-app": "001_82ae1cc9d30ff2a8.txt",
    "guiyang-classic": "000_1f7fb64d63d6ccbe.txt",
    "guiyang-10": "000_1f7fb64d63d6ccbe.txt",
    "guiyang-dou3": "000_1f7fb64d63d6ccbe.txt",
    "an-majiang": "000_1f7fb64d63d6ccbe.txt",
    "guizhou": "004_a9ae80a61ad7745a.txt",
    "zunyi": "004_a9ae80a61ad7745a.txt",
    "guiyang-3p": "000_1f7fb64d63d6ccbe.txt",
    # beyond RULES.md's table: 000's 「一、五、十的打法」 (docs/rules/README.md, decision 29)
    "guiyang-1-5-10": "000_1f7fb64d63d6ccbe.txt",
    "guiyang-2p": "000_1f7fb64d63d6ccbe.txt",
    # 「贵阳麻将(1)」 at its first player count (decision 38)
    "guiyang-4p": "000_1f7fb64d63d6ccbe.txt",
    # beyond RULES.md's table: seed 003's third game, Sichuan, and the published forms
    # (issue 34, docs/rules/sichuan.md)
    "sichuan": "003_11bdde6cd4e09882.txt",
    "sichuan-sbr": "003_11bdde6cd4e09882.txt",
    "sichuan-xueliu": "003_11bdde6cd4e09882.txt",
    "sichuan-xuezhan": "003_11bdde6cd4e09882.txt",
}

_SHAPES = (
    "plain",
    "all_pungs",
    "seven_pairs",
    "dragon_seven_pairs",
    "full_flush",
    "flush_all_pungs",
    "flush_seven_pairs",
    "flush_dragon_seven_pairs",
)


def _patterns(*values: int) -> dict[str, object]:
    return {f"patterns.{name}": v for name, v in zip(_SHAPES, values, strict=True)}


# What RULES.md's table says sets each preset apart, as settings.
RULES_TABLE: dict[str, dict[str, object]] = {
    "guiyang": {
        # 平1 自摸+1 大对5 七对8 龙七对10 清一色10 清大对15 清七对18 青龙背20
        **_patterns(1, 5, 8, 10, 10, 15, 18, 20),
        "bonuses.self_draw": 1,
        # 点豆1 闷豆2 转弯豆3
        "kongs.exposed": 1,
        "kongs.concealed": 2,
        "kongs.added": 3,
        # 报听10; 杀报; 热炮+1
        "ready.hard_value": 10,
        "ready.soft_value": 10,
        "ready.kill_ready": True,
        "hot_discard.exposed": 1,
        "hot_discard.added": 1,
        "hot_discard.concealed": 1,
        # 抢杠 as 清一色 paid by the robbed
        "robbed_kong.valued_as": HandValuation.FULL_FLUSH,
        "robbed_kong.robbed_pays_for_all": False,
        # 翻鸡 + 金鸡; 手上鸡/内外鸡 setting
        "flip_chicken": True,
        "chickens.gold_multiplier": 2,
        "chickens.scope": ChickenScope.HAND,
    },
    "guiyang-app": {
        # 平1 大对5 七对7 龙七对10 清一色10 清大对15 清七对17 青龙背20
        **_patterns(1, 5, 7, 10, 10, 15, 17, 20),
        # 包鸡; 憨包豆; 全烧 on a robbed kong; dealer +1 and 连庄
        "chickens.penalty": True,
        "kongs.delayed_scores": False,
        "robbed_kong.forfeit": Forfeit.KONGS_AND_CHICKENS,
        "dealer.bonus": 1,
        "dealer.streak_bonus": 1,
    },
    "guiyang-classic": {
        # 平1 大对5 七对10 龙七对20 清一色10 清大对15 青龙背30
        "patterns.plain": 1,
        "patterns.all_pungs": 5,
        "patterns.seven_pairs": 10,
        "patterns.dragon_seven_pairs": 20,
        "patterns.full_flush": 10,
        "patterns.flush_all_pungs": 15,
        "patterns.flush_dragon_seven_pairs": 30,
        # 闷豆2 转弯豆3 点豆1; 连庄 n
        "kongs.concealed": 2,
        "kongs.added": 3,
        "kongs.exposed": 1,
        "dealer.streak_bonus": 1,
    },
    "guiyang-10": {
        # 10/30/40/50/50/80/100
        "patterns.plain": 10,
        "patterns.all_pungs": 30,
        "patterns.seven_pairs": 40,
        "patterns.dragon_seven_pairs": 50,
        "patterns.full_flush": 50,
        "patterns.flush_all_pungs": 80,
        "patterns.flush_dragon_seven_pairs": 100,
        # 闷豆20 转弯豆10 点豆10
        "kongs.concealed": 20,
        "kongs.added": 10,
        "kongs.exposed": 10,
        # 热炮 pays by kong kind 60/30/10
        "hot_discard.concealed": 60,
        "hot_discard.added": 30,
        "hot_discard.exposed": 10,
        # chicken 10, chicken kong 60; 包牌
        "chickens.flip_value": 10,
        "chickens.concealed_kong_value": 60,
        "penalties.missed_win": "penalty",
    },
    "guiyang-dou3": {
        # every kong 3
        "kongs.exposed": 3,
        "kongs.concealed": 3,
        "kongs.added": 3,
        # 抢杠 9 base + plain; 烧豆 3 base
        "robbed_kong.bonus": 9,
        "robbed_kong.valued_as": HandValuation.PLAIN,
        "hot_discard.exposed": 3,
        "hot_discard.added": 3,
        "hot_discard.concealed": 3,
        "hot_discard.forfeit": Forfeit.ALL_KONGS,
        # dealer hand-over rules for one/two/three winners
        "dealer.two_winners": MultiWinDealer.FIRST_AFTER_DISCARDER,
        "dealer.three_winners": MultiWinDealer.DISCARDER,
        "dealer.exhaustive_draw": DrawDealer.BY_READINESS,
    },
    "an-majiang": {
        # 110 tiles with 2 wildcards 万能鸡
        "wildcards": 2,
        # 包鸡
        "chickens.penalty": True,
    },
    "guizhou": {
        # 点胡平胡1 大对5 小七对10 清一色10 龙七对20 清大对15 青七对20 青龙对30
        **_patterns(1, 5, 10, 20, 10, 15, 20, 30),
        # 自摸平胡2 杠上胡3
        "bonuses.self_draw": 1,
        "bonuses.kong_bloom": 1,
        # 憨包豆; 硬报20 软听10; 相公 pays 2
        "kongs.delayed_scores": False,
        "ready.hard_value": 20,
        "ready.soft_value": 10,
        "penalties.false_hand": 2,
    },
    "zunyi": {
        # 平胡2 边卡吊3 大宽张4 对对胡4 暗七对4 清一色10 龙七对10
        "patterns.plain": 2,
        "patterns.edge_wait": 3,
        "patterns.wide_wait": 4,
        "patterns.all_pungs": 4,
        "patterns.seven_pairs": 4,
        "patterns.full_flush": 10,
        "patterns.dragon_seven_pairs": 10,
        # 天和/地和10 杠上花10 杠上炮3 抢杠 self-draw+3
        "bonuses.heavenly": 10,
        "bonuses.earthly": 10,
        "bonuses.kong_bloom": 10,
        "hot_discard.exposed": 3,
        "hot_discard.added": 3,
        "hot_discard.concealed": 3,
        # RULES.md's "self-draw+3" is read from the heading 「搶杠(=自摸分)」; the article's
        # body 「和牌家獲得的分為所和牌型的分值加3」 gives the whole amount (decision 7)
        "robbed_kong.counts_as_self_draw": False,
        "robbed_kong.bonus": 3,
        # 明豆2 暗豆2 转弯豆3; 缺一门 required
        "kongs.exposed": 2,
        "kongs.concealed": 2,
        "kongs.added": 3,
        "missing_suit_required": True,
    },
    "guiyang-3p": {"players": 3},
    "guiyang-2p": {"players": 2},
}

# Standing chickens of RULES.md's table: tile -> (value, charging, responsibility).
STANDING: dict[str, dict[Tile, tuple[int, int, int]]] = {
    "guiyang-app": {Tile.S1: (1, 3, 2), Tile.P8: (2, 6, 4)},  # 乌骨鸡; 冲锋鸡 +3/+6; 责任鸡 2/4
    "guiyang-dou3": {Tile.S1: (1, 2, 1)},  # 冲锋鸡 2; 责任鸡 +1
    "an-majiang": {Tile.S1: (1, 3, 3), Tile.P7: (1, 3, 3)},  # 挖挖鸡; 冲锋鸡 3; 责任鸡 +3
    "guiyang-10": {},  # 「翻到九条则一条为鸡」: the flip is its only chicken (decision 27)
}

# 金鸡 amounts of RULES.md's table: (gold standing value, gold charging value) of 1s.
GOLD = {"guiyang-dou3": (2, 4), "an-majiang": (2, 6)}


def _flatten(table: dict[str, Any], prefix: str = "") -> set[str]:
    keys: set[str] = set()
    for key, value in table.items():
        if isinstance(value, dict):
            keys |= _flatten(value, f"{prefix}{key}.")
        else:
            keys.add(prefix + key)
    return keys


def test_preset_names_are_rules_md_table_sorted() -> None:
    names = preset_names()
    assert names == sorted(RULES_TABLE_SEEDS)
    assert DEFAULT_PRESET in names


@pytest.mark.parametrize("name", sorted(RULES_TABLE_SEEDS))
def test_preset_loads_and_cites_its_seed(name: str) -> None:
    ruleset = load_preset(name)
    assert ruleset.name == name
    assert ruleset.title and ruleset.article
    assert ruleset.seed == RULES_TABLE_SEEDS[name]
    assert ruleset.seed in SEEDS
    header = preset_text(name).split("\n\n", 1)[0]
    assert all(line.startswith("#") for line in header.splitlines())
    assert f"Seed: {ruleset.seed}" in header


@pytest.mark.parametrize("name", sorted(RULES_TABLE))
def test_preset_says_what_rules_md_says(name: str) -> None:
    ruleset = load_preset(name)
    for path, expected in RULES_TABLE[name].items():
        assert setting_value(ruleset, path) == expected, (name, path)


@pytest.mark.parametrize("name", sorted(STANDING))
def test_standing_chickens_of_rules_md(name: str) -> None:
    chickens = load_preset(name).chickens
    got = {s.tile: (s.value, s.charging, s.responsibility) for s in chickens.standing}
    assert got == STANDING[name]


@pytest.mark.parametrize("name", sorted(GOLD))
def test_gold_chicken_amounts_of_rules_md(name: str) -> None:
    chickens = load_preset(name).chickens
    s1 = chickens.standing_of(Tile.S1)
    assert s1 is not None
    gold = chickens.gold_multiplier
    assert (s1.value * gold, s1.charging * gold) == GOLD[name]


def test_guizhou_kong_bloom_plain_self_drawn_is_three() -> None:
    # 「杠上胡：3倍」 = plain + self-draw + kong bloom, with values added
    r = load_preset("guizhou")
    assert r.patterns.plain + r.bonuses.self_draw + r.bonuses.kong_bloom == 3


def test_guizhou_jian_dou_san_is_one_override() -> None:
    r = resolve_ruleset("guizhou", {"kong_uniform": 3})
    assert [r.kongs.value_of(k) for k in KongKind] == [3, 3, 3]
    assert [load_preset("guizhou").kongs.value_of(k) for k in KongKind] == [1, 3, 2]


def test_no_two_presets_are_identical() -> None:
    values = {name: settings_of(load_preset(name)) for name in preset_names()}
    for a, b in itertools.combinations(preset_names(), 2):
        assert values[a] != values[b], (a, b)


@pytest.mark.parametrize("name", preset_names())
def test_preset_file_states_every_setting_or_extends(name: str) -> None:
    table = tomllib.loads(preset_text(name))
    written = _flatten(table) - {"title", "seed", "article", "extends", "family"}
    paths = type(load_preset(name)).setting_paths()  # the family's settings
    assert written <= set(paths), written - set(paths)
    parent = parent_of(name)
    if parent is None:
        assert written == set(paths), set(paths) - written
        return
    resolved, base = load_preset(name), load_preset(parent)
    for path in paths:
        if path not in written:
            assert setting_value(resolved, path) == setting_value(base, path), path


@pytest.mark.parametrize("name", preset_names())
def test_every_setting_line_quotes_the_seed_or_names_the_family_default(name: str) -> None:
    assignment = re.compile(r"^\s*(\{|[A-Za-z_]+\s*=)")
    for line in preset_text(name).splitlines():
        if not assignment.match(line) or line.split("=")[0].strip() in {
            "title",
            "seed",
            "article",
            "extends",
            "family",
        }:
            continue
        assert "#" in line, line
        comment = line.split("#", 1)[1]
        # a family whose presets name the published forms (Sichuan) says which it follows
        assert any(mark in comment for mark in (
            "「", "family default", "common form (not in the seed text)",
            "tournament rules (")), line


def test_extends_resolves_to_parent_values() -> None:
    three = load_preset("guiyang-3p")
    assert parent_of("guiyang-3p") == "guiyang"
    assert three.players == 3
    assert three.patterns == load_preset("guiyang").patterns
    assert three.title != load_preset("guiyang").title


def test_load_preset_is_cached() -> None:
    assert load_preset("zunyi") is load_preset("zunyi")


def test_resolve_ruleset_defaults_and_overrides() -> None:
    assert resolve_ruleset(None) is load_preset(DEFAULT_PRESET)
    assert resolve_ruleset("zunyi", {}) is load_preset("zunyi")
    # the example of LOG_FORMAT.md
    r = resolve_ruleset("guiyang", {"chicken_scope": "hand_and_discards"})
    assert r.chickens.scope is ChickenScope.HAND_AND_DISCARDS
    assert r.name == "guiyang"
    r = resolve_ruleset("guiyang-app", {"dealer.exhaustive_draw": "by_readiness", "players": 3})
    assert r.dealer.exhaustive_draw is DrawDealer.BY_READINESS and r.players == 3
    assert load_preset("guiyang").chickens.scope is ChickenScope.HAND


def test_bad_names_and_overrides_fail_clearly() -> None:
    with pytest.raises(UnknownPresetError, match=r"unknown preset 'guiyan'.*guiyang"):
        resolve_ruleset("guiyan", {})
    with pytest.raises(RulesetError, match="ruleset 'zunyi': unknown setting 'chicken_scop'"):
        resolve_ruleset("zunyi", {"chicken_scop": "hand"})
    with pytest.raises(RulesetError, match=r"ruleset 'zunyi'.*'players' = 9"):
        resolve_ruleset("zunyi", {"players": 9})
    assert issubclass(UnknownPresetError, ValueError)


def test_preset_table_errors() -> None:
    with pytest.raises(RulesetError, match="preset 'x': not valid TOML"):
        parse_preset_table("x", "players = ")
    with pytest.raises(RulesetError, match="must state its own 'seed'"):
        parse_preset_table("x", 'title = "t"\n')
    with pytest.raises(RulesetError, match="a preset is named by its file"):
        parse_preset_table("x", 'name = "y"\ntitle = "t"\nseed = "s"\n')


def _fake_presets(monkeypatch: pytest.MonkeyPatch, files: dict[str, str]) -> None:
    monkeypatch.setattr(presets, "is_preset", lambda name: name in files)
    monkeypatch.setattr(presets, "preset_text", lambda name: files[name])


def test_extends_cycles_and_unknown_parents_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    head = 'family = "guizhou"\ntitle = "t"\nseed = "s"\n'
    _fake_presets(
        monkeypatch,
        {
            "a": head + 'extends = "b"\n',
            "b": head + 'extends = "a"\n',
            "c": head + 'extends = "nowhere"\n',
            "d": head + "players = 9\n",
            "e": head + 'extends = "d"\nplayers = 3\n[kongs]\nadded = 7\n',
        },
    )
    load = load_preset.__wrapped__  # the uncached function, reading the fake files
    with pytest.raises(RulesetError, match="cycle: a -> b"):
        load("a")
    with pytest.raises(UnknownPresetError, match="'c' extends unknown preset 'nowhere'"):
        load("c")
    with pytest.raises(RulesetError,
                       match=r"preset 'd' \(rules/families/guizhou/presets/d\.toml\): players"):
        load("d")
    child: Ruleset = load("e")
    assert (child.players, child.kongs.added, child.kongs.concealed) == (3, 7, 2)


def test_every_preset_names_its_family_and_the_family_is_checked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in preset_names():
        family = parse_preset_table(name, preset_text(name))["family"]
        assert family in ("guizhou", "changsha", "sichuan")
        assert load_preset(name).family == family
    _fake_presets(
        monkeypatch,
        {
            "nofamily": 'title = "t"\nseed = "s"\n',
            "unknown": 'family = "shanghai"\ntitle = "t"\nseed = "s"\n',
            "typed": 'family = 3\ntitle = "t"\nseed = "s"\n',
        },
    )
    load = load_preset.__wrapped__
    with pytest.raises(RulesetError, match="'nofamily': the file must state its own 'family'"):
        load("nofamily")
    with pytest.raises(
        RulesetError, match="preset 'unknown': field 'family': unknown family 'shanghai'"
    ):
        load("unknown")
    with pytest.raises(RulesetError, match="preset 'typed': the file must state its own 'family'"):
        load("typed")


def test_a_family_cannot_be_overridden() -> None:
    with pytest.raises(RulesetError, match="names the ruleset and cannot be overridden"):
        resolve_ruleset("guiyang", {"family": "toy"})
