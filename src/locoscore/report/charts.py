"""Hand-written SVG charts: grouped bars with whiskers, a histogram and a step CDF.

No JavaScript and no external resources: each function returns one `<svg>` element whose
text is XML-escaped, ready to inline in HTML (add `standalone=True` for a .svg file).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape

WIDTH = 760
LEFT, RIGHT, TOP = 56, 16, 40
PLOT_H = 236  # height of the plotting area; axis labels and the legend go below it
AXIS_BELOW = 40  # room under the plot for tick labels and an axis title
LEGEND_ROW = 18
CHAR_W = 7.4  # rough width of a 12 px character, for laying out legend entries and labels
LABEL_GAP = 6  # least room between two group labels side by side
LABEL_LINES = 3  # a group label wraps onto at most this many lines, else all are slanted
LABEL_LINE_H = 14
SLANT = 40  # degrees: slanted group labels, when they cannot wrap to fit
PALETTE = (
    "#1f5fa8",
    "#e07b39",
    "#5a9e4b",
    "#b8463f",
    "#7d5ba6",
    "#8a6d3b",
    "#cc5fa0",
    "#6b6b6b",
    "#2aa198",
)
SVG_NS = "http://www.w3.org/2000/svg"


@dataclass(frozen=True)
class BarSeries:
    name: str
    values: Sequence[float | None]
    low: Sequence[float | None] | None = None  # whisker ends (e.g. a 95 % CI)
    high: Sequence[float | None] | None = None


def _num(x: float) -> str:
    return f"{x:.1f}"


def _open(title: str, standalone: bool, height: float, x0: float = 0.0) -> list[str]:
    """The svg element; `x0` < 0 widens the drawing to the left (room for slanted labels)."""
    ns = f' xmlns="{SVG_NS}"' if standalone else ""
    # unwidened, the element is written as it always was (the README's chart is pinned)
    left, width = ("0", str(WIDTH)) if x0 == 0 else (_num(x0), _num(WIDTH - x0))
    moved = "" if x0 == 0 else f'x="{left}" '
    return [
        f'<svg{ns} class="chart" viewBox="{left} 0 {width} {_num(height)}" width="{width}" '
        f'height="{_num(height)}" role="img" aria-label="{escape(title)}" '
        'font-family="system-ui, sans-serif" font-size="12">',
        f"<title>{escape(title)}</title>",
        f'<rect {moved}width="{width}" height="{_num(height)}" fill="#ffffff"/>',
        f'<text x="{WIDTH / 2}" y="20" text-anchor="middle" font-size="14" '
        f'font-weight="bold">{escape(title)}</text>',
    ]


def _nice_max(value: float) -> float:
    if value <= 0:
        return 1.0
    step = 10 ** math.floor(math.log10(value))
    # fine enough steps that the data fill most of the axis (580 -> 600, not 1000)
    for mult in (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10):
        if value <= mult * step:
            return mult * step
    return 10 * step


def _y_axis(y_max: float, label: str) -> list[str]:
    plot_h = PLOT_H
    out = []
    for i in range(6):
        value = y_max * i / 5
        y = TOP + plot_h * (1 - i / 5)
        out.append(
            f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{_num(y)}" y2="{_num(y)}" '
            'stroke="#e3e3e3"/>'
        )
        text = f"{value:g}" if y_max >= 5 else f"{value:.2f}"
        out.append(f'<text x="{LEFT - 6}" y="{_num(y + 4)}" text-anchor="end">{text}</text>')
    out.append(
        f'<text x="14" y="{TOP + plot_h / 2}" text-anchor="middle" '
        f'transform="rotate(-90 14 {TOP + plot_h / 2})">{escape(label)}</text>'
    )
    return out


def _legend_positions(names: Sequence[str]) -> list[tuple[float, int]]:
    """(x, row) of each entry, wrapping onto a new row at the right edge."""
    positions = []
    x, row = float(LEFT), 0
    for name in names:
        width = 24 + CHAR_W * len(name)
        if x > LEFT and x + width > WIDTH - RIGHT:
            x, row = float(LEFT), row + 1
        positions.append((x, row))
        x += width
    return positions


def _height(legend_names: Sequence[str], below: float = AXIS_BELOW) -> float:
    rows = max((row for _, row in _legend_positions(legend_names)), default=-1) + 1
    return TOP + PLOT_H + below + rows * LEGEND_ROW + 6


def _legend(names: Sequence[str], below: float = AXIS_BELOW) -> list[str]:
    out = []
    for i, (name, (x, row)) in enumerate(zip(names, _legend_positions(names), strict=True)):
        y = TOP + PLOT_H + below + row * LEGEND_ROW + 6
        colour = PALETTE[i % len(PALETTE)]
        out.append(
            f'<rect class="legend" x="{_num(x)}" y="{y - 9}" width="10" height="10" '
            f'fill="{colour}"/>'
        )
        out.append(f'<text x="{_num(x + 14)}" y="{y}">{escape(name)}</text>')
    return out


def _text_width(text: str) -> float:
    return CHAR_W * len(text)


def _wrap(label: str, width: float) -> list[str] | None:
    """`label` in lines no wider than `width`, broken after spaces and hyphens; None when a
    single word is wider (or it needs more than LABEL_LINES lines)."""
    words = re.findall(r"[^\s-]+-?|\s+", label)
    lines: list[str] = []
    line = ""
    for word in (w for w in words if not w.isspace()):
        joined = f"{line} {word}" if line and not line.endswith("-") else line + word
        if _text_width(joined) <= width:
            line = joined
            continue
        if _text_width(word) > width:
            return None
        lines.append(line)
        line = word
    lines.append(line)
    lines = [x for x in lines if x]
    return lines if len(lines) <= LABEL_LINES else None


@dataclass(frozen=True)
class _Labels:
    """How a bar chart's group labels are drawn: in lines under their group, or slanted."""

    lines: list[list[str]]  # each label's lines (one line each when slanted)
    slanted: bool
    below: float  # room under the plot for the labels
    x0: float  # the drawing's left edge (< 0: widened for a slanted first label)


