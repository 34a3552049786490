"""``zhuoji rules``: list the shipped presets by family, show one's settings, diff two."""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import typer

from zhuoji.flows.cli.errors import fail
from zhuoji.flows.cli.jsonout import JsonOption, print_json, use_json
from zhuoji.flows.cli.lang import LangOption, current_lang, t, use_lang
from zhuoji.flows.text.terminal import echo

if TYPE_CHECKING:
    from zhuoji.rules.families import Family
    from zhuoji.rules.glossary import Lang
    from zhuoji.rules.settings import RulesetBase, RulesetError

rules_app = typer.Typer(
    help="Rulesets: the presets the project ships and their settings.",
    no_args_is_help=True,
)


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int) -> str:
    return text + " " * (width - _width(text))


def format_columns(rows: Sequence[Sequence[str]]) -> list[str]:
    """Rows of cells as aligned text lines (wide CJK characters count double)."""
    widths = [max(_width(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(_pad(cell, w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]


def parse_assignment(text: str) -> tuple[str, object]:
    """``KEY=VALUE`` to a key and a value (JSON when it parses, text otherwise)."""
    from zhuoji.rules.settings import RulesetError

    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        from zhuoji.rules.messages import Message

        raise RulesetError(Message("expected KEY=VALUE, got {q:any}", repr(text)))
    try:
        value: object = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    return key.strip(), value


def _fail(exc: RulesetError) -> typer.Exit:
    return fail(exc)


def _load(name: str) -> RulesetBase:
    from zhuoji.rules.presets import load_preset
    from zhuoji.rules.settings import RulesetError

    try:
        return load_preset(name)
    except RulesetError as exc:
        raise _fail(exc) from None


def _source(ruleset: RulesetBase) -> str:
    return f"{ruleset.seed}, {ruleset.article}" if ruleset.article else ruleset.seed


def _family_title(family: Family, lang: Lang) -> str:
    from zhuoji.rules.glossary import family_title

    return family_title(family.name, lang, family.title)


def list_lines() -> list[str]:
    """The shipped presets grouped by family: for each family a line naming it (its title
    and tile count), then its presets' name, players, seed document and article, title."""
    from zhuoji.rules.families import family_named
    from zhuoji.rules.presets import DEFAULT_PRESET, presets_by_family

    lines: list[str] = []
    for family_name, names in presets_by_family().items():
        family = family_named(family_name)
        if lines:
            lines.append("")
        lines.append(t("family {name}: {title} ({tiles} tiles)", name=family.name,
                       title=_family_title(family, current_lang()),
                       tiles=family.tile_set.value))
        rows = [[t("name"), t("players"), t("seed"), t("title")]]
        for name in names:
            ruleset = _load(name)
            shown = t("{name} (default)", name=name) if name == DEFAULT_PRESET else name
            players = str(getattr(ruleset, "players", ""))
            rows.append([shown, players, _source(ruleset), ruleset.title])
        lines.extend("  " + line for line in format_columns(rows))
    return lines


def list_json() -> dict[str, Any]:
    """The ``zhuoji rules list --json`` object: the default preset, and each family (as
    ``rules list`` orders them) with its presets."""
    from zhuoji.rules.families import family_named
    from zhuoji.rules.presets import DEFAULT_PRESET, parent_of, presets_by_family

    families = []
    for family_name, names in presets_by_family().items():
        family = family_named(family_name)
        presets = []
        for name in names:
            ruleset = _load(name)
            players = getattr(ruleset, "players", None)
            presets.append({
                "name": name,
                "title": ruleset.title,
                "players": players if isinstance(players, int) else None,
                "seed": ruleset.seed,
                "article": ruleset.article or None,
                "extends": parent_of(name),
                "default": name == DEFAULT_PRESET,
            })
        families.append({
            "family": family.name,
            "title": _family_title(family, "en"),
            "tiles": family.tile_set.value,
            "presets": presets,
        })
    return {"default": DEFAULT_PRESET, "families": families}


@rules_app.command("list")
def list_presets(json_output: JsonOption = False, lang: LangOption = None) -> None:
    """The shipped presets by family: name, players, seed document and article, title."""
    use_lang(lang)
    if use_json(json_output):
        print_json(list_json())
        return
    for line in list_lines():
        echo(line)


_SETTING_LINE = re.compile(r"^([A-Za-z0-9_]+)\s*=\s*[^#]*?\s#\s?(.*\S)\s*$")
_SECTION_LINE = re.compile(r"^\[([A-Za-z0-9_.]+)\]\s*(?:#.*)?$")


def preset_sources(name: str) -> dict[str, str]:
    """Each setting's source as its preset says it (the comment on its line: the seed's
    words, or "family default" where the seed is silent), by dotted path; a setting a
    preset leaves to the one it extends has that one's."""
    from zhuoji.rules.presets import parent_of, preset_text

    out: dict[str, str] = {}
    chain: str | None = name
    while chain is not None:
        section = ""
        for line in preset_text(chain).splitlines():
            head = _SECTION_LINE.match(line)
            if head is not None:
                section = head[1]
                continue
            m = _SETTING_LINE.match(line)
            if m is not None:
                out.setdefault(f"{section}.{m[1]}" if section else m[1], m[2])
        chain = parent_of(chain)
    return out


def show_lines(ruleset: RulesetBase, *, describe: bool = False,
               sources: bool = False) -> list[str]:
    """Every setting of a ruleset with its resolved value, grouped by section (with
    ``sources``, each setting's source as its preset file gives it)."""
    from zhuoji.rules.presets import parent_of, preset_names
    from zhuoji.rules.settings import format_setting, settings_of

    lines = [
        f"{ruleset.name}: {ruleset.title}",
        t("family: {family}", family=ruleset.family),
        t("seed: {seed}", seed=_source(ruleset)),
    ]
    is_preset = ruleset.name in preset_names()
    parent = parent_of(ruleset.name) if is_preset else None
    origin = preset_sources(ruleset.name) if sources and is_preset else {}
    preset_values: dict[str, object] = {}
    if sources and is_preset:
        from zhuoji.rules.presets import load_preset

        preset_values = settings_of(load_preset(ruleset.name))
    if parent:
        lines.append(t("extends: {parent} (values below are resolved)", parent=parent))
    lines.append("")
    section = ""
    rows: list[list[str]] = []

    def flush() -> None:
        if rows:
            lines.extend(format_columns(rows))
            rows.clear()

    for path, value in settings_of(ruleset).items():
        head, _, field = path.rpartition(".")
        if head != section:
            flush()
            section = head
            lines.extend(["", f"[{section}]"])
        row = [field, "= " + format_setting(value)]
        if describe:
            row.append("# " + type(ruleset).setting_description(path))
        if sources:
            if preset_values and preset_values.get(path) != value:
                row.append("# " + t("--set on the command line"))
            else:
                row.append("# " + origin.get(path, t("not in the preset file (the model's "
                                                     "default)")))
        rows.append(row)
    flush()
    return lines


def setting_json(value: object) -> Any:
    """A setting's value as JSON: a scalar as it is, a choice as its name, a list of
    entries as a list of objects (as a preset file spells them)."""
    from pydantic_core import to_jsonable_python

    return to_jsonable_python(value, fallback=str)


def show_json(ruleset: RulesetBase) -> dict[str, Any]:
    """The ``zhuoji rules show --json`` object: the ruleset, and each setting's resolved
    value, description, source (as its preset file says it; null for a ruleset that is
    no preset) and whether --set changed it."""
    from zhuoji.rules.presets import load_preset, parent_of, preset_names
    from zhuoji.rules.settings import settings_of

    is_preset = ruleset.name in preset_names()
    origin = preset_sources(ruleset.name) if is_preset else {}
    preset_values = settings_of(load_preset(ruleset.name)) if is_preset else {}
    settings: dict[str, Any] = {}
    for path, value in settings_of(ruleset).items():
        settings[path] = {
            "value": setting_json(value),
            "description": type(ruleset).setting_description(path),
            "source": origin.get(path) if is_preset else None,
            "set": bool(preset_values) and preset_values.get(path) != value,
        }
    return {
        "name": ruleset.name,
        "title": ruleset.title,
        "family": ruleset.family,
        "seed": ruleset.seed,
        "article": ruleset.article or None,
        "extends": parent_of(ruleset.name) if is_preset else None,
        "settings": settings,
    }


@rules_app.command("show")
def show(
    name: str = typer.Argument(..., help="preset name (see `zhuoji rules list`)"),
    overrides: list[str] = typer.Option(  # noqa: B008
        [],
        "--set",
        help="override one setting, KEY=VALUE (dotted path or flat alias; JSON value)",
    ),
    describe: bool = typer.Option(False, "--describe", "-d", help="add each description"),
    sources: bool = typer.Option(
        True, "--sources/--no-sources", "-s/-S",
        help="each setting's source, as its preset file says it (the seed's words, or "
             "family default); --set marks what it changed"),
    json_output: JsonOption = False,
    lang: LangOption = None,
) -> None:
    """Every setting of a preset with its resolved value (extends and --set applied)."""
    use_lang(lang)
    use_json(json_output)
    from zhuoji.rules.presets import resolve_ruleset
    from zhuoji.rules.settings import RulesetError

    try:
        pairs = dict(parse_assignment(text) for text in overrides)
        ruleset = resolve_ruleset(name, pairs)
    except RulesetError as exc:
        raise _fail(exc) from None
    if json_output:
        print_json(show_json(ruleset))
        return
    for line in show_lines(ruleset, describe=describe, sources=sources):
        echo(line)


@rules_app.command("diff")
def diff(
    a: str = typer.Argument(..., help="first preset"),
    b: str = typer.Argument(..., help="second preset"),
    json_output: JsonOption = False,
    lang: LangOption = None,
) -> None:
    """Only the settings whose values differ between two presets."""
    use_lang(lang)
    use_json(json_output)
    from zhuoji.rules.settings import RulesetError, diff_settings, format_setting

    left, right = _load(a), _load(b)
    try:
        differences = diff_settings(left, right)
    except RulesetError as exc:
        raise _fail(exc) from None
    if json_output:
        print_json({
            "a": a,
            "b": b,
            "differences": [
                {"setting": p, "a": setting_json(x), "b": setting_json(y)}
                for p, x, y in differences
            ],
        })
        return
    if not differences:
        echo(t("{a} and {b} have the same settings", a=a, b=b))
        return
    rows = [[t("setting"), a, b]]
    rows.extend([p, format_setting(x), format_setting(y)] for p, x, y in differences)
    for line in format_columns(rows):
        echo(line)


def settings_matrix_markdown(names: Sequence[str]) -> str:
    """A markdown table: one row per setting, one column per preset (presets of one family;
    raises RulesetError otherwise)."""
    from zhuoji.rules.presets import load_preset
    from zhuoji.rules.settings import RulesetError, format_setting, settings_of

    rulesets = [load_preset(n) for n in names]
    families = sorted({r.family for r in rulesets})
    if len(families) > 1:
        from zhuoji.rules.messages import Message

        raise RulesetError(Message("presets of several families ({f:any}) in one matrix",
                                   ", ".join(families)))
    values = [settings_of(r) for r in rulesets]
    out = [
        f"| {t('setting')} | " + " | ".join(f"`{n}`" for n in names) + " |",
        "|---|" + "---|" * len(names),
    ]
    for path in type(rulesets[0]).setting_paths():
        cells = [format_setting(v[path]).replace("; ", "<br>") for v in values]
        out.append(f"| `{path}` | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def matrix_json() -> dict[str, Any]:
    """The ``zhuoji rules matrix --json`` object: per family, its presets and each
    setting's value in each of them."""
    from zhuoji.rules.presets import load_preset, presets_by_family
    from zhuoji.rules.settings import settings_of

    families = []
    for family, names in presets_by_family().items():
        values = {n: settings_of(load_preset(n)) for n in names}
        paths = type(load_preset(names[0])).setting_paths()
        families.append({
            "family": family,
            "presets": list(names),
            "settings": {
                path: {n: setting_json(values[n][path]) for n in names} for path in paths
            },
        })
    return {"families": families}


@rules_app.command("matrix")
def matrix(json_output: JsonOption = False, lang: LangOption = None) -> None:
    """Every setting of every preset as markdown (docs/rules/presets.md): one table per
    family, each under a ``### family NAME`` heading when there are several families."""
    use_lang(lang)
    if use_json(json_output):
        print_json(matrix_json())
        return
    from zhuoji.rules.presets import presets_by_family

    groups = presets_by_family()
    parts = [
        (t("### family {family}", family=family) + "\n\n" if len(groups) > 1 else "")
        + settings_matrix_markdown(names)
        for family, names in groups.items()
    ]
    echo("\n".join(parts), nl=False)
