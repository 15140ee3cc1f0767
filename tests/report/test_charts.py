"""SVG charts: geometry follows the data, and every label is escaped."""

from __future__ import annotations

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
