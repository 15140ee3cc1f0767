"""The lexical protocols on the real dataset and on real recorded harness output."""

from __future__ import annotations

from typing import Any

from reference_locomo import reference_score

import locoscore
from locoscore.benchmarks.locomo.scoring.locomo import normalize_answer_locomo, score_f1_locomo
from locoscore.benchmarks.locomo.scoring.mem0 import bleu1, score_f1_mem0


def _gold_part_nonempty(qa: Any) -> bool:
    gold = qa.gold_text
    if qa.category == 1:
        return all(normalize_answer_locomo(part.strip()) for part in gold.split(","))
    if qa.category == 3:
        gold = gold.split(";")[0].strip()
    return bool(normalize_answer_locomo(gold))


def test_every_question_scores_gold_against_itself_as_one(dataset: Any) -> None:
    items = [qa for qa in dataset.all_questions() if qa.category != 5]
    assert len(items) == 1540
    scored = 0
    for qa in items:
        pred = qa.gold_text.split(";")[0].strip() if qa.category == 3 else qa.gold_text
        score = score_f1_locomo(pred, qa.gold, qa.category)
        if _gold_part_nonempty(qa):
            assert score == 1.0, (qa.sample_id, qa.qa_index)
            scored += 1
        else:
            assert 0.0 <= score < 1.0
    assert scored >= 1530


def test_category_5_phrase_rule_on_every_adversarial_question(dataset: Any) -> None:
    adversarial = [qa for qa in dataset.all_questions() if qa.category == 5]
    assert len(adversarial) == 446
    assert all(
        score_f1_locomo("Not mentioned in the conversation", qa.gold, 5) == 1.0
        for qa in adversarial
    )
    # the wrong option (adversarial_answer) contains the phrase only in two conv-30 items
    hits = [
        (qa.sample_id, qa.qa_index)
        for qa in adversarial
        if score_f1_locomo(qa.gold_text, qa.gold, 5) == 1.0
    ]
    assert hits == [("conv-30", 79), ("conv-30", 103)]


def test_locomo_f1_is_bit_identical_to_the_reference_on_real_system_answers(
    dataset: Any, zep_raw: dict[str, Any]
) -> None:
    compared = 0
    for items in zep_raw.values():
        for item in items:
            category = item["category"]
            pred, gold = item["answer"], item["golden_answer"]
            assert score_f1_locomo(pred, gold, category) == reference_score(pred, gold, category)
            # and with the gold as prediction, which exercises every comma/semicolon path
            assert score_f1_locomo(str(gold), gold, category) == reference_score(
                str(gold), gold, category
            )
            compared += 1
    assert compared == 1540


def test_mem0_f1_and_bleu1_reproduce_every_recorded_value(
    memobase_items: list[dict[str, Any]],
) -> None:
    assert len(memobase_items) == 1540
    f1_equal = sum(
        score_f1_mem0(it["response"], it["answer"]) == it["f1_score"] for it in memobase_items
    )
    bleu_equal = sum(
        bleu1(it["response"], it["answer"]) == it["bleu_score"] for it in memobase_items
    )
    assert (f1_equal, bleu_equal) == (1540, 1540)


def test_public_api_dispatches_protocols(memobase_items: list[dict[str, Any]]) -> None:
    item = memobase_items[0]
    assert (
        locoscore.score_f1(item["response"], item["answer"], item["category"], "mem0")
        == (item["f1_score"])
    )
    assert locoscore.bleu1(item["response"], item["answer"]) == item["bleu_score"]
    assert locoscore.score_f1("x", "x", "single-hop") == 1.0
    assert locoscore.score_f1("", "", 2, protocol="spec") == 1.0
    assert locoscore.score_f1("", "", 2, protocol="locomo") == 0.0


def test_locomo_f1_is_bit_identical_on_memobase_answers_under_every_rule(
    memobase_items: list[dict[str, Any]],
) -> None:
    # Each real answer/gold pair under each per-category rule (1: comma split, 3: ';' cut,
    # 4: plain, 5: phrase), not only its own category: 1,540 x 4 comparisons.
    mismatches = [
        (index, category)
        for index, item in enumerate(memobase_items)
        for category in (1, 3, 4, 5)
        if score_f1_locomo(item["response"], item["answer"], category)
        != reference_score(item["response"], item["answer"], category)
    ]
    assert mismatches == []
    assert len(memobase_items) == 1540
