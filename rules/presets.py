"""The presets the project ships: one TOML file per preset in its family's folder
(``presets/*.toml`` of the folder each registered family is found in,
:func:`zhuoji.rules.families.family_folder`).

A preset file names its rule family (``family = "<name>"``) and holds the settings of that
family's settings model (:mod:`zhuoji.rules.families`, the family's ``settings``), without
``name``, which is the file's stem. A preset's name is unique across the families (two
families shipping one name is an error naming both files). It may start from another
preset of its family with ``extends = "other"``: its tables are merged over the other's,
key by key. Files are read once through :mod:`importlib.resources` (the one read this
package makes) and cached; :func:`load_preset_file` reads a preset file from anywhere (a
preset not shipped yet).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from zhuoji.rules.families import (
    UnknownFamilyError,
    default_family,
    families,
    family_folder,
    family_named,
)
from zhuoji.rules.messages import Message
from zhuoji.rules.settings import RulesetBase, RulesetError, apply_overrides, excerpt, said

DEFAULT_PRESET = "guiyang"
_SUFFIX = ".toml"


class UnknownPresetError(RulesetError):
    """A preset name the project does not ship."""


PRESETS_FOLDER = "presets"
"""The folder of a family's folder its presets are in."""


def _shown(file: Traversable) -> str:
    """A preset file's path as an error names it: from ``rules/`` for a file of the
    package (``rules/families/<name>/presets/<preset>.toml``), else as it is."""
    path = Path(str(file))
    root = Path(str(resources.files("zhuoji.rules")))
    try:
        return (Path("rules") / path.relative_to(root)).as_posix()
    except ValueError:
        return str(path)


@cache
def _catalog_of(registered: tuple[str, ...]) -> dict[str, Traversable]:
    found: dict[str, Traversable] = {}
    for name in registered:
        folder = family_folder(family_named(name)).joinpath(PRESETS_FOLDER)
        if not folder.is_dir():
            continue
        for entry in sorted(folder.iterdir(), key=lambda e: e.name):
            if not entry.name.endswith(_SUFFIX) or not entry.is_file():
                continue
            preset = entry.name[: -len(_SUFFIX)]
            other = found.get(preset)
            if other is not None:
                raise RulesetError(Message(
                    "preset {p:any} is shipped twice: {a:any} and {b:any}; a preset's name "
                    "is unique across the families", repr(preset), _shown(other),
                    _shown(entry)))
            found[preset] = entry
    return {preset: found[preset] for preset in sorted(found)}


def _catalog() -> dict[str, Traversable]:
    """The shipped presets by name: each registered family's ``presets/*.toml`` (read
    again when a family registers later)."""
    return _catalog_of(tuple(f.name for f in families()))


def _names() -> tuple[str, ...]:
    return tuple(_catalog())


def preset_file(name: str, family: str | None = None) -> str:
    """The path of a preset's file as errors name it; a name not shipped (yet): where
    its family's folder would hold it."""
    file = _catalog().get(name)
    if file is None and family is not None:
        try:
            folder = family_folder(family_named(family))
        except UnknownFamilyError:
            return name + _SUFFIX
        file = folder.joinpath(PRESETS_FOLDER).joinpath(name + _SUFFIX)
    return name + _SUFFIX if file is None else _shown(file)


def preset_names(family: str | None = None) -> list[str]:
    """Names of the shipped presets, sorted; with ``family``, that family's presets only."""
    if family is None:
        return list(_names())
    return [name for name in _names() if load_preset(name).family == family]


def is_preset(name: str) -> bool:
    return name in _names()


@cache
def preset_text(name: str) -> str:
    """The TOML text of a preset file (comments included)."""
    if not is_preset(name):
        raise UnknownPresetError(Message("unknown preset {p:any}; the presets are: {all:any}",
                                         excerpt(name), ", ".join(_names())))
    text: str = _catalog()[name].read_text(encoding="utf-8")
    return text


def parse_preset_table(name: str, text: str) -> dict[str, Any]:
    """A preset file's TOML text to its table; raises RulesetError naming the preset."""
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RulesetError(Message("preset {p:any}: not valid TOML: {d:external}", repr(name),
                                   str(exc))) from None
    if "name" in table and table["name"] != name:
        raise RulesetError(Message(
            "preset {p:any}: the file says name = {q:any}; a preset is named by its file",
            repr(name), repr(table["name"])))
    for key in ("title", "seed", "family"):
        if not isinstance(table.get(key), str) or not table[key]:
            raise RulesetError(Message("preset {p:any}: the file must state its own {k:any}",
                                       repr(name), repr(key)))
    try:
        family_named(table["family"])
    except UnknownFamilyError as exc:
        raise UnknownFamilyError(Message("preset {p:any}: field 'family': {why:said}",
                                         repr(name), said(exc))) from None
    return table


