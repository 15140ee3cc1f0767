"""`judge --limit` and `audit --limit`: only the sampled questions are judged, and every
summary, signature and report says J (or the audit) is a subset."""

from __future__ import annotations

import json
from pathlib import Path

from audit_helpers import write_dataset, write_probe_file
from judge_helpers import make_records, write_native
from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.testing.fake_provider import FakeProvider, reference_recall_score

# make_records(40): categories 1, 2, 3, 4 in turn (10 each), ids conv-t0#0 .. conv-t3#9
JUDGE_SIGNATURE = "sample:8/40@seed3:strat-cat"


def _folder(tmp_path: Path) -> tuple[Path, Path]:
    native = write_native(tmp_path / "preds.jsonl", make_records(40))
    out = tmp_path / "out"
    assert CliRunner().invoke(app, ["score", str(native), "--out", str(out)]).exit_code == 0
    return native, out


def _judge(fake: FakeProvider, native: Path, out: Path, *extra: str) -> str:
    result = CliRunner().invoke(
        app,
        ["judge", str(native), "--out", str(out), "--base-url", fake.url, "--runs", "1",
         "--protocol", "binary", "--no-progress", *extra],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


def test_judge_limit_judges_only_the_sample_and_labels_j(
    fake: FakeProvider, tmp_path: Path
) -> None:
    native, out = _folder(tmp_path)
    output = _judge(fake, native, out, "--limit", "8", "--seed", "3")
    assert f"smoke test: judging a sample of 8 of 40 questions ({JUDGE_SIGNATURE})" in output
    assert fake.generation_calls == 8
    rows = [json.loads(line) for line in (out / "scores.jsonl").read_text().splitlines()]
    judged = [r for r in rows if r.get("j_mean") is not None]
    # 8 x 10/40 = 2 per category exactly; F1 still covers all 40
    assert len(rows) == 40 and all(r.get("f1_locomo") is not None for r in rows)
    assert sorted(r["category"] for r in judged) == [1, 1, 2, 2, 3, 3, 4, 4]
    summary = json.loads((out / "summary.json").read_text())
    judge = summary["judge"]
    assert judge["sample"]["signature"] == JUDGE_SIGNATURE
    assert sorted(judge["sample"]["question_ids"]) == sorted(
        f"{r['sample_id']}#{r['qa_index']}" for r in judged
    )
    assert f"|{JUDGE_SIGNATURE}|version:" in judge["signature"]
    assert {r["j_protocol"] for r in judged} == {judge["signature"]}
    assert summary["report"]["sample"] == {"questions": None, "j": JUDGE_SIGNATURE}

    md = (out / "report.md").read_text()
    banner = md.index("> **Subset: J comes from a sample of 8 of 40 questions")
    assert banner < md.index("## Headline") < md.index("## Contents")
    assert "Every number in this report" not in md  # F1 is over every question
    assert "| **This run (sample 8/40)** |" in md  # the J row beside the Mem0 paper's
    assert "| **This run** |" in md  # the F1 rows are full
    assert "| J (LLM judge), excl. adversarial | " in md and "| 8 (sample of 40) |" in md
    breakdown = md.split("## Per-category breakdown")[1].split("\n## ")[0]
    assert f"Subset ({JUDGE_SIGNATURE})" in breakdown  # it has a J column


def test_a_full_judge_pass_after_a_sample_leaves_no_sampled_label(
    fake: FakeProvider, tmp_path: Path
) -> None:
    native, out = _folder(tmp_path)
    _judge(fake, native, out, "--limit", "8", "--seed", "3")
    _judge(fake, native, out)
    assert fake.generation_calls == 40  # the 8 sampled verdicts came from the cache
    summary = json.loads((out / "summary.json").read_text())
    assert summary["judge"]["sample"] is None and "sample:" not in summary["judge"]["signature"]
    assert "Subset" not in (out / "report.md").read_text()


def test_audit_limit_probes_the_same_sampled_questions_in_every_set(
    fake: FakeProvider, tmp_path: Path
) -> None:
    fake.config.verdict = reference_recall_score
    # 2 samples x 8 questions, categories 4, 1, 2, 3 in turn: 16, 4 per category
    dataset = write_dataset(tmp_path / "locomo.json", samples=2, questions=8)
    probe = write_probe_file(tmp_path / "vague-probe.json", dataset)
    out = tmp_path / "audit"
    result = CliRunner().invoke(
        app,
        ["audit", "--out", str(out), "--dataset", str(dataset), "--probes", str(probe),
         "--base-url", fake.url, "--runs", "1", "--no-progress", "--limit", "8"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert fake.generation_calls == 2 * 8  # gold and the probe set, 8 questions each
    document = json.loads((out / "audit.json").read_text())
    sample = document["sample"]
    assert sample["signature"] == "sample:8/16@seed0:strat-cat"
    assert {k: v["sample"] for k, v in sample["by_stratum"].items()} == {
        "1": 2, "2": 2, "3": 2, "4": 2
    }  # fmt: skip
    assert "|sample:8/16@seed0:strat-cat|version:" in document["judge"]["signature"]
    assert all(s["acceptance"]["overall"]["n"] == 8 for s in document["probe_sets"])
    assert document["summary_line"].endswith("(on a sample of 8 of 16 questions, not the full set)")
    md = (out / "audit.md").read_text()
    assert md.index("> **Subset: every rate below comes from a sample of 8 of 16") < md.index(
        "## Acceptance per probe set"
    )
    assert "| Published reference % (full set) |" in md
    assert "Subset (sample:8/16@seed0:strat-cat): not the full benchmark." in md


def test_a_dry_run_estimates_only_the_sample(fake: FakeProvider, tmp_path: Path) -> None:
    native, out = _folder(tmp_path)
    output = _judge(fake, native, out, "--limit", "8", "--seed", "3", "--dry-run")
    assert "calls to make: 8 (cached: 0" in output
    assert f"judging a sample of 8 of 40 questions ({JUDGE_SIGNATURE})" in output
    assert fake.requests == 0
