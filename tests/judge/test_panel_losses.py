"""Why each question was lost: a fixture with known retrieval, answers and verdicts against
a hand-made table."""

from __future__ import annotations

import pytest

from locoscore.judge.panel.losses import AnswerFacts, abstains, loss_cause, loss_section

T, F = True, False
VERDICTS = {  # two judges
    "q1": [T, T],  # right under both: not lost
    "q2": [T, F],  # judges split
    "q3": [F, F],  # nothing retrieved, then abstained: not retrieved comes first
    "q4": [F, F],  # half the evidence retrieved, answer declines: abstained
    "q5": [F, F],  # all evidence retrieved, wrong answer
    "q6": [F, F],  # the run recorded nothing of it
    "q7": [F, None],  # errata dispute the gold
    "q8": [None, None],  # no verdict: not lost, not counted
}
TYPES = {"q1": "x", "q2": "x", "q3": "x", "q4": "y", "q5": "y", "q6": "y", "q7": "y", "q8": "y"}
FACTS = {
    "q3": AnswerFacts("Not mentioned in the conversation.", 0.0),
    "q4": AnswerFacts("I don't know.", 0.5),
    "q5": AnswerFacts("Paris", 1.0),
    "q7": AnswerFacts("2021", 1.0),
}
# the gold-evidence run: right on q1 q2 q3 q5, wrong on q4 q6 q8, q7 not in it
GOLD = {"q1": T, "q2": T, "q3": T, "q4": F, "q5": T, "q6": F, "q8": F}

HAND_MADE = {
    "q2": "judges split",
    "q3": "not retrieved",
    "q4": "abstained",
    "q5": "retrieved, answered wrong",
    "q6": "wrong, retrieval unknown",
    "q7": "gold disputed",
}


def test_loss_causes_match_the_hand_made_table() -> None:
    section = loss_section(VERDICTS, TYPES, FACTS, frozenset({"q7"}), GOLD)
    assert section["causes"] == HAND_MADE
    assert section["by_type"] == {
        "x": {"judges split": 1, "not retrieved": 1},
        "y": {
            "gold disputed": 1,
            "abstained": 1,
            "retrieved, answered wrong": 1,
            "wrong, retrieval unknown": 1,
        },
    }
    assert (section["lost"], section["questions"]) == (6, 8)
    # gold-evidence run: 7 questions shared (not q7); right on q1 q2 q3 q5 -> 4/7.
    # lost and in it: q2 q3 q4 q5 q6 (5); right with the gold evidence: q2 q3 q5 -> 3/5
    assert section["gold_evidence"] == {
        "questions": 7,
        "p_correct_given_gold_retrieved": pytest.approx(4 / 7, abs=1e-4),
        "lost": 5,
        "lost_answered_with_gold": 3,
        "memory_share_of_losses": 0.6,
    }


def test_one_judge_has_no_split_and_abstention_phrases() -> None:
    assert loss_cause([F], AnswerFacts("No idea", 1.0)) == "abstained"
    assert loss_cause([F], AnswerFacts("No idea", 0.0)) == "not retrieved"
    assert loss_cause([T], AnswerFacts("", 0.0)) is None
    assert [abstains(a) for a in ("Not mentioned", "unknown", "They went to Paris")] == [T, T, F]
