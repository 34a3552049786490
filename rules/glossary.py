"""The one glossary of the project's Chinese: every term once, and the message templates.

``rules/glossary.toml`` (read with :mod:`importlib.resources`, so an installed wheel has
it) holds

* **terms**, in sections (``pattern``, ``reason``, ``kong``, ``chicken``, ``meld``,
  ``code``, ``outcome``, ``label``, ``tile`` ...): ``key = "中文"`` or
  ``key = ["English", "中文"]``; a value ``"=section.key"`` is the same term as that key
  (each Chinese term is spelt once);
* **text**: the English of a page or a command's sentence and its Chinese, keyed by the
  English (``format`` fields in braces);
* **message templates**, in groups (``[message.<group>]``): the English form of a
  message the engine, the parsers or the audit produce, and its Chinese. A placeholder
  ``{name}`` or ``{name:kind}`` stands for a seat, a tile, a count, a ruleset's name ...
  or for a clause of another group (an event, a seat's tiles, the table's phase), which
  is translated in turn; ``{name:kind*SEP}`` is one or more of them joined by ``SEP``.
  ``<section.key>`` in a Chinese template is that term's Chinese.

:func:`translate` turns an English message into Chinese through the templates (the
engine's messages stay English in ``rules/``; the command line, the audit's JSON and the
dashboard translate at the edge); a message no template matches comes back unchanged
(:func:`translate_or_none` says None). Not compiled: the engine does not import it.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files
from typing import Literal, cast

__all__ = [
    "LANGS",
    "Glossary",
    "GlossaryError",
    "Lang",
    "default_lang",
    "expand",
    "glossary",
    "term",
    "text",
    "translate",
    "translate_or_none",
    "zh",
]

Lang = Literal["en", "zh"]
LANGS: tuple[Lang, ...] = ("en", "zh")


class GlossaryError(ValueError):
    """The glossary file is inconsistent (a reference to no term, a bad placeholder)."""


def default_lang(environ: Mapping[str, str] | None = None) -> Lang:
    """The language of the locale: ``zh`` when the first of ``LC_ALL``, ``LC_MESSAGES``,
    ``LANG`` that is set (and not empty) starts with ``zh``, else ``en``."""
    env = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "")
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


# --- placeholders -----------------------------------------------------------------------------

_TILE = r"(?:[1-9][mps]|[1-7]z|[1-8]f|W)"
_BASIC: Mapping[str, str] = {
    "seat": r"\d+",
    "from": r"\d+",
    "payer": r"\d+",
    "payee": r"\d+",
    "by": r"\d+",
    "n": r"[+-]?\d[\d,]*(?:\.\d+)?",
    "tile": _TILE,
    "tiles": r"(?:[1-9]+[mpszf]|W)+",
    "ruleset": r"'[^']*'",
    "word": r"[a-z][a-z0-9_]*",
    "code": r"[a-z][a-z0-9_]*",
    "pattern": r"[a-z][a-z0-9_]*",
    "reason": r"[a-z][a-z0-9_]*",
    "kongkind": r"exposed|added|concealed",
    "meldkind": r"pong|exposed_kong|added_kong|concealed_kong",
    "list": r"\[[^\]]*\]",
    "any": r".+?",
    "cjk": r"[\u3400-\u9fff]+",
    "quoted": r"'[^']*'|\"[^\"]*\"",
}
"""The regular expression of each basic kind (a placeholder named ``seat2`` is a seat)."""

_SEPARATORS: Mapping[str, str] = {"; ": "；", ", ": "、", " + ": " + ", " x ": " × "}
_PLACEHOLDER = re.compile(r"\{([a-z_]+?)(\d*)(?::([a-z_]+)(?:\*([^}]+))?)?\}")
_REFERENCE = re.compile(r"<([a-z_]+)\.([a-z0-9_]+)>")
_DIGITS = re.compile(r"\d")


@dataclass(frozen=True, slots=True)
class _Slot:
    name: str
    kind: str  # a basic kind or a group's name
    sep: str | None  # repeated, joined by this


@dataclass(frozen=True, slots=True)
class _Template:
    group: str
    english: str
    chinese: str
    slots: tuple[_Slot, ...]
    pattern: str  # compiled on first use (:meth:`Glossary.regex`): a command that only
    # looks up terms never pays for compiling some 300 templates


@dataclass(frozen=True, slots=True)
class Glossary:
    """The parsed glossary: terms by section, the page texts, the templates by group."""

    terms: Mapping[str, Mapping[str, tuple[str, str]]]
    texts: Mapping[str, str]
    templates: Mapping[str, tuple[_Template, ...]]
    group_regex: Mapping[str, str]
    source: str
    compiled: dict[str, re.Pattern[str]] = field(default_factory=dict, compare=False)

    def regex(self, template: _Template) -> re.Pattern[str]:
        """The template's compiled regular expression (compiled once, on first use)."""
        compiled = self.compiled.get(template.pattern)
        if compiled is None:
            compiled = self.compiled[template.pattern] = re.compile(template.pattern, re.DOTALL)
        return compiled

    def zh(self, section: str, key: str) -> str:
        return self.terms[section][key][1]

    def en(self, section: str, key: str) -> str:
        return self.terms[section][key][0]