def _group_labels(groups: Sequence[str], group_w: float) -> _Labels:
    """Labels side by side never overlap: each fits its group's width (wrapped onto at most
    LABEL_LINES lines), or all of them are slanted, the plot growing below (and to the left)
    to hold the longest."""
    room = group_w - LABEL_GAP
    wrapped = [_wrap(g, room) for g in groups]
    if all(w is not None for w in wrapped):
        lines = [w or [] for w in wrapped]
        count = max((len(w) for w in lines), default=1)
        return _Labels(lines, False, AXIS_BELOW + (count - 1) * LABEL_LINE_H, 0.0)
    cos = math.cos(math.radians(SLANT))
    widest = max(_text_width(g) for g in groups)
    centres = [LEFT + group_w * (i + 0.5) for i in range(len(groups))]
    x0 = min(0.0, *(c - _text_width(g) * cos - 10 for c, g in zip(centres, groups, strict=True)))
    below = 12 + widest * math.sin(math.radians(SLANT)) + 12
    return _Labels([[g] for g in groups], True, below, x0)


def _label_text(x: float, label: list[str], slanted: bool) -> str:
    y = TOP + PLOT_H + 16
    if slanted:
        return (
            f'<text x="{_num(x)}" y="{y - 4}" text-anchor="end" '
            f'transform="rotate(-{SLANT} {_num(x)} {y - 4})">{escape(label[0])}</text>'
        )
    if len(label) == 1:  # as a label always was (the README's chart is pinned)
        return f'<text x="{_num(x)}" y="{y}" text-anchor="middle">{escape(label[0])}</text>'
    spans = "".join(
        f'<tspan x="{_num(x)}" dy="{0 if i == 0 else LABEL_LINE_H}">{escape(line)}</tspan>'
        for i, line in enumerate(label)
    )
    return f'<text x="{_num(x)}" y="{y}" text-anchor="middle">{spans}</text>'


