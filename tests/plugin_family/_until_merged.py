"""What the family needs from zhuoji that zhuoji does not offer a family kept outside its
package yet, done from here: the words of every family are read from
``rules/glossary.toml`` only (``zhuoji.rules.glossary``). :func:`install` adds this
folder's ``glossary.toml`` to the glossary. It goes once zhuoji finds a family's words in
its folder (and its presets, which nothing here can add: the presets are listed before
any family is looked up)."""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _toml(value: object) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def install() -> None:
    from zhuoji.rules import families, glossary

    if hasattr(families, "family_folder"):  # zhuoji reads the words of a family's folder
        return
    base = glossary._base
    if getattr(base, "plugin_family", False):
        return
    words = tomllib.loads((HERE / "glossary.toml").read_text(encoding="utf-8"))
    words.pop("family_title", None)  # the registration's title says it

    @cache
    def merged() -> Any:
        from importlib.resources import files

        text = files("zhuoji.rules").joinpath("glossary.toml").read_text(encoding="utf-8")
        for group, tables in words.items():
            named = tables.items() if group == "message" else [(None, tables)]
            for sub, terms in named:
                section = group if sub is None else f"{group}.{sub}"
                header = f"\n[{section}]\n"
                lines = "".join(f"{_toml(k)} = {_toml(v)}\n" for k, v in terms.items())
                if header in text:
                    text = text.replace(header, header + lines, 1)
                else:
                    text += header + lines
        return glossary.parse_glossary(text)

    merged.plugin_family = True  # type: ignore[attr-defined]
    glossary._base = merged
    for value in vars(glossary).values():
        clear = getattr(value, "cache_clear", None)
        if clear is not None:
            clear()
