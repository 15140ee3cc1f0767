"""The BEAM rubric-judge audit: gold, empty and off-topic answers through the same rubric
pass; with the deterministic stand-in judge every figure is computed here too."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from beam_helpers import BEAM_100K, conversations_1_and_2, grade, rule

from locoscore.benchmarks.beam import BEAM
from locoscore.benchmarks.beam.audit import off_topic_source, probe_predictions, run_beam_audit
from locoscore.judge.settings import JudgeSettings
from locoscore.testing.fake_provider import FakeConfig, FakeProvider

pytestmark = pytest.mark.skipif(not BEAM_100K.exists(), reason="BEAM 100K not at ../shared")


@pytest.fixture(scope="module")
def data():
    return conversations_1_and_2()


def test_probe_sets(data) -> None:
    sets = probe_predictions(data)
    with_gold = [q for q in data.questions if q.gold]
    assert len(sets["gold"]) == len(with_gold) == 32  # instruction/preference have none
    assert len(sets["empty"]) == 40 and {p.response for p in sets["empty"]} == {""}
    pool = list(data.questions)
    for prediction in sets["off-topic"]:
        q = next(q for q in pool if q.question_id == prediction.question_id)
        other = off_topic_source(q, pool)
        assert other is not None and prediction.response == other.gold
        assert other.ability != q.ability and other.conversation_id != q.conversation_id


def test_audit_figures_equal_hand_computed(data, tmp_path: Path) -> None:
    with FakeProvider(FakeConfig(verdict=rule)) as fake:
        settings = JudgeSettings(base_url=fake.url, runs=1, concurrency=8, timeout_s=5.0)
        dry = asyncio.run(
            run_beam_audit(data, settings, tmp_path, dry_run=True, sampler=BEAM.draw_sample)
        )
        assert fake.generation_calls == 0
        audit = asyncio.run(run_beam_audit(data, settings, tmp_path, sampler=BEAM.draw_sample))
        assert fake.generation_calls == dry.calls_planned
    document = json.loads((tmp_path / "audit.json").read_text())
    assert document == audit.document
    by_id = {q.question_id: q for q in data.questions}
    for name, predictions in probe_predictions(data).items():
        expected = []
        for p in predictions:
            q = by_id[p.question_id]
            if q.ability == "event_ordering":
                continue  # scored by τ: checked in test_beam_judge
            grades = [grade(item, p.response) / 100 if p.response else 0.0 for item in q.rubric]
            expected.append(sum(grades) / len(grades))
        got = document["sets"][name]
        non_ordering = [v for a, v in got["per_ability"].items() if a != "event_ordering"]
        assert sum(v["n"] for v in non_ordering) == len(expected)
        total = sum(v["mean"] * v["n"] for v in non_ordering)
        assert total == pytest.approx(sum(expected))
    assert document["sets"]["empty"]["mean"] == 0.0
    assert "leniency" in (tmp_path / "audit.md").read_text()
