"""The dashboard's charts: hand-written SVG (bars, a running score, columns, columns on a
time axis, one stacked bar), deterministic and inlined in the pages."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from markupsafe import Markup

from zhuoji.flows.dashboard.words import esc, page_text
from zhuoji.rules.glossary import Lang

__all__ = [
    "Bar",
    "Column",
    "DayColumn",
    "SeriesPoint",
    "nice_ticks",
    "svg_bar_chart",
    "svg_column_chart",
    "svg_day_chart",
    "svg_line_chart",
    "svg_stacked_bar",
]

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
