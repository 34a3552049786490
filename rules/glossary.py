"""The one glossary of the project's Chinese: every term once, and the message templates.

``rules/glossary.toml`` (read with :mod:`importlib.resources`, so an installed wheel has
it), with each family's words added to it, holds

* **terms**, in sections (``pattern``, ``reason``, ``kong``, ``chicken``, ``meld``,
  ``code``, ``outcome``, ``label``, ``tile`` ...): ``key = "中文"`` or
  ``key = ["English", "中文"]``; a value ``"=section.key"`` is the same term as that key
  (each Chinese term is spelt once);
* **text**: the English of a page or a command's sentence and its Chinese, keyed by the
  English (``format`` fields in braces);
* **message templates**, in groups (``[message.<group>]``): the English form of a
  message the engine, the parsers or the audit produce, and its Chinese. The English form
  (its ``<section.key>`` terms written out) is the template a
  :class:`~zhuoji.rules.messages.Message` names, its placeholders taking the message's
  values in order. A placeholder
  ``{name}`` or ``{name:kind}`` stands for a seat, a tile, a count, a ruleset's name ...
  or for a clause of another group (an event, a seat's tiles, the table's phase), which
  is translated in turn; ``{name:kind*SEP}`` is one or more of them joined by ``SEP``.
  ``<section.key>`` in a Chinese template is that term's Chinese;
* **the words of a family** (``[family.<name>.<section>]``): the terms are the first
  family's (the base words); a family that calls a term otherwise gives its word there,
  keyed as the term is (``[family.<name>.kong]`` ``concealed = "暗杠"``). ``key = "中文"`` is the
  family's Chinese for the term, its English staying the term's; ``key = "=section.key"``
  the Chinese of that term as the family says it; ``key = ["English", "中文"]`` both. A key
  that names no term is an error. :func:`glossary` with ``family=`` gives the glossary in
  the family's words: its terms (a term that refers to an overlaid one, ``"=kong.added"``,
  follows it), the Chinese of its texts and templates and the terms they quote by
  ``<section.key>`` (in an English sentence too) are the family's; the English a template
  matches and a text is looked up by stay the base's (the engine writes its messages
  without knowing the family). A family with no words of its own has the base glossary.

**A family's words file**: what a family owns is in its folder, ``glossary.toml`` (the
format above): its name (``[families]``), its line in ``zhuoji rules list`` in both
languages (``[family_title]``, keyed by its name), its name where the root's ``--help`` lists
the families (``[family_label]``, :data:`FAMILIES_FIELD`), its patterns, terms, texts, templates
and its ``[family.<name>.<section>]`` words. The folders are those of ``rules/families/``
(found without importing the registry, so that a command's help needs no engine) and,
once :mod:`zhuoji.rules.families` is imported, every registered family's
(:func:`zhuoji.rules.families.family_folder`: a family kept elsewhere gives its
``folder``). Each file's entries are added to the glossary's, after them, in the families'
order by name: a term, text, help or template the glossary (or an earlier file) has already
is an error naming the file; the glossary itself refers to no family's term, so that it
stands alone. A family registered later adds its words then (the caches are by the
registered families).

Every function that gives a term's Chinese (:func:`zh`, :func:`term`, :func:`expand`,
:func:`text`, :func:`translate` ...) takes ``family``: the name of a ruleset's family
(``zhuoji.rules.families.family_of(ruleset).name``), None (the default) for the base words. Where
a hand of a known family is shown, its caller passes it; the pages and reports that mix
families use the base words.

:func:`render` gives a message in a language at the edge (the command line, the audit's
JSON, the pages): a :class:`~zhuoji.rules.messages.Message` by its template's Chinese, each
value rendered by its placeholder's kind (a clause by its own template), never by reading
its English back; a message whose template (or a clause's) the glossary lacks stays
English. :func:`translate` reads an English text that carries no template (what the
warehouse stores, a reason the pipeline writes as text) by matching it against the
templates, the first that fits; a text no template matches comes back unchanged
(:func:`translate_or_none` says None). Not compiled: the engine imports only
:func:`zh`.
"""

from __future__ import annotations

import os
import re
import sys
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Literal, cast

