"""The presets the project ships: one TOML file per preset in ``rules/presets/``.

A preset file holds the settings of :class:`~rules.families.guizhou.settings.Ruleset`
(without ``name``, which is the file's stem) and may start from another preset with
``extends = "other"``:
its tables are merged over the other's, key by key. Files are read once through
:mod:`importlib.resources` (the one read this package makes) and cached.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

from pydantic import ValidationError

from rules.families.guizhou.settings import Ruleset, RulesetError, apply_overrides

DEFAULT_PRESET = "guiyang"
_SUFFIX = ".toml"


class UnknownPresetError(RulesetError):
    """A preset name the project does not ship."""


def _preset_dir() -> Traversable:
    return resources.files("rules").joinpath("presets")


@cache
def _names() -> tuple[str, ...]:
    return tuple(
        sorted(
            entry.name[: -len(_SUFFIX)]
            for entry in _preset_dir().iterdir()
            if entry.name.endswith(_SUFFIX)
        )
    )


def preset_names() -> list[str]:
    """Names of the shipped presets, sorted."""
    return list(_names())


def is_preset(name: str) -> bool:
    return name in _names()


@cache
def preset_text(name: str) -> str:
    """The TOML text of a preset file (comments included)."""
    if not is_preset(name):
        raise UnknownPresetError(
            f"unknown preset {name!r}; the presets are: {', '.join(_names())}"
        )
    text: str = _preset_dir().joinpath(name + _SUFFIX).read_text(encoding="utf-8")
    return text


def parse_preset_table(name: str, text: str) -> dict[str, Any]:
    """A preset file's TOML text to its table; raises RulesetError naming the preset."""
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RulesetError(f"preset {name!r}: not valid TOML: {exc}") from None
    if "name" in table and table["name"] != name:
        raise RulesetError(
            f"preset {name!r}: the file says name = {table['name']!r}; a preset is named "
            "by its file"
        )
    for key in ("title", "seed"):
        if not isinstance(table.get(key), str) or not table[key]:
            raise RulesetError(f"preset {name!r}: the file must state its own {key!r}")
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
        raise RulesetError(f"preset {chain[0]!r}: extends forms a cycle: {' -> '.join(chain)}")
    table = parse_preset_table(name, preset_text(name))
    parent = table.pop("extends", None)
    if parent is None:
        return table
    if not isinstance(parent, str):
        raise RulesetError(f"preset {name!r}: extends must name a preset")
    if not is_preset(parent):
        raise UnknownPresetError(f"preset {name!r} extends unknown preset {parent!r}")
    base = _resolved_table(parent, (*chain, name))
    for key in ("title", "seed", "article"):
        base.pop(key, None)
    return _merge(base, table)


def parent_of(name: str) -> str | None:
    """The preset a preset extends, if any."""
    parent = parse_preset_table(name, preset_text(name)).get("extends")
    return parent if isinstance(parent, str) else None


@cache
def load_preset(name: str) -> Ruleset:
    """The preset's ruleset with ``extends`` resolved; raises UnknownPresetError/RulesetError."""
    table = _resolved_table(name)
    table["name"] = name
    try:
        return Ruleset.model_validate(table)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        raise RulesetError(f"preset {name!r}: {problems}") from None


def resolve_ruleset(name: str | None, overrides: Mapping[str, object] | None = None) -> Ruleset:
    """A log's ruleset: the named preset (the default one when ``None``) with the log's
    ``rule_overrides`` replacing single settings (dotted paths or flat aliases)."""
    ruleset = load_preset(DEFAULT_PRESET if name is None else name)
    if not overrides:
        return ruleset
    return apply_overrides(ruleset, overrides)
