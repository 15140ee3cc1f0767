"""BEAM's repository layout read into conversations a system may see: counts hand-checked on
the real 100K size, dates from the first user message, generation markers stripped, evidence
ids resolved, anomalies counted, malformed files refused with one line."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from locoscore.benchmarks.beam.data import ABILITIES, load_beam, strip_marker
from locoscore.errors import DatasetError

BEAM_100K = Path(__file__).resolve().parents[2] / "../shared/data/beam/100K"
needs_data = pytest.mark.skipif(not BEAM_100K.exists(), reason="BEAM 100K not at ../shared")


@pytest.fixture(scope="module")
def full():
    return load_beam(BEAM_100K, truncated=False)


@pytest.fixture(scope="module")
def official():
    return load_beam(BEAM_100K)


@needs_data
def test_real_100k_counts(full) -> None:
    assert len(full.conversations) == 20
    assert len(full.questions) == 400
    assert Counter(q.ability for q in full.questions) == {a: 40 for a in ABILITIES}
    assert sum(len(c.sessions) for c in full.conversations) == 90
    assert full.turn_groups == 2127
    assert full.message_count == 5732
    assert not full.truncated


@needs_data
def test_every_session_dated_from_its_first_user_message(full) -> None:
    sessions = [s for c in full.conversations for s in c.sessions]
    assert all(s.date_iso for s in sessions)
    first = full.conversations[0]
    assert first.conversation_id == "1"
    assert [s.date_raw for s in first.sessions] == [
        "March-15-2024",
        "April-05-2024",
        "April-25-2024",
    ]
    assert [s.date_iso for s in first.sessions] == ["2024-03-15", "2024-04-05", "2024-04-25"]
    # a question is asked after the last session
    assert {q.date_iso for q in full.questions if q.conversation_id == "1"} == {"2024-04-25"}
    assert full.anomalies.null_anchors == 0 and full.anomalies.backwards_anchors == 0


@needs_data
def test_no_generation_marker_reaches_a_system(full, official) -> None:
    for dataset in (full, official):
        texts = [t.text for c in dataset.conversations for s in c.sessions for t in s.turns]
        assert not any("->->" in text for text in texts)
    assert full.anomalies.markers_stripped == {"user": 2155, "assistant": 44}
    assert full.anomalies.malformed_markers == 8  # '2,N/A', '5,14)', '2,22, 24', ...


@needs_data
def test_truncated_conversation_is_a_prefix_and_holds_every_evidence_id(full, official) -> None:
    assert official.truncated
    by_id = {c.conversation_id: c for c in full.conversations}
    shorter = 0
    for conversation in official.conversations:
        ids = [t.dia_id for s in conversation.sessions for t in s.turns]
        whole = [t.dia_id for s in by_id[conversation.conversation_id].sessions for t in s.turns]
        assert ids == whole[: len(ids)]
        shorter += len(ids) < len(whole)
    assert shorter == 10  # the ten folders with chat_trunecated.json
    for dataset in (full, official):
        known = {
            (c.conversation_id, t.dia_id)
            for c in dataset.conversations
            for s in c.sessions
            for t in s.turns
        }
        assert dataset.anomalies.unresolved_evidence == 0
        assert all((q.conversation_id, e) in known for q in dataset.questions for e in q.evidence)
    assert official.sha256 != full.sha256


@needs_data
def test_questions_carry_rubric_gold_and_evidence(full) -> None:
    q = next(q for q in full.questions if q.question_id == "1:information_extraction:0")
    assert q.text == "When does my first sprint end?"
    assert q.rubric == ("LLM response should state: March 29",)
    assert q.gold == "My first sprint ends on March 29."
    assert q.evidence == ("28",)
    assert all(q.gold is None for q in full.questions if q.ability == "preference_following")
    # dict-shaped evidence is flattened in order
    by_id = {q.question_id: q for q in full.questions}
    assert by_id["1:contradiction_resolution:0"].evidence == ("58", "24")
    assert by_id["2:contradiction_resolution:0"].evidence == ("32", "34", "36", "70")
    assert by_id["1:contradiction_resolution:1"].evidence == ("66",)  # named twice, kept once
    # 5: conversation 18's event_ordering[1] nests all its ids (below), no longer empty
    assert full.anomalies.empty_evidence == 5


# The raw `source_chat_ids` of the three questions that nest lists (100K/<n>/
# probing_questions.json, event_ordering[1]), copied from the files:
#   4: [116, 118, 120, 122, 128, 130, 132, 134, [136, 138]]
#  13: [20, 22, [70, 72, 74], [174, 176], 232, 282]
#  18: [[24, 26, 28], [146], [202, 204], [262]]
NESTED_EVIDENCE = {
    "4:event_ordering:1": ("116", "118", "120", "122", "128", "130", "132", "134", "136", "138"),
    "13:event_ordering:1": ("20", "22", "70", "72", "74", "174", "176", "232", "282"),
    "18:event_ordering:1": ("24", "26", "28", "146", "202", "204", "262"),
}


@needs_data
def test_nested_evidence_lists_are_flattened_not_dropped(official) -> None:
    """The loader dropped the nested ids: 8, 4 and 0 ids for these questions."""
    by_id = {q.question_id: q for q in official.questions}
    assert {qid: by_id[qid].evidence for qid in NESTED_EVIDENCE} == NESTED_EVIDENCE
    assert official.anomalies.unresolved_evidence == 0  # every flattened id names a message


@needs_data
def test_nested_evidence_enters_the_evidence_recall(official) -> None:
    """Conversation 18's question had no evidence, so recall left it out; now retrieving 3
    of its 7 messages in the first item gives it 3/7 at every k."""
    from locoscore.benchmarks.beam.outputs import run_summary

    record = {
        "question_id": "18:event_ordering:1",
        "prediction": "x",
        "retrieved": [{"dia_ids": [24, 146, 262]}, {"dia_ids": [999]}],
    }
    recall = run_summary([record], official)["evidence_recall"]
    assert recall["@1"]["n"] == 1
    assert recall["@1"]["per_ability"]["event_ordering"] == pytest.approx(3 / 7)


def test_marker_strip() -> None:
    assert strip_marker("Plan my week ->-> 1,2") == ("Plan my week", " 1,2")
    assert strip_marker("no marker") == ("no marker", None)
    assert strip_marker("odd ->-> 5,14)")[0] == "odd"


def _write(folder: Path, chat: object, probing: object) -> None:
    folder.mkdir(parents=True)
    (folder / "chat.json").write_text(json.dumps(chat))
    (folder / "probing_questions.json").write_text(json.dumps(probing))


def _batch(first_id: int, anchor: str | None) -> dict:
    user = {
        "role": "user",
        "id": first_id,
        "content": "hi ->-> 1,1",
        "question_type": "main_question",
    }
    if anchor is not None:
        user["time_anchor"] = anchor
    reply = {"role": "assistant", "id": first_id + 1, "content": "hello"}
    return {"batch_number": 1, "time_anchor": None, "turns": [[user, reply]]}


QUESTIONS = {
    "information_extraction": [
        {"question": "q?", "answer": "a", "rubric": ["a"], "source_chat_ids": [1, 99]}
    ]
}


def test_ten_million_plan_layout_and_date_anomalies(tmp_path: Path) -> None:
    chat = [
        {"plan-1": [_batch(0, "May-02-2024"), _batch(2, None)]},
        {"plan-2": [_batch(4, "April-01-2024")]},
    ]
    _write(tmp_path / "10M" / "1", chat, QUESTIONS)
    dataset = load_beam(tmp_path / "10M")
    [conversation] = dataset.conversations
    assert [s.date_iso for s in conversation.sessions] == ["2024-05-02", None, "2024-04-01"]
    assert [t.dia_id for s in conversation.sessions for t in s.turns] == [
        "0",
        "1",
        "2",
        "3",
        "4",
        "5",
    ]
    assert dataset.anomalies.null_anchors == 1
    assert dataset.anomalies.backwards_anchors == 1
    assert dataset.anomalies.unresolved_evidence == 1  # id 99 names no message
    assert dataset.questions[0].evidence == ("1",)


def test_string_and_nested_ids_resolve_in_order_each_once(tmp_path: Path) -> None:
    probing = {
        "information_extraction": [
            {**QUESTIONS["information_extraction"][0], "source_chat_ids": ["1", [[0], 1]]}
        ]
    }
    _write(tmp_path / "100K" / "1", [_batch(0, "May-02-2024")], probing)
    assert load_beam(tmp_path / "100K").questions[0].evidence == ("1", "0")


@pytest.mark.parametrize(
    ("chat", "probing", "expected"),
    [
        ({"not": "a list"}, QUESTIONS, "chat.json: expected a list of batches"),
        ([_batch(0, "May-02-2024")], {"telepathy": []}, "field 'telepathy': unknown ability"),
        (
            [_batch(0, "May-02-2024")],
            {"summarization": [{"question": "sum?", "ideal_summary": "s"}]},
            "record summarization[0], field 'rubric'",
        ),
        ([_batch(0, "02/05/2024")], QUESTIONS, "field 'time_anchor': unrecognised time anchor"),
        *(
            (
                [_batch(0, "May-02-2024")],
                {
                    "information_extraction": [
                        {**QUESTIONS["information_extraction"][0], "source_chat_ids": ids}
                    ]
                },
                "probing_questions.json, record information_extraction[0], "
                f"field 'source_chat_ids': expected message ids (ints or strings), got {bad}",
            )
            for ids, bad in (
                ([1, [0, {"id": 1}]], "{'id': 1}"),
                ([1, None], "None"),
                ({"first_event": [True]}, "True"),
                ([[0.5]], "0.5"),
            )
        ),
        (
            [{"turns": [[{"role": "system", "id": 0, "content": "be brief"}]]}],
            QUESTIONS,
            "chat.json, record batch 1 turn 0 message 0, field 'role': unknown role 'system'",
        ),
    ],
)
def test_malformed_files_are_one_line_errors(tmp_path: Path, chat, probing, expected) -> None:
    _write(tmp_path / "100K" / "1", chat, probing)
    with pytest.raises(DatasetError) as info:
        load_beam(tmp_path / "100K")
    assert expected in str(info.value)
    assert "\n" not in str(info.value)


def test_a_conversation_folder_without_its_chat_is_refused_not_skipped(tmp_path: Path) -> None:
    """Skipped, it silently took its questions out of the benchmark (20 of 40, exit 0)."""
    _write(tmp_path / "100K" / "1", [_batch(0, "May-02-2024")], QUESTIONS)
    _write(tmp_path / "100K" / "2", [_batch(0, "May-02-2024")], QUESTIONS)
    (tmp_path / "100K" / "2" / "chat.json").unlink()
    with pytest.raises(DatasetError) as info:
        load_beam(tmp_path / "100K")
    assert str(info.value).startswith(f"{tmp_path / '100K' / '2'}: missing chat.json")


def test_a_folder_that_is_not_beam(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="not a BEAM folder"):
        load_beam(tmp_path)


@needs_data
def test_the_answer_budget_holds_the_longest_gold_with_room(full) -> None:
    """128 tokens cut BEAM's summaries (golds of 206 tokens at the median); the budget is
    BEAM's own, LoCoMo's and LongMemEval's stay 128."""
    from locoscore.benchmarks import get_benchmark
    from locoscore.tokens import count_tokens

    longest = max(count_tokens(q.gold) for q in full.questions if q.gold)
    assert longest == 280  # a summarization gold of 213 words
    assert get_benchmark("beam").answer_max_tokens >= 1.5 * longest
    assert get_benchmark("locomo").answer_max_tokens == 128
    assert get_benchmark("longmemeval").answer_max_tokens == 128