def grouped_bar_chart(
    title: str,
    groups: Sequence[str],
    series: Sequence[BarSeries],
    y_label: str,
    y_max: float | None = None,
    standalone: bool = False,
) -> str:
    """Bars per group, one colour per series, whiskers where low/high are given."""
    highest = [v for s in series for v in (*s.values, *(s.high or ())) if v is not None]
    top = y_max if y_max is not None else _nice_max(max(highest, default=1.0))
    plot_w = WIDTH - LEFT - RIGHT
    plot_h = PLOT_H
    group_w = plot_w / max(len(groups), 1)
    bar_w = group_w * 0.8 / max(len(series), 1)

    def y_of(v: float) -> float:
        return TOP + plot_h * (1 - min(max(v, 0.0), top) / top)

    names = [s.name for s in series]
    labels = _group_labels(groups, group_w)
    height = _height(names, labels.below)
    out = _open(title, standalone, height, labels.x0) + _y_axis(top, y_label)
    for g, group in enumerate(groups):
        gx = LEFT + g * group_w
        out.append(_label_text(gx + group_w / 2, labels.lines[g], labels.slanted))
        for k, s in enumerate(series):
            value = s.values[g]
            if value is None:
                continue
            x = gx + group_w * 0.1 + k * bar_w
            y = y_of(value)
            out.append(
                f'<rect class="bar" x="{_num(x)}" y="{_num(y)}" width="{_num(bar_w - 1)}" '
                f'height="{_num(TOP + plot_h - y)}" fill="{PALETTE[k % len(PALETTE)]}">'
                f"<title>{escape(s.name)}, {escape(group)}: {value:.2f}</title></rect>"
            )
            lo = s.low[g] if s.low is not None else None
            hi = s.high[g] if s.high is not None else None
            if lo is not None and hi is not None:
                cx = _num(x + (bar_w - 1) / 2)
                y_lo, y_hi = _num(y_of(lo)), _num(y_of(hi))
                out.append(
                    f'<line class="whisker" x1="{cx}" x2="{cx}" y1="{y_lo}" y2="{y_hi}" '
                    'stroke="#222" stroke-width="1.5"/>'
                )
                for yy in (y_lo, y_hi):
                    out.append(
                        f'<line x1="{_num(x + bar_w * 0.25)}" '
                        f'x2="{_num(x + bar_w * 0.75 - 1)}" y1="{yy}" y2="{yy}" '
                        'stroke="#222" stroke-width="1.5"/>'
                    )
    out += _legend(names, labels.below)
    out.append("</svg>")
    return "\n".join(out)


def histogram(
    title: str,
    values: Sequence[float],
    edges: Sequence[float],
    x_label: str,
    standalone: bool = False,
) -> str:
    """Counts of values per bin [edge_i, edge_i+1); the last bin includes its right edge."""
    counts = [0] * (len(edges) - 1)
    for v in values:
        for i in range(len(counts)):
            last = i == len(counts) - 1
            if edges[i] <= v < edges[i + 1] or (last and v == edges[-1]):
                counts[i] += 1
                break
    top = _nice_max(max(counts, default=1))
    plot_w = WIDTH - LEFT - RIGHT
    plot_h = PLOT_H
    bin_w = plot_w / max(len(counts), 1)
    out = _open(title, standalone, _height([])) + _y_axis(top, "questions")
    for i, count in enumerate(counts):
        h = plot_h * count / top
        x = LEFT + i * bin_w
        out.append(
            f'<rect class="bar" x="{_num(x + 1)}" y="{_num(TOP + plot_h - h)}" '
            f'width="{_num(bin_w - 2)}" height="{_num(h)}" fill="{PALETTE[0]}">'
            f"<title>{edges[i]:g}-{edges[i + 1]:g}: {count}</title></rect>"
        )
        out.append(
            f'<text x="{_num(x)}" y="{TOP + PLOT_H + 16}" text-anchor="middle">{edges[i]:g}</text>'
        )
    out.append(
        f'<text x="{WIDTH - RIGHT}" y="{TOP + PLOT_H + 16}" text-anchor="end">{edges[-1]:g}</text>'
    )
    out.append(
        f'<text x="{LEFT + plot_w / 2}" y="{TOP + PLOT_H + 32}" '
        f'text-anchor="middle">{escape(x_label)}</text>'
    )
    out.append("</svg>")
    return "\n".join(out)


