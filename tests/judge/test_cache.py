"""The durable cache: reruns make no calls, repeats stay distinct, changes make new keys."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from judge_helpers import anthropic_settings, make_records

from locoscore.benchmarks.locomo.judge import judge_pass
from locoscore.judge import load_template
from locoscore.judge.cache import JudgeStore
from locoscore.results.layout import JUDGE_CACHE
from locoscore.testing.fake_provider import FakeProvider


def _run(records, settings, out: Path):  # type: ignore[no-untyped-def]
    return asyncio.run(judge_pass(records, settings, out))


def test_second_identical_run_makes_no_call(fake: FakeProvider, tmp_path: Path) -> None:
    records = make_records(4)
    settings = anthropic_settings(fake, runs=3)
    first = _run(records, settings, tmp_path)
    assert fake.generation_calls == 12
    fake.reset_counters()
    second = _run(records, settings, tmp_path)
    assert fake.requests == 0
    assert second.summary is not None and first.summary is not None
    assert second.summary["overall"] == first.summary["overall"]
    assert second.summary["calls"]["cached"] == 12
    lines = (tmp_path / "judgments.jsonl").read_text().splitlines()
    assert all(json.loads(line)["cached"] for line in lines)


def test_ten_repeats_of_one_question_are_ten_cache_entries(
    fake: FakeProvider, tmp_path: Path
) -> None:
    _run(make_records(1), anthropic_settings(fake, runs=10), tmp_path)
    with JudgeStore(tmp_path / JUDGE_CACHE) as store:
        assert store.count() == 10
        runs = store.conn.execute("SELECT DISTINCT run_index FROM judgments").fetchall()
    assert sorted(r[0] for r in runs) == list(range(10))


def test_each_verdict_is_stored_with_raw_reply_usage_and_latency(
    fake: FakeProvider, tmp_path: Path
) -> None:
    fake.config.scores = [66]
    _run(make_records(1), anthropic_settings(fake), tmp_path)
    with JudgeStore(tmp_path / JUDGE_CACHE) as store:
        (row,) = store.conn.execute(
            "SELECT score, raw_reply, input_tokens, output_tokens, latency_s, created_at "
            "FROM judgments"
        ).fetchall()
    assert row[0] == 66.0
    assert json.loads(row[1])["content"][0]["type"] == "text"
    assert row[2] > 0 and row[3] > 0 and row[4] > 0 and row[5] > 0


def test_changed_prompt_makes_new_calls(fake: FakeProvider, tmp_path: Path) -> None:
    records = make_records(3)
    _run(records, anthropic_settings(fake, runs=2), tmp_path)
    fake.reset_counters()
    template_file = tmp_path / "mine.txt"
    template_file.write_text("Score 0-100. Q: {question} Gold: {gold} Answer: {prediction}")
    template = load_template(template_file, "rubric")
    _run(records, anthropic_settings(fake, runs=2, template=template), tmp_path)
    assert fake.generation_calls == 6


def test_changed_model_or_temperature_makes_new_calls(fake: FakeProvider, tmp_path: Path) -> None:
    records = make_records(2)
    _run(records, anthropic_settings(fake), tmp_path)
    fake.reset_counters()
    _run(records, anthropic_settings(fake, model="claude-haiku-4-5"), tmp_path)
    assert fake.generation_calls == 2
    fake.reset_counters()
    _run(records, anthropic_settings(fake, temperature=0.2), tmp_path)
    assert fake.generation_calls == 2


def test_changed_prediction_makes_a_new_call_only_for_that_question(
    fake: FakeProvider, tmp_path: Path
) -> None:
    records = make_records(3)
    _run(records, anthropic_settings(fake), tmp_path)
    fake.reset_counters()
    records[1] = records[1].model_copy(update={"prediction": "Something else entirely."})
    _run(records, anthropic_settings(fake), tmp_path)
    assert fake.generation_calls == 1


def test_refusals_and_unscored_replies_are_not_cached(fake: FakeProvider, tmp_path: Path) -> None:
    fake.config.scores = ["refusal", "empty"]
    settings = anthropic_settings(fake, runs=2, concurrency=1)
    first = _run(make_records(1), settings, tmp_path)
    assert first.summary is not None and first.summary["calls"]["failed"] == 2
    with JudgeStore(tmp_path / JUDGE_CACHE) as store:
        assert store.count() == 0
    fake.reset_counters()
    fake.config.scores = [55, 65]
    second = _run(make_records(1), settings, tmp_path)
    assert fake.generation_calls == 2
    assert second.summary is not None and second.summary["overall"]["mean"] == 60.0


def test_trivial_predictions_cost_no_call_and_score_zero(
    fake: FakeProvider, tmp_path: Path
) -> None:
    records = make_records(2)
    records[0] = records[0].model_copy(update={"prediction": "Thought process:"})
    result = _run(records, anthropic_settings(fake, runs=3), tmp_path)
    assert fake.generation_calls == 3  # only the real answer's three runs
    rows = [json.loads(x) for x in (tmp_path / "judgments.jsonl").read_text().splitlines()]
    trivial = [r for r in rows if r["key"] == records[0].key]
    assert [r["score"] for r in trivial] == [0.0, 0.0, 0.0]
    assert "preamble without an answer" in trivial[0]["explanation"]
    assert result.summary is not None and result.summary["calls"]["short_circuited"] == 3


def test_changed_category_or_reference_makes_a_new_call(fake: FakeProvider, tmp_path: Path) -> None:
    # Both change the prompt (the category's grading standard, the reference shown).
    records = make_records(3)
    _run(records, anthropic_settings(fake), tmp_path)
    fake.reset_counters()
    records[0] = records[0].model_copy(update={"category": 3 if records[0].category != 3 else 1})
    records[1] = records[1].model_copy(update={"answer": "a corrected gold answer"})
    _run(records, anthropic_settings(fake), tmp_path)
    assert fake.generation_calls == 2
