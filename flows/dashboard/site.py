"""The dashboard: a static, offline HTML site over the warehouse's reports.

:func:`build_dashboard` opens the warehouse read-only, runs the ``sql/reports/`` queries
(``dashboard_*`` and the shared reports, loaded by name, parameters bound) and writes
plain HTML pages whose CSS, JavaScript (table sorting) and charts (hand-written SVG)
are inlined: the folder opens from ``file://`` with no network.

Scale: every per-player figure comes from a handful of queries over all players at once
(the running score is reduced in SQL to at most ``series_points`` points per player);
per-hand audit pages are written only for the most recent disputed hands and hands with
illegal moves (``hand_pages`` of each), and the lists are cut into pages; each page
says when it shows less than everything. Output is deterministic: the same warehouse
gives the same bytes.
"""

from __future__ import annotations

import hashlib
import math
import multiprocessing
import multiprocessing.pool
import os
import re
import stat
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

import duckdb
import jinja2
import orjson
from markupsafe import Markup
from markupsafe import escape as _escape

from zhuoji.flows.dashboard.replay_page import finding_step, hand_replay, replay_json
from zhuoji.flows.text.terminal import safe
from zhuoji.flows.warehouse import store as warehouse
from zhuoji.flows.warehouse.rows_tiles import MeldTextError, parse_discards, parse_melds
from zhuoji.rules.families import Family, UnknownFamilyError, family_named
from zhuoji.rules.glossary import Lang, expand, glossary, render, text, tile_zh, zh
from zhuoji.rules.melds import MeldKind
from zhuoji.rules.presets import resolve_ruleset
from zhuoji.rules.tiles import Suit, Tile, parse_tiles

__all__ = [
    "DashboardError",
    "DashboardLimits",
    "DashboardSummary",
    "LiveDashboard",
    "build_dashboard",
    "page_slug",
    "render_dashboard",
    "svg_bar_chart",
    "svg_column_chart",
    "svg_day_chart",
    "svg_line_chart",
    "tile_html",
    "user_html",
]

MARKER = ".zhuoji-dashboard"
"""A file in every output folder: the folder may be cleared and rewritten."""

NAV: tuple[tuple[str, str], ...] = (
    ("overview", "index.html"),
    ("leaderboard", "leaderboard.html"),
    ("patterns", "patterns.html"),
    ("disputed", "disputed.html"),
    ("illegal", "illegal.html"),
)

SUIT_CHINESE: Mapping[Suit, str] = {
    Suit.CHARACTERS: zh("tile", "m"),
    Suit.DOTS: zh("tile", "p"),
    Suit.BAMBOO: zh("tile", "s"),
    Suit.WILD: zh("tile", "wild"),
}
RANK_CHINESE = ("", "一", "二", "三", "四", "五", "六", "七", "八", "九")
LANGS: tuple[Lang, ...] = ("en", "zh")


@cache
def meld_chinese(kind: MeldKind, family: str | None = None) -> str:
    """A meld kind's Chinese in the family's words (碰, a kong's name ...)."""
    return zh("meld", kind.value, family)


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


def _finalize(value: Any) -> Any:
    """What a template's ``{{ ... }}`` prints: plain text with its control characters
    escaped (HTML the code made, ``Markup``, as it is)."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return safe(value)
    return value


class DashboardError(ValueError):
    """The dashboard cannot be written as asked; the message says why."""


@dataclass(frozen=True, slots=True)
class DashboardLimits:
    """Caps that keep the site's size and build time bounded whatever the warehouse holds."""

    # audit pages: the most recent disputed hands, and as many hands with illegal moves
    hand_pages: int = 500
    list_rows: int = 200  # rows per page of a hand list
    player_hands: int = 40  # flagged hands listed on a player page
    code_hands: int = 200  # hands listed per illegal-move code
    series_points: int = 200  # points of a player's score chart
    runs: int = 10  # ingest runs on the overview
    quarantine: int = 50  # quarantined files on the overview
    days: int = 120  # days of the hands-per-day chart

    def __post_init__(self) -> None:
        for name in self.__slots__:
            if getattr(self, name) < 1:
                raise DashboardError(f"dashboard limit {name} must be at least 1")


@dataclass(frozen=True, slots=True)
class DashboardSummary:
    out: Path
    pages: int
    total_bytes: int
    largest_page: str
    largest_bytes: int
    players: int
    hand_pages: int
    seconds: float


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
    """A rule family's name as the pages use it (a section's id): ``guizhou``, ``changsha``
    ..., :data:`UNKNOWN_FAMILY` for ``None``."""
    return UNKNOWN_FAMILY if name is None else name


def _family_pair(name: str | None) -> tuple[str, str]:
    key = family_key(name)
    return glossary().terms["families"].get(key, (key, ""))


def family_label(name: str | None, lang: Lang = "en") -> Markup:
    """A family's name: ``Guizhou <span class="zh">贵州捉鸡</span>`` in English, ``贵州捉鸡``
    in Chinese (the family's own name when the glossary has none)."""
    english, chinese = _family_pair(name)
    return _in((english, chinese or english) if lang == "zh" else (english, chinese), lang)


def family_text(name: str | None, lang: Lang) -> str:
    """A family's name as plain text: ``Guizhou 贵州捉鸡`` in English, ``贵州捉鸡`` in
    Chinese."""
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


def family_sections(rows: Sequence[Row], lang: Lang) -> list[dict[str, Any]]:
    """Rows with a ``family`` column cut into one section per family, in query order:
    each with the family's ``key``, ``name`` (its label), whether it scores ``chickens``
    and its ``rows``."""
    return [
        {
            "key": family_key(family),
            "name": family_label(family, lang),
            "chickens": family_scores_chickens(family),
            "rows": group,
        }
        for family, group in group_rows(rows, "family").items()
    ]


def page_text(english: str, lang: Lang, family: str | None = None, /, **fields: Any) -> str:
    """A sentence of a page (not HTML) in ``lang``, in the family's words."""
    return text(english, lang, family, **fields)


@jinja2.pass_context
def _ctx_label(ctx: Any, key: str, family: str | None = None) -> Markup:
    """A label in the page's words, or in ``family``'s (a section of one family on a page
    of several)."""
    return label(key, ctx.get("lang", "en"), family or ctx.get("family"))


@jinja2.pass_context
def _ctx_outcome(ctx: Any, kind: str, family: str | None = None) -> Markup:
    return outcome_label(kind, ctx.get("lang", "en"), family or ctx.get("family"))


@jinja2.pass_context
def _ctx_term(ctx: Any, name: str) -> Markup:
    return term(name, ctx.get("lang", "en"), ctx.get("family"))


@jinja2.pass_context
def _ctx_term_zh(ctx: Any, name: str) -> str:
    return term_chinese(name, ctx.get("family"))


@jinja2.pass_context
def _ctx_code_zh(ctx: Any, code: str, family: str | None = None) -> str:
    return code_chinese(code, family or ctx.get("family"))


@jinja2.pass_context
def _ctx_name(ctx: Any, name: str, kind: str = "term", family: str | None = None) -> Markup:
    """A pattern, reason or code: ``<code>name</code> <span class="zh">中文</span>`` in
    English, the Chinese (the name on hover) in Chinese; in the page's words, or in
    ``family``'s."""
    family = family or ctx.get("family")
    chinese = code_chinese(name, family) if kind == "code" else term_chinese(name, family)
    if ctx.get("lang", "en") == "zh" and chinese:
        return Markup(f'<span title="{esc(name)}">{esc(chinese)}</span>')
    return Markup(f'<code>{esc(name)}</code> <span class="zh">{esc(chinese)}</span>')


@jinja2.pass_context
def _ctx_text(ctx: Any, english: str, **fields: Any) -> Markup:
    """A sentence of a template in the page's language: the template's text is trusted
    HTML (it is ours), the fields are escaped. The terms it quotes (``<section.key>``) are
    the family's words, in English too."""
    lang, family = ctx.get("lang", "en"), ctx.get("family")
    if lang == "en":
        source: str | None = expand(english, family)
    else:
        source = glossary(family).texts.get(expand(english))
    if source is None:
        raise DashboardError(
            f"the glossary has no Chinese for the page text {expand(english)!r}")
    if not fields:
        return Markup(source)
    return Markup(source).format(**{k: _finalize(v) for k, v in fields.items()})