def cdf_chart(
    title: str, series: Mapping[str, Sequence[float]], x_label: str, standalone: bool = False
) -> str:
    """Empirical CDFs as step lines, one per series, on a shared x axis from 0."""
    plot_w = WIDTH - LEFT - RIGHT
    plot_h = PLOT_H
    x_max = _nice_max(max((max(v) for v in series.values() if v), default=1.0))
    out = _open(title, standalone, _height(list(series))) + _y_axis(1.0, "share of questions")
    for i in range(6):
        value = x_max * i / 5
        x = LEFT + plot_w * i / 5
        anchor = "end" if i == 5 else "middle"  # the last tick ends at the plot's right edge
        out.append(
            f'<text x="{_num(x)}" y="{TOP + PLOT_H + 16}" text-anchor="{anchor}">{value:g}</text>'
        )
    out.append(
        f'<text x="{LEFT + plot_w / 2}" y="{TOP + PLOT_H + 32}" '
        f'text-anchor="middle">{escape(x_label)}</text>'
    )
    for k, (name, values) in enumerate(series.items()):
        ordered = sorted(values)
        if not ordered:
            continue
        points: list[tuple[float, float]] = [(LEFT, TOP + plot_h)]
        n = len(ordered)
        for j, v in enumerate(ordered):
            x = LEFT + plot_w * v / x_max
            points.append((x, TOP + plot_h * (1 - j / n)))
            points.append((x, TOP + plot_h * (1 - (j + 1) / n)))
        points.append((LEFT + plot_w, TOP))
        path = " ".join(f"{_num(x)},{_num(y)}" for x, y in points)
        out.append(
            f'<polyline class="cdf" points="{path}" fill="none" stroke-width="2" '
            f'stroke="{PALETTE[k % len(PALETTE)]}"><title>{escape(name)}</title>'
            "</polyline>"
        )
    out += _legend(list(series))
    out.append("</svg>")
    return "\n".join(out)


@dataclass(frozen=True)
class Point:
    name: str
    x: float
    y: float


def _pareto(points: Sequence[Point]) -> list[Point]:
    """The points no other point beats on both axes (lower x, higher y), by x."""
    front: list[Point] = []
    for p in sorted(points, key=lambda p: (p.x, -p.y)):
        if not front or p.y > front[-1].y:
            front.append(p)
    return front


def scatter_chart(
    title: str,
    points: Sequence[Point],
    x_label: str,
    y_label: str,
    y_max: float | None = None,
    standalone: bool = False,
) -> str:
    """One dot per point (x from 0, e.g. a cost; y e.g. accuracy), the frontier of points no
    other beats on both (cheaper and better) joined by a line; each dot named in the legend."""
    plot_w = WIDTH - LEFT - RIGHT
    x_max = _nice_max(max((p.x for p in points), default=1.0))
    top = y_max if y_max is not None else _nice_max(max((p.y for p in points), default=1.0))
    names = [p.name for p in points]
    out = _open(title, standalone, _height(names)) + _y_axis(top, y_label)

    def xy(p: Point) -> tuple[str, str]:
        x = LEFT + plot_w * min(max(p.x, 0.0), x_max) / x_max
        return _num(x), _num(TOP + PLOT_H * (1 - min(max(p.y, 0.0), top) / top))

    for i in range(6):
        x = LEFT + plot_w * i / 5
        anchor = "end" if i == 5 else "middle"  # the last tick ends at the plot's right edge
        out.append(
            f'<text x="{_num(x)}" y="{TOP + PLOT_H + 16}" text-anchor="{anchor}">'
            f"{x_max * i / 5:.3g}</text>"
        )
    out.append(
        f'<text x="{LEFT + plot_w / 2}" y="{TOP + PLOT_H + 32}" '
        f'text-anchor="middle">{escape(x_label)}</text>'
    )
    front = _pareto(points)
    if len(front) > 1:
        path = " ".join(",".join(xy(p)) for p in front)
        out.append(
            f'<polyline class="frontier" points="{path}" fill="none" stroke="#999" '
            'stroke-dasharray="4 3" stroke-width="1.5"/>'
        )
    for k, p in enumerate(points):
        cx, cy = xy(p)
        out.append(
            f'<circle class="dot" cx="{cx}" cy="{cy}" r="5" fill="{PALETTE[k % len(PALETTE)]}">'
            f"<title>{escape(p.name)}: {p.x:.4g}, {p.y:.2f}</title></circle>"
        )
    out += _legend(names)
    out.append("</svg>")
    return "\n".join(out)
