"""A family's files in its folder: its presets (``presets/*.toml``) and its words
(``glossary.toml``), found through the registry, for a family kept outside
``rules/families/`` too; the default family as the registry's data.

Each test writes a family package of its own in a temporary folder and runs the command
line in a fresh process that imports it first (the registry of this process stays as it
is).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

from zhuoji.rules.families import default_family, families, family_folder
from zhuoji.rules.glossary import GlossaryError, parse_glossary
from zhuoji.rules.presets import preset_file, preset_names

ROOT = Path(__file__).resolve().parents[2]

_FAMILY = '''
from __future__ import annotations

from typing import Literal

from pydantic import Field

from zhuoji.rules.families import Family, register
from zhuoji.rules.settings import RulesetBase
from zhuoji.rules.tiles import TileSet


class ElsewhereRuleset(RulesetBase):
    family: Literal["elsewhere"] = Field("elsewhere", description="the rule family")
    players: int = Field(4, ge=2, le=4, description="player count")


FAMILY = register(
    Family(
        name="elsewhere",
        settings=ElsewhereRuleset,
        settle=lambda *a, **k: None,
        audit_result=lambda *a, **k: [],
        patterns=("win",),
        tile_set=TileSet.SUITED,
        default={default},
    )
)
'''

_PRESET = '''family = "elsewhere"
title = "{title}"
seed = "a seed"
players = 3
'''

_WORDS = '''[families]
elsewhere = ["Elsewhere", "别处麻将"]

[family_title]
elsewhere = ["Elsewhere: a family kept outside the package", "别处麻将：包外的玩法"]
'''


def _family(tmp_path: Path, presets: dict[str, str], words: str | None = _WORDS,
            default: bool = False) -> Path:
    """A family package ``elsewhere_family`` in ``tmp_path`` with these presets (name ->
    title) and words; returns the folder to put on the path."""
    folder = tmp_path / "elsewhere_family"
    (folder / "presets").mkdir(parents=True)
    (folder / "__init__.py").write_text(_FAMILY.format(default=default), encoding="utf-8")
    for name, title in presets.items():
        (folder / "presets" / f"{name}.toml").write_text(_PRESET.format(title=title),
                                                          encoding="utf-8")
    if words is not None:
        (folder / "glossary.toml").write_text(words, encoding="utf-8")
    return tmp_path


def _zhuoji(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``zhuoji ARGS`` in a fresh process that imports the family package first."""
    probe = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(path)!r})
        import elsewhere_family
        from zhuoji.flows.cli.main import main
        sys.argv = ["zhuoji", *{list(args)!r}]
        main()
    """)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get(
        "PYTHONPATH", "")]), "NO_COLOR": "1", "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=300, env=env, cwd=ROOT)


def test_the_shipped_presets_are_in_their_familys_folder() -> None:
    for family in families():
        folder = family_folder(family).joinpath("presets")
        if not folder.is_dir():
            continue
        for entry in folder.iterdir():
            if entry.name.endswith(".toml"):
                name = entry.name.removesuffix(".toml")
                assert name in preset_names(family.name)
                assert preset_file(name) == f"rules/families/{family.name}/presets/{entry.name}"


def test_a_family_kept_elsewhere_brings_its_presets_and_words(tmp_path: Path) -> None:
    path = _family(tmp_path, {"elsewhere-three": "three players elsewhere"})
    listed = _zhuoji(path, "rules", "list")
    assert listed.returncode == 0, listed.stderr
    assert "family elsewhere: Elsewhere: a family kept outside the package (108 tiles)" in (
        listed.stdout)
    assert "three players elsewhere" in listed.stdout
    chinese = _zhuoji(path, "rules", "list", "--lang", "zh")
    assert chinese.returncode == 0, chinese.stderr
    assert "玩法 elsewhere：别处麻将：包外的玩法（108 张牌）" in chinese.stdout
    shown = _zhuoji(path, "rules", "show", "elsewhere-three")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines()[0] == "elsewhere-three: three players elsewhere"


def test_a_preset_name_two_families_ship_is_refused_naming_both_files(
    tmp_path: Path,
) -> None:
    path = _family(tmp_path, {"guiyang": "a second guiyang"})
    for args, start in ((("rules", "show", "guiyang"), "error: preset 'guiyang'"),
                        (("rules", "list"), "error: preset 'guiyang'")):
        out = _zhuoji(path, *args)
        assert out.returncode == 2, out.stdout + out.stderr
        lines = (out.stdout + out.stderr).strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(start), lines
        assert "is shipped twice: " in lines[0]
        assert "rules/families/guizhou/presets/guiyang.toml" in lines[0]
        assert str(tmp_path / "elsewhere_family" / "presets" / "guiyang.toml") in lines[0]
        assert "Traceback" not in out.stderr
    chinese = _zhuoji(path, "rules", "show", "guiyang", "--lang", "zh")
    assert chinese.returncode == 2
    assert "出现了两次" in chinese.stdout + chinese.stderr


def test_the_default_family_is_the_registrys_data_and_one_only(tmp_path: Path) -> None:
    assert default_family() == next(f.name for f in families() if f.default)
    assert [f.name for f in families() if f.default] == [default_family()]
    path = _family(tmp_path, {}, default=True)
    out = _zhuoji(path, "rules", "list")
    assert out.returncode != 0
    assert "are both the default family" in out.stderr


def test_a_words_file_adds_to_the_glossary_and_repeats_nothing() -> None:
    core = (ROOT / "rules" / "glossary.toml").read_text(encoding="utf-8")
    alone = parse_glossary(core)  # the glossary stands alone: it names no family's term
    words = [(path.parent.name, path.read_text(encoding="utf-8"))
             for path in sorted((ROOT / "rules" / "families").glob("*/glossary.toml"))]
    assert words, "every shipped family has its words in its folder"
    merged = parse_glossary(core, words=words)
    for name, text in words:
        assert name in merged.terms["families"] and name not in alone.terms["families"]
        assert name in merged.terms["family_title"]
        assert tomllib.loads(text)["families"][name] == list(merged.terms["families"][name])
    with pytest.raises(GlossaryError, match=r"x's words: families\.unknown is in the "
                                            r"glossary already"):
        parse_glossary(core, words=[("x's words", '[families]\nunknown = ["U", "未"]\n')])
    with pytest.raises(GlossaryError, match=r"x's words: message\.rulesets\.preset "):
        parse_glossary(core, words=[("x's words", '[message.rulesets]\n'
                                     '"preset {p:any}" = "预设 {p}"\n')])
