"""LoCoMo's records as neutral judge items: the cache keys and prompts of the record-based
engine they replaced, byte for byte (so every existing judge cache still answers), and the
category-5 exclusion applied at LoCoMo's edge, not in the engine."""

from __future__ import annotations

import re

from locoscore.benchmarks.locomo.data.models import PredictionRecord
from locoscore.benchmarks.locomo.judge.from_records import judge_items, record_item
from locoscore.judge.items import JudgeItem
from locoscore.judge.plan import call_key, plan_calls, render_prompt
from locoscore.judge.settings import JudgeSettings

TEMPORAL = PredictionRecord(
    sample_id="conv-26",
    qa_index=3,
    category=2,
    question="When did Caroline go to the LGBTQ support group?",
    answer="7 May 2023",
    prediction="On 7 May 2023.",
)
TRAP = PredictionRecord(
    sample_id="conv-26",
    qa_index=7,
    category=5,
    question="What did Caroline realize after her charity race?",
    answer="self-care is important",
    gold_field="adversarial_answer",
    prediction="Not mentioned.",
)


def test_cache_keys_are_those_the_record_based_engine_made() -> None:
    # computed with the engine before judge items existed (main at 358a26b)
    judge = JudgeSettings(include_adversarial=True).resolve()
    assert judge.prompt_hash == "cfa13356e26c9107"
    assert call_key(judge, record_item(TEMPORAL), 0) == (
        "8044217dbe0c412df41beb3ba007d9ff7c920b71fc5b2974cd8c9aae465885ff"
    )
    assert call_key(judge, record_item(TRAP), 2) == (
        "41583365720b8fe793d2d4f79225a48801ce659e2d71c838f599e38fa6559c32"
    )


def test_the_item_carries_what_the_judge_sees() -> None:
    item = record_item(TRAP)
    assert (item.key, item.question_id, item.index, item.type_id) == ("conv-26#7", "conv-26", 7, 5)
    assert item.reference.startswith("The conversation does not contain this information")
    assert item.reference.endswith("(Tempting but wrong answer: self-care is important)")
    prompt = render_prompt(JudgeSettings().resolve(), item)
    assert "Tempting but wrong answer: self-care is important" in prompt
    assert re.search(r"<candidate-[0-9a-f]{16}>\nNot mentioned\.\n</candidate-", prompt)


def test_category_5_is_left_out_at_locomos_edge_and_the_engine_judges_every_item() -> None:
    assert [i.key for i in judge_items([TEMPORAL, TRAP], include_adversarial=False)] == [
        "conv-26#3"
    ]
    judge = JudgeSettings(runs=2).resolve()  # include_adversarial off: no filter in the engine
    other = JudgeItem("q-1#0", "q-1", 0, 5, "Where?", "Paris", "Paris", rule=5)
    plan = plan_calls([other], judge, None)
    assert [(s.item.key, s.run_index) for s in plan.missing] == [("q-1#0", 0), ("q-1#0", 1)]


def test_locomos_items_name_their_category_and_guidance_the_engine_names_none() -> None:
    """The built-in rubric prompt says the LoCoMo category and its guidance because LoCoMo's
    item carries them; an item of another benchmark gets its id, never a LoCoMo name."""
    judge = JudgeSettings().resolve()
    prompt = render_prompt(judge, record_item(TEMPORAL))
    assert "Question category: temporal" in prompt
    assert "What this category requires: The question is about time:" in prompt
    other = render_prompt(judge, JudgeItem("q-1#0", "q-1", 0, 2, "When?", "May", "May"))
    assert "Question category: 2\n" in other and "temporal" not in other
    assert "What this category requires: \n" in other