def _parse_slots(english: str, groups: Mapping[str, object], where: str) -> list[_Slot]:
    slots = []
    for m in _PLACEHOLDER.finditer(english):
        base, digits, kind, sep = m.groups()
        kind = kind or base
        if kind not in _BASIC and kind not in groups:
            raise GlossaryError(f"{where}: placeholder {m.group(0)} names no kind or group")
        slots.append(_Slot(base + digits, kind, sep))
    return slots


def _compile(raw_groups: Mapping[str, Mapping[str, str]]) -> tuple[
    dict[str, tuple[_Template, ...]], dict[str, str]
]:
    group_regex: dict[str, str] = {}
    visiting: set[str] = set()

    def slot_regex(slot: _Slot, where: str) -> str:
        inner = _BASIC.get(slot.kind) or f"(?:{group(slot.kind, where)})"
        if slot.sep is None:
            return inner
        return f"{inner}(?:{re.escape(slot.sep)}{inner})*"

    def pattern_of(english: str, where: str, capture: bool) -> tuple[str, list[_Slot]]:
        slots = _parse_slots(english, raw_groups, where)
        out, at = [], 0
        for m, slot in zip(_PLACEHOLDER.finditer(english), slots, strict=True):
            out.append(re.escape(english[at : m.start()]))
            body = slot_regex(slot, where)
            out.append(f"(?P<{slot.name}>{body})" if capture else f"(?:{body})")
            at = m.end()
        out.append(re.escape(english[at:]))
        return "".join(out), slots

    def group(name: str, where: str) -> str:
        if name in group_regex:
            return group_regex[name]
        if name in visiting:
            raise GlossaryError(f"{where}: group {name!r} contains itself")
        visiting.add(name)
        alternatives = [
            pattern_of(english, f"message.{name}: {english!r}", False)[0]
            for english in raw_groups[name]
        ]
        visiting.discard(name)
        group_regex[name] = "|".join(alternatives)
        return group_regex[name]

    templates: dict[str, tuple[_Template, ...]] = {}
    for name, entries in raw_groups.items():
        group(name, f"message.{name}")
        compiled = []
        for english, chinese in entries.items():
            where = f"message.{name}: {english!r}"
            regex, slots = pattern_of(english, where, True)
            names = [s.name for s in slots]
            if len(set(names)) != len(names):
                raise GlossaryError(f"{where}: a placeholder name is used twice")
            for m in re.finditer(r"\{([a-z_0-9]+)\}", chinese):
                if m.group(1) not in names:
                    raise GlossaryError(f"{where}: the Chinese names {{{m.group(1)}}}, "
                                        "which the English does not have")
            compiled.append(_Template(name, english, chinese, tuple(slots), regex))
        templates[name] = tuple(compiled)
    return templates, group_regex


