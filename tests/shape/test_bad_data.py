"""A broken data file of any benchmark (and of the example plugin) is bad input: `dataset
info` exits 2 with one line naming the file (or folder) and the field at fault, and no
traceback.

Each case starts from a valid file (LoCoMo's invented mini dataset, the LongMemEval fixture, a
one-conversation BEAM folder built here), breaks one thing, and runs the real command line.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from locomo_plus_helpers import write_cut
from personamem_helpers import write_folder as write_personamem
from shapes import EXAMPLES, TINY, params, write_tiny_data

from locoscore.testing.longmemeval_fixture import make_records

FIXTURES = Path(__file__).resolve().parents[1] / "data" / "fixtures"  # tests/data/fixtures


# -- LoCoMo: a list of samples ----------------------------------------------------------
def _locomo(tmp_path: Path, change: Callable[[Any], None]) -> tuple[Path, Path]:
    raw = json.loads((FIXTURES / "mini_dataset.json").read_text())
    change(raw)
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(raw))
    return path, path


def _locomo_no_question(raw: Any) -> None:
    del raw[0]["qa"][0]["question"]


def _locomo_category_text(raw: Any) -> None:
    raw[0]["qa"][1]["category"] = "four"


def _locomo_unknown_category(raw: Any) -> None:
    raw[1]["qa"][0]["category"] = 9


def _locomo_turn_text_number(raw: Any) -> None:
    raw[0]["conversation"]["session_1"][0]["text"] = 7


# -- LongMemEval: a list of question records --------------------------------------------
def _lme(tmp_path: Path, change: Callable[[Any], None]) -> tuple[Path, Path]:
    records = make_records()
    change(records)
    path = tmp_path / "longmemeval_s.json"
    path.write_text(json.dumps(records))
    return path, path


def _lme_no_answer(raw: Any) -> None:
    del raw[2]["answer"]


def _lme_question_number(raw: Any) -> None:
    raw[0]["question"] = 12


def _lme_unknown_type(raw: Any) -> None:
    raw[1]["question_type"] = "abstention"


def _lme_unknown_role(raw: Any) -> None:
    raw[3]["haystack_sessions"][0][0]["role"] = "system"


def _lme_session_ids_text(raw: Any) -> None:
    raw[0]["answer_session_ids"] = "answer_1"


# -- BEAM: a size folder of conversation folders ----------------------------------------
def _beam_chat() -> list[dict[str, Any]]:
    user = {"role": "user", "id": 0, "content": "Plan my week ->-> 1,1"}
    user["time_anchor"] = "May-02-2024"
    reply = {"role": "assistant", "id": 1, "content": "Monday: gym."}
    return [{"batch_number": 1, "time_anchor": None, "turns": [[user, reply]]}]


def _beam_questions() -> dict[str, Any]:
    return {
        "information_extraction": [
            {
                "question": "Gym when?",
                "answer": "Monday",
                "rubric": ["Monday"],
                "source_chat_ids": [1],
            }
        ],
        "summarization": [{"question": "Sum up?", "ideal_summary": "A week.", "rubric": ["week"]}],
    }


def _beam(tmp_path: Path, change: Callable[[dict[str, Any]], None]) -> tuple[Path, Path]:
    """`change` gets {"chat": ..., "probing": ...} of conversation 2 (None drops the file);
    conversation 1 stays valid. Returns the size folder and what the error must name."""
    size = tmp_path / "100K"
    for number in ("1", "2"):
        files: dict[str, Any] = {"chat": _beam_chat(), "probing": _beam_questions()}
        if number == "2":
            change(files)
        folder = size / number
        folder.mkdir(parents=True)
        for key, name in (("chat", "chat.json"), ("probing", "probing_questions.json")):
            if files[key] is not None:
                (folder / name).write_text(json.dumps(files[key]))
    missing = files["chat"] is None or files["probing"] is None
    names = (
        size / "2"
        if missing
        else size / "2" / ("chat.json" if "bad_chat" in files else "probing_questions.json")
    )
    return size, names


def _beam_no_chat(files: dict[str, Any]) -> None:
    files["chat"] = None


def _beam_unknown_role(files: dict[str, Any]) -> None:
    files["chat"][0]["turns"][0][1]["role"] = "system"
    files["bad_chat"] = True


def _beam_id_text(files: dict[str, Any]) -> None:
    files["chat"][0]["turns"][0][0]["id"] = "0"
    files["bad_chat"] = True


def _beam_unknown_ability(files: dict[str, Any]) -> None:
    files["probing"]["telepathy"] = files["probing"].pop("summarization")


def _beam_gold_missing(files: dict[str, Any]) -> None:
    del files["probing"]["summarization"][0]["ideal_summary"]


def _beam_gold_number(files: dict[str, Any]) -> None:
    files["probing"]["information_extraction"][0]["answer"] = 3


def _beam_evidence_text(files: dict[str, Any]) -> None:
    files["probing"]["information_extraction"][0]["source_chat_ids"] = "1"


def _beam_rubric_missing(files: dict[str, Any]) -> None:
    del files["probing"]["information_extraction"][0]["rubric"]


# -- the example plugin: the generic data file (`generic.data`) ---------------------------
def _tiny(tmp_path: Path, change: Callable[[Any], None]) -> tuple[Path, Path]:
    raw = json.loads(write_tiny_data(tmp_path / "tiny.json").read_text())
    change(raw)
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(raw))
    return path, path


def _tiny_no_answer(raw: Any) -> None:
    del raw["questions"][2]["answer"]


def _tiny_unknown_conversation(raw: Any) -> None:
    raw["questions"][0]["conversation"] = "zed"


def _tiny_unknown_type(raw: Any) -> None:
    raw["questions"][1]["type"] = "why"


def _tiny_date_not_iso(raw: Any) -> None:
    raw["conversations"][0]["sessions"][0]["date"] = "March 2nd"


def _tiny_turn_not_a_pair(raw: Any) -> None:
    raw["conversations"][1]["sessions"][0]["turns"][0] = "Ben: my sister moved"


# -- LoCoMo-Plus: a cut of the real file beside the real locomo10.json --------------------
def _plus(tmp_path: Path, change: Callable[[Any], None]) -> tuple[Path, Path]:
    folder = write_cut(tmp_path / "plus", (0, 101, 250))
    path = folder / "locomo_plus.json"
    raw = json.loads(path.read_text())
    change(raw)
    path.write_text(json.dumps(raw))
    return folder, path


def _plus_unknown_relation(raw: Any) -> None:
    raw[1]["relation_type"] = "temporal"


def _plus_gap_vague(raw: Any) -> None:
    raw[2]["time_gap"] = "later on"


def _plus_trigger_by_b(raw: Any) -> None:
    raw[0]["trigger_query"] = "B: " + raw[0]["trigger_query"][3:]


def _plus_cue_unlabelled(raw: Any) -> None:
    raw[1]["cue_dialogue"] = "I moved to Lisbon."


# -- PersonaMem: a folder of two gzipped JSON lists ---------------------------------------
def _persona(tmp_path: Path, change: Callable[[Any], None]) -> tuple[Path, Path]:
    folder = write_personamem(tmp_path / "32k", change)
    broken = "documents" if getattr(change, "documents", False) else "queries"
    return folder, folder / f"{broken}.json.gz"


def _persona_gold_letter(raw: Any) -> None:
    raw["queries"][0]["gold_answers"][1] = "e"


def _persona_unknown_type(raw: Any) -> None:
    raw["queries"][2]["meta"]["question_type"] = "telepathy"


def _persona_no_marker(raw: Any) -> None:
    raw["documents"][1]["content"] = "no role marker at all"


_persona_no_marker.documents = True  # type: ignore[attr-defined]


Build = Callable[[Path, Callable[[Any], None]], tuple[Path, Path]]
CASES: dict[str, tuple[str, Build, Callable[[Any], None], str]] = {
    # name: (benchmark, builder, change, what the line must say of the field)
    "locomo-missing-question": ("locomo", _locomo, _locomo_no_question, "field 'question'"),
    "locomo-category-text": ("locomo", _locomo, _locomo_category_text, "field 'category'"),
    "locomo-unknown-category": ("locomo", _locomo, _locomo_unknown_category, "field 'category'"),
    "locomo-turn-text-number": ("locomo", _locomo, _locomo_turn_text_number, "field 'text'"),
    "lme-missing-answer": ("longmemeval", _lme, _lme_no_answer, "field 'answer': missing"),
    "lme-question-number": ("longmemeval", _lme, _lme_question_number, "field 'question'"),
    "lme-unknown-type": ("longmemeval", _lme, _lme_unknown_type, "field 'question_type'"),
    "lme-unknown-role": (
        "longmemeval",
        _lme,
        _lme_unknown_role,
        "field 'haystack_sessions[0][0].role'",
    ),
    "lme-session-ids-text": (
        "longmemeval",
        _lme,
        _lme_session_ids_text,
        "field 'answer_session_ids'",
    ),
    "beam-no-chat": ("beam", _beam, _beam_no_chat, "missing chat.json"),
    "beam-unknown-role": ("beam", _beam, _beam_unknown_role, "field 'role': unknown role"),
    "beam-id-text": ("beam", _beam, _beam_id_text, "field 'id'"),
    "beam-unknown-ability": ("beam", _beam, _beam_unknown_ability, "field 'telepathy'"),
    "beam-gold-missing": ("beam", _beam, _beam_gold_missing, "field 'ideal_summary'"),
    "beam-gold-number": ("beam", _beam, _beam_gold_number, "field 'answer'"),
    "beam-evidence-text": ("beam", _beam, _beam_evidence_text, "field 'source_chat_ids'"),
    "beam-rubric-missing": ("beam", _beam, _beam_rubric_missing, "field 'rubric'"),
    "plus-unknown-relation": (
        "locomo-plus",
        _plus,
        _plus_unknown_relation,
        "record item 1, field 'relation_type'",
    ),
    "plus-gap-unreadable": ("locomo-plus", _plus, _plus_gap_vague, "field 'time_gap'"),
    "plus-trigger-by-b": ("locomo-plus", _plus, _plus_trigger_by_b, "field 'trigger_query'"),
    "plus-cue-unlabelled": ("locomo-plus", _plus, _plus_cue_unlabelled, "field 'cue_dialogue'"),
    "personamem-gold-letter": (
        "personamem",
        _persona,
        _persona_gold_letter,
        "field 'gold_answers'",
    ),
    "personamem-unknown-type": (
        "personamem",
        _persona,
        _persona_unknown_type,
        "field 'meta.question_type'",
    ),
    "personamem-no-marker": ("personamem", _persona, _persona_no_marker, "field 'content'"),
    "tiny-missing-answer": (TINY, _tiny, _tiny_no_answer, "field 'answer'"),
    "tiny-unknown-conversation": (
        TINY,
        _tiny,
        _tiny_unknown_conversation,
        "field 'conversation': no conversation 'zed'",
    ),
    "tiny-unknown-type": (TINY, _tiny, _tiny_unknown_type, "field 'type': unknown type 'why'"),
    "tiny-date-not-iso": (TINY, _tiny, _tiny_date_not_iso, "field 'date'"),
    "tiny-turn-not-a-pair": (
        TINY,
        _tiny,
        _tiny_turn_not_a_pair,
        "record conversations[1].sessions[0], field 'turns[0]'",
    ),
}


def _info(benchmark: str, dataset: Path) -> subprocess.CompletedProcess[str]:
    command = ["dataset", "info", "--benchmark", benchmark, "--dataset", str(dataset)]
    return subprocess.run(
        [sys.executable, "-m", "locoscore", *command],
        cwd=EXAMPLES,  # where a user of the example runs it (`python:tiny_benchmark:…`)
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_broken_file_is_one_line_naming_file_and_field(tmp_path: Path, name: str) -> None:
    benchmark, build, change, field = CASES[name]
    dataset, culprit = build(tmp_path, change)
    proc = _info(benchmark, dataset)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    [line] = proc.stderr.strip().splitlines()
    assert line.startswith(f"error: {culprit}"), line
    assert field in line, line
    assert proc.stdout == ""  # nothing printed as if the file were fine


@pytest.mark.parametrize("benchmark", params())
def test_the_unbroken_files_load(tmp_path: Path, benchmark: str) -> None:
    """The cases above fail because of their one change, not because the base is bad."""
    build = {
        "locomo": _locomo, "longmemeval": _lme, "beam": _beam, "personamem": _persona,
        "locomo-plus": _plus, TINY: _tiny,
    }[benchmark]  # fmt: skip
    dataset, _ = build(tmp_path, lambda raw: None)
    proc = _info(benchmark, dataset)
    assert proc.returncode == 0, proc.stderr
    assert "total" in proc.stdout
