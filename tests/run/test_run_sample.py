"""`locoscore run --limit N`: a smoke test on a stratified sample, labelled as a subset in the
signature, run.json, summary.json and every report (real data, extractive answers, no key)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from run_helpers import predictions, run_cli

SIGNATURE = "sample:30/1986@seed0:strat-cat"


@pytest.fixture(scope="module")
def sampled_run(tmp_path_factory: pytest.TempPathFactory, locomo_path: Path) -> Path:
    out = tmp_path_factory.mktemp("sampled")
    result = run_cli(
        "--system", "bm25", "--out", str(out), "--dataset", str(locomo_path),
        "--answer-provider", "extractive", "--limit", "30", "--seed", "0",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "smoke test on a sample of 30 of 1,986 questions" in result.output
    return out


def test_the_sample_holds_the_hand_computed_count_of_each_category(sampled_run: Path) -> None:
    # 30 x (282, 321, 96, 841, 446) / 1986 = 4.260, 4.849, 1.450, 12.704, 6.737: floors
    # 4, 4, 1, 12, 6 (27); the 3 left go to temporal (.849), adversarial (.737), single-hop (.704)
    records = predictions(sampled_run)
    counts = {c: sum(1 for r in records if r["category"] == c) for c in range(1, 6)}
    assert counts == {1: 4, 2: 5, 3: 1, 4: 13, 5: 7}


def test_run_json_and_summary_name_the_sample_and_its_question_ids(sampled_run: Path) -> None:
    run = json.loads((sampled_run / "run.json").read_text())
    summary = json.loads((sampled_run / "summary.json").read_text())
    ids = [r["question_id"] for r in predictions(sampled_run)]
    for section in (run, summary["run"]):
        sample = section["sample"]
        assert sample["signature"] == SIGNATURE
        assert (sample["size"], sample["population"], sample["seed"]) == (30, 1986, 0)
        assert sorted(sample["question_ids"]) == sorted(ids)
        assert sample["by_stratum"]["4"] == {"population": 841, "sample": 13}
        assert f"|adv:yes|{SIGNATURE}|version:" in section["signature"]
    assert summary["report"]["sample"] == {"questions": SIGNATURE, "j": SIGNATURE}
    # only the conversations that hold a sampled question were ingested
    asked = list(dict.fromkeys(r["sample_id"] for r in predictions(sampled_run)))
    assert run["conversations"] == asked
    assert sorted(run["ingestion"]["per_conversation"]) == sorted(asked)


def test_another_limit_is_another_run_and_is_refused_in_the_same_folder(
    sampled_run: Path, locomo_path: Path
) -> None:
    result = run_cli(
        "--system", "bm25", "--out", str(sampled_run), "--dataset", str(locomo_path),
        "--answer-provider", "extractive", "--limit", "30", "--seed", "1",
    )  # fmt: skip
    assert result.exit_code == 2
    assert "sample:30/1986@seed1:strat-cat" in " ".join(result.output.split())


def _sections(md: str) -> dict[str, str]:
    parts = re.split(r"^## ", md, flags=re.M)
    return {p.splitlines()[0]: p for p in parts[1:]}


def test_the_markdown_report_opens_with_the_result_and_marks_the_subset(sampled_run: Path) -> None:
    md = (sampled_run / "report.md").read_text()
    assert md.startswith("# bm25 + extractive on LoCoMo\n")
    banner = md.index("> **Subset: Every number in this report comes from a sample of 30")
    headline, toc = md.index("## Headline"), md.index("## Contents")
    baselines = md.index("## F1 and BLEU-1 against published baselines")
    assert banner < headline < toc < baselines
    head = md[headline:toc]
    for measure in ("F1 (official LoCoMo)", "Evidence recall@10", "Cost", "Latency, search"):
        assert f"| {measure}" in head
    assert re.search(r"\| Latency, search \(p50\) \| [\d.]+ ms \|", head)  # under 1 s: ms
    assert "- [Error analysis](#error-analysis)" in md[toc:baselines]
    # a subset row never sits beside the published ones without saying so
    assert "| **This run (sample 30/1,986)** |" in md
    assert "| **This run** |" not in md
    assert md.count("the published rows are over the full benchmark") == 4  # 3 F1/BLEU + latency
    marker = f"Subset ({SIGNATURE}): not the full benchmark."
    sections = _sections(md)
    for name in (
        "Headline",
        "Per-category breakdown (this run)",
        "How these predictions were produced (locoscore run)",
        "Latency and token summary (this run)",
        "Answer length (this run)",
        "Error analysis",
    ):
        tables = sections[name].count("\n|---")
        assert tables and sections[name].count(marker) == tables, name
    assert f"questions: {SIGNATURE}" in sections["Protocol signatures"]


def test_the_html_report_has_the_same_order_and_markers(sampled_run: Path) -> None:
    html = (sampled_run / "report.html").read_text()
    assert "<title>bm25 + extractive on LoCoMo</title>" in html
    positions = [
        html.index('<p class="banner">Subset: Every number'),
        html.index('<h2 id="headline">'),
        html.index('<nav class="toc">'),
        html.index('<h2 id="f1-and-bleu-1-against-published-baselines">'),
    ]
    assert positions == sorted(positions)
    assert '<a href="#error-analysis">Error analysis</a>' in html
    assert f'<caption class="subset">Subset ({SIGNATURE})' in html


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (apt-get install chromium)")
def test_chromium_renders_the_banner_and_headline_before_contents_and_baselines(
    sampled_run: Path, tmp_path: Path
) -> None:
    result = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",  # type: ignore[list-item]
         "--disable-background-networking", "--disable-component-update", "--no-first-run",
         f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom",
         (sampled_run / "report.html").as_uri()],
        capture_output=True, text=True, timeout=90, check=False,
    )  # fmt: skip
    dom = result.stdout
    assert "<body" in dom, result.stderr[-2000:]
    body = dom[dom.index("<body") :]
    order = [
        body.index("<h1"),
        body.index('class="banner"'),
        body.index('id="headline"'),
        body.index('class="toc"'),
        body.index('id="f1-and-bleu-1-against-published-baselines"'),
    ]
    assert order == sorted(order)
    assert re.search(r"<h1[^>]*>bm25 \+ extractive on LoCoMo</h1>", body)


def test_compare_warns_that_a_side_is_a_sample(sampled_run: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from locoscore.cli import app

    result = CliRunner().invoke(
        app, ["compare", str(sampled_run), str(sampled_run), "--out", str(tmp_path / "cmp")]
    )
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert f"A's questions are a sample ({SIGNATURE})" in text
    assert f"B's questions are a sample ({SIGNATURE})" in text