@jinja2.pass_context
def _ctx_translate(ctx: Any, message: str) -> str:
    """An engine message (a finding, a ledger item's detail) in the page's language."""
    return render(message, ctx.get("lang", "en"), ctx.get("family"))


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


# --- tiles -----------------------------------------------------------------------------------


@cache
def tile_html(
    tile: Tile, *, small: bool = False, chicken: bool = False, won: bool = False
) -> Markup:
    """A tile as a box: the rank above the suit's Chinese character (万/筒/条)."""
    classes = ["tile", "w" if tile.is_wild else tile.suit.value]
    if small:
        classes.append("small")
    if chicken:
        classes.append("chicken")
    if won:
        classes.append("won")
    if tile.is_wild:
        name = f"W {zh('tile', 'wild_chicken')}"
        face = f"<b>{zh('tile', 'wild')}</b>"
    else:
        suit = SUIT_CHINESE[tile.suit]
        name = f"{tile.text} {RANK_CHINESE[tile.rank]}{suit}"
        if tile is Tile.S1:
            name += f" {zh('tile', 'one_bamboo')}"
        face = f"<b>{tile.rank}</b><i>{suit}</i>"
    return Markup(f'<span class="{" ".join(classes)}" title="{name}">{face}</span>')


def tiles_html(
    tiles: Iterable[Tile], *, small: bool = False, chickens: frozenset[Tile] = frozenset()
) -> Markup:
    inner = "".join([tile_html(t, small=small, chicken=t in chickens) for t in tiles])
    return Markup(f'<span class="tiles">{inner}</span>')


def melds_html(text: str, chickens: frozenset[Tile], family: str | None = None) -> Markup:
    """A seat's melds as tile boxes, each with its kind's Chinese in the family's words."""
    try:
        melds = parse_melds(text)
    except MeldTextError:
        return Markup(f"<code>{esc(text)}</code>")
    parts = []
    for kind, tile in melds:
        if kind is MeldKind.CHOW:  # three in rank order from its lowest tile
            run = (tile, Tile(tile + 1), Tile(tile + 2))
            inner = "".join(tile_html(t, chicken=t in chickens) for t in run)
        else:
            size = 3 if kind is MeldKind.PONG else 4
            inner = tile_html(tile, chicken=tile in chickens) * size
        parts.append(
            f'<span class="meld" title="{kind.value}">{inner}'
            f'<span class="kind">{meld_chinese(kind, family)}</span></span>'
        )
    return Markup("".join(parts))


# --- SVG charts ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Bar:
    label: str
    value: float
    text: str  # the value as shown
    href: str | None = None
    secondary: float | None = None  # drawn behind, lighter (e.g. qualifying vs scored)
    marker: float | None = None  # a tick (e.g. the average of all players)
    tooltip: str = ""
    alert: bool = False


def _n(x: float) -> str:
    """A coordinate: at most one decimal, no trailing zeros (compact, stable)."""
    text = f"{x:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _svg_open(width: int, height: int, title: str, classes: str = "chart", extra: str = "") -> str:
    return (
        f'<svg class="{classes}" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}"{extra} role="img"><title>{esc(title)}</title>'
    )


def svg_bar_chart(
    bars: Sequence[Bar],
    *,
    title: str,
    width: int = 560,
    label_width: int = 190,
    full_scale: float | None = None,
    value_width: int = 70,
) -> Markup:
    """Horizontal bars, one per row, with the label left and the value right; the plot's
    width stands for ``full_scale`` (rates: 1.0, i.e. 100 %) or else the largest value."""
    row = 24
    top = 4
    plot = width - label_width - value_width
    height = top + row * max(len(bars), 1) + 4
    top_value = max(
        [b.value for b in bars]
        + [b.secondary or 0 for b in bars]
        + [b.marker or 0 for b in bars]
        + [0 if full_scale is None else full_scale]
    )
    scale = plot / top_value if top_value > 0 else 0.0
    out = [_svg_open(width, height, title)]
    if full_scale is not None and bars:
        # the track of each bar: the whole plot is 100 % of the scale
        for i in range(len(bars)):
            out.append(
                f'<rect class="track" x="{label_width}" y="{_n(top + i * row + 4)}" '
                f'width="{_n(full_scale * scale)}" height="{row - 8}"/>'
            )
    for i, bar in enumerate(bars):
        y = top + i * row
        text_y = _n(y + row / 2 + 4)
        name = f'<text class="lbl" x="0" y="{text_y}">{esc(bar.label)}</text>'
        if bar.href:
            name = f'<a href="{esc(bar.href)}">{name}</a>'
        out.append(name)
        if bar.secondary is not None:
            out.append(
                f'<rect class="bar2" x="{label_width}" y="{_n(y + 4)}" '
                f'width="{_n(bar.secondary * scale)}" height="{row - 8}"/>'
            )
            bar_y, bar_h = y + 6, row - 12
        else:
            bar_y, bar_h = y + 4, row - 8
        tip = bar.tooltip or f"{bar.label}: {bar.text}"
        out.append(
            f'<rect class="bar{" red" if bar.alert else ""}" x="{label_width}" y="{_n(bar_y)}" '
            f'width="{_n(max(bar.value * scale, 0.0))}" height="{bar_h}">'
            f"<title>{esc(tip)}</title></rect>"
        )
        if bar.marker is not None:
            x = _n(label_width + bar.marker * scale)
            out.append(
                f'<line class="mark" x1="{x}" x2="{x}" y1="{_n(y + 2)}" y2="{_n(y + row - 2)}"/>'
            )
        out.append(
            f'<text class="val" x="{width - value_width + 8}" y="{text_y}">{esc(bar.text)}</text>'
        )
    out.append("</svg>")
    return Markup("".join(out))


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values covering ``low..high`` (about ``count`` of them)."""
    if high <= low:
        high = low + 1
    raw = (high - low) / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.floor(low / step) * step
    ticks = []
    value = first
    while value <= high + step * 1e-9:
        ticks.append(round(value, 10))
        value += step
    if ticks[-1] < high:
        ticks.append(round(ticks[-1] + step, 10))
    return ticks


def _tick_text(value: float) -> str:
    return f"{int(value):,}" if float(value).is_integer() else f"{value:,.1f}"


@dataclass(frozen=True, slots=True)
class SeriesPoint:
    x: int  # hands played so far
    y: int  # running score after them
    low: int
    high: int


def svg_line_chart(
    points: Sequence[SeriesPoint],
    *,
    title: str,
    width: int = 1140,
    height: int = 300,
    lang: Lang = "en",
) -> Markup:
    """A running score: the line through each stretch's last value, a band from each
    stretch's low to its high, a dashed zero line, and round ticks on both axes."""
    left, right, top, bottom = 56, 16, 12, 30
    plot_w = width - left - right
    plot_h = height - top - bottom
    xs = [0, *(p.x for p in points)]
    ys = [0, *(p.y for p in points)]
    lows = [0, *(p.low for p in points)]
    highs = [0, *(p.high for p in points)]
    y_ticks = nice_ticks(min(lows), max(highs))
    x_ticks = nice_ticks(0, max(xs) or 1)
    y0, y1 = y_ticks[0], y_ticks[-1]
    kx = plot_w / x_ticks[-1]
    ky = plot_h / (y1 - y0)
    px = [f"{left + kx * x:.1f}" for x in xs]
    base = top + ky * y1

    def sy(y: float) -> str:
        return f"{base - ky * y:.1f}"

    out = [_svg_open(width, height, title, "chart wide")]
    for t in y_ticks:
        y = sy(t)
        out.append(
            f'<line class="grid" x1="{left}" x2="{width - right}" y1="{y}" y2="{y}"/>'
            f'<text class="tick" x="{left - 6}" y="{_n(float(y) + 4)}" text-anchor="end">'
            f"{_tick_text(t)}</text>"
        )
    for t in x_ticks:
        out.append(
            f'<text class="tick" x="{_n(left + kx * t)}" y="{height - 10}" '
            f'text-anchor="middle">{_tick_text(t)}</text>'
        )
    if points:
        upper = " ".join([f"{x},{base - ky * h:.1f}" for x, h in zip(px, highs, strict=True)])
        lower = " ".join(
            [f"{x},{base - ky * lo:.1f}" for x, lo in zip(px[::-1], lows[::-1], strict=True)]
        )
        out.append(f'<polygon class="band" points="{upper} {lower}"/>')
    out.append(f'<line class="zero" x1="{left}" x2="{width - right}" y1="{sy(0)}" y2="{sy(0)}"/>')
    out.append(f'<line class="axis" x1="{left}" x2="{left}" y1="{top}" y2="{top + plot_h}"/>')
    line = " ".join([f"{x},{base - ky * y:.1f}" for x, y in zip(px, ys, strict=True)])
    out.append(f'<polyline class="line" points="{line}"/>')
    if points:
        last = points[-1]
        tip = page_text("after {n} hands: {score}", lang, n=f"{last.x:,}", score=f"{last.y:+,}")
        out.append(
            f'<circle cx="{px[-1]}" cy="{sy(last.y)}" r="3.5" fill="#1f6f5c">'
            f"<title>{esc(tip)}</title></circle>"
        )
    out.append("</svg>")
    return Markup("".join(out))


