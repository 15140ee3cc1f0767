"""The BEAM rubric judge end to end over real HTTP (the fake provider decides each item by a
rule the test applies too): one call per rubric item and run, event-order pairs, 0.5 kept
or truncated, the ability aggregations, a missing answer scored 0."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path

import pytest
from beam_helpers import BEAM_100K, conversations_1_and_2, grade, rule

from locoscore.benchmarks.beam import BEAM
from locoscore.benchmarks.beam.judge_pass import BeamPrediction, beam_judge_pass, read_predictions
from locoscore.benchmarks.beam.scoring import align_events, event_order_score
from locoscore.errors import InputError
from locoscore.judge.settings import JudgeSettings
from locoscore.testing.fake_provider import FakeConfig, FakeProvider
from locoscore.testing.llama_server import LlamaConfig, LlamaServer

pytestmark = pytest.mark.skipif(not BEAM_100K.exists(), reason="BEAM 100K not at ../shared")


@pytest.fixture(scope="module")
def data():
    return conversations_1_and_2()


def _answers(data) -> dict[str, str]:
    """Conversation 1 answered: each question with its first rubric item (a hit), except
    event ordering, answered with the rubric reversed; conversation 2 mostly unanswered."""
    out = {}
    for q in data.questions:
        if q.conversation_id == "1":
            if q.ability == "event_ordering":
                out[q.question_id] = "\n".join(reversed(q.rubric))
            else:
                out[q.question_id] = q.rubric[0]
    out["2:abstention:0"] = "I do not know."
    return out


def _run(data, tmp_path: Path, fake: FakeProvider, *, official: bool, runs: int = 1, **kw):
    predictions = [BeamPrediction(qid, text, False) for qid, text in _answers(data).items()]
    settings = JudgeSettings(base_url=fake.url, runs=runs, concurrency=8, timeout_s=5.0)
    return asyncio.run(
        beam_judge_pass(
            predictions, data, settings, tmp_path, official=official, sampler=BEAM.draw_sample, **kw
        )
    )


def _expected(data, *, official: bool) -> dict[str, float]:
    answers = _answers(data)
    expected: dict[str, float] = {}
    for q in data.questions:
        text = answers.get(q.question_id)
        if text is None:
            expected[q.question_id] = 0.0
            continue
        if q.ability == "event_ordering":
            lines = [line for line in text.split("\n") if official or line.strip()]
            rubric = q.rubric

            def said(r: int, i: int, rubric=rubric, lines=lines) -> bool:
                return rubric[r].lower() in lines[i].lower()

            canonical = align_events(rubric, lines, said)
            expected[q.question_id] = event_order_score(q.rubric, canonical).tau_norm
            continue
        grades = [grade(item, text) / 100 for item in q.rubric]
        if official:
            grades = [float(int(g)) for g in grades]
        expected[q.question_id] = sum(grades) / len(grades)
    return expected


@pytest.mark.parametrize("official", [False, True])
def test_scores_equal_hand_computed_values(data, tmp_path: Path, official: bool) -> None:
    with FakeProvider(FakeConfig(verdict=rule)) as fake:
        dry = _run(data, tmp_path, fake, official=official, dry_run=True, runs=2)
        assert fake.generation_calls == 0
        result = _run(data, tmp_path, fake, official=official, runs=2)
        calls = fake.generation_calls
    answers = _answers(data)
    items = sum(len(q.rubric) for q in data.questions if q.question_id in answers)
    pairs = sum(
        len(q.rubric)
        * len([x for x in answers[q.question_id].split("\n") if official or x.strip()])
        for q in data.questions
        if q.ability == "event_ordering" and q.question_id in answers
    )
    assert dry.calls_planned == (items + pairs) * 2 == calls
    expected = _expected(data, official=official)
    got = {row["question_id"]: row["beam_score"] for row in result.rows}
    assert got == pytest.approx(expected)
    summary = result.summary
    assert summary is not None and summary["questions"] == 40
    assert summary["missing"] == 19  # conversation 2 answered once
    weighted = sum(expected.values()) / 40
    assert summary["question_weighted"] == pytest.approx(weighted)
    by_ability: dict[str, list[float]] = {}
    for q in data.questions:
        by_ability.setdefault(q.ability, []).append(expected[q.question_id])
    means = [sum(v) / len(v) for v in by_ability.values()]
    assert summary["mean_of_abilities"] == pytest.approx(sum(means) / len(means))
    assert summary["run_std"] == pytest.approx(0.0)  # a deterministic judge


def test_half_points_differ_between_the_protocols(data, tmp_path: Path) -> None:
    with FakeProvider(FakeConfig(verdict=rule)) as fake:
        beam = _run(data, tmp_path / "b", fake, official=False)
        official = _run(data, tmp_path / "o", fake, official=True)
    halves = [
        q.question_id
        for q in data.questions
        if q.question_id in _answers(data)
        and q.ability != "event_ordering"
        and any(grade(i, _answers(data)[q.question_id]) == 50 for i in q.rubric)
    ]
    assert halves, "the fixture must exercise a half point"
    b = {r["question_id"]: r["beam_score"] for r in beam.rows}
    o = {r["question_id"]: r["beam_score"] for r in official.rows}
    assert all(b[qid] > o[qid] for qid in halves)


def test_rerun_is_served_from_the_cache(data, tmp_path: Path) -> None:
    with FakeProvider(FakeConfig(verdict=rule)) as fake:
        first = _run(data, tmp_path, fake, official=False)
        made = fake.generation_calls
        second = _run(data, tmp_path, fake, official=False)
        assert fake.generation_calls == made
    assert second.rows == first.rows


def test_predictions_with_unknown_ids_are_refused(data, tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps({"question_id": "99:abstention:0", "prediction": "x"}) + "\n")
    with pytest.raises(InputError, match="line 1, field 'question_id': unknown question id"):
        read_predictions(path, data)


def test_limit_samples_the_answered_conversations_by_ability(data, tmp_path: Path) -> None:
    """`--limit 10` of the 40 questions (4 per ability): one per ability, the one with the
    smallest sha256("0:<id>"), e.g. 2:abstention:0 (1f1a…) before 2:abstention:1 (4c43…),
    1:abstention:0 (5d54…) and 1:abstention:1 (8f15…)."""
    from locoscore.benchmarks.beam.folder import judge_folder
    from locoscore.data.sample import SampleSpec

    picks = [
        "2:abstention:0", "2:contradiction_resolution:0", "2:event_ordering:1",
        "1:information_extraction:1", "1:instruction_following:1", "2:knowledge_update:1",
        "2:multi_session_reasoning:0", "2:preference_following:1", "1:summarization:1",
        "2:temporal_reasoning:0",
    ]  # fmt: skip
    spec = SampleSpec(10)
    with FakeProvider(FakeConfig(verdict=rule)) as fake:
        result = _run(data, tmp_path, fake, official=False, sample=spec)
        calls, port = fake.generation_calls, fake.port
        settings = JudgeSettings(base_url=fake.url, runs=1, timeout_s=5.0)
        answers = tmp_path / "p.jsonl"
        answers.write_text(
            "".join(
                json.dumps({"question_id": q, "prediction": t}) + "\n"
                for q, t in _answers(data).items()
            )
        )
        dry = asyncio.run(
            judge_folder(
                answers,
                data,
                settings,
                tmp_path / "d",
                dry_run=True,
                sample=spec,
                sampler=BEAM.draw_sample,
            )
        )
    assert result.sample is not None and sorted(result.sample.ids) == sorted(picks)
    assert {k: v["sample"] for k, v in result.sample.strata.items()} == dict.fromkeys(
        sorted({p.split(":")[1] for p in picks}), 1
    )
    assert sorted(row["question_id"] for row in result.rows) == sorted(picks)
    summary = result.summary
    assert summary is not None and (summary["questions"], summary["missing"]) == (10, 6)
    # only the four answered questions of the sample are judged, one call per rubric item
    answered = [q for q in data.questions if q.question_id in picks and q.conversation_id == "1"]
    answered += [q for q in data.questions if q.question_id == "2:abstention:0"]
    assert calls == sum(len(q.rubric) for q in answered)
    expected = _expected(data, official=False)
    got = {row["question_id"]: row["beam_score"] for row in result.rows}
    assert got == pytest.approx({q: expected[q] if q in {a.question_id for a in answered}
                                 else 0.0 for q in picks})  # fmt: skip
    assert "|sample:10/40@seed0:strat-ability|version:" in dry.signature
    # the endpoint judged through is named (as in every judge signature); BEAM has no `adv:`
    assert f"|provider:anthropic|endpoint:127.0.0.1:{port}|model:" in dry.signature
    assert "|adv:" not in dry.signature


@pytest.mark.parametrize("official", [False, True])
def test_the_prompts_sent_show_the_question_only_when_asked(
    data, tmp_path: Path, official: bool
) -> None:
    """`beam` shows the question under its heading; `beam-official` withholds it without an
    empty heading left behind; the event-pair prompt names no LoCoMo category."""
    prompts: list[str] = []

    def recording(prompt: str) -> int | str:
        prompts.append(prompt)
        return rule(prompt)

    with FakeProvider(FakeConfig(verdict=recording)) as fake:
        _run(data, tmp_path, fake, official=official)
    texts = {q.text for q in data.questions}
    items = [p for p in prompts if "The requirement (" in p]
    pairs = [p for p in prompts if "First snippet" in p]
    assert items and pairs
    if official:
        assert not any("question:" in p for p in items)
    else:
        shown = [
            p.split("The user's question:\n", 1)[1].split("\n\nThe requirement")[0] for p in items
        ]
        assert set(shown) <= texts and all(shown)
    for prompt in pairs:
        assert "open-domain" not in prompt and "category" not in prompt.lower()
        asked = prompt.split("in the order they happened: ", 1)[1].split("\n")[0]
        assert asked in {q.text.split("\n")[0] for q in data.questions}


def test_a_grade_off_the_asked_scale_is_no_verdict(data, tmp_path: Path) -> None:
    """A small model answering 0.5 on the "100, 50 or 0" scale: the item is unparsed, so its
    question is unscored, never graded 0.5 % (0.5 / 100)."""
    answers = _answers(data)
    target = next(
        q
        for q in data.questions
        if q.ability == "information_extraction" and q.question_id in answers
    )

    def verdict(prompt: str) -> str | float:
        if f"avoids):\n{target.rubric[0]}\n\n" in prompt:
            return 0.5
        return rule(prompt)

    settings = JudgeSettings(
        provider="openai-compatible",
        model="small-judge",
        base_url="",
        runs=1,
        timeout_s=5.0,
    )
    predictions = [BeamPrediction(qid, text, False) for qid, text in answers.items()]
    with LlamaServer(LlamaConfig(slots=4, verdict=verdict)) as server:
        settings = dataclasses.replace(settings, base_url=server.openai_url)
        result = asyncio.run(
            beam_judge_pass(
                predictions, data, settings, tmp_path, official=False, sampler=BEAM.draw_sample
            )
        )
    assert result.items.run is not None
    failed = [row for row in result.items.run.rows if row.error]
    assert len(failed) == 1  # the one reply off the scale
    assert failed[0].error.startswith("score 0.5 is off the asked scale (100, 50, 0)")
    scores = {row["question_id"]: row["beam_score"] for row in result.rows}
    assert scores[target.question_id] is None
    expected = _expected(data, official=False)
    del expected[target.question_id]
    del scores[target.question_id]
    assert scores == pytest.approx(expected)  # every other question as the rule grades it
    assert result.summary is not None and result.summary["unscored"] == 1