def _merge(base: dict[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _resolved_table(name: str, chain: tuple[str, ...] = ()) -> dict[str, Any]:
    if name in chain:
        raise RulesetError(Message("preset {p:any}: extends forms a cycle: {c:any}",
                                   repr(chain[0]), " -> ".join(chain)))
    table = parse_preset_table(name, preset_text(name))
    parent = table.pop("extends", None)
    if parent is None:
        return table
    if not isinstance(parent, str):
        raise RulesetError(Message("preset {p:any}: extends must name a preset", repr(name)))
    if not is_preset(parent):
        raise UnknownPresetError(Message("preset {p:any} extends unknown preset {q:any}",
                                         repr(name), repr(parent)))
    base = _resolved_table(parent, (*chain, name))
    if base["family"] != table["family"]:
        raise RulesetError(Message(
            "preset {p:any}: field 'family': {f:any}, but it extends {q:any} of family {g:any}",
            repr(name), repr(table["family"]), repr(parent), repr(base["family"])))
    for key in ("title", "seed", "article"):
        base.pop(key, None)
    return _merge(base, table)


def parent_of(name: str) -> str | None:
    """The preset a preset extends, if any."""
    parent = parse_preset_table(name, preset_text(name)).get("extends")
    return parent if isinstance(parent, str) else None


def family_of_preset(name: str) -> str:
    """The family a shipped preset names."""
    family: str = parse_preset_table(name, preset_text(name))["family"]
    return family


def presets_by_family() -> dict[str, list[str]]:
    """The shipped presets grouped by family: family name -> preset names (both sorted)."""
    groups: dict[str, list[str]] = {}
    for name in _names():
        groups.setdefault(family_of_preset(name), []).append(name)
    return {family: groups[family] for family in sorted(groups)}


def ruleset_from_table(name: str, table: Mapping[str, Any], where: str = "") -> RulesetBase:
    """A preset table (``extends`` resolved, ``name`` left out) validated by its family's
    settings model; raises RulesetError naming the preset (and ``where``, its file)."""
    label = (Message("preset {p:any} ({w:any})", repr(name), where) if where
             else Message("preset {p:any}", repr(name)))
    data = dict(table)
    data["name"] = name
    family_name = data["family"] if "family" in data else data.setdefault(
        "family", default_family())
    if not isinstance(family_name, str):
        raise RulesetError(Message("{l:said}: field 'family': {f:any} is not a family name",
                                   label, repr(family_name)))
    try:
        family = family_named(family_name)
    except UnknownFamilyError as exc:
        raise UnknownFamilyError(Message("{l:said}: field 'family': {why:said}", label,
                                         said(exc))) from None
    try:
        return family.settings.model_validate(data)
    except ValidationError as exc:
        problems = [
            Message("{f:any}: {d:external}", ".".join(str(p) for p in e["loc"]), str(e["msg"]))
            if e["loc"] else Message("{d:external}", str(e["msg"]))
            for e in exc.errors()
        ]
        raise RulesetError(Message("{l:said}: {why:said*; }", label, problems)) from None


@cache
def load_preset(name: str) -> RulesetBase:
    """The preset's ruleset with ``extends`` resolved; raises UnknownPresetError/RulesetError."""
    table = _resolved_table(name)
    return ruleset_from_table(name, table, preset_file(name, table.get("family")))


def load_preset_file(path: Path) -> RulesetBase:
    """A preset file read from ``path`` (named by its stem; ``extends`` may name a shipped
    preset of its family); raises RulesetError naming the file."""
    name = path.name[: -len(_SUFFIX)] if path.name.endswith(_SUFFIX) else path.name
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RulesetError(Message("preset file {p:any}: cannot be read: {d:external}",
                                   repr(str(path)), str(exc))) from None
    try:
        table = parse_preset_table(name, text)
    except RulesetError as exc:
        raise type(exc)(Message("{path:any}: {reason:said}", str(path), said(exc))) from None
    parent = table.pop("extends", None)
    if parent is not None:
        if not isinstance(parent, str) or not is_preset(parent):
            raise UnknownPresetError(Message(
                "{path:any}: {reason:said}", str(path),
                Message("preset {p:any} extends unknown preset {q:any}", repr(name),
                        repr(parent))))
        base = _resolved_table(parent)
        if base["family"] != table["family"]:
            raise RulesetError(Message("{path:any}: {reason:said}", str(path), Message(
                "preset {p:any}: field 'family': {f:any}, but it extends {q:any} of family "
                "{g:any}", repr(name), repr(table["family"]), repr(parent),
                repr(base["family"]))))
        for key in ("title", "seed", "article"):
            base.pop(key, None)
        table = _merge(base, table)
    return ruleset_from_table(name, table, str(path))


def resolve_ruleset(
    name: str | None, overrides: Mapping[str, object] | None = None
) -> RulesetBase:
    """A log's ruleset: the named preset (the default one when ``None``) with the log's
    ``rule_overrides`` replacing single settings (dotted paths or flat aliases)."""
    ruleset = load_preset(DEFAULT_PRESET if name is None else name)
    if not overrides:
        return ruleset
    return apply_overrides(ruleset, overrides)
