"""`locoscore judge --benchmark longmemeval`: per-type rules (abstention by id), N runs,
and the aggregation hand-computed, with the fake provider deciding by reference recall."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from locoscore.benchmarks.longmemeval.judging import RULES
from locoscore.cli import app
from locoscore.testing._verdicts import reference_recall_score
from locoscore.testing.fake_provider import FakeConfig, FakeProvider
from locoscore.testing.llama_server import LlamaConfig, LlamaServer
from locoscore.testing.longmemeval_fixture import write_fixture

# question id -> hypothesis; the fake says CORRECT when >= 70 % of the reference's words
# are in it. 0b8e4f77 (preference) and d3d94468_abs are not submitted.
HYPOTHESES = {
    "e47becba": "Biscuit",  # correct
    "a3f9c2d1_abs": "The user never mentioned a cat; only a dog named Biscuit.",  # correct
    "7c2d9e10": "minestrone",  # wrong
    "5d1a6c3e": "3",  # correct
    "9f3b2a81_abs": "2 concerts",  # wrong
    "c81e728d": "You work at Acme Robotics now",  # correct
    "gpt4_1a2b3c4d": "10 days",  # correct
    "gpt4_9e8d7c6b_abs": "",  # empty: wrong without a call
}


@pytest.fixture
def judge_fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeProvider]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-lme-judge-0123456789")
    with FakeProvider(FakeConfig(timeout_s=5.0, verdict=reference_recall_score)) as provider:
        yield provider


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _judge(fake: FakeProvider, dataset: Path, answers: Path, out: Path, *extra: str) -> Any:
    args = [
        "judge", str(answers), "--benchmark", "longmemeval", "--dataset", str(dataset),
        "--out", str(out), "--protocol", "binary", "--provider", "openai",
        "--model", "gpt-4o-2024-08-06", "--base-url", fake.openai_url, "--runs", "3",
        "--no-progress", *extra,
    ]  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return CliRunner().invoke(app, args)


def test_aggregation_per_type_task_averaged_overall_abstention_and_missing(
    judge_fake: FakeProvider, tmp_path: Path
) -> None:
    dataset = write_fixture(tmp_path / "s.json")
    answers = _write(
        tmp_path / "hyp.jsonl", [{"question_id": q, "hypothesis": h} for q, h in HYPOTHESES.items()]
    )
    out = tmp_path / "j"
    result = _judge(judge_fake, dataset, answers, out)
    assert result.exit_code == 0, result.output
    section = json.loads((out / "summary.json").read_text())["judge"]
    assert (section["questions"], section["submitted"], section["missing"]) == (10, 8, 2)
    strict = section["missing_counts_as_wrong"]
    per_type = {t: c["accuracy"] for t, c in strict["by_type"].items()}
    assert per_type == {
        "single-session-user": 100.0,  # both right (one an abstention)
        "single-session-assistant": 0.0,
        "single-session-preference": 0.0,  # missing
        "multi-session": 50.0,
        "knowledge-update": 50.0,  # the abstention is missing
        "temporal-reasoning": 50.0,
    }
    assert strict["task_averaged"]["accuracy"] == round(100 * 2.5 / 6, 4)
    assert strict["overall"]["accuracy"] == 50.0 and strict["overall"]["count"] == 10
    assert strict["abstention"]["accuracy"] == 25.0 and strict["abstention"]["count"] == 4
    lo, hi = strict["overall"]["ci95"]
    assert lo < 50.0 < hi
    official = section["over_submitted"]
    assert official["overall"]["accuracy"] == 62.5 and official["overall"]["count"] == 8
    assert official["by_type"]["single-session-preference"]["accuracy"] is None
    assert official["task_averaged"] == {**official["task_averaged"], "accuracy": 60.0, "types": 5}
    assert official["abstention"]["accuracy"] == round(100 / 3, 4)

    # the rule is chosen by the _abs id before the type; temporal tolerates off-by-one
    prompts = {}
    for entry in judge_fake.requests_log:
        text = entry["body"]["messages"][-1]["content"]
        question = text.split("Question:\n", 1)[1].split("\n", 1)[0]
        prompts[question] = text
    assert RULES["abstention"] in prompts["What is the name of my cat?"]
    assert (
        RULES["temporal-reasoning"]
        in prompts["How many days passed between my Louvre visit and my Prado visit?"]
    )
    # the empty answer was graded 0 without a call
    assert "How many days passed between my two dentist appointments?" not in prompts
    assert RULES["knowledge-update"] in prompts["Where do I work now?"]
    # 8 submitted answers judged (3 runs each)
    judged = {
        json.loads(line)["key"] for line in (out / "judgments.jsonl").read_text().splitlines()
    }
    assert len(judged) == 8
    # a rerun is served by the cache
    calls = len(judge_fake.requests_log)
    assert _judge(judge_fake, dataset, answers, out).exit_code == 0
    assert len(judge_fake.requests_log) == calls


def test_the_official_evaluator_output_is_recorded_j(
    judge_fake: FakeProvider, tmp_path: Path
) -> None:
    dataset = write_fixture(tmp_path / "s.json")
    labels = {"e47becba": True, "7c2d9e10": False, "5d1a6c3e": True, "c81e728d": False}
    rows = [
        {"question_id": q, "hypothesis": HYPOTHESES[q],
         "autoeval_label": {"model": "gpt-4o-2024-08-06", "label": v}}
        for q, v in labels.items()
    ]  # fmt: skip
    out = tmp_path / "j"
    result = _judge(judge_fake, dataset, _write(tmp_path / "eval.jsonl", rows), out, "--runs", "1")
    assert result.exit_code == 0, result.output
    recorded = json.loads((out / "summary.json").read_text())["judge"]["recorded_judge"]
    assert recorded["models"] == ["gpt-4o-2024-08-06"]
    assert recorded["over_submitted"]["overall"]["accuracy"] == 50.0
    assert recorded["missing_counts_as_wrong"]["overall"]["accuracy"] == 20.0
    assert recorded["missing"] == 6


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ({"question_id": "deadbeef", "hypothesis": "x"}, "unknown question id 'deadbeef'"),
        ({"question_id": "7c2d9e10"}, "field 'hypothesis': missing"),
        ({"hypothesis": "x"}, "field 'question_id'"),
    ],
)
def test_bad_answers_are_one_line_exit_2_nothing_written(
    judge_fake: FakeProvider, tmp_path: Path, row: dict[str, Any], expected: str
) -> None:
    dataset = write_fixture(tmp_path / "s.json")
    answers = _write(tmp_path / "bad.jsonl", [{"question_id": "e47becba", "hypothesis": "a"}, row])
    out = tmp_path / "j"
    result = _judge(judge_fake, dataset, answers, out)
    assert result.exit_code == 2
    text = " ".join(result.output.split())
    assert expected in text and "line 2" in text and "Traceback" not in text
    assert not out.exists() and judge_fake.requests_log == []


def test_limit_judges_a_sample_stratified_by_type(judge_fake: FakeProvider, tmp_path: Path) -> None:
    """`--limit 5` of the fixture's 10 questions, by largest remainder over the six types
    (2, 1, 1, 2, 2, 2): quotas 1, .5, .5, 1, 1, 1, floors 4, the leftover to the tie at .5
    broken by the smaller key (single-session-assistant). Within a type the smallest
    sha256("0:<id>") wins: a3f9c2d1_abs (8d26…) over e47becba (9cf2…), 5d1a6c3e (f4f6…) over
    9f3b2a81_abs (f84a…), d3d94468_abs (b8ad…) over c81e728d (d964…), gpt4_1a2b3c4d (0a23…)
    over gpt4_9e8d7c6b_abs (e3f2…)."""
    dataset = write_fixture(tmp_path / "s.json")
    answers = _write(
        tmp_path / "hyp.jsonl", [{"question_id": q, "hypothesis": h} for q, h in HYPOTHESES.items()]
    )
    out = tmp_path / "j"
    result = _judge(judge_fake, dataset, answers, out, "--limit", "5", "--runs", "1")
    assert result.exit_code == 0, result.output
    assert "sample:5/10@seed0:strat-type" in " ".join(result.output.split())
    section = json.loads((out / "summary.json").read_text())["judge"]
    assert "|adv:" not in section["signature"]  # LongMemEval excludes no type
    assert section["signature"].endswith("|std:sample|sample:5/10@seed0:strat-type|version:0.1.0")
    sample = section["sample"]
    assert sample["question_ids"] == sorted(
        ["a3f9c2d1_abs", "7c2d9e10", "5d1a6c3e", "d3d94468_abs", "gpt4_1a2b3c4d"]
    )
    assert {k: v["sample"] for k, v in sample["by_stratum"].items()} == {
        "knowledge-update": 1, "multi-session": 1, "single-session-assistant": 1,
        "single-session-preference": 0, "single-session-user": 1, "temporal-reasoning": 1,
    }  # fmt: skip
    # right: a3f9c2d1_abs, 5d1a6c3e, gpt4_1a2b3c4d; wrong: 7c2d9e10; missing: d3d94468_abs
    assert (section["questions"], section["submitted"], section["missing"]) == (5, 4, 1)
    strict, official = section["missing_counts_as_wrong"], section["over_submitted"]
    assert strict["overall"]["accuracy"] == 60.0 and official["overall"]["accuracy"] == 75.0
    assert strict["abstention"]["accuracy"] == 50.0 and strict["abstention"]["count"] == 2
    assert len(judge_fake.requests_log) == 4  # only the sample's submitted answers
    scores = [json.loads(line) for line in (out / "scores.jsonl").read_text().splitlines()]
    assert [r["question_id"] for r in scores] == [
        "a3f9c2d1_abs", "7c2d9e10", "5d1a6c3e", "d3d94468_abs", "gpt4_1a2b3c4d"
    ]  # fmt: skip
    # the report marks the subset, before any number
    assert CliRunner().invoke(app, ["report", str(out)]).exit_code == 0
    report = (out / "report.md").read_text()
    banner = report.index("J comes from a sample of 5 of 10 questions")
    assert banner < report.index("J overall, missing = wrong: 60.0")
    assert "Subset (sample:5/10@seed0:strat-type): not the full benchmark." in report
    # the same command draws the same sample; another seed another one
    again = _judge(judge_fake, dataset, answers, out, "--limit", "5", "--runs", "1")
    assert again.exit_code == 0 and len(judge_fake.requests_log) == 4  # all cached
    assert json.loads((out / "summary.json").read_text())["judge"]["sample"] == sample
    other = _judge(judge_fake, dataset, answers, tmp_path / "k", "--limit", "5", "--seed", "1")
    drawn = json.loads((tmp_path / "k" / "summary.json").read_text())["judge"]["sample"]
    assert drawn["question_ids"] != sample["question_ids"] and other.exit_code == 0


def test_a_reply_cut_at_max_tokens_keeps_its_label(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A small local judge writes the keys in the order the prompt shows them and rambles:
    asked for the label first, a reply cut at 16 tokens still carries it (asked last, every
    reply lost it and the pass failed). The verdicts equal the untruncated fake's."""

    def label(prompt: str) -> str:
        return "CORRECT" if reference_recall_score(prompt) >= 70 else "WRONG"

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-lme-judge-0123456789")
    dataset = write_fixture(tmp_path / "s.json")
    answers = _write(
        tmp_path / "hyp.jsonl", [{"question_id": q, "hypothesis": h} for q, h in HYPOTHESES.items()]
    )
    out = tmp_path / "j"
    with LlamaServer(LlamaConfig(slots=2, verdict=label)) as server:
        args = [
            "judge", str(answers), "--benchmark", "longmemeval", "--dataset", str(dataset),
            "--out", str(out), "--protocol", "binary", "--provider", "openai-compatible",
            "--model", "small-judge", "--base-url", server.openai_url, "--runs", "1",
            "--max-tokens", "16", "--response-format", "json_object", "--no-progress",
        ]  # fmt: skip
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in (out / "judgments.jsonl").read_text().splitlines()]
    called = [r for r in rows if r.get("method") != "short_circuit"]
    assert len(called) == 7 and all(r["method"] == "json_prefix" for r in called)
    section = json.loads((out / "summary.json").read_text())["judge"]
    assert section["over_submitted"]["overall"]["accuracy"] == 62.5  # 5 of 8, as above
