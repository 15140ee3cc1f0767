"""LongMemEval files: checked, indexed and turned into opaque, dated, ordered conversations."""

from __future__ import annotations

import hashlib
import json
import warnings
from pathlib import Path

import pytest
from typer.testing import CliRunner

from locoscore.benchmarks import get_benchmark
from locoscore.benchmarks.base import KnownFile
from locoscore.benchmarks.longmemeval.data import ChecksumWarning, load_longmemeval
from locoscore.cli import app
from locoscore.errors import DatasetError
from locoscore.testing.longmemeval_fixture import make_records, write_fixture

LME = get_benchmark("longmemeval")


def _load(path: Path):  # type: ignore[no-untyped-def]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ChecksumWarning)
        return load_longmemeval(path)


def test_counts_types_abstention_and_dates_on_the_s_fixture(tmp_path: Path) -> None:
    data = _load(write_fixture(tmp_path / "s.json"))
    assert len(data.questions) == 10
    by_type = LME.type_counts(data)
    # six types: 2 ssu (1 _abs), 1 ssa, 1 ssp, 2 ms (1 _abs), 2 ku (1 _abs), 2 tr (1 _abs)
    assert [by_type[t.id] for t in LME.types] == [2, 1, 1, 2, 2, 2]
    assert sum(m.abstention for m in data.questions) == 4
    ms = next(m for m in data.questions if m.question_id == "5d1a6c3e")
    assert ms.answer == 3 and isinstance(ms.answer, int)
    # 2 evidence + 3 fillers; asked 3 d 2 h 30 after the last session (day 12, 09:15 + 4 h + 7 min)
    assert len(ms.sessions) == 5
    assert ms.date_raw == "2023/05/16 (Tue) 15:52" and ms.date_iso == "2023-05-16T15:52"
    assert [s.date_iso for s in ms.sessions] == sorted(s.date_iso for s in ms.sessions)
    assert ms.sessions[0].session_id == "sharegpt_0400f00d_0"  # day 1, 14:15
    assert ms.sessions[1].session_id == "answer_5d1a6c3e_1"  # day 2, 13:15


def test_the_oracle_variant_is_put_in_date_order(tmp_path: Path) -> None:
    raw = make_records("oracle")
    ms = next(r for r in raw if r["question_id"] == "5d1a6c3e")
    assert ms["haystack_session_ids"] == ["answer_5d1a6c3e_2", "answer_5d1a6c3e_1"]
    data = _load(write_fixture(tmp_path / "o.json", "oracle"))
    meta = next(m for m in data.questions if m.question_id == "5d1a6c3e")
    assert [s.session_id for s in meta.sessions] == ["answer_5d1a6c3e_1", "answer_5d1a6c3e_2"]
    conv = LME.conversations(data)[meta.position]
    assert [s.date_raw for s in conv.sessions] == [
        "2023/05/03 (Wed) 13:15",
        "2023/05/13 (Sat) 13:22",
    ]


def test_systems_see_opaque_ids_roles_and_no_has_answer(tmp_path: Path) -> None:
    data = _load(write_fixture(tmp_path / "s.json"))
    convs = LME.conversations(data)
    questions = LME.questions(data, convs)
    shown = json.dumps(
        [s.to_json() for c in convs for s in c.sessions]
        + [{"c": c.conversation_id} for c in convs]
        + [{"q": q.system_question_id} for q in questions]
    )
    for meta in data.questions:
        assert meta.question_id not in shown
        for session in meta.sessions:
            assert session.session_id not in shown
    assert "answer_" not in shown and "has_answer" not in shown and "_abs" not in shown
    first = convs[0].sessions[0]
    assert first.turns[0].dia_id == "S1:1" and first.turns[0].speaker in ("user", "assistant")
    assert questions[1].question_id == "a3f9c2d1_abs" and questions[1].record_ids["abstention"]


