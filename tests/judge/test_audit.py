"""`locoscore audit` end to end against the fake provider's reference-recall rule, whose every
verdict the test computes itself (audit_helpers.recall)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from audit_helpers import CORRECT_AT, probe_items, recall, write_dataset, write_probe_file
from judge_helpers import write_native
from typer.testing import CliRunner

from locoscore.benchmarks.locomo.data.models import PredictionRecord
from locoscore.cli import app
from locoscore.testing.fake_provider import FakeProvider, reference_recall_score

PROBES = ("specific-but-wrong", "vague-but-topical")


def _audit(fake: FakeProvider, out: Path, *args: str) -> str:
    result = CliRunner().invoke(
        app, ["audit", "--out", str(out), "--base-url", fake.url, "--no-progress", *args]
    )
    assert result.exit_code == 0, result.output
    return result.output


def _expected(pairs: list[tuple[int, str, str]], accept_at: int) -> tuple[float, dict[str, float]]:
    """% accepted overall and per category, from (category, gold, answer) triples."""
    verdicts = [(c, recall(g, a) >= accept_at) for c, g, a in pairs]
    by_category: dict[str, list[bool]] = defaultdict(list)
    for category, accepted in verdicts:
        by_category[str(category)].append(accepted)
    overall = 100 * sum(v for _, v in verdicts) / len(verdicts)
    return overall, {c: 100 * sum(v) / len(v) for c, v in by_category.items()}


def test_real_probe_sets_get_the_rates_the_verdict_rule_implies(
    fake: FakeProvider, tmp_path: Path, locomo_path: Path
) -> None:
    fake.config.verdict = reference_recall_score
    probes = [locomo_path.parent / "judge-probes" / f"{name}.json" for name in PROBES]
    out = tmp_path / "audit"
    args = ["--dataset", str(locomo_path), "--protocol", "binary", "--runs", "1"]
    # in a process of its own: 4,620 calls go faster when client and server do not share a GIL
    script = Path(sys.executable).parent / "locoscore"
    command = [str(script), "audit", "--out", str(out), "--base-url", fake.url, "--no-progress",
               *args, *(a for p in probes for a in ("--probes", str(p)))]  # fmt: skip
    process = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert process.returncode == 0, process.stderr
    output = process.stdout

    document = json.loads((out / "audit.json").read_text())
    sets = {s["name"]: s for s in document["probe_sets"]}
    assert list(sets) == ["gold", *PROBES]
    assert fake.generation_calls == 3 * 1540
    gold = sets["gold"]
    assert gold["acceptance"]["overall"]["rate"] == 100.0 and gold["false_reject_rate"] == 0.0
    assert gold["acceptance"]["overall"]["n"] == 1540
    for name, path in zip(PROBES, probes, strict=True):
        pairs = [
            (int(i["category"]), str(i["golden_answer"]), i["generated_answer"])
            for i in probe_items(path)
        ]
        overall, by_category = _expected(pairs, CORRECT_AT)
        assert 0 < overall < 10  # the rule accepts a few answers that repeat the gold's words
        got = sets[name]["acceptance"]
        assert got["overall"]["rate"] == pytest.approx(overall, abs=1e-3)
        assert sets[name]["false_accept_rate"] == got["overall"]["rate"]
        assert {c: v["rate"] for c, v in got["by_category"].items()} == pytest.approx(
            by_category, abs=1e-3
        )
        ci = got["overall"]["ci95"]
        assert ci["low"] < overall < ci["high"]
        assert sets[name]["recorded"]["judge_model"] == "gpt-4o-mini"
    assert round(sets["specific-but-wrong"]["recorded"]["overall"]["mean"], 2) == 10.61
    assert sets["vague-but-topical"]["reference"]["overall"] == 62.81
    assert sets["vague-but-topical"]["reference"]["by_category"]["1"] == 44.44
    vague = sets["vague-but-topical"]["false_accept_rate"]
    line = f"this judge accepts {vague:.1f} % of vague wrong answers and rejects 0.0 % of gold"
    line += " answers"
    assert document["summary_line"] == line
    assert line in " ".join(output.split())
    assert line in (out / "audit.md").read_text()
    assert document["judge"]["signature"].startswith("judge:binary|prompt:")
    assert document["acceptance_rule"]["accepted_when"] == "label CORRECT (score 100)"


def test_rubric_audit_reports_the_threshold_and_the_score_distribution(
    fake: FakeProvider, tmp_path: Path
) -> None:
    fake.config.verdict = reference_recall_score
    dataset = write_dataset(tmp_path / "locomo.json", samples=2, questions=8)
    probe = write_probe_file(tmp_path / "vague-probe.json", dataset)
    predictions = [
        PredictionRecord(
            sample_id=f"conv-t{s}",
            qa_index=q,
            category=(4, 1, 2, 3)[q % 4],
            question=f"What did speaker A bring to meeting {s}-{q}?",
            answer=f"a blue lantern number {q}" if q % 2 else f"{q + 2020}",
            prediction=f"a lantern, number {q}",
        )
        for s in range(2)
        for q in range(8)
    ]
    native = write_native(tmp_path / "preds.jsonl", predictions)
    out = tmp_path / "audit"
    _audit(fake, out, "--dataset", str(dataset), "--probes", str(probe),
           "--predictions", str(native), "--runs", "2", "--accept-threshold", "60")  # fmt: skip

    document = json.loads((out / "audit.json").read_text())
    sets = {s["name"]: s for s in document["probe_sets"]}
    assert document["acceptance_rule"] == {"accepted_when": "score >= 60", "threshold": 60.0}
    items = probe_items(probe)
    scores = [recall(str(i["golden_answer"]), i["generated_answer"]) for i in items]
    assert len(set(scores)) > 2  # the probe answers really spread over the scale
    expected = 100 * sum(s >= 60 for s in scores) / len(scores)
    assert sets["vague-probe"]["acceptance"]["overall"]["rate"] == pytest.approx(expected)
    histogram = [0] * 10
    for score in scores:
        histogram[min(score // 10, 9)] += 2  # two runs each
    distribution = sets["vague-probe"]["scores"]
    assert distribution["histogram"]["counts"] == histogram
    assert distribution["mean_score"] == pytest.approx(sum(scores) / len(scores), abs=1e-4)
    mine = [recall(p.answer_text, p.prediction) for p in predictions]
    assert sets["predictions"]["expect"] is None
    assert sets["predictions"]["acceptance"]["overall"]["rate"] == pytest.approx(
        100 * sum(s >= 60 for s in mine) / len(mine)
    )
    assert sets["gold"]["acceptance"]["overall"]["n"] == 16  # adversarial items skipped
    place = document["placement"]
    assert place["predictions"] == sets["predictions"]["acceptance"]["overall"]["rate"]
    assert place["floor"] == {"set": "vague-probe", "rate": pytest.approx(expected)}
    assert place["ceiling"] == 100.0
    assert "Your predictions: " in (out / "audit.md").read_text()
    assert sets["vague-probe"]["acceptance"]["overall"]["run_level"]["std"] == 0.0
    html = (out / "audit.html").read_text()
    assert "<script" not in html and "Content-Security-Policy" in html


def test_dry_run_counts_three_sets_of_1540_per_run_and_writes_nothing(
    fake: FakeProvider, tmp_path: Path, locomo_path: Path
) -> None:
    out = tmp_path / "audit"
    probes = [locomo_path.parent / "judge-probes" / f"{name}.json" for name in PROBES]
    output = _audit(fake, out, "--dataset", str(locomo_path), "--runs", "3", "--dry-run",
                    *(a for p in probes for a in ("--probes", str(p))))  # fmt: skip
    text = " ".join(output.split())
    assert "calls to make: 13,860 (cached: 0, graded 0 without a call: 0)" in text
    assert "gold 4,620, specific-but-wrong 4,620, vague-but-topical 4,620" in text
    assert fake.requests == 0 and not out.exists()


def test_audit_into_a_results_folder_shows_in_its_report_next_to_j(
    fake: FakeProvider, tmp_path: Path
) -> None:
    fake.config.verdict = reference_recall_score
    dataset = write_dataset(tmp_path / "locomo.json", samples=1, questions=4)
    probe = write_probe_file(tmp_path / "vague-probe.json", dataset)
    native = write_native(
        tmp_path / "preds.jsonl",
        [
            PredictionRecord(
                sample_id="conv-t0",
                qa_index=q,
                category=(4, 1, 2, 3)[q],
                question=f"What did speaker A bring to meeting 0-{q}?",
                answer=f"a blue lantern number {q}" if q % 2 else f"{q + 2020}",
                prediction="a lantern",
            )
            for q in range(4)
        ],
    )
    out = tmp_path / "run"
    runner = CliRunner()
    judged = runner.invoke(app, ["judge", str(native), "--out", str(out), "--dataset",
                                 str(dataset), "--base-url", fake.url, "--runs", "2",
                                 "--no-progress"])  # fmt: skip
    assert judged.exit_code == 0, judged.output
    calls_for_j = fake.generation_calls
    _audit(fake, out, "--dataset", str(dataset), "--probes", str(probe), "--runs", "2",
           "--predictions", str(out))  # fmt: skip
    # the predictions, read from the results folder, got their verdicts from the folder's
    # cache: only the gold and probe answers were judged
    document = json.loads((out / "audit.json").read_text())
    mine = next(s for s in document["probe_sets"] if s["name"] == "predictions")
    assert mine["source"]["format"] == "results folder" and mine["acceptance"]["overall"]["n"] == 4
    assert fake.generation_calls - calls_for_j == 2 * 4 * 2
    report = (out / "report.md").read_text()
    assert "How lenient is the judge? (judge audit)" in report
    assert "same signature" in report
    summary = json.loads((out / "summary.json").read_text())["report"]["audit"]
    assert summary["same_judge_as_j"] is True
    assert summary["summary_line"].startswith("this judge accepts")


def test_unreadable_audit_json_is_skipped_by_report_with_a_warning(
    fake: FakeProvider, tmp_path: Path
) -> None:
    native = write_native(
        tmp_path / "p.jsonl",
        [PredictionRecord(category=4, question="Q?", answer="a", prediction="a")],
    )
    out = tmp_path / "run"
    runner = CliRunner()
    assert runner.invoke(app, ["score", str(native), "--out", str(out)]).exit_code == 0
    (out / "audit.json").write_text("{not json")
    result = runner.invoke(app, ["report", str(out)])
    assert result.exit_code == 0
    assert "audit.json: skipped, cannot read the audit" in " ".join(result.output.split())
    assert "judge audit" not in (out / "report.md").read_text()


def test_batch_mode_audits_in_one_batch(fake: FakeProvider, tmp_path: Path) -> None:
    fake.config.verdict = reference_recall_score
    dataset = write_dataset(tmp_path / "locomo.json", samples=1, questions=4)
    probe = write_probe_file(tmp_path / "vague-probe.json", dataset)
    out = tmp_path / "audit"
    _audit(fake, out, "--dataset", str(dataset), "--probes", str(probe), "--runs", "2",
           "--batch", "--batch-poll", "0.05")  # fmt: skip
    creations = [e for e in fake.requests_log if e["path"] == "/v1/messages/batches"]
    assert len(creations) == 1 and fake.generation_calls == 2 * 4 * 2
    document = json.loads((out / "audit.json").read_text())
    assert document["calls"]["made"] == 16 and document["calls"]["failed"] == 0
    assert document["probe_sets"][0]["acceptance"]["overall"]["rate"] == 100.0


def test_max_cost_stops_early_writes_what_was_judged_and_exits_1(
    fake: FakeProvider, tmp_path: Path
) -> None:
    fake.config.verdict = reference_recall_score
    dataset = write_dataset(tmp_path / "locomo.json", samples=2, questions=8)
    probe = write_probe_file(tmp_path / "vague-probe.json", dataset)
    out = tmp_path / "audit"
    result = CliRunner().invoke(app, ["audit", "--out", str(out), "--dataset", str(dataset),
                                      "--probes", str(probe), "--base-url", fake.url,
                                      "--no-progress", "--runs", "2", "--concurrency", "1",
                                      "--max-cost", "0.01"])  # fmt: skip
    assert result.exit_code == 1
    assert "stopped early: --max-cost 0.01 USD would be exceeded" in " ".join(result.output.split())
    document = json.loads((out / "audit.json").read_text())
    assert document["stopped"].startswith("--max-cost")
    assert 0 < fake.generation_calls < 2 * 16 * 2
    assert document["calls"]["skipped"] == 2 * 16 * 2 - fake.generation_calls


def test_probe_text_is_escaped_in_audit_html_and_md(fake: FakeProvider, tmp_path: Path) -> None:
    fake.config.verdict = reference_recall_score
    dataset = write_dataset(tmp_path / "locomo.json", samples=1, questions=4)

    def hostile(gold: str, index: int) -> str:  # repeats the gold, so it is accepted
        return f"<script>alert({index})</script> | {gold}"

    probe = write_probe_file(tmp_path / "hostile.json", dataset, answer=hostile)
    out = tmp_path / "audit"
    _audit(fake, out, "--dataset", str(dataset), "--probes", str(probe), "--runs", "1")
    html = (out / "audit.html").read_text()
    assert "<script" not in html and "&lt;script&gt;alert(0)&lt;/script&gt;" in html
    assert "&lt;script&gt;alert(0)&lt;/script&gt; \\| " in (out / "audit.md").read_text()