@dataclass(frozen=True, slots=True)
class Column:
    label: str
    value: float
    tooltip: str


def svg_column_chart(
    columns: Sequence[Column], *, title: str, width: int = 1140, height: int = 190
) -> Markup:
    """Vertical columns (e.g. hands per day) with round ticks and first/last labels."""
    left, right, top, bottom = 50, 10, 10, 26
    plot_w = width - left - right
    plot_h = height - top - bottom
    ticks = nice_ticks(0, max([c.value for c in columns] + [1]), 4)
    top_value = ticks[-1]
    slot = plot_w / max(len(columns), 1)
    gap = min(2.0, slot * 0.2)
    out = [_svg_open(width, height, title, "chart wide")]
    for t in ticks:
        y = top + plot_h * (1 - t / top_value)
        out.append(
            f'<line class="grid" x1="{left}" x2="{width - right}" y1="{_n(y)}" y2="{_n(y)}"/>'
            f'<text class="tick" x="{left - 6}" y="{_n(y + 4)}" text-anchor="end">'
            f"{_tick_text(t)}</text>"
        )
    for i, c in enumerate(columns):
        h = plot_h * c.value / top_value
        out.append(
            f'<rect class="col" x="{_n(left + i * slot + gap / 2)}" y="{_n(top + plot_h - h)}" '
            f'width="{_n(max(slot - gap, 0.5))}" height="{_n(h)}">'
            f"<title>{esc(c.tooltip)}</title></rect>"
        )
    if columns:
        out.append(f'<text class="tick" x="{left}" y="{height - 8}">{esc(columns[0].label)}</text>')
        if len(columns) > 1:
            out.append(
                f'<text class="tick" x="{width - right}" y="{height - 8}" text-anchor="end">'
                f"{esc(columns[-1].label)}</text>"
            )
    out.append("</svg>")
    return Markup("".join(out))


@dataclass(frozen=True, slots=True)
class DayColumn:
    day: date
    value: float
    tooltip: str


def _date_ticks(first: date, last: date, most: int = 12) -> list[tuple[date, str]]:
    """Dates to label on a time axis from ``first`` to ``last``: the first day of months
    (of years for long spans) or Mondays for short ones, at most ``most`` of them."""
    span = (last - first).days
    ticks: list[tuple[date, str]] = []
    if span <= 62:
        day = first + timedelta(days=(7 - first.weekday()) % 7)
        step = max(1, math.ceil((span / 7 + 1) / most)) * 7
        while day <= last:
            ticks.append((day, day.strftime("%m-%d")))
            day += timedelta(days=step)
        return ticks
    months = (last.year - first.year) * 12 + last.month - first.month
    every = next(m for m in (1, 2, 3, 6, 12, 24, 60, 120) if months / m <= most)
    year, month = first.year, first.month
    if first.day != 1:
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    while date(year, month, 1) <= last:
        if (year * 12 + month - 1) % every == 0:
            ticks.append((date(year, month, 1), f"{year}-{month:02d}"))
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return ticks


def svg_day_chart(
    columns: Sequence[DayColumn], *, title: str, width: int = 1140, height: int = 200
) -> Markup:
    """Columns on a time axis, one per day at its date (a gap between days shows as
    empty space), with round value ticks and labelled dates below."""
    left, right, top, bottom = 50, 14, 10, 40
    plot_w = width - left - right
    plot_h = height - top - bottom
    ticks = nice_ticks(0, max([c.value for c in columns] + [1]), 4)
    top_value = ticks[-1]
    out = [_svg_open(width, height, title, "chart wide days")]
    for t in ticks:
        y = top + plot_h * (1 - t / top_value)
        out.append(
            f'<line class="grid" x1="{left}" x2="{width - right}" y1="{_n(y)}" y2="{_n(y)}"/>'
            f'<text class="tick" x="{left - 6}" y="{_n(y + 4)}" text-anchor="end">'
            f"{_tick_text(t)}</text>"
        )
    if columns:
        first, last = columns[0].day, columns[-1].day
        slot = plot_w / ((last - first).days + 1)
        gap = min(2.0, slot * 0.2)

        def x_of(day: date) -> float:
            return left + (day - first).days * slot

        base = top + plot_h
        out.append(f'<line class="axis" x1="{left}" x2="{width - right}" y1="{base}" y2="{base}"/>')
        for c in columns:
            h = plot_h * c.value / top_value
            out.append(
                f'<rect class="col" data-day="{c.day.isoformat()}" x="{_n(x_of(c.day) + gap / 2)}" '
                f'y="{_n(base - h)}" width="{_n(max(slot - gap, 1.0))}" height="{_n(h)}">'
                f"<title>{esc(c.tooltip)}</title></rect>"
            )
        for day, text in _date_ticks(first, last):
            if x_of(day) > width - right - 24:  # its label would run past the chart
                continue
            x = _n(x_of(day))
            out.append(
                f'<line class="axis" x1="{x}" x2="{x}" y1="{base}" y2="{base + 5}"/>'
                f'<text class="tick" x="{x}" y="{base + 17}" text-anchor="middle">{text}</text>'
            )
        out.append(
            f'<text class="tick" x="{left}" y="{height - 4}">{first.isoformat()}</text>'
            f'<text class="tick" x="{width - right}" y="{height - 4}" text-anchor="end">'
            f"{last.isoformat()}</text>"
        )
    out.append("</svg>")
    return Markup("".join(out))


def svg_stacked_bar(
    parts: Sequence[tuple[str, int, str]], *, title: str, width: int = 1140
) -> Markup:
    """One 100 % bar split into parts ``(css class suffix, value, tooltip)``."""
    total = sum(v for _, v, _ in parts) or 1
    x = 0.0
    out = [_svg_open(width, 28, title, "chart stack", ' preserveAspectRatio="none"')]
    for kind, value, tooltip in parts:
        w = width * value / total
        out.append(
            f'<rect class="o-{esc(kind)}" x="{_n(x)}" y="2" width="{_n(w)}" height="24">'
            f"<title>{esc(tooltip)}</title></rect>"
        )
        x += w
    out.append("</svg>")
    return Markup("".join(out))


# --- queries ---------------------------------------------------------------------------------

Row = dict[str, Any]


def query(con: duckdb.DuckDBPyConnection, name: str, **params: Any) -> list[Row]:
    """Run the report ``sql/reports/<name>.sql`` with its parameters bound; rows as dicts."""
    wanted = warehouse.report_parameters(name)
    if sorted(wanted) != sorted(params):
        raise DashboardError(f"report {name} takes {wanted}, not {tuple(sorted(params))}")
    result = warehouse.run_query(con, warehouse.read_report(name), params or None)
    columns = result.columns
    return [dict(zip(columns, row, strict=True)) for row in result.rows]


def group_rows(rows: Iterable[Row], *keys: str) -> dict[Any, list[Row]]:
    """Rows grouped by the value of ``keys`` (a tuple for several), query order kept."""
    grouped: dict[Any, list[Row]] = defaultdict(list)
    for row in rows:
        key = row[keys[0]] if len(keys) == 1 else tuple(row[k] for k in keys)
        grouped[key].append(row)
    return dict(grouped)


# --- links -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Links:
    """Where each page is (paths relative to the site's root)."""

    players: Mapping[str, str]
    hands: Mapping[tuple[str, int], str]
    site: bool = True  # False: a page on its own (``zhuoji audit --html``), linking nowhere

    def player(self, player_id: str | None) -> str | None:
        return None if player_id is None else self.players.get(player_id)

    def hand(self, game_id: str, hand_no: int) -> str | None:
        return self.hands.get((game_id, hand_no))

    def code(self, code: str) -> str:
        return f"codes/{page_slug(code)}.html"


