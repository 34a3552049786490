"""The dashboard's words and formatting: every label, term and sentence of the pages from
the glossary (in English with the Chinese beside it, in Chinese alone, in a family's words),
text from the logs made safe for HTML (:func:`esc`, :func:`user_html`), the rules' Markdown
cells, numbers and dates as the pages show them, and page file names (:func:`page_slug`).
"""

from __future__ import annotations

import hashlib
import math
import re
from datetime import date, datetime
from functools import cache
from importlib.resources import files
from typing import Any

from markupsafe import Markup
from markupsafe import escape as _escape

from zhuoji.flows.text.terminal import safe
from zhuoji.rules.families import Family, UnknownFamilyError, family_named
from zhuoji.rules.glossary import Lang, glossary, text

__all__ = [
    "LANGS",
    "code_rules",
    "esc",
    "label",
    "page_slug",
    "page_text",
    "term",
    "user_html",
]

LANGS: tuple[Lang, ...] = ("en", "zh")


def esc(value: object) -> str:
    """HTML-escaped text (quotes included), as a plain string; its control and
    bidirectional characters written as visible escapes first (the terminal's rule,
    :func:`zhuoji.flows.text.terminal.safe`)."""
    return str(_escape(safe(value)))


# --- text from the logs ------------------------------------------------------------------
# A player's name or id, a game id, a file name, a ruleset: text a stranger wrote. Raw, a
# U+202E in a name turns the rest of its line around (``ev\u202eil`` shows as "evli") and a
# NUL, ESC or BEL has no business in a page. Every value a page shows passes through the
# terminal's rule (:func:`zhuoji.flows.text.terminal.safe`: the C0 and C1 controls, DEL, the line
# and
# paragraph separators, the bidirectional marks, embeddings, overrides and isolates are
# written as ``\x1b``, ``\u202e`` ...): the templates' ``{{ ... }}`` by the environment's
# finalize, the builders' HTML by :func:`esc`, the replay's JSON by
# :func:`zhuoji.flows.dashboard.replay_page.replay_json`. A name or an id is also isolated
# (``<bdi>``), so
# that a right-to-left name leaves the text around it in its order.


def user_html(value: object) -> Markup:
    """Text from a log as HTML: escaped (:func:`esc`) and isolated in ``<bdi>`` (nothing
    for None or the empty text)."""
    if value is None or value == "":
        return Markup("")
    return Markup(f"<bdi>{esc(value)}</bdi>")


def user_list_html(value: object) -> Markup:
    """A list of ids joined by ``", "`` (as the reports give them), each one isolated."""
    if value is None or value == "":
        return Markup("")
    return Markup(", ").join(user_html(part) for part in str(value).split(", "))


# --- labels ----------------------------------------------------------------------------------
# Every word of the pages comes from the glossary (rules/glossary.toml). In English a label
# keeps its Chinese beside it (the terms players use); in Chinese it is Chinese only. A page
# of one family's hand (or player) has ``family`` in its context: its words are that
# family's (zhuoji.rules.glossary's family words); the other pages have the base words.


def _asset(name: str) -> str:
    return files("zhuoji.flows.dashboard").joinpath("assets", name).read_text(encoding="utf-8")


def bilingual(pair: tuple[str, str]) -> Markup:
    english, chinese = pair
    if not chinese:
        return Markup(esc(english))
    return Markup(f'{esc(english)} <span class="zh" lang="zh">{esc(chinese)}</span>')


def _in(pair: tuple[str, str], lang: Lang) -> Markup:
    return bilingual(pair) if lang == "en" else Markup(esc(pair[1]))


@cache
def label(key: str, lang: Lang = "en", family: str | None = None) -> Markup:
    return _in(glossary(family).terms["label"][key], lang)


def label_text(key: str, lang: Lang, family: str | None = None) -> str:
    """A label as plain text: ``Overview 概览`` in English, ``概览`` in Chinese."""
    english, chinese = glossary(family).terms["label"][key]
    return chinese if lang == "zh" else f"{english} {chinese}"


def code_chinese(code: str, family: str | None = None) -> str:
    return glossary(family).terms["code"].get(code, (code, ""))[1]


@cache
def outcome_label(kind: str, lang: Lang = "en", family: str | None = None) -> Markup:
    return _in(glossary(family).terms["outcome"].get(kind, (kind, "")), lang)


@cache
def term_chinese(name: str, family: str | None = None) -> str:
    """The Chinese term of a pattern or a ledger reason name ('' when unknown), in the
    family's words."""
    terms = glossary(family).terms
    for section in ("pattern", "reason"):
        if name in terms[section]:
            return terms[section][name][1]
    return ""


@cache
def term(name: str, lang: Lang = "en", family: str | None = None) -> Markup:
    return _in((name, term_chinese(name, family) or (name if lang == "zh" else "")), lang)


def term_text(name: str, lang: Lang, family: str | None = None) -> str:
    """``full_flush 清一色`` in English, ``清一色`` in Chinese (the name when it has none)."""
    chinese = term_chinese(name, family)
    if lang == "zh":
        return chinese or name
    return f"{name} {chinese}" if chinese else name


