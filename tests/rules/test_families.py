"""The family registry: the Guizhou family as registered, a test family registered from a
test folder and used through the public API, and the rule that no family imports another
(nor the core's registry users a family by name)."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

import zhuoji.rules.families as families_module
from tests.rules.toy_family import FAMILY as TOY
from tests.rules.toy_family import ToyRuleset
from zhuoji.rules.families import (
    Family,
    UnknownFamilyError,
    families,
    family_named,
    family_names,
    family_of,
    register,
)
from zhuoji.rules.families.guizhou.settings import Ruleset
from zhuoji.rules.families.guizhou.settlement import settle as guizhou_settle
from zhuoji.rules.presets import load_preset, load_preset_file, preset_names, presets_by_family
from zhuoji.rules.settings import (
    RulesetError,
    apply_overrides,
    diff_settings,
    settings_of,
)
from zhuoji.rules.tiles import Tile, TileSet
from zhuoji.rules.version import ruleset_fingerprint

RULES = Path(__file__).resolve().parents[2] / "rules"


def test_the_guizhou_family_is_found_by_its_folder() -> None:
    guizhou = family_named("guizhou")
    assert "guizhou" in family_names()
    assert guizhou.settings is Ruleset and guizhou.settle is guizhou_settle
    assert guizhou.tile_set is TileSet.SUITED and len(guizhou.tile_set.wall()) == 108
    assert guizhou.patterns[0] == "plain" and "flush_dragon_seven_pairs" in guizhou.patterns
    mine = presets_by_family()["guizhou"]
    for name in mine:
        ruleset = load_preset(name)
        assert type(ruleset) is Ruleset and family_of(ruleset) is guizhou, name
    assert sorted(n for names in presets_by_family().values() for n in names) == sorted(
        preset_names())


def test_a_family_from_a_test_folder_works_through_the_public_api(tmp_path: Path) -> None:
    assert family_named("toy") is TOY and TOY in families()
    preset = tmp_path / "toy-a.toml"
    preset.write_text(
        'family = "toy"\ntitle = "a toy preset"\nseed = "none"\n'
        "players = 3\n[points]\nwin = 5\n",
        encoding="utf-8",
    )
    ruleset = load_preset_file(preset)
    assert isinstance(ruleset, ToyRuleset) and ruleset.name == "toy-a"
    assert family_of(ruleset) is TOY
    assert settings_of(ruleset) == {
        "players": 3, "chow": True, "points.win": 5, "points.honour_pair": 0,
    }
    # the core's setting machinery reads the family's own sections and aliases
    changed = apply_overrides(ruleset, {"point_honour_pair": 2, "players": 4})
    assert (changed.players, changed.points.honour_pair) == (4, 2)
    assert [p for p, _, _ in diff_settings(ruleset, changed)] == ["players", "points.honour_pair"]
    with pytest.raises(RulesetError, match=r"unknown setting 'kongs\.added'"):
        apply_overrides(ruleset, {"kongs.added": 1})
    with pytest.raises(RulesetError, match="of different families"):
        diff_settings(ruleset, load_preset("guiyang"))
    # its settlement and audit, through the registry
    family = family_of(changed)
    deltas = family.settle(1, changed)
    assert deltas == (-5, 15, -5, -5) and sum(deltas) == 0
    assert family.audit_result(deltas, deltas) == []
    assert family.audit_result(deltas, (0, 0, 0, 0)) != []
    assert family.tile_set.has(Tile.EAST) and not family.tile_set.has(Tile.SPRING)
    assert ruleset_fingerprint(ruleset) != ruleset_fingerprint(changed)


def test_a_preset_of_the_family_is_validated_by_its_model(tmp_path: Path) -> None:
    bad = tmp_path / "toy-b.toml"
    bad.write_text('family = "toy"\ntitle = "t"\nseed = "s"\n[kongs]\nadded = 1\n', "utf-8")
    with pytest.raises(RulesetError, match=r"toy-b\.toml.*kongs: Extra inputs"):
        load_preset_file(bad)
    # a Guizhou setting does not exist in the toy family, nor a toy one in Guizhou
    guizhou_like = tmp_path / "g.toml"
    guizhou_like.write_text('family = "guizhou"\ntitle = "t"\nseed = "s"\nchow = true\n', "utf-8")
    with pytest.raises(RulesetError, match=r"g\.toml.*chow: Extra inputs"):
        load_preset_file(guizhou_like)


def test_a_preset_cannot_extend_one_of_another_family(tmp_path: Path) -> None:
    child = tmp_path / "toy-c.toml"
    child.write_text('extends = "guiyang"\nfamily = "toy"\ntitle = "t"\nseed = "s"\n', "utf-8")
    with pytest.raises(RulesetError, match=r"field 'family': 'toy', but it extends 'guiyang'"):
        load_preset_file(child)


def test_an_unknown_family_names_the_file_and_the_field(tmp_path: Path) -> None:
    path = tmp_path / "x.toml"
    path.write_text('family = "nowhere"\ntitle = "t"\nseed = "s"\n', encoding="utf-8")
    with pytest.raises(UnknownFamilyError) as caught:
        load_preset_file(path)
    message = str(caught.value)
    assert str(path) in message and "field 'family'" in message
    assert "unknown family 'nowhere'" in message and "guizhou" in message
    with pytest.raises(UnknownFamilyError, match="unknown family 'nope'"):
        family_named("nope")


def test_registering_is_checked() -> None:
    assert register(TOY) is TOY  # the same family again: nothing changes
    with pytest.raises(RulesetError, match="registered twice"):
        register(dataclasses.replace(TOY, title="another"))
    with pytest.raises(RulesetError, match="gives family = 'toy'"):
        register(dataclasses.replace(TOY, name="toy2"))
    assert family_named("toy") is TOY and "toy2" not in family_names()


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
    return out


def test_no_family_imports_another() -> None:
    folders = [p for p in (RULES / "families").iterdir() if (p / "__init__.py").exists()]
    assert {p.name for p in folders} >= {"guizhou"}
    for folder in folders:
        for source in folder.rglob("*.py"):
            for module in _imported_modules(source):
                parts = module.split(".")
                if parts[:3] == ["zhuoji", "rules", "families"] and len(parts) > 3:
                    assert parts[3] == folder.name, f"{source} imports {module}"


def test_the_registry_and_its_users_name_no_family() -> None:
    # what finds families, validates presets and fingerprints rulesets reaches a family
    # only through the registry
    for name in ("families/__init__.py", "settings.py", "presets.py", "version.py"):
        for module in _imported_modules(RULES / name):
            assert not module.startswith("zhuoji.rules.families."), f"rules/{name} imports {module}"
    assert families_module.REGISTRATION_MODULE == "family"
    assert (RULES / "families" / "guizhou" / "family.py").exists()


def test_a_family_record_is_a_value() -> None:
    assert isinstance(TOY, Family)
    with pytest.raises(dataclasses.FrozenInstanceError):
        TOY.name = "other"  # type: ignore[misc]
