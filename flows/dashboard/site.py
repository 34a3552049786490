"""The dashboard: a static, offline HTML site over the warehouse's reports.

:func:`build_dashboard` opens the warehouse read-only, runs its queries (its own
``dashboard_*`` of ``sql/internal/`` and the shared reports of ``sql/reports/``, loaded by
name, parameters bound) and writes plain HTML pages whose CSS, JavaScript (table
sorting) and charts (hand-written SVG) are inlined: the folder opens from ``file://``
with no network.

Scale: every per-player figure comes from a handful of queries over all players at once
(the running score is reduced in SQL to at most ``series_points`` points per player);
per-hand audit pages are written only for the most recent disputed hands and hands with
illegal moves (``hand_pages`` of each), and the lists are cut into pages; each page
says when it shows less than everything. Output is deterministic: the same warehouse
gives the same bytes.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import duckdb

from zhuoji.flows.dashboard.hand_page import _hand_pages
from zhuoji.flows.dashboard.pages import (
    DashboardLimits,
    _averages,
    _disputed_pages,
    _illegal_pages,
    _leaderboard_page,
    _overview_page,
    _patterns_page,
    _players_pages,
)
from zhuoji.flows.dashboard.render import (
    DashboardError,
    Links,
    Pool,
    Progress,
    Site,
    query,
    site_langs,
    start_pool,
)
from zhuoji.flows.dashboard.words import fmt_time, page_slug
from zhuoji.flows.warehouse.reader import open_reader
from zhuoji.rules.glossary import Lang
from zhuoji.rules.messages import Message

__all__ = [
    "DashboardSummary",
    "build_dashboard",
    "check_out",
    "render_dashboard",
]

MARKER = ".zhuoji-dashboard"
"""A file in every output folder: the folder may be cleared and rewritten."""


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
            raise DashboardError(Message(
                "--out {out:any} holds the warehouse {path:any}; the dashboard replaces its "
                "folder: choose a folder apart from the warehouse", out, path,
            ))


def _prepare_out(out: Path) -> None:
    """Create ``out``, or accept a folder an earlier build wrote that holds only what a
    build writes; never touch other folders or files."""
    if out.exists():
        if not out.is_dir():
            raise DashboardError(Message("{out:any} exists and is not a folder", out))
        if any(out.iterdir()) and not (out / MARKER).exists():
            raise DashboardError(Message(
                "{out:any} is not empty and was not written by `zhuoji dashboard`; "
                "choose an empty or new folder", out,
            ))
        foreign = _foreign_file(out) if (out / MARKER).exists() else None
        if foreign is not None:
            raise DashboardError(Message(
                "{out:any} holds {f:any}, which `zhuoji dashboard` did not write; a build "
                "replaces the folder: move it away or choose another folder", out, foreign,
            ))
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
        con = open_reader(db)
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
