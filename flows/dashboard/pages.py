"""The dashboard's pages but the hands': the overview, the leaderboard, the patterns, a
page per player, the disputed hands, the illegal moves (by code and by player, the rules of
each code), each in every language of the site."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import duckdb
from markupsafe import Markup

from zhuoji.flows.dashboard.charts import (
    Bar,
    DayColumn,
    SeriesPoint,
    svg_bar_chart,
    svg_day_chart,
    svg_line_chart,
    svg_stacked_bar,
)
from zhuoji.flows.dashboard.render import (
    DashboardError,
    Links,
    Row,
    Site,
    group_rows,
    list_pages,
    query,
)
from zhuoji.flows.dashboard.words import (
    code_rules,
    code_text,
    family_declares_ready,
    family_key,
    family_label,
    family_scores_chickens,
    family_text,
    fmt_num,
    fmt_pct,
    fmt_time,
    label_text,
    page_text,
    term_text,
)
from zhuoji.rules.glossary import Lang, glossary, zh
from zhuoji.rules.messages import Message

__all__ = [
    "DashboardLimits",
    "player_context",
]

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
                raise DashboardError(Message("dashboard limit {name:any} must be at least 1", name))


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
