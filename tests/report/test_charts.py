"""SVG charts: geometry follows the data, and every label is escaped."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import pytest

from locoscore.report import charts

NS = {"svg": charts.SVG_NS}


def _parse(svg: str) -> ET.Element:
    return ET.fromstring(svg.replace("<svg ", f'<svg xmlns="{charts.SVG_NS}" ', 1))


def test_bar_height_and_whiskers_are_proportional_to_the_values() -> None:
    svg = charts.grouped_bar_chart(
        "t", ["g"], [charts.BarSeries("s", [50.0], [40.0], [60.0])], "y", y_max=100
    )
    root = _parse(svg)
    (bar,) = root.findall(".//svg:rect[@class='bar']", NS)
    assert float(bar.get("height", "0")) == pytest.approx(charts.PLOT_H / 2, abs=0.1)
    (whisker,) = root.findall(".//svg:line[@class='whisker']", NS)
    y_low, y_high = float(whisker.get("y1", "0")), float(whisker.get("y2", "0"))
    assert y_low - y_high == pytest.approx(charts.PLOT_H * 0.2, abs=0.2)  # 60 - 40 of 100


def test_missing_values_draw_no_bar() -> None:
    svg = charts.grouped_bar_chart("t", ["a", "b"], [charts.BarSeries("s", [None, 10.0])], "y")
    assert len(_parse(svg).findall(".//svg:rect[@class='bar']", NS)) == 1


def test_histogram_counts_per_bin_with_the_last_edge_included() -> None:
    edges = [float(x) for x in range(0, 101, 10)]
    svg = charts.histogram("h", [0.0, 5.0, 10.0, 100.0, 95.0], edges, "J")
    titles = re.findall(r"<title>([\d.]+-[\d.]+): (\d+)</title>", svg)
    counts = {label: int(n) for label, n in titles}
    assert counts["0-10"] == 2 and counts["10-20"] == 1 and counts["90-100"] == 2
    assert sum(counts.values()) == 5


def test_cdf_ends_at_the_top_right_corner() -> None:
    svg = charts.cdf_chart("c", {"total": [1.0, 2.0, 3.0]}, "s")
    (line,) = _parse(svg).findall(".//svg:polyline", NS)
    last = line.get("points", "").split()[-1]
    assert last == f"{charts.WIDTH - charts.RIGHT:.1f},{charts.TOP:.1f}"


def test_labels_are_escaped() -> None:
    svg = charts.grouped_bar_chart(
        "<script>x</script>", ['a"b'], [charts.BarSeries("<img onerror=1>", [1.0])], "y"
    )
    assert "<script>" not in svg and "<img" not in svg
    _parse(svg)  # still well-formed XML


def test_histogram_axis_top_is_the_next_round_number_above_the_tallest_bin() -> None:
    # 580 questions in one bin: the axis ends at 600 (not 1000, which would waste half the plot)
    svg = charts.histogram("h", [50.0] * 580 + [5.0] * 10, [0.0, 10.0, 100.0], "J")
    labels = [t.text for t in _parse(svg).findall(".//svg:text[@text-anchor='end']", NS)]
    assert "600" in labels and "1000" not in labels


LME_TYPES = [
    "single-session-user", "single-session-assistant", "single-session-preference",
    "multi-session", "knowledge-update", "temporal-reasoning", "abstention",
]  # fmt: skip
BEAM_ABILITIES = [
    "abstention", "contradiction resolution", "event ordering", "information extraction",
    "instruction following", "knowledge update", "multi-session reasoning",
    "preference following", "summarization", "temporal reasoning",
]  # fmt: skip
FONT = 12.0  # the charts' font size: a line's height


def _lines(text: ET.Element) -> list[str]:
    spans = text.findall("svg:tspan", NS)
    return [s.text or "" for s in spans] if spans else [text.text or ""]


def _label(lines: list[str]) -> str:
    """A wrapped label's lines joined back (a line broken after a hyphen keeps it)."""
    return " ".join(lines).replace("- ", "-")


def _label_quads(root: ET.Element, groups: list[str]) -> list[list[tuple[float, float]]]:
    """Each group label's box (estimated glyph widths, CHAR_W per character), turned with
    its text: the corners in the chart's coordinates, in the order drawn."""
    quads = []
    for text in root.findall(".//svg:text", NS):
        lines = _lines(text)
        if _label(lines) not in groups:
            continue
        y = float(text.get("y", "0"))
        x = float(text.get("x", "0"))
        width = max(charts.CHAR_W * len(line) for line in lines)
        height = FONT * 1.2 * len(lines)
        anchor = text.get("text-anchor", "start")
        left = {"start": x, "middle": x - width / 2, "end": x - width}[anchor]
        top = y - FONT
        corners = [(left, top), (left + width, top), (left + width, top + height),
                   (left, top + height)]  # fmt: skip
        turn = re.match(r"rotate\((-?[\d.]+) ([\d.]+) ([\d.]+)\)", text.get("transform", ""))
        if turn:
            angle, cx, cy = (float(v) for v in turn.groups())
            cos, sin = math.cos(math.radians(angle)), math.sin(math.radians(angle))
            corners = [
                (cx + (px - cx) * cos - (py - cy) * sin, cy + (px - cx) * sin + (py - cy) * cos)
                for px, py in corners
            ]
        quads.append(corners)
    return quads


def _apart(p: list[tuple[float, float]], q: list[tuple[float, float]]) -> bool:
    """Two convex quads do not intersect: some edge's normal separates them."""
    for poly in (p, q):
        for i in range(4):
            (ax, ay), (bx, by) = poly[i], poly[(i + 1) % 4]
            nx, ny = ay - by, bx - ax
            sp = [x * nx + y * ny for x, y in p]
            sq = [x * nx + y * ny for x, y in q]
            if max(sp) <= min(sq) or max(sq) <= min(sp):
                return True
    return False


@pytest.mark.parametrize("groups", [LME_TYPES, BEAM_ABILITIES], ids=["lme-types", "beam"])
def test_long_group_labels_never_overlap_and_stay_inside_the_chart(groups: list[str]) -> None:
    series = [charts.BarSeries(n, [50.0] * len(groups)) for n in ("a run", "another run")]
    svg = charts.grouped_bar_chart("t", groups, series, "J", y_max=100)
    root = _parse(svg)
    quads = _label_quads(root, groups)
    for i, quad in enumerate(quads):
        for other in quads[:i]:
            assert _apart(quad, other)
    x0, y0, width, height = (float(v) for v in root.get("viewBox", "").split())
    for x, y in (corner for quad in quads for corner in quad):
        assert x0 <= x <= x0 + width and y0 <= y <= y0 + height
    # every label whole, in reading order, once
    shown = [_label(_lines(t)) for t in root.findall(".//svg:text", NS)]
    assert [g for g in shown if g in groups] == groups and len(quads) == len(groups)
