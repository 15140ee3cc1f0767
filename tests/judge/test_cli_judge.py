"""`locoscore judge` end to end: files, composition with `score`, dry run, budget, secrets."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from judge_helpers import ANTHROPIC_KEY, OPENAI_KEY, make_records, write_native
from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.llm.endpoint import without_served
from locoscore.testing.fake_provider import FakeProvider

REPO = Path(__file__).resolve().parents[2]
PROTOTYPE = REPO / "examples" / "prototype_results.json"
runner = CliRunner()


def _judge(fake: FakeProvider, predictions: Path, out: Path, *extra: str) -> Any:
    args = ["judge", str(predictions), "--out", str(out), "--base-url", fake.url]
    return runner.invoke(app, [*args, "--no-progress", "--timeout", "2", *extra])


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_judge_writes_judgments_scores_and_summary(fake: FakeProvider, tmp_path: Path) -> None:
    fake.config.scores = [70, 72, 68, 71, 73, 69, 70, 72, 71, 70]
    predictions = write_native(tmp_path / "p.jsonl", make_records(1))
    result = _judge(fake, predictions, tmp_path / "out", "--runs", "10", "--concurrency", "1")
    assert result.exit_code == 0, result.output
    judgments = _rows(tmp_path / "out" / "judgments.jsonl")
    assert [j["run"] for j in judgments] == list(range(10))
    assert set(judgments[0]) >= {
        "key",
        "sample_id",
        "qa_index",
        "category",
        "run",
        "score",
        "explanation",
        "error",
        "input_tokens",
        "output_tokens",
        "latency_s",
        "prompt_hash",
        "cached",
    }
    (row,) = _rows(tmp_path / "out" / "scores.jsonl")
    assert row["j_scores"] == [70.0, 72.0, 68.0, 71.0, 73.0, 69.0, 70.0, 72.0, 71.0, 70.0]
    assert row["j_mean"] == pytest.approx(70.6)
    assert row["j_std"] == pytest.approx(1.5055, abs=1e-4)
    assert (row["j_runs"], row["j_failures"]) == (10, 0)
    assert row["j_protocol"].startswith("judge:rubric|")
    judge = json.loads((tmp_path / "out" / "summary.json").read_text())["judge"]
    assert judge["temperature"] == 0.5 and judge["api_version"] == "2023-06-01"
    assert judge["input"]["format"] == "native" and len(judge["input"]["sha256"]) == 64
    assert judge["overall"] == {"mean": 70.6, "std": None, "count": 1}
    assert judge["run_level"]["per_run_means"] == [
        70.0,
        72.0,
        68.0,
        71.0,
        73.0,
        69.0,
        70.0,
        72.0,
        71.0,
        70.0,
    ]
    assert judge["run_level"]["std"] == pytest.approx(1.5055, abs=1e-4)
    calls, usage = judge["calls"], judge["usage"]
    assert {k: calls[k] for k in ("made", "judgments", "cached", "failed", "skipped")} == {
        "made": 10,
        "judgments": 10,
        "cached": 0,
        "failed": 0,
        "skipped": 0,
    }
    assert calls["this_attempt"]["requests"] == 10 and calls["earlier_attempts"]["attempts"] == 0
    # sonnet at 3 / 15 USD per Mtok
    cost = (usage["input_tokens"] * 3 + usage["output_tokens"] * 15) / 1e6
    assert usage["estimated_cost_usd"] == pytest.approx(cost, abs=1e-4) and cost > 0


def test_a_finished_judge_rerun_reports_the_whole_job(fake: FakeProvider, tmp_path: Path) -> None:
    predictions = write_native(tmp_path / "p.jsonl", make_records(2))
    first = _judge(fake, predictions, tmp_path / "out", "--runs", "3")
    assert first.exit_code == 0, first.output
    before = json.loads((tmp_path / "out" / "summary.json").read_text())["judge"]
    again = _judge(fake, predictions, tmp_path / "out", "--runs", "3")
    assert again.exit_code == 0, again.output
    assert fake.generation_calls == 6  # nothing asked twice
    judge = json.loads((tmp_path / "out" / "summary.json").read_text())["judge"]
    calls = judge["calls"]
    assert (calls["made"], calls["judgments"], calls["cached"]) == (6, 6, 6)
    assert calls["this_attempt"]["requests"] == 0 and calls["this_attempt"]["cost_usd"] == 0
    earlier = calls["earlier_attempts"]
    assert (earlier["attempts"], earlier["requests"]) == (1, 6)
    assert earlier["cost_usd"] == pytest.approx(before["usage"]["estimated_cost_usd"], abs=1e-4)
    assert judge["usage"] == before["usage"]
    line = "6 made (0 now, 6 by 1 earlier attempt), 6 cached"
    assert f"calls: {line}" in again.output
    assert f"Judge calls (every attempt): {line}" in (tmp_path / "out" / "report.md").read_text()


def test_judge_keeps_what_score_wrote(fake: FakeProvider, tmp_path: Path) -> None:
    out = tmp_path / "out"
    scored = runner.invoke(app, ["score", str(PROTOTYPE), "--out", str(out)])
    assert scored.exit_code == 0, scored.output
    before = _rows(out / "scores.jsonl")
    summary_before = json.loads((out / "summary.json").read_text())
    result = _judge(fake, PROTOTYPE, out, "--runs", "2")
    assert result.exit_code == 0, result.output
    after = _rows(out / "scores.jsonl")
    assert len(after) == len(before) == 14
    for old, new in zip(before, after, strict=True):
        assert {k: v for k, v in new.items() if not k.startswith("j_")} == old
        if old["category"] == 5:
            assert "j_mean" not in new  # adversarial excluded by default
        else:
            assert new["j_runs"] + new["j_failures"] == 2
    summary = json.loads((out / "summary.json").read_text())
    assert summary["lexical"] == summary_before["lexical"]
    assert summary["judge"]["overall"]["count"] == 12
    # and `score` after `judge` keeps the j_ fields
    rescored = runner.invoke(app, ["score", str(PROTOTYPE), "--out", str(out)])
    assert rescored.exit_code == 0
    assert _rows(out / "scores.jsonl")[0]["j_mean"] == after[0]["j_mean"]
    assert "judge" in json.loads((out / "summary.json").read_text())


def test_include_adversarial_judges_category_5(fake: FakeProvider, tmp_path: Path) -> None:
    result = _judge(fake, PROTOTYPE, tmp_path, "--runs", "1", "--include-adversarial")
    assert result.exit_code == 0, result.output
    judge = json.loads((tmp_path / "summary.json").read_text())["judge"]
    assert judge["include_adversarial"] is True
    assert judge["by_category"]["5"]["count"] == 2 and judge["overall"]["count"] == 14


def test_dry_run_counts_calls_after_cache_and_calls_nothing(
    fake: FakeProvider, tmp_path: Path
) -> None:
    predictions = write_native(tmp_path / "p.jsonl", make_records(5))
    out = tmp_path / "out"
    assert _judge(fake, predictions, out, "--runs", "2").exit_code == 0
    more = write_native(tmp_path / "q.jsonl", make_records(8))
    fake.reset_counters()
    # other predictions: --replace (a dry run drops nothing; the cache still answers)
    result = _judge(fake, more, out, "--runs", "2", "--dry-run", "--replace")
    assert result.exit_code == 0, result.output
    assert fake.requests == 0
    assert "calls to make: 6 (cached: 10" in result.output
    assert (out / "judgments.jsonl").is_file()
    assert "estimated cost: $" in result.output


def test_dry_run_writes_nothing(fake: FakeProvider, tmp_path: Path) -> None:
    predictions = write_native(tmp_path / "p.jsonl", make_records(2))
    result = _judge(fake, predictions, tmp_path / "out", "--dry-run")
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "out").exists()


def test_max_cost_stops_scheduling_and_saves_what_was_done(
    fake: FakeProvider, tmp_path: Path
) -> None:
    predictions = write_native(tmp_path / "p.jsonl", make_records(10))
    # one call here costs roughly $0.001-0.002 (about 300 tokens in, 30 out at $3/$15)
    result = _judge(
        fake, predictions, tmp_path, "--runs", "2", "--max-cost", "0.005", "--concurrency", "1"
    )
    assert result.exit_code == 1
    assert "--max-cost 0.005 USD would be exceeded" in result.output
    judge = json.loads((tmp_path / "summary.json").read_text())["judge"]
    assert 0 < judge["calls"]["made"] < 20
    assert judge["usage"]["estimated_cost_usd"] <= 0.005
    assert judge["calls"]["skipped"] == 20 - judge["calls"]["made"]


def test_bad_prompt_template_is_one_line_exit_2(fake: FakeProvider, tmp_path: Path) -> None:
    template = tmp_path / "t.txt"
    template.write_text("no placeholders")
    predictions = write_native(tmp_path / "p.jsonl", make_records(1))
    result = _judge(fake, predictions, tmp_path / "out", "--prompt-template", str(template))
    assert result.exit_code == 2
    assert "t.txt" in result.output and "template" in result.output
    assert fake.requests == 0


def test_model_that_rejects_temperature_is_exit_2_naming_the_choices(
    fake: FakeProvider, tmp_path: Path
) -> None:
    predictions = write_native(tmp_path / "p.jsonl", make_records(1))
    result = _judge(fake, predictions, tmp_path / "out", "--model", "claude-opus-4-7")
    assert result.exit_code == 2
    assert "--sampling default" in result.output
    ok = _judge(
        fake,
        predictions,
        tmp_path / "out",
        "--model",
        "claude-opus-4-7",
        "--sampling",
        "default",
        "--runs",
        "1",
    )
    assert ok.exit_code == 0, ok.output
    judge = json.loads((tmp_path / "out" / "summary.json").read_text())["judge"]
    assert judge["temperature"] is None and "temp:model-default" in judge["signature"]


def test_missing_api_key_is_bad_input(
    fake: FakeProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    predictions = write_native(tmp_path / "p.jsonl", make_records(1))
    result = _judge(fake, predictions, tmp_path / "out")
    assert result.exit_code == 2 and "ANTHROPIC_API_KEY is not set" in result.output


def test_base_url_from_the_environment_is_honoured(
    fake: FakeProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", fake.openai_url)
    predictions = write_native(tmp_path / "p.jsonl", make_records(2))
    result = runner.invoke(
        app,
        [
            "judge",
            str(predictions),
            "--out",
            str(tmp_path / "o"),
            "--provider",
            "openai",
            "--runs",
            "3",
            "--no-progress",
        ],
    )
    assert result.exit_code == 0, result.output
    assert fake.generation_calls == 6


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_api_key_appears_in_no_output_file_and_no_log_line(
    fake: FakeProvider, tmp_path: Path, provider: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    fake.config.faults = {"429": 0.2, "500": 0.2}
    fake.config.retry_after_s = 0.01
    predictions = write_native(tmp_path / "p.jsonl", make_records(3))
    url = fake.url if provider == "anthropic" else fake.openai_url
    out = tmp_path / "out"
    result = runner.invoke(
        app,
        [
            "judge",
            str(predictions),
            "--out",
            str(out),
            "--runs",
            "2",
            "--provider",
            provider,
            "--base-url",
            url,
            "--no-progress",
        ],
    )
    assert result.exit_code == 0, result.output
    key = ANTHROPIC_KEY if provider == "anthropic" else OPENAI_KEY
    secret = key.split("-")[-1]
    assert key not in result.output and secret not in result.output
    assert all(key not in record.getMessage() for record in caplog.records)
    files = [p for p in out.rglob("*") if p.is_file()]
    assert {p.name for p in files} >= {"judgments.jsonl", "scores.jsonl", "summary.json"}
    for path in files:
        assert key.encode() not in path.read_bytes(), path
    # the key did reach the server (so the check above means something)
    assert (
        fake.requests_log[0]["headers"].get("authorization") == "REDACTED"
        or fake.requests_log[0]["headers"].get("x-api-key") == "REDACTED"
    )


def test_batch_flag_runs_a_batch_and_a_pending_batch_is_reported(
    fake: FakeProvider, tmp_path: Path
) -> None:
    predictions = write_native(tmp_path / "p.jsonl", make_records(3))
    fake.config.batch_ready_after_polls = 1000
    pending = _judge(fake, predictions, tmp_path / "out", "--runs", "2", "--batch",
                     "--batch-poll", "0.01", "--batch-wait", "0.05")  # fmt: skip
    assert pending.exit_code == 0, pending.output
    assert "still running; rerun the same command" in pending.output
    assert not (tmp_path / "out" / "summary.json").exists()
    fake.config.batch_ready_after_polls = 1
    done = _judge(fake, predictions, tmp_path / "out", "--runs", "2", "--batch",
                  "--batch-poll", "0.01")  # fmt: skip
    assert done.exit_code == 0, done.output
    judge = json.loads((tmp_path / "out" / "summary.json").read_text())["judge"]
    assert judge["calls"]["made"] == 6 and judge["overall"]["count"] == 3
    # half price: 6 calls at batch rates
    assert judge["usage"]["estimated_cost_usd"] == pytest.approx(
        (judge["usage"]["input_tokens"] * 3 + judge["usage"]["output_tokens"] * 15) / 2e6,
        abs=1e-4,
    )


def test_corrupt_existing_summary_is_bad_input_and_nothing_is_replaced(
    fake: FakeProvider, tmp_path: Path
) -> None:
    predictions = write_native(tmp_path / "p.jsonl", make_records(2))
    out = tmp_path / "out"
    out.mkdir()
    (out / "summary.json").write_text("{not json")
    result = _judge(fake, predictions, out, "--runs", "1")
    assert result.exit_code == 2
    assert "summary" in result.output
    assert (out / "summary.json").read_text() == "{not json"
    assert not (out / "judgments.jsonl").exists() and not (out / "scores.jsonl").exists()


def test_prompt_template_is_sent_as_written_and_its_hash_recorded(
    fake: FakeProvider, tmp_path: Path
) -> None:
    from locoscore.judge import load_template

    template = tmp_path / "paper_prompt.txt"
    template.write_text(
        "Label the answer CORRECT or WRONG.\nQ: {question}\nGold: {gold}\n"
        "Type: {category}\nAnswer: {prediction}\n"
        'Return {"explanation": "...", "label": "CORRECT" or "WRONG"}'
    )
    fake.config.scores = ["CORRECT", "WRONG"]
    records = make_records(1)
    predictions = write_native(tmp_path / "p.jsonl", records)
    out = tmp_path / "out"
    result = _judge(fake, predictions, out, "--protocol", "binary", "--prompt-template",
                    str(template), "--runs", "2", "--concurrency", "1")  # fmt: skip
    assert result.exit_code == 0, result.output
    expected_hash = load_template(template, "binary").version_hash
    prompts = [e["body"]["messages"][0]["content"] for e in fake.requests_log]
    assert len(prompts) == 2
    for prompt in prompts:
        assert prompt.startswith("Label the answer CORRECT or WRONG.\nQ: " + records[0].question)
        assert f"\nGold: {records[0].answer}\nType: multi-hop\nAnswer: <candidate-" in prompt
        assert prompt.endswith('Return {"explanation": "...", "label": "CORRECT" or "WRONG"}')
    judge = json.loads((out / "summary.json").read_text())["judge"]
    assert judge["prompt_hash"] == expected_hash and judge["prompt_name"] == "file:paper_prompt.txt"
    assert f"judge:binary|prompt:{expected_hash}|" in judge["signature"]
    assert judge["temperature"] == 0.0 and judge["overall"]["mean"] == 50.0
    assert {row["prompt_hash"] for row in _rows(out / "judgments.jsonl")} == {expected_hash}


def test_a_template_declared_for_one_protocol_cannot_run_under_another() -> None:
    from locoscore.errors import InputError
    from locoscore.judge import JudgeSettings, PromptTemplate

    settings = JudgeSettings(protocol="binary", template=PromptTemplate("rubric", "{question}"))
    with pytest.raises(InputError, match="declares protocol rubric, not binary"):
        settings.resolve()


def test_anthropic_base_url_from_the_environment_is_honoured(
    fake: FakeProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
    predictions = write_native(tmp_path / "p.jsonl", make_records(2))
    result = runner.invoke(
        app,
        ["judge", str(predictions), "--out", str(tmp_path / "o"), "--runs", "2", "--no-progress"],
    )
    assert result.exit_code == 0, result.output
    assert fake.generation_calls == 4


def test_judge_signature_is_one_whole_line_at_40_columns(
    fake: FakeProvider, tmp_path: Path
) -> None:
    predictions = write_native(tmp_path / "p.jsonl", make_records(2))
    out = tmp_path / "out"
    outputs = []
    for extra in (["--dry-run"], []):
        args = ["judge", str(predictions), "--out", str(out), "--base-url", fake.url, "--runs", "1"]
        result = runner.invoke(app, [*args, "--no-progress", *extra], env={"COLUMNS": "40"})
        assert result.exit_code == 0, result.output
        outputs.append(result.output.splitlines())
    signature = json.loads((out / "summary.json").read_text())["judge"]["signature"]
    assert len(signature) > 40
    dry, real = outputs
    assert signature in real
    # before any call, the dry run cannot know what the server says it serves
    assert without_served(signature) in dry