def list_pages(stem: str, count: int, per_page: int) -> list[str]:
    """File names of a list cut into pages: ``stem.html``, ``stem-2.html``, ..."""
    n = max(1, math.ceil(count / per_page))
    return [f"{stem}.html" if i == 0 else f"{stem}-{i + 1}.html" for i in range(n)]


# --- the site --------------------------------------------------------------------------------


BATCH_PAGES = 40
"""Pages sent to a worker process at a time."""
TEMPLATES = (
    "overview.html",
    "leaderboard.html",
    "patterns.html",
    "player.html",
    "disputed.html",
    "illegal.html",
    "illegal_hands.html",
    "code.html",
    "hand.html",
    "rules.html",
)

Builder = Callable[..., dict[str, Any]]
Progress = Callable[[str, int, float], None]
"""Told when a group of pages is written: its name, its pages, seconds since the start."""
Job = tuple[str, str, Builder | None, tuple[Any, ...], dict[str, dict[str, Any]]]
"""A page: its path, template, and its context in each language, or a builder (called
with the rows it takes and ``lang=``)."""
Pool = multiprocessing.pool.Pool


def site_langs(lang: Lang) -> tuple[tuple[Lang, str], ...]:
    """The languages of a site and the folder of each: ``lang`` at the root, the other in
    its own folder (``zh/`` or ``en/``)."""
    other: Lang = "zh" if lang == "en" else "en"
    return ((lang, ""), (other, f"{other}/"))


def _switch(path: str, prefix: str, langs: Sequence[tuple[Lang, str]]) -> tuple[str, Lang]:
    """The link from a page to the same page in the site's other language."""
    up = "../" * (path.count("/") + prefix.count("/"))
    other_lang, other_prefix = next((lg, pf) for lg, pf in langs if pf != prefix)
    return up + other_prefix + path, other_lang


