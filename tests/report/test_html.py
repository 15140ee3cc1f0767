"""report.html: self-contained, charts present, user text inert (checked in headless Chromium)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from report_helpers import add_judge, base_rows, write_folder

from locoscore.benchmarks.locomo import LOCOMO
from locoscore.benchmarks.locomo.report_parts import build_reports

PAYLOAD_SCRIPT = "<script>document.title='pwned';document.body.dataset.pwned='1'</script>"
PAYLOAD_IMG = "<img src=x onerror=\"document.body.setAttribute('data-pwned','2')\">"
PAYLOAD_SVG = "<svg onload=\"document.title='pwned'\"></svg>"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _folder_with_payloads(tmp_path: Path) -> Path:
    rows = base_rows()
    judge = add_judge(rows, "binary")
    for row in rows:
        row["prediction"] = f"{PAYLOAD_SCRIPT} {PAYLOAD_IMG}"
        row["question"] = f"</td></table>{PAYLOAD_SVG}"
        row["answer"] = "</pre><script>document.title='pwned'</script>"
    judge["model"] = "<script>document.title='pwned'</script>"
    folder = write_folder(tmp_path / "run", rows, judge)
    build_reports(folder, LOCOMO)
    return folder


def test_html_has_no_script_and_no_network_reference(tmp_path: Path) -> None:
    html = (_folder_with_payloads(tmp_path) / "report.html").read_text()
    assert "<script" not in html.lower()
    assert "<img" not in html.lower()
    assert not re.search(r"<[^>]*\son\w+\s*=", html)  # no element carries an event handler
    assert not re.search(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", html, re.I)
    assert "url(" not in html and "@import" not in html
    assert "&lt;script&gt;document.title=&#x27;pwned&#x27;" in html


def test_html_contains_the_charts_as_inline_svg(tmp_path: Path) -> None:
    html = (_folder_with_payloads(tmp_path) / "report.html").read_text()
    assert html.count("<svg ") >= 4  # F1 x3 comparisons + J comparison + J histogram + CDF
    assert 'id="fig-categories-f1_locomo"' in html
    assert 'id="fig-j-distribution"' in html and 'id="fig-latency-cdf"' in html
    assert 'class="whisker"' in html


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (apt-get install chromium)")
def test_html_renders_in_headless_chromium_with_charts_and_inert_payloads(tmp_path: Path) -> None:
    report = _folder_with_payloads(tmp_path) / "report.html"
    profile = tmp_path / "profile"
    result = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",  # type: ignore[list-item]
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={profile}",
            "--virtual-time-budget=2000",
            "--dump-dom",
            report.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    dom = result.stdout
    assert "<body" in dom, result.stderr[-2000:]
    title = re.search(r"<title>(.*?)</title>", dom, re.S)
    assert title is not None and title.group(1) == "predictions.jsonl on LoCoMo"
    assert "pwned" not in title.group(1)
    body = re.search(r"<body[^>]*>", dom)
    assert body is not None and "pwned" not in body.group(0)  # no handler touched <body>
    assert not re.search(r"<img\b", dom)  # the payload's tag never became an element
    assert len(re.findall(r"<svg\b", dom)) >= 4
    assert len(re.findall(r'<rect class="bar"', dom)) >= 10
    assert "<polyline" in dom  # the latency CDF
    # the payload is shown as text
    assert "&lt;script&gt;document.title='pwned'" in dom