def _terms(data: Mapping[str, object]) -> dict[str, dict[str, tuple[str, str]]]:
    raw: dict[str, dict[str, object]] = {
        str(section): dict(cast(Mapping[str, object], table))
        for section, table in data.items()
        if section not in ("text", "message") and isinstance(table, Mapping)
    }
    out: dict[str, dict[str, tuple[str, str]]] = {}

    def resolve(section: str, key: str, seen: tuple[str, ...]) -> tuple[str, str]:
        if section in out and key in out[section]:
            return out[section][key]
        if section not in raw or key not in raw[section]:
            raise GlossaryError(f"glossary: {seen[-1] if seen else ''} refers to "
                                f"{section}.{key}, which is not a term")
        value = raw[section][key]
        here = f"{section}.{key}"
        if here in seen:
            raise GlossaryError(f"glossary: {here} refers to itself")
        if isinstance(value, str) and value.startswith("="):
            ref_section, _, ref_key = value[1:].partition(".")
            pair = resolve(ref_section, ref_key, (*seen, here))
        elif isinstance(value, str):
            pair = (key.replace("_", " "), value)
        elif isinstance(value, list) and len(value) == 2 and all(
            isinstance(v, str) for v in value
        ):
            pair = (str(value[0]), str(value[1]))
        else:
            raise GlossaryError(f"glossary: {here} is neither a string nor [English, 中文]")
        out.setdefault(section, {})[key] = pair
        return pair

    for section, table in raw.items():
        for key in table:
            resolve(section, key, ())
    # the sections' order as in the file
    return {section: {key: out[section][key] for key in raw[section]} for section in raw}


def _expand(chinese: str, terms: Mapping[str, Mapping[str, tuple[str, str]]], where: str) -> str:
    """``<section.key>`` replaced by that term's Chinese (in an English text too: the
    English quotes the Chinese term)."""

    def one(m: re.Match[str]) -> str:
        section, key = m.groups()
        try:
            return terms[section][key][1]
        except KeyError:
            raise GlossaryError(f"{where}: <{section}.{key}> is not a term") from None

    return _REFERENCE.sub(one, chinese)


def parse_glossary(source: str) -> Glossary:
    """The glossary of a TOML text (see the module's docstring)."""
    data = tomllib.loads(source)
    terms = _terms(data)
    for section, table in terms.items():  # <section.key> inside a term: that term's words
        for key, (english, chinese) in table.items():
            if "<" in english or "<" in chinese:
                where = f"{section}.{key}"
                table[key] = (_expand(english, terms, where), _expand(chinese, terms, where))
    texts = {
        _expand(str(k), terms, f"text {k!r}"): _expand(str(v), terms, f"text {k!r}")
        for k, v in cast(Mapping[str, object], data.get("text", {})).items()
    }
    raw_groups: dict[str, dict[str, str]] = {}
    messages = cast(Mapping[str, Mapping[str, object]], data.get("message", {}))
    for name, entries in messages.items():
        raw_groups[str(name)] = {
            _expand(str(en), terms, f"message.{name}: {en!r}"):
            _expand(str(zh_), terms, f"message.{name}: {en!r}")
            for en, zh_ in entries.items()
        }
    templates, group_regex = _compile(raw_groups)
    return Glossary(terms=terms, texts=texts, templates=templates,
                    group_regex=group_regex, source=source)


@cache
def glossary() -> Glossary:
    """The project's glossary (``rules/glossary.toml``), read once."""
    source = files("rules").joinpath("glossary.toml").read_text(encoding="utf-8")
    return parse_glossary(source)


@cache
def expand(words: str) -> str:
    """``<section.key>`` references in ``words`` replaced by the terms' Chinese."""
    return _expand(words, glossary().terms, repr(words)) if "<" in words else words


def zh(section: str, key: str) -> str:
    """The Chinese of a term; KeyError when the glossary has no such term."""
    return glossary().terms[section][key][1]


def term(section: str, key: str, lang: Lang) -> str:
    """A term in ``lang``."""
    pair = glossary().terms[section][key]
    return pair[1] if lang == "zh" else pair[0]


def text(english: str, lang: Lang, **fields: object) -> str:
    """A sentence of a page or a command in ``lang``: the glossary's Chinese of the English
    (keyed by the English, with the same ``{field}`` names), formatted with ``fields``."""
    if lang == "zh":
        try:
            chinese = glossary().texts[english]
        except KeyError:
            raise KeyError(f"the glossary has no Chinese for the text {english!r}") from None
        return chinese.format(**fields) if fields else chinese
    return english.format(**fields) if fields else english


# --- translation -----------------------------------------------------------------------------

_SUIT_KEYS = {"m": "m", "p": "p", "s": "s"}


def tile_zh(tile: str) -> str:
    """``5m`` as ``5万``, ``W`` as ``万能``, ``1z`` as ``东`` (the glossary's tile terms)."""
    g = glossary().terms["tile"]
    if tile == "W":
        return g["wild"][1]
    rank, suit = tile[:-1], tile[-1]
    if suit in _SUIT_KEYS:
        return rank + g[suit][1]
    if suit == "z":
        return g[f"z{rank}"][1]
    return g["flower"][1] + rank