def _render_page(
    env: jinja2.Environment,
    out: Path,
    shared: Mapping[str, Any],
    path: str,
    template: str,
    context: Mapping[str, Any],
    lang: Lang,
    prefix: str,
) -> int:
    langs: Sequence[tuple[Lang, str]] = shared["langs"]
    switch, switch_lang = _switch(path, prefix, langs)
    html = env.get_template(template).render(
        root="../" * path.count("/"),
        lang=lang,
        switch=switch,
        switch_lang=switch_lang,
        switch_name=glossary().terms["label"]["language"][lang == "zh"],
        **{k: v for k, v in shared.items() if k != "langs"},
        **context,
    )
    data = html.encode("utf-8")
    target = out / (prefix + path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return len(data)


def _render_job(
    env: jinja2.Environment, out: Path, shared: Mapping[str, Any], job: Job
) -> list[tuple[str, int]]:
    """A page in every language of the site: the paths written and their sizes."""
    path, template, builder, args, contexts = job
    written = []
    for lang, prefix in shared["langs"]:
        context = builder(*args, lang=lang) if builder is not None else contexts[lang]
        size = _render_page(env, out, shared, path, template, context, lang, prefix)
        written.append((prefix + path, size))
    return written


def _render_batch(out: str, shared: dict[str, Any], jobs: list[Job]) -> list[tuple[str, int]]:
    """A worker's task: render and write a batch of pages; their sizes."""
    env = _environment()
    root = Path(out)
    return [item for job in jobs for item in _render_job(env, root, shared, job)]


def start_pool(workers: int) -> Pool:
    """Worker processes for :func:`render_dashboard`, forked before the warehouse is
    opened (so no database thread is copied into them)."""
    env = _environment()
    for template in TEMPLATES:  # compiled once, here, and inherited by the workers
        env.get_template(template)
    return multiprocessing.get_context("fork").Pool(workers)


class Site:
    """The output folder and the templates; records what it writes.

    With a pool, pages are rendered by the worker processes in batches while this
    process prepares the next ones; a page's bytes do not depend on who renders it.
    """

    def __init__(
        self,
        out: Path,
        shared: dict[str, Any],
        pool: Pool | None = None,
        progress: Progress | None = None,
    ) -> None:
        self.out = out
        self.shared = shared
        self.env = _environment()
        self.written: dict[str, int] = {}
        self._pool = pool
        self._batch: list[Job] = []
        self._results: list[multiprocessing.pool.AsyncResult[list[tuple[str, int]]]] = []
        self._progress = progress
        self._started = time.perf_counter()
        # page groups in order: name, pages, and how many worker batches were sent by its end
        self._groups: list[list[Any]] = []

    def group(self, name: str) -> None:
        """The pages added from now on belong to the group ``name`` (progress reports
        each group once its pages are written)."""
        self._send()
        self._close_group()
        self._groups.append([name, 0, None])

    def _close_group(self) -> None:
        if self._groups and self._groups[-1][2] is None:
            self._groups[-1][2] = len(self._results)
            if self._pool is None:
                self._report(self._groups[-1])

    def _report(self, group: list[Any]) -> None:
        if self._progress is not None:
            self._progress(str(group[0]), int(group[1]), time.perf_counter() - self._started)

    @property
    def links(self) -> Links:
        links: Links = self.shared["links"]
        return links

    def write(self, path: str, template: str, make: Callable[[Lang], dict[str, Any]]) -> None:
        """A page from its context in each language, ``make(lang)``."""
        contexts = {lang: make(lang) for lang, _ in self.shared["langs"]}
        self._add((path, template, None, (), contexts))

    def build(self, path: str, template: str, builder: Builder, *args: Any) -> None:
        """A page whose context ``builder(*args, lang=...)`` makes (in the worker, with a
        pool), in each language."""
        self._add((path, template, builder, args, {}))

    def _add(self, job: Job) -> None:
        if self._groups:  # the page in every language
            self._groups[-1][1] += len(self.shared["langs"])
        if self._pool is None:
            self.written.update(_render_job(self.env, self.out, self.shared, job))
            return
        self._batch.append(job)
        if len(self._batch) >= BATCH_PAGES:
            self._send()

    def _send(self) -> None:
        if self._pool is not None and self._batch:
            task = (str(self.out), self.shared, self._batch)
            self._results.append(self._pool.apply_async(_render_batch, task))
            self._batch = []

    def finish(self) -> None:
        """Wait for the workers' pages (a worker's error is raised here)."""
        self._send()
        self._close_group()
        pending = [g for g in self._groups if self._pool is not None]
        for i, result in enumerate(self._results):
            self.written.update(result.get())
            while pending and pending[0][2] <= i + 1:
                self._report(pending.pop(0))
        for group in pending:  # groups of no page, or whose pages were all sent before
            self._report(group)
        self._results.clear()
        self._groups.clear()


@cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("zhuoji.flows.dashboard", "assets"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        finalize=_finalize,
    )
    env.filters.update(num=fmt_num, pct=fmt_pct, signed=fmt_signed, when=fmt_time, sv=sort_value,
                       code_zh=_ctx_code_zh, user=user_html, users=user_list_html)
    env.globals.update(
        L=_ctx_label,
        T=_ctx_text,
        tr=_ctx_translate,
        name=_ctx_name,
        code_zh=_ctx_code_zh,
        outcome=_ctx_outcome,
        term=_ctx_term,
        term_zh=_ctx_term_zh,
        bilingual=bilingual,
        nav=NAV,
        css=Markup(_asset("style.css")),
        js=Markup(_asset("dashboard.js")),
        replay_js=Markup(_asset("replay.js")),
    )
    return env


def render_standalone(
    template: str, links: Links, context: Mapping[str, Any], lang: Lang = "en"
) -> bytes:
    """One page on its own, in ``lang``, linking to no other page of a site (UTF-8
    bytes)."""
    html = _environment().get_template(template).render(
        root="", links=links, as_of=None, lang=lang, switch=None, switch_lang=None, **context
    )
    return html.encode("utf-8")


def _foreign_file(out: Path) -> str | None:
    """The first entry of a folder an earlier build wrote that the dashboard did not write
    (it writes only regular ``.html`` files, in folders, and the marker): any other file,
    a symbolic link, a file with another hard link, which rewriting a page in place would
    change. ``None`` when there is none."""
    for folder, dirs, names in os.walk(out):
        dirs.sort()
        for name in sorted(dirs + names):
            path = Path(folder, name)
            relative = path.relative_to(out).as_posix()
            info = path.lstat()
            if relative == MARKER and stat.S_ISREG(info.st_mode) and info.st_nlink == 1:
                continue
            if stat.S_ISDIR(info.st_mode):
                continue
            if not stat.S_ISREG(info.st_mode):
                return f"{relative} (not a regular file)"
            if not name.endswith(".html"):
                return relative
            if info.st_nlink > 1:
                return f"{relative} (it has another hard link)"
    return None


def check_out(db: Path, out: Path) -> None:
    """Refuse an output folder that would destroy the warehouse: ``out`` is the warehouse
    (or its ``.wal``), or holds it, symbolic links resolved (``os.path.realpath``, which
    leaves a link loop as it is, where ``Path.resolve`` raises)."""
    target = Path(os.path.realpath(out))
    for path in (db, Path(f"{db}.wal")):
        real = Path(os.path.realpath(path))
        if real == target or target in real.parents:
            raise DashboardError(
                f"--out {out} holds the warehouse {path}; the dashboard replaces its "
                "folder: choose a folder apart from the warehouse"
            )


def _prepare_out(out: Path) -> None:
    """Create ``out``, or accept a folder an earlier build wrote that holds only what a
    build writes; never touch other folders or files."""
    if out.exists():
        if not out.is_dir():
            raise DashboardError(f"{out} exists and is not a folder")
        if any(out.iterdir()) and not (out / MARKER).exists():
            raise DashboardError(
                f"{out} is not empty and was not written by `zhuoji dashboard`; "
                "choose an empty or new folder"
            )
        foreign = _foreign_file(out) if (out / MARKER).exists() else None
        if foreign is not None:
            raise DashboardError(
                f"{out} holds {foreign}, which `zhuoji dashboard` did not write; a build "
                "replaces the folder: move it away or choose another folder"
            )
    out.mkdir(parents=True, exist_ok=True)
    (out / MARKER).write_text(
        "written by zhuoji dashboard; replaced on each build\n", encoding="utf-8"
    )


def _remove_stale(out: Path, written: Mapping[str, int]) -> None:
    """Delete what an earlier build left and this one did not write (pages are overwritten
    in place, which is much cheaper than clearing the folder first)."""
    for path in sorted(out.rglob("*"), reverse=True):
        relative = path.relative_to(out).as_posix()
        if path.is_dir():
            if not any(path.iterdir()):
                path.rmdir()
        elif relative != MARKER and relative not in written:
            path.unlink()


def default_workers() -> int:
    return max(1, min(os.cpu_count() or 1, 4))


def build_dashboard(
    db: str | Path,
    out: str | Path,
    limits: DashboardLimits | None = None,
    *,
    workers: int | None = None,
    progress: Progress | None = None,
    lang: Lang = "en",
) -> DashboardSummary:
    """Open the warehouse read-only and write the dashboard into ``out``, rendering the
    pages on ``workers`` processes (default: the cores, at most 4; 1: this process);
    ``progress`` is told as each group of pages is written. The site is in both
    languages: ``lang`` at the root, the other in its folder (``zh/`` or ``en/``), each
    page linking to its other-language twin."""
    check_out(Path(db), Path(out))
    processes = default_workers() if workers is None else workers
    pool = start_pool(processes) if processes > 1 else None
    try:
        con = warehouse.open_reader(db)
        try:
            return render_dashboard(
                con, Path(out), limits or DashboardLimits(), pool=pool, progress=progress,
                lang=lang,
            )
        finally:
            con.close()
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()


def render_dashboard(
    con: duckdb.DuckDBPyConnection,
    out: Path,
    limits: DashboardLimits,
    *,
    pool: Pool | None = None,
    progress: Progress | None = None,
    lang: Lang = "en",
) -> DashboardSummary:
    """Write every page of the dashboard for the warehouse behind ``con`` (pages are
    rendered by ``pool``'s processes when one is given, else here), in both languages
    (``lang`` at the root)."""
    started = time.perf_counter()
    _prepare_out(out)
    tables = {str(r["table_name"]) for r in query(con, "dashboard_tables")}
    overview = query(con, "dashboard_overview")[0]
    players = query(con, "dashboard_players")
    disputed = query(con, "dashboard_disputed_list", limit=str(limits.hand_pages))
    by_check = query(con, "disputed_by_code")
    illegal = query(con, "dashboard_illegal_list", limit=str(limits.hand_pages))

    picked: dict[tuple[str, int], None] = {}
    for r in (*disputed, *illegal):
        picked.setdefault((r["game_id"], r["hand_no"]), None)
    links = Links(
        players={
            str(p["player_id"]): f"players/{page_slug(str(p['player_id']))}.html" for p in players
        },
        hands={key: f"hands/{page_slug(key[0])}-h{key[1]}.html" for key in sorted(picked)},
    )
    as_of = overview["last_ingest"]
    shared = {
        "links": links,
        "as_of": fmt_time(as_of) if as_of else None,
        "langs": site_langs(lang),
    }
    site = Site(out, shared, pool, progress)
    averages = _averages(players)
    site.group("overview")
    _overview_page(site, con, overview, players, limits)
    site.group("leaderboard and patterns")
    _leaderboard_page(site, players)
    _patterns_page(site, con)
    site.group("players")
    _players_pages(site, con, players, averages, limits)
    site.group("disputed and illegal moves")
    _disputed_pages(site, overview, disputed, by_check, limits)
    _illegal_pages(site, con, overview, illegal, limits)
    site.group("hands")
    _hand_pages(site, con, sorted(picked), has_tiles="hand_tiles" in tables)
    site.finish()

    _remove_stale(out, site.written)
    largest = max(site.written.items(), key=lambda kv: (kv[1], kv[0]))
    return DashboardSummary(
        out=out,
        pages=len(site.written),
        total_bytes=sum(site.written.values()),
        largest_page=largest[0],
        largest_bytes=largest[1],
        players=len(links.players),
        hand_pages=len(picked),
        seconds=time.perf_counter() - started,
    )


# --- pages -----------------------------------------------------------------------------------


RATE_KEYS: tuple[tuple[str, str], ...] = (
    ("win_rate", "wins"),
    ("self_draw_rate", "self_draws"),
    ("deal_in_rate", "deal_ins"),
    ("ready_rate", "ready_at_end"),
)


def _averages(players: Sequence[Row]) -> dict[str | None, dict[str, float | None]]:
    """Rates over all players' hands together in each family (the markers on the player
    pages), by family."""
    averages: dict[str | None, dict[str, float | None]] = {}
    for family, rows in group_rows(players, "family").items():
        hands = sum(int(p["hands"] or 0) for p in rows)
        averages[family] = {
            rate: (sum(int(p[count] or 0) for p in rows) / hands if hands else None)
            for rate, count in RATE_KEYS
        }
    return averages


def _overview_page(
    site: Site,
    con: duckdb.DuckDBPyConnection,
    overview: Row,
    players: Sequence[Row],
    limits: DashboardLimits,
) -> None:
    outcomes = query(con, "dashboard_outcomes")
    days = query(con, "dashboard_hands_by_day", days=str(limits.days))
    runs = query(con, "dashboard_runs", limit=str(limits.runs))
    quarantine = query(con, "dashboard_quarantine", limit=str(limits.quarantine))
    patterns = group_rows(query(con, "pattern_frequencies"), "family")
    codes = query(con, "illegal_moves_by_code")
    total_hands = int(overview["hands"] or 0)

    def make(lang: Lang) -> dict[str, Any]:
        outcome_bar = svg_stacked_bar(
            [
                (
                    str(o["kind"]),
                    int(o["hands"]),
                    f"{_outcome_text(str(o['kind']), lang)}: {o['hands']:,} "
                    f"({fmt_pct(o['hands'] / total_hands)})",
                )
                for o in outcomes
            ],
            title=glossary().terms["label"]["outcomes"][lang == "zh"],
        )
        day_chart = svg_day_chart(
            [
                DayColumn(
                    day=d["day"],
                    value=float(d["hands"]),
                    tooltip=page_text(
                        "{day}: {hands} hands, {disputed} disputed, {illegal} with illegal "
                        "moves", lang, day=fmt_time(d["day"]), hands=f"{d['hands']:,}",
                        disputed=f"{d['disputed']:,}", illegal=f"{d['illegal']:,}"),
                )
                for d in days
            ],
            title=glossary().terms["label"]["hands_per_day"][lang == "zh"],
        )
        pattern_charts = [
            {
                "name": family_label(family, lang),
                "chart": svg_bar_chart(
                    [
                        Bar(
                            label=term_text(str(p["pattern"]), lang, family),
                            value=float(p["scored_wins"]),
                            text=fmt_num(p["scored_wins"]),
                            href=f"patterns.html#family-{family_key(family)}",
                        )
                        for p in rows[:8]
                    ],
                    title=f"{glossary().terms['label']['top_patterns'][lang == 'zh']} · "
                    f"{family_text(family, lang)}",
                    width=520,
                    label_width=200,
                ),
            }
            for family, rows in patterns.items()
        ]
        code_chart = svg_bar_chart(
            [
                Bar(
                    label=code_text(str(c["code"]), lang),
                    value=float(c["findings"]),
                    text=fmt_num(c["findings"]),
                    href=site.links.code(str(c["code"])),
                    alert=True,
                )
                for c in codes[:8]
            ],
            title=glossary().terms["label"]["top_codes"][lang == "zh"],
            width=520,
            label_width=200,
        )
        return {
            "title": label_text("overview", lang),
            "here": "overview",
            "o": overview,
            "outcomes": outcomes,
            "total_hands": total_hands,
            "outcome_bar": outcome_bar,
            "day_chart": day_chart if days else None,
            "pattern_charts": pattern_charts,
            "code_chart": code_chart if codes else None,
            "top": [
                {**section, "rows": section["rows"][:10]}
                for section in family_sections(players, lang)
            ],
            "runs": runs,
            "quarantine": quarantine,
            "quarantine_total": quarantine[0]["total"] if quarantine else 0,
        }

    site.write("index.html", "overview.html", make)


def _outcome_text(kind: str, lang: Lang) -> str:
    pair = glossary().terms["outcome"].get(kind, (kind, kind))
    return pair[1] if lang == "zh" else kind


def _leaderboard_page(site: Site, players: Sequence[Row]) -> None:
    """One ranking per rule family (their points are on different scales), each in its
    own table; the chicken columns only for a family that scores chickens."""
    site.write(
        "leaderboard.html",
        "leaderboard.html",
        lambda lang: {
            "title": label_text("leaderboard", lang),
            "here": "leaderboard",
            "families": family_sections(players, lang),
            "players": players,
        },
    )


def _patterns_page(site: Site, con: duckdb.DuckDBPyConnection) -> None:
    """The pattern frequencies of each rule family (a family scores its own patterns)."""
    rows = query(con, "pattern_frequencies")

    def chart(rows: Sequence[Row], family: str | None, lang: Lang) -> Markup:
        return svg_bar_chart(
            [
                Bar(
                    label=term_text(str(r["pattern"]), lang),
                    value=float(r["scored_wins"] - r["valued_wins"]),
                    secondary=float(r["qualifying_wins"]),
                    text=fmt_num(r["scored_wins"])
                    + (page_text(" ({n} by rule)", lang, n=f"{r['valued_wins']:,}")
                       if r["valued_wins"] else ""),
                    tooltip=page_text("{pattern}: scored in {n} wins", lang,
                                      pattern=term_text(str(r["pattern"]), lang),
                                      n=f"{r['scored_wins']:,}")
                    + (page_text(", {n} of them by a rule", lang, n=f"{r['valued_wins']:,}")
                       if r["valued_wins"] else "")
                    + page_text("; qualifying in {n}", lang, n=f"{r['qualifying_wins']:,}"),
                )
                for r in rows
            ],
            title=f"{glossary().terms['label']['pattern_frequencies'][lang == 'zh']} · "
            f"{family_text(family, lang)}",
            width=900,
            label_width=260,
            value_width=130,
        )

    def make(lang: Lang) -> dict[str, Any]:
        families = family_sections(rows, lang)
        for section, (family, group) in zip(
            families, group_rows(rows, "family").items(), strict=True
        ):
            section["chart"] = chart(group, family, lang)
        return {
            "title": label_text("patterns", lang),
            "here": "patterns",
            "families": families,
        }

    site.write("patterns.html", "patterns.html", make)


def _players_pages(
    site: Site,
    con: duckdb.DuckDBPyConnection,
    players: Sequence[Row],
    averages: Mapping[str | None, Mapping[str, float | None]],
    limits: DashboardLimits,
) -> None:
    """One page per player: the player's totals in each family played, then the player's
    findings and flagged hands."""
    series = group_rows(
        query(con, "dashboard_player_series", points=str(limits.series_points)),
        "player_id", "family",
    )
    patterns = group_rows(query(con, "dashboard_player_patterns"), "player_id", "family")
    flagged = group_rows(
        query(con, "dashboard_player_hands", limit=str(limits.player_hands)), "player_id"
    )
    findings = group_rows(query(con, "illegal_moves_by_player"), "player_id")
    for pid, rows in group_rows(players, "player_id").items():
        families = [r["family"] for r in rows]
        site.build(
            site.links.players[str(pid)],
            "player.html",
            player_context,
            rows,
            {f: series.get((pid, f), []) for f in families},
            {f: patterns.get((pid, f), []) for f in families},
            flagged.get(pid, []),
            findings.get(pid, []),
            {f: averages.get(f, {}) for f in families},
            families[0] if len(set(families)) == 1 else None,
        )


def _count_chart(
    row: Mapping[str, Any], section: str, keys: Sequence[str], column: str, title: str,
    lang: Lang, family: str | None = None,
) -> str:
    """A bar per kind (kongs or chickens) from a player's row: ``column`` formats the kind
    into the row's column name; the kinds in the family's words."""
    terms = glossary(family).terms[section]
    return svg_bar_chart(
        [
            Bar(
                label=terms[k][1] if lang == "zh" else " ".join(terms[k]),
                value=float(row[column.format(k)] or 0),
                text=fmt_num(row[column.format(k)]),
            )
            for k in keys
        ],
        title=title,
        width=420,
        label_width=160,
    )


KONG_KINDS = ("exposed", "added", "concealed")
CHICKEN_KINDS = ("standing", "flipped", "gold", "charging", "responsibility")


def player_context(
    rows: Sequence[Row],
    series: Mapping[str | None, Sequence[Row]],
    mix: Mapping[str | None, Sequence[Row]],
    flagged: Sequence[Row],
    findings: Sequence[Row],
    averages: Mapping[str | None, Mapping[str, float | None]],
    family: str | None = None,
    *,
    lang: Lang = "en",
) -> dict[str, Any]:
    """The player page's context from the player's rows (run where the page renders):
    ``rows`` holds the player's ``dashboard_players`` row of each family played, and
    ``series``, ``mix`` and ``averages`` are by family; the page is in the words of
    ``family`` (the family of every game the player played, if one), each family's
    section in its own."""
    first = rows[0]
    pid = str(first["player_id"])
    played = [r["first_played"] for r in rows if r["first_played"] is not None]
    last = [r["last_played"] for r in rows if r["last_played"] is not None]
    return {
        "family": family,
        "title": f"{pid} · {label_text('player', lang, family)}",
        "here": "leaderboard",
        "p": {
            "player_id": pid,
            "name": first["name"],
            "first_played": min(played) if played else None,
            "last_played": max(last) if last else None,
        },
        "families": [
            _player_family(
                r, series.get(r["family"], []), mix.get(r["family"], []),
                averages.get(r["family"], {}), lang,
            )
            for r in rows
        ],
        "findings": findings,
        "flagged": flagged,
        "flagged_total": flagged[0]["total"] if flagged else 0,
    }


def _player_family(
    p: Row,
    series: Sequence[Row],
    mix: Sequence[Row],
    averages: Mapping[str, float | None],
    lang: Lang,
) -> dict[str, Any]:
    """A player page's section for one family: the player's totals there, the running
    score, the rates against the family's, the pattern mix, kongs and (for a family that
    scores chickens) chickens."""
    family = p["family"]
    labels = glossary(family).terms["label"]
    pid = str(p["player_id"])
    points = [
        SeriesPoint(
            x=int(r["hand_index"]), y=int(r["score"]), low=int(r["low"]), high=int(r["high"])
        )
        for r in series
    ]
    hands = int(p["hands"] or 0)
    rate_chart = svg_bar_chart(
        [
            Bar(
                label=labels[rate][1] if lang == "zh" else " ".join(labels[rate]),
                value=float(p[rate] or 0.0),
                text=fmt_pct(p[rate]),
                marker=averages.get(rate),
                tooltip=page_text("{rate} of {hands} hands; all players {average}", lang,
                                  family, rate=fmt_pct(p[rate]), hands=f"{hands:,}",
                                  average=fmt_pct(averages.get(rate))),
            )
            for rate, _ in RATE_KEYS
        ],
        title=labels["rates"][lang == "zh"],
        width=520,
        label_width=180,
        full_scale=1.0,
    )
    mix_chart = svg_bar_chart(
        [
            Bar(
                label=term_text(str(m["pattern"]), lang, family),
                value=float(m["wins"]),
                text=fmt_num(m["wins"]),
            )
            for m in mix
        ],
        title=labels["pattern_mix"][lang == "zh"],
        width=520,
        label_width=200,
    )
    kong_chart = _count_chart(p, "kong", KONG_KINDS, "{}_kongs",
                              glossary(family).terms["kong"]["kongs"][lang == "zh"].capitalize(),
                              lang, family)
    chickens = family_scores_chickens(family)
    chicken_chart = _count_chart(p, "chicken", CHICKEN_KINDS, "chickens_{}",
                                 "Chickens" if lang == "en" else zh("chicken", "chicken", family),
                                 lang, family) if chickens else None
    return {
        "key": family_key(family),
        "name": family_label(family, lang),
        "chickens": chickens,
        "declares": family_declares_ready(family),
        "p": p,
        "score_chart": svg_line_chart(
            points,
            title=page_text("Running score of {player}", lang, family, player=pid)
            + f" · {family_text(family, lang)}",
            lang=lang,
        ),
        "points": len(points),
        "rate_chart": rate_chart,
        "mix_chart": mix_chart if mix else None,
        "kong_chart": kong_chart,
        "chicken_chart": chicken_chart,
    }


def _disputed_pages(
    site: Site,
    overview: Row,
    disputed: Sequence[Row],
    by_check: Sequence[Row],
    limits: DashboardLimits,
) -> None:
    total = int(overview["disputed_hands"] or 0)
    checks = glossary().terms["check"]
    pages = list_pages("disputed", len(disputed), limits.list_rows)
    for i, path in enumerate(pages):

        def make(lang: Lang, i: int = i) -> dict[str, Any]:
            return {
                "title": label_text("disputed", lang),
                "here": "disputed",
                "rows": disputed[i * limits.list_rows : (i + 1) * limits.list_rows],
                "shown": len(disputed),
                "total": total,
                "pages": pages,
                "current": i + 1,
                "first": i * limits.list_rows,
                "by_check": [
                    {**r, "what": checks.get(str(r["code"]), ("", ""))[lang == "zh"]}
                    for r in by_check
                ],
            }

        site.write(path, "disputed.html", make)


def _illegal_pages(
    site: Site,
    con: duckdb.DuckDBPyConnection,
    overview: Row,
    illegal: Sequence[Row],
    limits: DashboardLimits,
) -> None:
    links: Links = site.links
    by_code = query(con, "illegal_moves_by_code")
    by_player_rows = query(con, "illegal_moves_by_player")
    codes = [str(c["code"]) for c in by_code]
    pivot: dict[str, dict[str, int]] = {}
    for r in by_player_rows:
        pivot.setdefault(str(r["player_id"]), {})[str(r["code"])] = int(r["findings"])
    # each player's codes, most findings first (then in code order)
    order = {code: i for i, code in enumerate(codes)}
    by_player = sorted(
        (
            (
                pid,
                sum(counts.values()),
                sorted(
                    counts.items(),
                    key=lambda kv: (-kv[1], order.get(kv[0], len(order)), kv[0]),
                ),
            )
            for pid, counts in pivot.items()
        ),
        key=lambda item: (-item[1], item[0]),
    )

    def chart(lang: Lang) -> Markup:
        return svg_bar_chart(
            [
                Bar(
                    label=code_text(str(c["code"]), lang),
                    value=float(c["findings"]),
                    text=fmt_num(c["findings"]),
                    href=links.code(str(c["code"])),
                    alert=True,
                    tooltip=page_text(
                        "{code}: {findings} findings in {hands} hands, {fatal} stopped the "
                        "hand", lang, code=code_text(str(c["code"]), lang),
                        findings=f"{c['findings']:,}", hands=f"{c['hands']:,}",
                        fatal=f"{c['fatal']:,}"),
                )
                for c in by_code
            ],
            title=glossary().terms["label"]["top_codes"][lang == "zh"],
            width=720,
            label_width=240,
        )

    total = int(overview["illegal_hands"] or 0)
    pages = list_pages("illegal-hands", len(illegal), limits.list_rows)
    site.write(
        "illegal.html",
        "illegal.html",
        lambda lang: {
            "title": label_text("illegal", lang),
            "here": "illegal",
            "by_code": by_code,
            "chart": chart(lang) if by_code else None,
            "codes": codes,
            "by_player": by_player,
            "hands_total": total,
            "hands_page": pages[0],
        },
    )
    for i, path in enumerate(pages):

        def make(lang: Lang, i: int = i) -> dict[str, Any]:
            return {
                "title": label_text("illegal_hands", lang),
                "here": "illegal",
                "rows": illegal[i * limits.list_rows : (i + 1) * limits.list_rows],
                "shown": len(illegal),
                "total": total,
                "pages": pages,
                "current": i + 1,
            }

        site.write(path, "illegal_hands.html", make)
    site.write(
        "rules.html",
        "rules.html",
        lambda lang: {
            "title": label_text("codes_rules", lang),
            "here": "illegal",
            "rules": sorted(code_rules().items()),
            "pages": {str(c["code"]): links.code(str(c["code"])) for c in by_code},
        },
    )
    per_code = group_rows(query(con, "dashboard_code_hands", limit=str(limits.code_hands)), "code")
    for c in by_code:
        code = str(c["code"])
        rows = per_code.get(code, [])

        def make_code(lang: Lang, c: Row = c, code: str = code,
                      rows: list[Row] = rows) -> dict[str, Any]:
            return {
                "title": f"{code_text(code, lang)} · {label_text('illegal', lang)}",
                "here": "illegal",
                "c": c,
                "code": code,
                "rule": code_rules().get(code, ()),
                "rows": rows,
                "total": rows[0]["total"] if rows else 0,
            }

        site.write(links.code(code), "code.html", make_code)


# --- hand pages ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LedgerGroup:
    reason: str
    items: tuple[Row, ...]
    per_seat: tuple[int, ...]  # the group's net for each seat
    total: int  # points moved


@dataclass(frozen=True, slots=True)
class SeatTiles:
    concealed: Markup
    melds: Markup
    win_tile: Markup | None
    discards: Markup


_REASON_ORDER = {r: i for i, r in enumerate(glossary().terms["reason"])}
"""The ledger reasons in the glossary's order: each family's reasons in its own order."""


def ledger_groups(items: Sequence[Row], n_players: int) -> list[LedgerGroup]:
    """The ledger grouped by reason (in the order of the glossary's reasons, each family's
    in its settlement's order, unknown names last by name), with
    each seat's net from that reason."""
    grouped = group_rows(items, "reason")
    groups = []
    for reason in sorted(grouped, key=lambda r: (_REASON_ORDER.get(r, len(_REASON_ORDER)), r)):
        rows = grouped[reason]
        per_seat = [0] * n_players
        for r in rows:
            per_seat[int(r["payer_seat"])] -= int(r["amount"])
            per_seat[int(r["payee_seat"])] += int(r["amount"])
        groups.append(
            LedgerGroup(
                reason=reason,
                items=tuple(rows),
                per_seat=tuple(per_seat),
                total=sum(int(r["amount"]) for r in rows),
            )
        )
    return groups


@cache
def _chicken_tiles(ruleset: str, overrides: str | None) -> frozenset[Tile] | None:
    """The standing chickens of a game's ruleset (none when it cannot be resolved); None
    for a family that plays no chickens (no flip either)."""
    try:
        rules = resolve_ruleset(ruleset, orjson.loads(overrides) if overrides else None)
    except ValueError:
        return frozenset()
    chickens = getattr(rules, "chickens", None)  # the Guizhou family's
    if chickens is None:
        return None
    return frozenset(Tile(c.tile) for c in chickens.standing)


def _parse_tile(text: str | None) -> Tile | None:
    if text is None:
        return None
    try:
        return Tile.parse(text)
    except ValueError:
        return None


def seat_tiles(row: Row, chickens: frozenset[Tile], family: str | None = None) -> SeatTiles:
    """A ``hand_tiles`` row as tile boxes (the melds' kinds in the family's words); a
    self-drawn winning tile is shown apart."""
    try:
        concealed = parse_tiles(str(row["concealed"]))
        discards = parse_discards(str(row["discards"]))
    except ValueError:
        concealed, discards = [], []
    won = _parse_tile(row["win_tile"])
    if won is not None and won in concealed:
        concealed.remove(won)
    return SeatTiles(
        concealed=tiles_html(concealed, chickens=chickens),
        melds=melds_html(str(row["melds"]), chickens, family),
        win_tile=None if won is None else tile_html(won, chicken=won in chickens, won=True),
        discards=tiles_html(discards, small=True, chickens=chickens),
    )


def _hand_pages(
    site: Site,
    con: duckdb.DuckDBPyConnection,
    picked: Sequence[tuple[str, int]],
    *,
    has_tiles: bool,
) -> None:
    if not picked:
        return
    params = {"game_ids": [g for g, _ in picked], "hand_nos": [h for _, h in picked]}
    headers = query(con, "dashboard_hand_header", **params)
    seats = group_rows(query(con, "dashboard_hand_seats", **params), "game_id", "hand_no")
    ledger = group_rows(query(con, "dashboard_hand_ledger", **params), "game_id", "hand_no")
    found = group_rows(query(con, "dashboard_hand_findings", **params), "game_id", "hand_no")
    tiles = (
        group_rows(query(con, "dashboard_hand_tiles", **params), "game_id", "hand_no")
        if has_tiles
        else {}
    )
    # by log file: a worker then reads each file once for the pages of its batch (the
    # replay's events come from the file); the pages' bytes do not depend on the order
    for h in sorted(headers, key=lambda r: (str(r["path"] or ""), r["game_id"], r["hand_no"])):
        key = (str(h["game_id"]), int(h["hand_no"]))
        site.build(
            site.links.hands[key],
            "hand.html",
            hand_context,
            h,
            seats.get(key, []),
            tiles.get(key, []),
            ledger.get(key, []),
            found.get(key, []),
        )


def hand_context(
    h: Row,
    seats: Sequence[Row],
    tiles: Sequence[Row],
    ledger: Sequence[Row],
    findings: Sequence[Row],
    *,
    lang: Lang = "en",
) -> dict[str, Any]:
    """The hand audit page's context from the hand's rows (run where the page renders),
    in ``lang`` and in the words of its ruleset's family (``family`` in the context)."""
    family = h["family"]
    played = _chicken_tiles(str(h["ruleset"]), h["rule_overrides"])
    standing = played or frozenset()
    flip = _parse_tile(h["flip_tile"])
    flip_chicken = None if flip is None or flip.is_wild else flip.next_in_suit()
    chickens = standing if flip_chicken is None else standing | {flip_chicken}
    by_seat = {int(r["seat"]): seat_tiles(r, chickens, family) for r in tiles}
    diffs = [
        None
        if s["delta"] is None or s["recorded_delta"] is None
        else s["recorded_delta"] - s["delta"]
        for s in seats
    ]
    names = {int(s["seat"]): s["player_id"] for s in seats}
    return {
        **replay_context(h, findings, chickens, names, lang, family),
        "family": family,
        "title": f"{h['game_id']} #{h['hand_no']} · {label_text('hand_audit', lang, family)}",
        "here": "disputed" if h["disputed"] else "illegal",
        "h": h,
        "seats": seats,
        "names": names,
        "tiles": by_seat,
        "has_tiles": bool(by_seat),
        "groups": ledger_groups(ledger, int(h["n_players"])),
        "diffs": diffs,
        "findings": findings,
        "flip": tile_html(flip) if flip is not None else None,
        "flip_chicken": None if flip_chicken is None else tile_html(flip_chicken, chicken=True),
        "standing": None if played is None else tiles_html(sorted(standing), small=True),
    }


def _tile_texts(data: Any, into: set[str]) -> None:
    """Every tile text in a snapshot's data (the values of ``tile``, ``tiles``, ``concealed``)."""
    if isinstance(data, dict):
        for key, value in data.items():
            if key in ("tile", "flip") and isinstance(value, str):
                into.add(value)
            elif key in ("tiles", "concealed") and isinstance(value, list):
                into.update(v for v in value if isinstance(v, str))
            else:
                _tile_texts(value, into)
    elif isinstance(data, list):
        for value in data:
            _tile_texts(value, into)


def _tile_face(text: str, *, chicken: bool) -> str:
    tile = Tile.parse(text)
    html = str(tile_html(tile, chicken=chicken))
    return html.replace('<span class="tile', f'<span data-t="{esc(text)}" class="tile', 1)


def replay_context(
    h: Row,
    findings: Sequence[Row],
    chickens: frozenset[Tile],
    names: Mapping[int, Any],
    lang: Lang = "en",
    family: str | None = None,
) -> dict[str, Any]:
    """The replay panel of a hand page: the data its script draws (its sentences and
    labels in the family's words), or why there is none."""
    path = h.get("path")
    if path is None:
        return {"replay": None,
                "replay_missing": page_text("the hand's log file is not known", lang, family),
                "finding_steps": {}}
    data = hand_replay(str(path), h.get("file_sha256"), str(h["game_id"]), int(h["hand_no"]))
    snapshots = data.snapshots
    if snapshots is None:
        return {"replay": None,
                "replay_missing": render(data.missing or "", lang, family),
                "finding_steps": {}}
    if not snapshots.steps:
        return {"replay": None,
                "replay_missing": page_text("the deal is illegal, so no table to show", lang,
                                            family),
                "finding_steps": {}}
    texts: set[str] = set()
    for step in snapshots.steps:
        _tile_texts(step.table, texts)
        _tile_texts(step.event, texts)
    _tile_texts(snapshots.stopped_at, texts)
    words = {key: pair[lang == "zh"]
             for key, pair in glossary(family).terms["replay"].items()}
    if lang == "zh":  # the tiles' and the codes' Chinese names, for the panel's sentences
        words.update({f"tile:{t}": tile_zh(t, family) for t in sorted(texts)})
        words.update({f"code:{f['code']}": code_chinese(str(f["code"]), family)
                      for f in findings})
    n = int(h["n_players"])
    return {
        "replay": Markup(
            replay_json(
                snapshots,
                findings=[{**f, "message": render(str(f["message"]), lang, family)}
                          if f.get("message") else f for f in findings],
                tiles={t: _tile_face(t, chicken=False) for t in texts},
                chicken_tiles={
                    t: _tile_face(t, chicken=True) for t in texts if Tile.parse(t) in chickens
                },
                labels=words,
                names=[str(names.get(seat, "")) for seat in range(n)],
            )
        ),
        "replay_steps": len(snapshots.steps) - 1,
        "replay_missing": None,
        "finding_steps": {
            f["item_no"]: finding_step(f["event_index"], len(snapshots.steps) - 1)
            for f in findings
            if f["event_index"] is not None
        },
    }


# --- live rebuilds (zhuoji serve) ------------------------------------------------------------


class LiveDashboard:
    """A dashboard folder kept up to date with a warehouse: :meth:`refresh` rebuilds it
    when the database file (or its write-ahead log) changed since the last build. While
    an ingest holds the file the last build is kept; with no build yet the error is raised."""

    def __init__(
        self,
        db: str | Path,
        folder: Path,
        limits: DashboardLimits | None = None,
        *,
        workers: int | None = None,
        lang: Lang = "en",
    ) -> None:
        self.lang: Lang = lang
        self.db = Path(db)
        self.folder = folder
        self.limits = limits or DashboardLimits()
        self.workers = workers
        self.builds = 0
        self._stamp: tuple[tuple[int, int], ...] | None = None
        self._lock = threading.Lock()

    def _current_stamp(self) -> tuple[tuple[int, int], ...]:
        stamp = []
        for path in (self.db, self.db.with_name(self.db.name + ".wal")):
            if path.exists():
                st = path.stat()
                stamp.append((st.st_mtime_ns, st.st_size))
            else:
                stamp.append((0, -1))
        return tuple(stamp)

    def refresh(self) -> bool:
        """Rebuild if the warehouse changed; True when a build was made."""
        with self._lock:
            stamp = self._current_stamp()
            if stamp == self._stamp:
                return False
            try:
                build_dashboard(
                    self.db, self.folder, self.limits, workers=self.workers, lang=self.lang
                )
            except warehouse.DatabaseBusyError:
                if self._stamp is None:
                    raise
                return False
            self._stamp = stamp
            self.builds += 1
            return True
