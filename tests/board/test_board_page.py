"""board.html in headless Chromium: nothing leaves the page, the inline script sorts and
filters, hostile system names and answers stay text. Bad input: one line, exit 2, nothing
written."""

from __future__ import annotations

import http.server
import json
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest
from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.results.identity import predictions_fingerprint

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
runner = CliRunner()
# a group's scores table, in the wrapper that scrolls a table too wide for the page
SCORES_TABLE = r'<h3[^>]*>Scores</h3>\s*<div class="table"><table>(.*?)</table>'


class _Counting(http.server.BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        _Counting.hits.append(self.path)
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def listener() -> Iterator[str]:
    """A local server that counts every request the page might make."""
    _Counting.hits = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Counting)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def _hostile_copy(source: Path, target: Path, url: str) -> Path:
    shutil.copytree(source, target)
    summary = json.loads((target / "summary.json").read_text())
    summary["run"]["system"]["name"] = (
        f"<script>document.title='pwned'</script><img src=\"{url}/img\" "
        "onerror=\"document.body.dataset.pwned='1'\">"
    )
    rows = [json.loads(line) for line in (target / "scores.jsonl").open()]
    for row in rows:
        row["prediction"] = f"<svg onload=\"document.title='pwned'\"></svg><link href={url}/css>"
    (target / "scores.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    # the folder's parts name these predictions, as a run that answered them would
    fingerprint = predictions_fingerprint(rows)
    summary["input"]["fingerprint"] = fingerprint
    (target / "summary.json").write_text(json.dumps(summary))
    run = json.loads((target / "run.json").read_text())
    run["predictions"]["fingerprint"] = fingerprint
    (target / "run.json").write_text(json.dumps(run))
    return target


def _chromium(page: str, profile: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    return subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--no-first-run", f"--user-data-dir={profile}", "--virtual-time-budget=2000",
         *extra, page],
        capture_output=True, text=True, timeout=90, check=False,
    )  # fmt: skip


def _systems_in_first_table(dom: str) -> list[str]:
    table = re.search(SCORES_TABLE, dom, re.S)
    assert table is not None
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", table.group(1), re.S)[1:]
    # the Folder column, without the line-break chances (<wbr>) a long path is given
    return [re.findall(r"<td[^>]*>(.*?)</td>", r, re.S)[2].replace("<wbr>", "") for r in rows]


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (apt-get install chromium)")
def test_the_page_sorts_filters_loads_nothing_and_keeps_hostile_text_inert(
    folders: dict[str, Path], tmp_path: Path, listener: str
) -> None:
    hostile = _hostile_copy(folders["bm25-k3"], tmp_path / "hostile", listener)
    out = tmp_path / "board"
    dirs = [folders["bm25-k10"], folders["full-context"], hostile, folders["bm25-extractive"]]
    result = runner.invoke(app, ["board", *map(str, dirs), "--out", str(out)])
    assert result.exit_code == 0, result.output
    html = (out / "board.html").read_text()
    assert html.count("<script") == 1  # the page's own, allowed by its hash
    assert "script-src 'sha256-" in html and "<img" not in html and "<svg onload" not in html
    page = (out / "board.html").as_uri()

    ranked = _chromium(page, tmp_path / "p1", "--dump-dom")
    dom = ranked.stdout
    assert "<body" in dom, ranked.stderr[-2000:]
    title = re.search(r"<title>(.*?)</title>", dom, re.S)
    assert title is not None and title.group(1) == "locoscore board"
    body = re.search(r"<body[^>]*>", dom)
    assert body is not None and "pwned" not in body.group(0)
    assert not re.search(r"<img\b", dom)
    assert "&lt;script&gt;document.title='pwned'&lt;/script&gt;" in dom  # shown as text
    assert 'class="filter"' in dom and "data-sort" in dom  # the script ran
    by_rank = _systems_in_first_table(dom)
    assert len(by_rank) == 4

    # one group, so no table of differences: table 0 is its scores; column 2 is Folder,
    # sorted ascending by the header's click handler
    by_folder = _systems_in_first_table(
        _chromium(page + "#sort=0.2.asc", tmp_path / "p2", "--dump-dom").stdout
    )
    assert by_folder == sorted(by_rank) and by_folder != by_rank
    # column 6 is the headline F1: descending gives the ranked order back
    by_f1 = _systems_in_first_table(
        _chromium(page + "#sort=0.6.desc", tmp_path / "p3", "--dump-dom").stdout
    )
    assert by_f1 == by_rank
    filtered = _chromium(page + "#filter=full-context", tmp_path / "p4", "--dump-dom").stdout
    table = re.search(SCORES_TABLE, filtered, re.S)
    assert table is not None
    visible = [r for r in re.findall(r"<tr([^>]*)>", table.group(1))[1:] if "hidden" not in r]
    assert len(visible) == 1

    shot = tmp_path / "board.png"
    _chromium(page, tmp_path / "p5", f"--screenshot={shot}", "--window-size=1300,2400")
    assert shot.stat().st_size > 10_000
    shutil.copy(shot, Path("/tmp/board-screenshot.png"))
    assert _Counting.hits == []  # nothing the page holds ever asked the network


def test_a_folder_that_is_not_a_results_folder_is_one_line_exit_2(tmp_path: Path) -> None:
    (tmp_path / "empty" / "nested").mkdir(parents=True)
    out = tmp_path / "out"
    result = runner.invoke(app, ["board", str(tmp_path / "empty"), "--out", str(out)])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and str(tmp_path / "empty") in lines[0]
    assert "not a results folder" in lines[0] and "Traceback" not in result.output
    assert not out.exists()


def test_a_corrupt_summary_is_named_and_nothing_is_written(
    folders: dict[str, Path], tmp_path: Path
) -> None:
    parent = tmp_path / "runs"
    shutil.copytree(folders["bm25-k10"], parent / "good")
    bad = shutil.copytree(folders["bm25-k3"], parent / "bad")
    (bad / "summary.json").write_text('{"run": ')
    out = tmp_path / "out"
    result = runner.invoke(app, ["board", str(parent), "--out", str(out)])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and str(bad / "summary.json") in lines[0] and "not JSON" in lines[0]
    assert not out.exists()
