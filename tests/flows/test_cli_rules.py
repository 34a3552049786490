"""``zhuoji rules list / show / diff / matrix``."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from zhuoji.flows.cli.main import app
from zhuoji.flows.cli.rules import format_columns, parse_assignment, settings_matrix_markdown
from zhuoji.rules.families.guizhou.settings import SETTING_PATHS
from zhuoji.rules.presets import load_preset, preset_names, presets_by_family
from zhuoji.rules.settings import diff_settings

runner = CliRunner()
DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules" / "presets.md"


def test_list_shows_every_preset() -> None:
    result = runner.invoke(app, ["rules", "list"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    # each family: its line, then its presets indented under a header row, a blank line between
    groups = presets_by_family()
    blocks = result.output.rstrip("\n").split("\n\n")
    assert len(blocks) == len(groups)
    for block, (family, names) in zip(blocks, groups.items(), strict=True):
        rows = block.splitlines()
        assert rows[0].startswith(f"family {family}: ") and rows[0].endswith("tiles)")
        assert rows[1].split() == ["name", "players", "seed", "title"]
        assert len(rows) == 2 + len(names)
        for name, line in zip(names, rows[2:], strict=True):
            ruleset = load_preset(name)
            assert ruleset.family == family
            assert line.startswith("  ") and line.split()[0] == name
            assert ruleset.seed in line and ruleset.title in line
    assert sum(len(names) for names in groups.values()) == len(preset_names())
    assert any(line.startswith("family guizhou: Guizhou 捉鸡") for line in lines)
    assert any(line.startswith("  guiyang (default)") for line in lines)
    three = next(line for line in lines if line.startswith("  guiyang-3p "))
    assert three.split()[1] == "3"


def _setting_line(name: str, value: str, out: str) -> bool:
    """Whether ``out`` has the line ``name = value`` (names and values are padded to their
    section's longest; a description may follow)."""
    pattern = rf"^{name} += {re.escape(value)}(?: +#.*)?$"
    return re.search(pattern, out, re.MULTILINE) is not None


def test_show_prints_every_resolved_setting() -> None:
    result = runner.invoke(app, ["rules", "show", "guiyang-3p"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "extends: guiyang" in out and "000_1f7fb64d63d6ccbe.txt" in out
    fields = [line.split()[0] for line in out.splitlines() if " = " in line]
    assert fields == [p.rpartition(".")[2] for p in SETTING_PATHS]
    assert _setting_line("players", "3", out)
    assert _setting_line("scope", "hand_and_discards", out)
    # inherited from guiyang, printed resolved
    assert _setting_line("flush_seven_pairs", "18", out)


def test_show_applies_overrides_and_describes() -> None:
    result = runner.invoke(
        app, ["rules", "show", "guiyang", "--set", "chicken_scope=hand_and_discards",
              "--set", "kongs.added=4", "-d"],
    )
    assert result.exit_code == 0, result.output
    assert _setting_line("scope", "hand_and_discards", result.output)
    assert _setting_line("added", "4", result.output)
    assert "# 双杀: a kong pays only if its owner won or is ready" in result.output


def test_show_errors_exit_2_with_message() -> None:
    result = runner.invoke(app, ["rules", "show", "nowhere"])
    assert result.exit_code == 2
    assert "unknown preset 'nowhere'" in result.output
    result = runner.invoke(app, ["rules", "show", "guiyang", "--set", "chicken_scope=all"])
    assert result.exit_code == 2
    assert "'chicken_scope' (chickens.scope) = 'all'" in result.output
    result = runner.invoke(app, ["rules", "show", "guiyang", "--set", "players"])
    assert result.exit_code == 2 and "expected KEY=VALUE" in result.output


def test_diff_prints_only_differing_settings() -> None:
    result = runner.invoke(app, ["rules", "diff", "guiyang", "guiyang-3p"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split() == ["setting", "guiyang", "guiyang-3p"]
    assert [line.split() for line in lines[1:]] == [
        ["players", "4", "3"],
        ["chickens.scope", "hand", "hand_and_discards"],
        ["dealer.two_winners", "first_from_dealer", "discarder"],
    ]
    big = runner.invoke(app, ["rules", "diff", "guiyang", "zunyi"])
    expected = diff_settings(load_preset("guiyang"), load_preset("zunyi"))
    assert len(big.output.splitlines()) == 1 + len(expected)


def test_diff_same_preset_and_unknown() -> None:
    same = runner.invoke(app, ["rules", "diff", "zunyi", "zunyi"])
    assert same.exit_code == 0 and "same settings" in same.output
    bad = runner.invoke(app, ["rules", "diff", "zunyi", "nowhere"])
    assert bad.exit_code == 2 and "unknown preset 'nowhere'" in bad.output


def test_matrix_is_the_one_in_the_docs() -> None:
    result = runner.invoke(app, ["rules", "matrix"])
    assert result.exit_code == 0
    guizhou = settings_matrix_markdown(preset_names("guizhou"))
    assert f"### family guizhou\n\n{guizhou}" in result.output
    assert len(guizhou.splitlines()) == 2 + len(SETTING_PATHS)
    assert "### family changsha\n\n" in result.output
    text = DOCS.read_text(encoding="utf-8")
    block = text.split("<!-- matrix:start -->\n", 1)[1].split("<!-- matrix:end -->", 1)[0]
    assert block == result.output, "regenerate with `zhuoji rules matrix`"


def test_assignment_parsing_and_columns() -> None:
    assert parse_assignment("kongs.added=4") == ("kongs.added", 4)
    assert parse_assignment("chicken_scope=hand") == ("chicken_scope", "hand")
    assert parse_assignment("x=true") == ("x", True)
    assert format_columns([["ab", "c"], ["清一色", "d"]]) == ["ab      c", "清一色  d"]


def test_show_gives_every_setting_of_every_preset_its_source() -> None:
    """``--sources``: each setting with the comment its preset file (or the one it
    extends) gives it: a quote of the seed, or "family default"."""
    from zhuoji.rules.settings import settings_of

    for name in preset_names():
        result = runner.invoke(app, ["rules", "show", name, "--sources"])
        assert result.exit_code == 0, result.output
        rows = [line for line in result.output.splitlines() if " = " in line]
        assert len(rows) == len(settings_of(load_preset(name))), name
        for line in rows:
            assert "  # " in line and "not in the preset file" not in line, (name, line)
    result = runner.invoke(app, ["rules", "show", "changsha-birds2"])  # sources by default
    lines = result.output.splitlines()
    assert any(re.fullmatch(r"birds +  = 2 +# family default: a platform's 2 birds .*", line)
               for line in lines), result.output
    assert any(re.fullmatch(r"dealer_extra +  = 10 +# 「如果点炮方为庄家.*」", line)
               for line in lines), result.output


def test_show_marks_what_set_changed_and_can_leave_the_sources_out() -> None:
    result = runner.invoke(app, ["rules", "show", "changsha", "--set", "points.big_discard=80"])
    assert result.exit_code == 0, result.output
    assert re.search(r"^big_discard +  = 80 +# --set on the command line$", result.output,
                     re.MULTILINE), result.output
    assert re.search(r"^small_discard +  = 10 +# 「小胡捉炮", result.output, re.MULTILINE)
    plain = runner.invoke(app, ["rules", "show", "changsha", "--no-sources"]).output
    rows = [line for line in plain.splitlines() if " = " in line]
    assert rows and not any("#" in line for line in rows)