from zhuoji.rules.messages import Message

__all__ = [
    "LANGS",
    "Glossary",
    "GlossaryError",
    "Lang",
    "MissingChinese",
    "default_lang",
    "expand",
    "family_list",
    "family_title",
    "glossary",
    "help_text",
    "is_strict",
    "render",
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
    "said": r".+?",  # a sentence inside a sentence (a reason): in Chinese its own message
    "external": r".*?",  # the words of another program (DuckDB, Prefect, the system), as
    # they are: shown unchanged in Chinese too
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
    written: str  # the Chinese as the file writes it (``<section.key>`` unexpanded): a
    # family's glossary expands it with the family's terms


Terms = Mapping[str, Mapping[str, tuple[str, str]]]
"""Terms by section: ``key -> (English, 中文)``."""


@dataclass(frozen=True, slots=True)
class Glossary:
    """The parsed glossary: terms by section, the page texts, the templates by group; in
    the base words (``family`` None) or in a family's (:meth:`for_family`)."""

    terms: Terms
    texts: Mapping[str, str]
    templates: Mapping[str, tuple[_Template, ...]]
    group_regex: Mapping[str, str]
    source: str
    family: str | None = None
    """The family whose words these are; None: the base words (the first family's)."""
    family_terms: Mapping[str, Terms] = field(default_factory=dict, compare=False)
    """Each family that has words of its own (``[family.<name>.*]``): all the terms in its
    words."""
    english: Mapping[str, str] = field(default_factory=dict, compare=False)
    """A text's English in the family's words, where it differs from its key's."""
    written_texts: tuple[tuple[str, str], ...] = field(default=(), compare=False)
    """The texts as the file writes them (``<section.key>`` unexpanded)."""
    helps: Mapping[str, str] = field(default_factory=dict, compare=False)
    """The ``[help]`` table: the Chinese of each paragraph of the commands' ``--help``,
    keyed by the English paragraph with its white space collapsed (:func:`help_text`)."""
    compiled: dict[str, re.Pattern[str]] = field(default_factory=dict, compare=False)
    indexed: dict[str, dict[str, _Template]] = field(default_factory=dict, compare=False)

    def index(self, group: str) -> Mapping[str, _Template]:
        """The templates of a group by their English (a message's ``template``); ``""``:
        of every group (the first group, in the file's order, that has the English)."""
        found = self.indexed.get(group)
        if found is None:
            found = self.indexed[group] = {}
            for entries in (self.templates.values() if group == "" else
                            (self.templates.get(group, ()),)):
                for t in entries:
                    found.setdefault(t.english, t)
        return found

    def for_family(self, family: str | None) -> Glossary:
        """This (base) glossary in the words of ``family``: itself when the family has no
        words of its own."""
        if family is None or family not in self.family_terms or family == self.family:
            return self
        if self.family is not None:
            raise GlossaryError(f"the glossary of {self.family!r} has no other family's words")
        terms = self.family_terms[family]
        texts: dict[str, str] = {}
        english: dict[str, str] = {}
        for written_en, written_zh in self.written_texts:
            where = f"text {written_en!r}"
            key = _expand(written_en, self.terms, where)
            texts[key] = _expand(written_zh, terms, where)
            theirs = _expand(written_en, terms, where)
            if theirs != key:
                english[key] = theirs
        templates = {
            group: tuple(
                replace(t, chinese=_expand(t.written, terms, f"message.{group}: {t.english!r}"))
                for t in entries
            )
            for group, entries in self.templates.items()
        }
        # the same English, so the same regular expressions: compiled once for both
        return Glossary(terms=terms, texts=texts, templates=templates,
                        group_regex=self.group_regex, source=self.source, family=family,
                        english=english, written_texts=self.written_texts,
                        helps=self.helps, compiled=self.compiled)

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


def _compile(raw_groups: Mapping[str, Mapping[str, tuple[str, str]]]) -> tuple[
    dict[str, tuple[_Template, ...]], dict[str, str]
]:
    """The templates of each group (``English -> (中文, 中文 as written)``) and each
    group's regular expression."""
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
        for english, (chinese, written) in entries.items():
            where = f"message.{name}: {english!r}"
            regex, slots = pattern_of(english, where, True)
            names = [s.name for s in slots]
            if len(set(names)) != len(names):
                raise GlossaryError(f"{where}: a placeholder name is used twice")
            for m in re.finditer(r"\{([a-z_0-9]+)\}", chinese):
                if m.group(1) not in names:
                    raise GlossaryError(f"{where}: the Chinese names {{{m.group(1)}}}, "
                                        "which the English does not have")
            compiled.append(_Template(name, english, chinese, tuple(slots), regex, written))
        templates[name] = tuple(compiled)
    return templates, group_regex


_NOT_SET = object()
_NOT_TERMS = ("text", "message", "family", "help")
"""The top-level tables of the file that hold no terms."""


def _terms(
    data: Mapping[str, object],
    words: Mapping[str, Mapping[str, object]] | None = None,
    base: Mapping[str, Mapping[str, tuple[str, str]]] | None = None,
) -> dict[str, dict[str, tuple[str, str]]]:
    """The terms of the file, ``=section.key`` resolved; with a family's ``words`` (its
    ``[family.<name>.*]`` tables) those terms in its words, ``base`` giving their English."""
    raw: dict[str, dict[str, object]] = {
        str(section): dict(cast(Mapping[str, object], table))
        for section, table in data.items()
        if section not in _NOT_TERMS and isinstance(table, Mapping)
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
        own = _NOT_SET if words is None else words.get(section, {}).get(key, _NOT_SET)
        if own is not _NOT_SET:  # the family's word: its Chinese, the term's English
            assert base is not None
            english = base[section][key][0]
            if isinstance(own, str) and own.startswith("="):
                ref_section, _, ref_key = own[1:].partition(".")
                pair = (english, resolve(ref_section, ref_key, (*seen, here))[1])
            elif isinstance(own, str):
                pair = (english, own)
            elif isinstance(own, list) and len(own) == 2 and all(isinstance(v, str) for v in own):
                pair = (str(own[0]), str(own[1]))
            else:
                raise GlossaryError(f"glossary: family {here} is neither a string nor "
                                    "[English, 中文]")
        elif isinstance(value, str) and value.startswith("="):
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


def _family_words(
    data: Mapping[str, object], terms: Mapping[str, Mapping[str, object]]
) -> dict[str, dict[str, dict[str, object]]]:
    """The ``[family.<name>.<section>]`` tables: each family's words by section, each key
    a term of ``terms``."""
    tables = data.get("family", {})
    if not isinstance(tables, Mapping):
        raise GlossaryError("glossary: family is not a table of families")
    out: dict[str, dict[str, dict[str, object]]] = {}
    for name, sections in tables.items():
        if not isinstance(sections, Mapping):
            raise GlossaryError(f"glossary: family.{name} is not a table of sections")
        out[name] = {}
        for section, table in sections.items():
            if not isinstance(table, Mapping) or section not in terms:
                raise GlossaryError(f"glossary: family.{name}.{section} names no section "
                                    "of terms")
            for key in table:
                if key not in terms[section]:
                    raise GlossaryError(f"glossary: family.{name}.{section}.{key} names no "
                                        f"term {section}.{key}")
            out[name][section] = dict(table)
    return out


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


def _expand_terms(terms: dict[str, dict[str, tuple[str, str]]]) -> None:
    """``<section.key>`` inside a term replaced by that term's words (in place)."""
    for section, table in terms.items():
        for key, (english, chinese) in table.items():
            if "<" in english or "<" in chinese:
                where = f"{section}.{key}"
                table[key] = (_expand(english, terms, where), _expand(chinese, terms, where))


_MERGED_TABLES = ("text", "help")
"""The top-level tables besides the terms that a family's words file adds entries to."""


def _merge_words(data: dict[str, object], words: Mapping[str, object], where: str) -> None:
    """A family's words file (``where``, its TOML table ``words``) added to the glossary's
    table ``data`` (in place): its terms to their sections, its ``[family.<name>.*]``
    tables, texts, helps and message templates to theirs, after the glossary's own; an
    entry the glossary has already is an error naming the file."""

    def into(target: dict[str, object], table: object, path: str) -> None:
        if not isinstance(table, Mapping):
            raise GlossaryError(f"{where}: {path} is not a table")
        for key, value in table.items():
            if key in target:
                raise GlossaryError(f"{where}: {path}.{key} is in the glossary already")
            target[key] = value

    def table_of(parent: dict[str, object], key: str, path: str) -> dict[str, object]:
        found = parent.setdefault(key, {})
        if not isinstance(found, dict):
            raise GlossaryError(f"{where}: {path} is not a table in the glossary")
        return found

    for section, table in words.items():
        if section == "message":
            if not isinstance(table, Mapping):
                raise GlossaryError(f"{where}: message is not a table of groups")
            groups = table_of(data, "message", "message")
            for group, entries in table.items():
                into(table_of(groups, group, f"message.{group}"), entries, f"message.{group}")
        elif section == "family":
            if not isinstance(table, Mapping):
                raise GlossaryError(f"{where}: family is not a table of families")
            into(table_of(data, "family", "family"), table, "family")
        else:
            into(table_of(data, section, section), table, section)


def parse_glossary(source: str, family: str | None = None,
                   words: Sequence[tuple[str, str]] = ()) -> Glossary:
    """The glossary of a TOML text (see the module's docstring) with the families' words
    files (``words``: each file's name and text, in order) added to it, in the words of
    ``family`` when given (:meth:`Glossary.for_family`)."""
    data = tomllib.loads(source)
    for where, text_ in words:
        try:
            table = tomllib.loads(text_)
        except tomllib.TOMLDecodeError as exc:
            raise GlossaryError(f"{where}: not valid TOML: {exc}") from None
        _merge_words(data, table, where)
    terms = _terms(data)
    families = {
        name: _terms(data, own, terms) for name, own in _family_words(data, terms).items()
    }
    _expand_terms(terms)
    for family_terms in families.values():
        _expand_terms(family_terms)
    written_texts = tuple(
        (str(k), str(v)) for k, v in cast(Mapping[str, object], data.get("text", {})).items()
    )
    texts = {
        _expand(k, terms, f"text {k!r}"): _expand(v, terms, f"text {k!r}")
        for k, v in written_texts
    }
    raw_groups: dict[str, dict[str, tuple[str, str]]] = {}
    messages = cast(Mapping[str, Mapping[str, object]], data.get("message", {}))
    for name, entries in messages.items():
        raw_groups[str(name)] = {
            _expand(str(en), terms, f"message.{name}: {en!r}"):
            (_expand(str(zh_), terms, f"message.{name}: {en!r}"), str(zh_))
            for en, zh_ in entries.items()
        }
    templates, group_regex = _compile(raw_groups)
    en_families, zh_families = _family_lists(terms)
    helps = {
        _expand(" ".join(str(k).split()), terms, f"help {k!r}").replace(
            FAMILIES_FIELD, en_families):
        _expand(str(v), terms, f"help {k!r}").replace(FAMILIES_FIELD, zh_families)
        for k, v in cast(Mapping[str, object], data.get("help", {})).items()
    }
    base = Glossary(terms=terms, texts=texts, templates=templates, group_regex=group_regex,
                    source=source, family_terms=families, written_texts=written_texts,
                    helps=helps)
    return base.for_family(family)


FAMILIES_FIELD = "{families}"
"""In a ``[help]`` paragraph (both languages), the families whose words the glossary holds:
each one's ``[family_label]`` term (keyed by its name), in the families' order by name,
joined as a list is in the language (``A, B and C``; ``A、B和C``)."""


def _joined(items: Sequence[str], comma: str, last: str) -> str:
    return items[0] if len(items) < 2 else comma.join(items[:-1]) + last + items[-1]


def _family_lists(terms: Mapping[str, Mapping[str, tuple[str, str]]]) -> tuple[str, str]:
    """The families' labels (:data:`FAMILIES_FIELD`) as an English and a Chinese list."""
    labels = list(terms.get("family_label", {}).values())
    if not labels:
        return "", ""
    return (_joined([en for en, _ in labels], ", ", " and "),
            _joined([zh_ for _, zh_ in labels], "、", "和"))


def family_list(lang: Lang) -> str:
    """The families whose words the glossary holds, named by their ``[family_label]``, as a
    list in ``lang`` (what :data:`FAMILIES_FIELD` stands for in a ``[help]`` paragraph)."""
    en_families, zh_families = _family_lists(glossary().terms)
    return zh_families if lang == "zh" else en_families


WORDS_FILE = "glossary.toml"
"""A family's words: the file of that name in its folder (the format of
``rules/glossary.toml``)."""


@cache
def _conventional() -> tuple[tuple[str, Traversable], ...]:
    """The folders of ``rules/families/`` that are families (a package each), by name:
    found without importing the registry (a command's help needs the words, not the
    engine)."""
    root = files("zhuoji.rules").joinpath("families")
    return tuple(
        (entry.name, entry)
        for entry in sorted(root.iterdir(), key=lambda e: e.name)
        if entry.is_dir() and entry.joinpath("__init__.py").is_file()
    )


def _folders() -> dict[str, Traversable]:
    """Each family's folder by name: the folders of ``rules/families/`` and, once the
    registry is imported, every family it has registered (a family kept elsewhere too)."""
    folders = dict(_conventional())
    registry = sys.modules.get("zhuoji.rules.families")
    if registry is not None:
        for family in registry.registered():
            folders[family.name] = registry.family_folder(family)
    return folders


_KEYS: dict[int, tuple[str, ...]] = {}
"""The key of the glossary's caches by the number of registered families (a family never
leaves the registry)."""


def _key() -> tuple[str, ...]:
    """The families whose words the glossary holds: the folders of ``rules/families/`` and
    the registered families, by name (the caches' key)."""
    registry = sys.modules.get("zhuoji.rules.families")
    registered = () if registry is None else registry.registered()
    key = _KEYS.get(len(registered))
    if key is None:
        names = {name for name, _ in _conventional()}
        names.update(family.name for family in registered)
        key = _KEYS[len(registered)] = tuple(sorted(names))
    return key


@cache
def _base_of(key: tuple[str, ...]) -> Glossary:
    source = files("zhuoji.rules").joinpath("glossary.toml").read_text(encoding="utf-8")
    folders = _folders()
    words = []
    for name in key:
        file = folders[name].joinpath(WORDS_FILE)
        if file.is_file():
            words.append((f"{name}'s words ({file})", file.read_text(encoding="utf-8")))
    return parse_glossary(source, words=words)


def _base() -> Glossary:
    """The core glossary with every family's words (read again when a family registers
    later)."""
    return _base_of(_key())


def _words(family: str | None) -> str | None:
    """The family whose words to use: None for the base words (no family, or a family with
    no words of its own), so that it shares the base's caches."""
    return family if family is not None and family in _base().family_terms else None


@cache
def _family_glossary(key: tuple[str, ...], family: str) -> Glossary:
    return _base_of(key).for_family(family)


def glossary(family: str | None = None) -> Glossary:
    """The project's glossary (``rules/glossary.toml``, read once), in the words of
    ``family`` (each family's read once; the base words for None or a family with no words
    of its own)."""
    words = _words(family)
    return _base() if words is None else _family_glossary(_key(), words)


@cache
def _expand_cached(words: str, family: str | None, key: tuple[str, ...]) -> str:
    return _expand(words, glossary(family).terms, repr(words))


def expand(words: str, family: str | None = None) -> str:
    """``<section.key>`` references in ``words`` replaced by the terms' Chinese (the
    family's words)."""
    return _expand_cached(words, _words(family), _key()) if "<" in words else words


def zh(section: str, key: str, family: str | None = None) -> str:
    """The Chinese of a term (the family's word); KeyError when the glossary has no such
    term."""
    return glossary(family).terms[section][key][1]


def family_title(name: str, lang: Lang, default: str = "") -> str:
    """A family's line in ``zhuoji rules list`` in ``lang``: its words' ``[family_title]``
    entry (keyed by the family's name), ``default`` when they have none."""
    pair = glossary().terms.get("family_title", {}).get(name)
    if pair is None:
        return default
    return pair[1] if lang == "zh" else pair[0]


def term(section: str, key: str, lang: Lang, family: str | None = None) -> str:
    """A term in ``lang`` (the family's word)."""
    pair = glossary(family).terms[section][key]
    return pair[1] if lang == "zh" else pair[0]


def text(english: str, lang: Lang, family: str | None = None, /, **fields: object) -> str:
    """A sentence of a page or a command in ``lang``: the glossary's Chinese of the English
    (keyed by the English, with the same ``{field}`` names), formatted with ``fields``; in
    English the sentence as given, a Chinese term it quotes in the family's words.
    ``family`` is positional: any keyword is a field."""
    g = glossary(family)
    if lang == "zh":
        try:
            chinese = g.texts[english]
        except KeyError:
            raise KeyError(f"the glossary has no Chinese for the text {english!r}") from None
        return chinese.format(**fields) if fields else chinese
    english = g.english.get(english, english)
    return english.format(**fields) if fields else english


# --- translation -----------------------------------------------------------------------------

_SUIT_KEYS = {"m": "m", "p": "p", "s": "s"}


def _tile_zh(tile: str, g: Mapping[str, tuple[str, str]]) -> str:
    if tile == "W":
        return g["wild"][1]
    rank, suit = tile[:-1], tile[-1]
    if suit in _SUIT_KEYS:
        return rank + g[suit][1]
    if suit == "z":
        return g[f"z{rank}"][1]
    return g["flower"][1] + rank


def tile_zh(tile: str, family: str | None = None) -> str:
    """``5m`` as ``5万``, ``W`` as ``万能``, ``1z`` as ``东`` (the glossary's tile terms)."""
    return _tile_zh(tile, glossary(family).terms["tile"])


_RUN = re.compile(r"([1-9]+)([mpszf])|W")


def _tiles_zh(tiles: str, g: Mapping[str, tuple[str, str]]) -> str:
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


def tiles_zh(tiles: str, family: str | None = None) -> str:
    """Compact notation ``123m55p`` as ``123万55筒``."""
    return _tiles_zh(tiles, glossary(family).terms["tile"])


def _basic_zh(kind: str, value: str, terms: Terms) -> str:
    if kind == "tile":
        return _tile_zh(value, terms["tile"])
    if kind == "tiles":
        return _tiles_zh(value, terms["tile"])
    if kind == "pattern":
        return terms["pattern"].get(value, (value, value))[1]
    if kind == "reason":
        return terms["reason"].get(value, (value, value))[1]
    if kind == "kongkind":
        return terms["kong"][value][1]
    if kind == "meldkind":
        return terms["meld"][value][1]
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
        return _basic_zh(slot.kind, value, g.terms)
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


def translate_or_none(message: str, group: str = "message",
                      family: str | None = None) -> str | None:
    """The Chinese of an English message by the glossary's templates of ``group`` (all
    top-level messages are in ``message``), in the family's words, or None when no
    template matches."""
    return _in_group(group, message, glossary(family))


@cache
def _cached(message: str, group: str, family: str | None, key: tuple[str, ...]) -> str | None:
    # ``key``: the families whose words the glossary holds (a family registered later
    # adds its words)
    return translate_or_none(message, group, family)


def translate(message: str, lang: Lang = "zh", group: str = "message",
              family: str | None = None) -> str:
    """``message`` in ``lang``: English as it is, or its Chinese by the templates in the
    family's words (the English unchanged when no template matches it)."""
    if lang == "en" or not message:
        return message
    if _DIGITS.search(message) is None and len(message) < 200:
        done = _cached(message, group, _words(family), _key())
    else:
        done = translate_or_none(message, group, family)
    return message if done is None else done


# --- rendering ------------------------------------------------------------------------------


@cache
def _kind_regex(kind: str) -> re.Pattern[str]:
    return re.compile(_BASIC[kind], re.DOTALL)


def _value_zh(kind: str, value: object, g: Glossary) -> str | None:
    if isinstance(value, Message) and kind in _BASIC:
        # a message given as a value (a reason inside a sentence): by its own template
        return _message_zh(value, "", g)
    if kind == "said":  # a sentence given as text: a template of the glossary must match it
        return _translated(format(value, ""), "message", g.family)
    if kind in _BASIC:
        text = format(value, "")
        if _kind_regex(kind).fullmatch(text) is None:
            return None  # not a value of its kind (a tile that is ``nothing``)
        return _basic_zh(kind, text, g.terms)
    if isinstance(value, Message):
        return _message_zh(value, kind, g)
    text = format(value, "")
    template = g.index(kind).get(text)  # a clause with no values, as text
    if template is not None and not template.slots:
        return template.chinese
    return _in_group(kind, text, g)  # a clause given as text: matched to its group's forms


def _message_zh(message: Message, group: str, g: Glossary) -> str | None:
    template = g.index(group).get(message.template) or g.index("").get(message.template)
    if template is None:
        return None
    values: dict[str, str] = {}
    for slot, value in zip(template.slots, message.values, strict=True):
        if slot.sep is None:
            done = _value_zh(slot.kind, value, g)
        else:
            parts = [_value_zh(slot.kind, v, g) for v in cast(Sequence[object], value)]
            done = None if None in parts else _SEPARATORS.get(slot.sep, slot.sep).join(
                cast(list[str], parts))
        if done is None:
            return None
        values[slot.name] = done
    return _fill(template.chinese, values)


STRICT_VARIABLE = "ZHUOJI_STRICT_GLOSSARY"
"""Set (to anything but 0), :func:`render` raises :class:`MissingChinese` for a message
the glossary has no Chinese for instead of showing its English (the tests set it)."""


class MissingChinese(GlossaryError):
    """A message shown in Chinese has no Chinese form in the glossary."""


def is_strict() -> bool:
    """Whether a message without Chinese is an error (:data:`STRICT_VARIABLE`)."""
    return os.environ.get(STRICT_VARIABLE, "") not in ("", "0")


def _missing(message: str) -> MissingChinese:
    if isinstance(message, Message):
        return MissingChinese(
            f"no Chinese for the message {message.template!r} (values {message.values!r}): "
            "give its template a Chinese form in rules/glossary.toml ([message.<group>]), "
            "and each value that is a sentence a template of its own")
    return MissingChinese(
        f"no Chinese for the text {message!r}: it is English text, not a message; make it "
        "a Message (zhuoji.rules.messages) whose template rules/glossary.toml translates")


def render(message: str, lang: Lang = "zh", family: str | None = None,
           group: str = "message") -> str:
    """A message in ``lang``: in English the text itself; in Chinese, a :class:`Message`
    by its template's Chinese in the family's words, each value rendered by its kind (a
    clause by its own template; a value that is a :class:`Message` by its own template).
    A message the glossary has no Chinese for (its template, or a clause's, is not in the
    glossary; an English text no template matches) stays English, unless
    :data:`STRICT_VARIABLE` is set: then it raises :class:`MissingChinese`, naming the
    template."""
    if lang == "en" or not message:
        return message
    if isinstance(message, Message):
        done = _message_zh(message, group, glossary(family))
        if done is None:
            # a group's clause may be any top-level message too
            done = _message_zh(message, "", glossary(family))
    else:
        done = _translated(message, group, family)
    if done is None:
        if is_strict():
            raise _missing(message)
        return message
    return done


def _translated(message: str, group: str, family: str | None) -> str | None:
    if _LATIN.search(message) is None:
        return message
    if _DIGITS.search(message) is None and len(message) < 200:
        return _cached(message, group, _words(family), _key())
    return translate_or_none(message, group, family)


_LATIN = re.compile(r"[A-Za-z]{2,}")
"""English words: a text without any (a number, a path of one letter) needs no Chinese."""


def help_text(english: str) -> str | None:
    """The Chinese of a paragraph of a command's ``--help`` (its white space collapsed),
    from the glossary's ``[help]`` table; None when the table lacks it."""
    return glossary().helps.get(" ".join(english.split()))


_SEAT_ZH = re.compile(r"座位(\d+)")


def with_names_zh(line: str, names: list[str] | tuple[str, ...]) -> str:
    """A Chinese line with each ``座位N`` followed by the player's name, as
    a settlement's ``with_names`` does in English."""

    def one(m: re.Match[str]) -> str:
        seat = int(m.group(1))
        if seat < len(names) and names[seat]:
            return f"{m.group(0)}（{names[seat]}）"
        return m.group(0)

    return _SEAT_ZH.sub(one, line)
