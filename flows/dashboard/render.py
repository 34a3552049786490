"""Rendering the dashboard's pages: the reports they are built from (:func:`query`), where
each page is (:class:`Links`), the Jinja environment and its functions in the page's words,
and :class:`Site`, which renders and writes pages in every language of the site, on a pool
of worker processes or here (:func:`render_standalone`: one page on its own)."""

from __future__ import annotations

import math
import multiprocessing
import multiprocessing.pool
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2
from markupsafe import Markup

from zhuoji.flows.dashboard.words import (
    _asset,
    bilingual,
    code_chinese,
    esc,
    fmt_num,
    fmt_pct,
    fmt_signed,
    fmt_time,
    label,
    outcome_label,
    page_slug,
    sort_value,
    term,
    term_chinese,
    user_html,
    user_list_html,
)
from zhuoji.flows.text.terminal import safe
from zhuoji.rules.glossary import Lang, expand, glossary, render
from zhuoji.rules.messages import Message

if TYPE_CHECKING:
    import duckdb

__all__ = [
    "DashboardError",
    "Links",
    "Row",
    "Site",
    "group_rows",
    "query",
    "render_standalone",
    "start_pool",
]

NAV: tuple[tuple[str, str], ...] = (
    ("overview", "index.html"),
    ("leaderboard", "leaderboard.html"),
    ("patterns", "patterns.html"),
    ("disputed", "disputed.html"),
    ("illegal", "illegal.html"),
)


def _finalize(value: Any) -> Any:
    """What a template's ``{{ ... }}`` prints: plain text with its control characters
    escaped (HTML the code made, ``Markup``, as it is)."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return safe(value)
    return value


class DashboardError(ValueError):
    """The dashboard cannot be written as asked; the message says why."""


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
        # a programming error, never a user's: not translated
        raise DashboardError(
            f"the glossary has no Chinese for the page text {expand(english)!r}")
    if not fields:
        return Markup(source)
    return Markup(source).format(**{k: _finalize(v) for k, v in fields.items()})


@jinja2.pass_context
def _ctx_translate(ctx: Any, message: str) -> str:
    """An engine message (a finding, a ledger item's detail) in the page's language."""
    return render(message, ctx.get("lang", "en"), ctx.get("family"))


# --- queries ---------------------------------------------------------------------------------

Row = dict[str, Any]


def query(con: duckdb.DuckDBPyConnection, name: str, **params: Any) -> list[Row]:
    """Run the dashboard's query ``sql/internal/<name>.sql`` (or the report
    ``sql/reports/<name>.sql``) with its parameters bound; rows as dicts."""
    # imported here: a page rendered on its own (zhuoji audit --html) imports no database
    from zhuoji.flows.warehouse.reports import read_query, run_query, sql_parameters

    text = read_query(name)
    wanted = sql_parameters(text)
    if sorted(wanted) != sorted(params):
        raise DashboardError(Message("query {name:any} takes {w:any}, not {p:any}", name, wanted,
                                     tuple(sorted(params))))
    result = run_query(con, text, params or None)
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
