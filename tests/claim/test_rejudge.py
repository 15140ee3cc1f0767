"""`verify --rejudge N`: a seeded sample of the folder's questions judged again by the judge
it records (a real local fake provider), agreement with the stored verdicts as a gate."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import invoke, run_system

from locoscore.benchmarks import get_benchmark
from locoscore.benchmarks.rejudge import pick, wilson_interval
from locoscore.testing.fake_provider import FakeConfig, FakeProvider


@pytest.fixture
def judge() -> Iterator[FakeProvider]:
    with FakeProvider(FakeConfig()) as provider:  # rubric scores 40-100 from the prompt's hash
        yield provider


@pytest.fixture
def judged(
    judge: FakeProvider, locomo_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    out = run_system(locomo_path, tmp_path / "run", "bm25")
    code, output = invoke(
        "judge", str(out / "predictions.jsonl"), "--out", str(out), "--base-url", judge.url,
        "--runs", "1", "--no-progress", "--dataset", str(locomo_path),
    )  # fmt: skip
    assert code == 0, output
    return out


def _rejudge_line(output: str) -> str:
    [line] = [x.strip() for x in output.splitlines() if " rejudge: " in x]
    return line


def _stored(folder: Path) -> dict[str, bool]:
    return {
        q.question_id: bool(q.verdict)
        for q in get_benchmark("locomo").judged_questions(folder)
        if q.verdict is not None
    }


def test_an_untouched_folder_agrees_20_of_20_with_real_calls(judged, judge):
    before = judge.generation_calls
    code, output = invoke("verify", str(judged), "--rejudge", "20", "--allow-fake")
    line = _rejudge_line(output)
    assert line.startswith("pass rejudge: re-judged 20 question(s): 20/20 verdicts agree (100.0 %")
    low, _ = wilson_interval(20, 20)
    assert f"Wilson 95 % [{100 * low:.1f}, 100.0]" in line  # 83.9: 20 of 20 is no proof
    # real calls, one per question and run: the folder's cache served none of them
    assert judge.generation_calls == before + 20
    assert code == 0, output


def test_judgments_flipped_for_10_questions_fail_the_gate(judged, tmp_path):
    forged = tmp_path / "forged"
    shutil.copytree(judged, forged)
    flipped = set(pick(sorted(_stored(judged)), 20, 0)[:10])  # 10 of the 20 re-judged
    for name, key, field in (("scores.jsonl", None, "j_mean"), ("judgments.jsonl", "key", "score")):
        rows = [json.loads(x) for x in (forged / name).read_text().splitlines() if x.strip()]
        for row in rows:
            qid = row.get(key) if key else f"{row['sample_id']}#{row['qa_index']}"
            if qid in flipped and isinstance(row.get(field), int | float):
                row[field] = 0.0 if row[field] >= 50 else 100.0
        (forged / name).write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert sum(_stored(forged)[q] != _stored(judged)[q] for q in flipped) == 10
    code, output = invoke("verify", str(forged), "--rejudge", "20", "--allow-fake")
    assert code == 1, output
    line = _rejudge_line(output)
    assert line.startswith("FAIL rejudge: re-judged 20 question(s): 10/20 verdicts agree (50.0 %")
    assert "threshold 90.0 %" in line
    assert "rejudge" in output.strip().splitlines()[-1]


def test_a_judge_that_is_no_longer_what_the_folder_says_fails(judged, judge):
    judge.config.verdict = lambda text: 0  # the same endpoint now says WRONG to everything
    judge.config.served_model = "claude-haiku-4-5"  # and names another model
    right = sum(_stored(judged)[q] for q in pick(sorted(_stored(judged)), 20, 0))
    code, output = invoke("verify", str(judged), "--rejudge", "20", "--min-agreement", "0.5")
    line = _rejudge_line(output)
    assert f"{20 - right}/20 verdicts agree" in line
    assert "the server now says it is claude-haiku-4-5 (the folder records claude-sonnet-4-6)" in (
        line
    )
    assert code == (1 if (20 - right) / 20 < 0.5 else 0), output


def test_the_dry_run_prints_the_cost_and_makes_no_call(judged, judge):
    before = judge.generation_calls
    code, output = invoke("verify", str(judged), "--rejudge", "20", "--dry-run", "--allow-fake")
    line = _rejudge_line(output)
    assert line.startswith("n/a  rejudge: rejudge dry run: 20 question(s), 20 calls,")
    assert "estimated cost $" in line
    assert judge.generation_calls == before
    assert code == 0, output


def test_dry_run_without_rejudge_and_a_bad_share_are_refused(judged):
    code, output = invoke("verify", str(judged), "--dry-run")
    assert code == 2 and "--dry-run" in output and "goes with --rejudge N" in output
    code, output = invoke("verify", str(judged), "--rejudge", "5", "--min-agreement", "1.5")
    assert code == 2 and "--min-agreement" in output


def test_wilson_interval_by_hand():
    # 10 of 20: centre 0.5, half-width z*sqrt(0.25/20 + z^2/1600)/(1 + z^2/20) = 0.1993
    low, high = wilson_interval(10, 20)
    assert (round(low, 4), round(high, 4)) == (0.2993, 0.7007)
    assert wilson_interval(0, 0) == (0.0, 1.0)