_RUN = re.compile(r"([1-9]+)([mpszf])|W")


def tiles_zh(tiles: str) -> str:
    """Compact notation ``123m55p`` as ``123万55筒``."""
    g = glossary().terms["tile"]
    out = []
    for m in _RUN.finditer(tiles):
        if m.group(0) == "W":
            out.append(g["wild"][1])
            continue
        ranks, suit = m.groups()
        if suit in _SUIT_KEYS:
            out.append(ranks + g[suit][1])
        elif suit == "z":
            out.append("".join(g[f"z{r}"][1] for r in ranks))
        else:
            out.append("".join(g["flower"][1] + r for r in ranks))
    return "".join(out)


def _basic_zh(kind: str, value: str) -> str:
    g = glossary().terms
    if kind == "tile":
        return tile_zh(value)
    if kind == "tiles":
        return tiles_zh(value)
    if kind == "pattern":
        return g["pattern"].get(value, (value, value))[1]
    if kind == "reason":
        return g["reason"].get(value, (value, value))[1]
    if kind == "kongkind":
        return g["kong"][value][1]
    if kind == "meldkind":
        return g["meld"][value][1]
    if kind == "n":
        return value.replace(",", "")
    return value


def _repeated(value: str, slot: _Slot, regex: str) -> Iterator[str]:
    assert slot.sep is not None
    item = re.compile(regex, re.DOTALL)
    at = 0
    while True:
        # the longest item followed by the separator or the end
        m = None
        for end in range(len(value), at, -1):
            if (end == len(value) or value.startswith(slot.sep, end)) and item.fullmatch(
                value, at, end
            ):
                m = end
                break
        if m is None:
            raise GlossaryError(f"cannot split {value!r}")
        yield value[at:m]
        if m == len(value):
            return
        at = m + len(slot.sep)


def _slot_zh(slot: _Slot, value: str, g: Glossary) -> str | None:
    if slot.sep is not None:
        regex = _BASIC.get(slot.kind) or g.group_regex[slot.kind]
        parts = []
        for part in _repeated(value, slot, regex):
            one = _slot_zh(_Slot(slot.name, slot.kind, None), part, g)
            if one is None:
                return None
            parts.append(one)
        return _SEPARATORS.get(slot.sep, slot.sep).join(parts)
    if slot.kind in _BASIC:
        return _basic_zh(slot.kind, value)
    return _in_group(slot.kind, value, g)


def _fill(chinese: str, values: Mapping[str, str]) -> str:
    return re.sub(r"\{([a-z_0-9]+)\}", lambda x: values[x.group(1)], chinese)


def _in_group(group: str, message: str, g: Glossary) -> str | None:
    for template in g.templates.get(group, ()):
        m = g.regex(template).fullmatch(message)
        if m is None:
            continue
        values: dict[str, str] = {}
        for slot in template.slots:
            done = _slot_zh(slot, m.group(slot.name), g)
            if done is None:
                break
            values[slot.name] = done
        else:
            return _fill(template.chinese, values)
    return None


def translate_or_none(message: str, group: str = "message") -> str | None:
    """The Chinese of an English message by the glossary's templates of ``group`` (all
    top-level messages are in ``message``), or None when no template matches."""
    return _in_group(group, message, glossary())


@cache
def _cached(message: str, group: str) -> str | None:
    return translate_or_none(message, group)


def translate(message: str, lang: Lang = "zh", group: str = "message") -> str:
    """``message`` in ``lang``: English as it is, or its Chinese by the templates (the
    English unchanged when no template matches it)."""
    if lang == "en" or not message:
        return message
    if _DIGITS.search(message) is None and len(message) < 200:
        done = _cached(message, group)
    else:
        done = translate_or_none(message, group)
    return message if done is None else done


_SEAT_ZH = re.compile(r"座位(\d+)")


def with_names_zh(line: str, names: list[str] | tuple[str, ...]) -> str:
    """A Chinese line with each ``座位N`` followed by the player's name, as
    :func:`rules.families.guizhou.settlement.with_names` does in English."""

    def one(m: re.Match[str]) -> str:
        seat = int(m.group(1))
        if seat < len(names) and names[seat]:
            return f"{m.group(0)}（{names[seat]}）"
        return m.group(0)

    return _SEAT_ZH.sub(one, line)
