"""`locoscore report` on a judged LongMemEval folder: report.md and a self-contained
report.html from the same blocks, the headline before the detail, every text escaped."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.report.html import CSP
from locoscore.testing._verdicts import reference_recall_score
from locoscore.testing.fake_provider import FakeConfig, FakeProvider
from locoscore.testing.longmemeval_fixture import write_fixture

HOSTILE = "<script>alert(1)</script>"


@pytest.fixture
def judge_fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeProvider]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-lme-report-0123456789")
    with FakeProvider(FakeConfig(timeout_s=5.0, verdict=reference_recall_score)) as provider:
        yield provider


def _cli(*args: str) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return CliRunner().invoke(app, list(args))


def test_report_writes_md_and_html_headline_first_escaped(
    judge_fake: FakeProvider, tmp_path: Path
) -> None:
    dataset = write_fixture(tmp_path / "s.json")
    # a hostile run.json (system name) and hypotheses: only ever text in the report
    answers = tmp_path / "hyp.jsonl"
    rows = [{"question_id": "e47becba", "hypothesis": f"Biscuit {HOSTILE}"}]
    answers.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "j"
    judged = _cli(
        "judge", str(answers), "--benchmark", "longmemeval", "--dataset", str(dataset),
        "--out", str(out), "--protocol", "binary", "--provider", "openai",
        "--model", "gpt-4o-2024-08-06", "--base-url", judge_fake.openai_url,
        "--runs", "1", "--no-progress",
    )  # fmt: skip
    assert judged.exit_code == 0, judged.output
    (out / "run.json").write_text(
        json.dumps({"signature": f"run:{HOSTILE}", "system": {"name": HOSTILE}}),
        encoding="utf-8",
    )
    reported = _cli("report", str(out))
    assert reported.exit_code == 0, reported.output
    html = (out / "report.html").read_text(encoding="utf-8")
    md = (out / "report.md").read_text(encoding="utf-8")
    assert f'<meta http-equiv="Content-Security-Policy" content="{CSP}">' in html
    assert "<script" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    # markdown escapes outside code fences (a fenced signature is inert there)
    assert md.startswith("# &lt;script&gt;alert(1)&lt;/script&gt; on LongMemEval\n")
    assert f"<title>{'&lt;script&gt;alert(1)&lt;/script&gt;'} on LongMemEval</title>" in html
    # 1 of 10 questions submitted, judged correct: 10 % with missing = wrong, 100 % submitted
    for text in (html, md):
        title = text.index("on LongMemEval")
        card = text.index("Claim card")  # the report's first box, then the headline
        headline = text.index("J overall, missing = wrong: 10.0")
        assert title < card < headline
        submitted = text.index("over submitted answers (the official figure): 100.0")
        detail = text.index("Judge accuracy (J)")
        assert title < headline < submitted < detail < text.index("Published numbers")
    assert html.count("<table>") == 3  # the claim card, per-type J, the published numbers