def test_checksum_recognised_or_warned_with_its_hash(tmp_path: Path) -> None:
    path = write_fixture(tmp_path / "s.json")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    with pytest.warns(ChecksumWarning, match=digest):
        data = load_longmemeval(path)
    assert LME.data_version(data) == "longmemeval-unknown"
    known = (KnownFile("longmemeval-s-fixture", "s.json", digest),)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        data = load_longmemeval(path, known)
    assert LME.signature_part(data) == f"bench:longmemeval-s-fixture@{digest[:12]}"


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda r: r.__setitem__(0, {"x": 1}), "record 0, field 'question_id': missing"),
        (lambda r: r[2].pop("haystack_dates"), "record 7c2d9e10, field 'haystack_dates': missing"),
        (
            lambda r: r[1].__setitem__("question_date", "2023-05-30 23:40"),
            "record a3f9c2d1_abs, field 'question_date': unparseable date",
        ),
        (
            lambda r: r[3]["haystack_dates"].__setitem__(0, "30/05/2023"),
            "record 0b8e4f77, field 'haystack_dates[0]': unparseable date",
        ),
        (lambda r: r[0].__setitem__("question_type", "abstention"), "unknown question type"),
    ],
)
def test_bad_records_are_one_line_exit_2(tmp_path: Path, mutate, expected: str) -> None:  # type: ignore[no-untyped-def]
    records = make_records()
    mutate(records)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(records))
    with pytest.raises(DatasetError) as error:
        _load(path)
    assert expected in str(error.value)
    result = CliRunner().invoke(
        app, ["dataset", "info", "--benchmark", "longmemeval", "--dataset", str(path)]
    )
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_a_locomo_file_is_not_longmemeval_shaped(tmp_path: Path) -> None:
    path = tmp_path / "l.json"
    path.write_text(json.dumps({"sample_id": "conv-1"}))
    result = CliRunner().invoke(
        app, ["dataset", "info", "--benchmark", "longmemeval", "--dataset", str(path)]
    )
    assert result.exit_code == 2
    assert "not a LongMemEval file" in " ".join(result.output.split())


def test_dataset_info_prints_the_types(tmp_path: Path) -> None:
    path = write_fixture(tmp_path / "s.json")
    result = CliRunner().invoke(
        app, ["dataset", "info", "--benchmark", "longmemeval", "--dataset", str(path)]
    )
    assert result.exit_code == 0, result.output
    assert "temporal-reasoning" in result.output and "10" in result.output


def test_the_scanner_finds_every_record_whatever_the_chunking() -> None:
    import io
    import random

    from locoscore.benchmarks.longmemeval.stream import object_spans

    rng = random.Random(1)
    alphabet = ["a", "\\", '"', "é", "{", "}", "[", "]", ",", "\n"]
    for trial in range(100):
        data = [
            {
                "k": "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30))),
                "n": [1, {"z": "\\" * rng.randint(0, 5)}],
            }
            for _ in range(rng.randint(1, 4))
        ]
        raw = json.dumps(data, ensure_ascii=bool(trial % 2)).encode()
        for chunk in (1, 2, 3, 5, 64):
            spans = list(object_spans(io.BytesIO(raw), chunk))
            assert [json.loads(raw[o : o + n]) for o, n in spans] == data


def test_the_registry_names_both_benchmarks_and_their_published_rows() -> None:
    from locoscore.benchmarks import BENCHMARKS

    # the first four in their order; later benchmarks register after them
    assert list(BENCHMARKS)[:4] == ["locomo", "longmemeval", "beam", "beam-full"]
    rows = LME.published()
    assert {r.provenance for r in rows} == {"self-reported", "reproduced"}
    zep = next(r for r in rows if r.system == "Zep (2025)")
    assert (zep.overall, zep.reader, zep.judge) == (71.2, "gpt-4o", "gpt-4o")
    assert len(get_benchmark("locomo").published()) > 0
    assert [t.name for t in LME.types][-1] == "temporal-reasoning"
    assert get_benchmark("locomo").excluded_from_overall == frozenset({5})
    with pytest.raises(Exception, match="unknown benchmark 'ruler'"):
        get_benchmark("ruler")