def code_text(code: str, lang: Lang, family: str | None = None) -> str:
    """``invalid_win 诈胡`` in English, ``诈胡`` in Chinese."""
    chinese = code_chinese(code, family)
    return (chinese or code) if lang == "zh" else f"{code} {chinese}".rstrip()


UNKNOWN_FAMILY = "unknown"
"""What the pages call the family of games whose family the warehouse does not know (a
ruleset that no longer resolves, until the next ingest re-audits its file)."""


def family_key(name: str | None) -> str:
    """A rule family's name as the pages use it (a section's id): the registered name,
    :data:`UNKNOWN_FAMILY` for ``None``."""
    return UNKNOWN_FAMILY if name is None else name


def _family_pair(name: str | None) -> tuple[str, str]:
    key = family_key(name)
    return glossary().terms["families"].get(key, (key, ""))


def family_label(name: str | None, lang: Lang = "en") -> Markup:
    """A family's name from its words (``[families]``): ``English <span class="zh">中文</span>``
    in English, the Chinese alone in Chinese (the family's own name when the glossary has
    none)."""
    english, chinese = _family_pair(name)
    return _in((english, chinese or english) if lang == "zh" else (english, chinese), lang)


def family_text(name: str | None, lang: Lang) -> str:
    """A family's name as plain text from its words: ``English 中文`` in English, the
    Chinese alone in Chinese."""
    english, chinese = _family_pair(name)
    if lang == "zh":
        return chinese or english
    return f"{english} {chinese}".rstrip()


def _registered(name: str | None) -> Family | None:
    """The family of that name, None for None or a family the registry does not know."""
    if name is None:
        return None
    try:
        return family_named(name)
    except UnknownFamilyError:
        return None


def family_scores_chickens(name: str | None) -> bool:
    """The family scores chickens (``Family.chickens``): its players' chicken columns are
    shown; False for a family the registry does not know."""
    family = _registered(name)
    return family is not None and family.chickens


def family_declares_ready(name: str | None) -> bool:
    """The family plays 报听 (a ``ready`` event): its players' declarations are counted;
    False for a family the registry does not know."""
    family = _registered(name)
    return family is not None and "ready" in family.event_kinds


def page_text(english: str, lang: Lang, family: str | None = None, /, **fields: Any) -> str:
    """A sentence of a page (not HTML) in ``lang``, in the family's words."""
    return text(english, lang, family, **fields)


_INLINE = re.compile(r"`([^`]+)`|\*\*([^*]+)\*\*|\*([^*]+)\*")


def md_inline(text: str) -> Markup:
    """A table cell of the rules' Markdown as HTML: `code`, **bold** and *italic*."""
    out = []
    at = 0
    for m in _INLINE.finditer(text):
        out.append(esc(text[at : m.start()]))
        code, bold, italic = m.groups()
        if code is not None:
            out.append(f"<code>{esc(code)}</code>")
        elif bold is not None:
            out.append(f"<b>{esc(bold)}</b>")
        else:
            out.append(f"<i>{esc(italic)}</i>")
        at = m.end()
    out.append(esc(text[at:]))
    return Markup("".join(out))


@cache
def code_rules() -> dict[str, tuple[tuple[str, Markup], ...]]:
    """Each code's row of the code tables of ``docs/rules/legality.md`` (shipped with the
    dashboard's assets): (column title, cell) pairs, the code's own column left out."""
    rules: dict[str, tuple[tuple[str, Markup], ...]] = {}
    header: list[str] | None = None
    for line in _asset("legality.md").splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = cells
            continue
        if not set(line) - set("|-: ") or header[0] != "code":
            continue
        named = re.fullmatch(r"`([a-z0-9_]+)`", cells[0])
        if named and len(cells) == len(header):
            rules.setdefault(
                named.group(1),
                tuple(
                    (title, md_inline(cell))
                    for title, cell in zip(header[1:], cells[1:], strict=True)
                ),
            )
    return rules


# --- formatting ------------------------------------------------------------------------------


def fmt_num(value: Any, digits: int = 0) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        if math.isnan(value):
            return "–"
        return f"{value:,.{digits}f}" if digits else f"{value:,.2f}"
    return f"{value:,}"


def fmt_pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def fmt_signed(value: int | None) -> str:
    if value is None:
        return "–"
    return f"+{value:,}" if value > 0 else f"{value:,}"


def fmt_time(value: datetime | date | None) -> str:
    if value is None:
        return "–"
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M")
    return value.isoformat()


def sort_value(value: Any) -> str:
    """A cell's ``data-v`` for the table sorter (numbers as text, None lowest)."""
    if value is None:
        return "-1e308"
    if isinstance(value, float):
        return repr(value)
    return str(value)


_SAFE = re.compile(r"[^a-z0-9_.-]+")


def page_slug(text: str) -> str:
    """A file name for ``text`` (a player or game id from a log): safe characters kept,
    and a short hash added whenever anything was changed, so two ids never share a page
    (case-insensitive file systems included)."""
    safe = _SAFE.sub("_", text)[:60].strip("._") or "x"
    if safe != text:
        safe = f"{safe}-{hashlib.sha256(text.encode()).hexdigest()[:10]}"
    return safe
