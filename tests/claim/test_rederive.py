"""`verify` re-derives every number from the folder's records and its data file, and fails
closed on what it cannot: each case a careful reviewer beat it with (issue 31's "Why")."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import invoke, run_system

from locoscore import stats

BEAM_100K = Path(__file__).resolve().parents[3] / "shared/data/beam/100K"


def _copy(source: Path, target: Path) -> Path:
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("run_state.sqlite"))
    return target


def _failed(output: str) -> list[str]:
    return [line.strip() for line in output.splitlines() if line.strip().startswith("FAIL")]


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_scores_edited_to_a_perfect_f1_fail_naming_the_first_number(bm25_run, tmp_path):
    edited = _copy(bm25_run, tmp_path / "edited")
    rows = _rows(edited / "scores.jsonl")
    first = dict(rows[0])
    for row in rows:
        row["f1_locomo"] = 1.0
    (edited / "scores.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, output = invoke("verify", str(edited))
    assert code == 1, output
    assert _failed(output) == [
        "FAIL consistent: folder parts disagree: scores.jsonl "
        f"{first['sample_id']}#{first['qa_index']}.f1_locomo: stated 1.0, recomputed "
        f"{first['f1_locomo']!r}",
        # and the manifest names the file the hand edited
        "FAIL bound: folder files edited: changed since locoscore wrote it: scores.jsonl",
    ]
    # the card shows the recomputed score, never the edited one
    assert "  score: F1 (locomo) 100.00 (0-100)" not in output


def test_a_summary_that_is_an_empty_object_fails(tmp_path):
    folder = tmp_path / "empty"
    folder.mkdir()
    (folder / "summary.json").write_text("{}")
    code, output = invoke("verify", str(folder))
    assert code == 1, output
    assert "FAIL question set: the folder records no data file: cannot check the question set: " \
        "pass --dataset" in _failed(output)  # fmt: skip
    assert "FAIL scored: not scored: the folder has no headline; judge it first " \
        "(`locoscore judge`)" in _failed(output)  # fmt: skip
    assert "verify: every gate passes" not in output


def test_answers_scored_without_their_data_fail_closed_and_a_cherry_pick_is_a_subset(
    bm25_run, locomo_path, tmp_path
):
    # the run's answers with F1 > 0, scored as a file without --dataset: a flattering subset
    picked = [r for r in _rows(bm25_run / "scores.jsonl") if r["f1_locomo"] > 0]
    by_key = {f"{r['sample_id']}#{r['qa_index']}" for r in picked}
    answers = [r for r in _rows(bm25_run / "predictions.jsonl") if r["question_id"] in by_key]
    part = tmp_path / "picked.jsonl"
    part.write_text("".join(json.dumps(r) + "\n" for r in answers))
    out = tmp_path / "scored"
    code, output = invoke("score", str(part), "--out", str(out))
    assert code == 0, output
    code, output = invoke("verify", str(out))
    assert code == 1, output
    assert _failed(output) == [
        "FAIL question set: the folder records no data file: cannot check the question set: "
        "pass --dataset"
    ]
    code, output = invoke("verify", str(out), "--dataset", str(locomo_path))
    assert code == 1, output
    assert _failed(output) == [
        f"FAIL subset: subset without its size: {len(answers)} of 1,986 questions, and the "
        "folder records neither a sample nor the run's conversations (threshold: a subset "
        "states its size)"
    ]


def test_a_dataset_of_another_sha_is_bad_input(bm25_run, tmp_path, locomo_path):
    other = tmp_path / "locomo10.json"
    data = json.loads(locomo_path.read_text())
    other.write_text(json.dumps(data[:2]))
    code, output = invoke("verify", str(bm25_run), "--dataset", str(other))
    assert code == 2, output
    assert "field '--dataset': sha256 " in output
    assert ", the folder's data file is 79fa87e90f04" in output


def test_gold_evidence_under_another_name_fails_as_a_result(locomo_path, tmp_path):
    gold = run_system(locomo_path, tmp_path / "gold", "gold-evidence")
    mine = _copy(gold, tmp_path / "my-memory")
    code, output = invoke("verify", str(mine))
    assert code == 1, output
    assert _failed(output) == [
        "FAIL memory system: gold-evidence is a reference ceiling, not a memory system: it is "
        "handed the gold evidence (use it as --ceiling)"
    ]
    # the card names the system the run records, not the folder's name, and its role
    assert (
        "  system: gold-evidence (reference ceiling: not a memory system, it is handed the gold "
        "evidence)"
    ) in output.splitlines()


def test_a_judge_model_edited_in_the_summary_still_judged_its_own_answers(
    locomo_path, tmp_path, monkeypatch
):
    from locoscore.testing.fake_provider import FakeConfig, FakeProvider

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-claim-0123456789")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    folder = tmp_path / "run"
    with FakeProvider(FakeConfig(latency_s=0.0, timeout_s=5.0)) as fake:
        code, output = invoke(
            "run", "--system", "bm25", "--dataset", str(locomo_path), "--limit", "10",
            "--out", str(folder), "--no-progress", "--answer-provider", "openai-compatible",
            "--answer-model", "gpt-4o-mini", "--answer-base-url", fake.openai_url,
            "--skip-probe",
        )  # fmt: skip
        assert code == 0, output
        code, output = invoke(
            "judge", str(folder / "predictions.jsonl"), "--out", str(folder), "--dataset",
            str(locomo_path), "--provider", "openai-compatible", "--model", "gpt-4o-mini",
            "--base-url", fake.openai_url, "--runs", "1", "--no-progress",
        )  # fmt: skip
        assert code == 0, output
    summary = json.loads((folder / "summary.json").read_text())
    summary["judge"]["model"] = "claude-sonnet-4-6"
    (folder / "summary.json").write_text(json.dumps(summary))
    code, output = invoke("verify", str(folder), "--allow-fake")
    assert code == 1, output
    # the judge's own records (judgments.jsonl) name the model that served its verdicts
    assert "warning: judge = answerer: gpt-4o-mini judged its own answers (same model)" in output
    assert _failed(output) == [
        "FAIL judge independent: the judge gpt-4o-mini is the answer model gpt-4o-mini: it "
        "judged its own answers (--allow-self-judge to accept it)",
        "FAIL bound: folder files edited: changed since locoscore wrote it: summary.json",
    ]
    # the served models edited too: they are not what the verdicts record
    summary["judge"]["served"]["models"] = ["claude-sonnet-4-6"]
    (folder / "summary.json").write_text(json.dumps(summary))
    code, output = invoke("verify", str(folder), "--allow-fake")
    assert code == 1, output
    assert _failed(output)[0] == (
        "FAIL consistent: folder parts disagree: summary.json judge.served.models "
        "['claude-sonnet-4-6'] is not what judgments.jsonl records of its verdicts "
        "(['gpt-4o-mini'])"
    )


def test_no_empty_retrieval_allowed_passes_a_run_that_always_retrieved(bm25_run, empty_run):
    code, output = invoke("verify", str(bm25_run), "--max-empty-retrieval", "0")
    assert code == 0, output
    assert (
        "  pass retrieval: retrieval: nothing retrieved for 0 of 60 questions (0.0 %), "
        "threshold 0.0 %"
    ) in output.splitlines()
    code, output = invoke("verify", str(empty_run), "--max-empty-retrieval", "1")
    assert code == 0, output  # 100 % is not more than 100 %


def test_a_system_that_answers_itself_without_items_is_not_an_empty_retrieval(
    plugins, locomo_path, tmp_path
):
    source = (plugins / "claim_plugins.py").read_text()
    # the cheater without its item count: a system that answers and names no items
    (plugins / "answering_plugins.py").write_text(
        source.replace("class Cheater:", "class Answers:").replace(
            "    def items_in(self, conversation_id):\n        return 5\n", ""
        )
    )
    out = run_system(locomo_path, tmp_path / "answers", "python:answering_plugins:Answers")
    code, output = invoke("verify", str(out))
    assert code == 0, output
    assert "  retrieval: not reported by the system (it answers itself and names no items)" in (
        output
    )
    assert "  n/a  retrieval: retrieval: not reported by the system (it answers itself and " \
        "names no items)" in output  # fmt: skip


def test_the_floor_test_is_exact_on_a_small_sample():
    # five differences, all positive: exactly 2 of the 32 sign assignments are as extreme
    exact = stats.wilcoxon_signed_rank_exact([1.0, 2.0, 3.0, 4.0, 5.0])
    assert exact.p_value == 2 / 32
    assert stats.wilcoxon_signed_rank([1.0, 2.0, 3.0, 4.0, 5.0]).p_value < 0.05  # normal: wrong
    result, name = stats.paired_signed_rank([0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
    assert (result.p_value, result.n_nonzero, name) == (0.0625, 5, "Wilcoxon signed-rank, exact")
    # ties share a midrank: {1, 1, -2} ranks 1.5, 1.5, 3; W+ = 3 is the mean (6 / 2), so
    # every one of the 8 assignments is at least as far from it: p = 1
    assert stats.wilcoxon_signed_rank_exact([1.0, 1.0, -2.0]).p_value == 1.0
    # {1, 2, 3, -4}: W+ = 6, mean 5; |W+ - 5| >= 1 in 14 of 16 assignments
    assert stats.wilcoxon_signed_rank_exact([1.0, 2.0, 3.0, -4.0]).p_value == 14 / 16
    # above 25 non-zero differences, the normal approximation
    assert stats.paired_signed_rank([1.0] * 26)[1] == "Wilcoxon signed-rank, normal approximation"


def test_an_unscored_beam_folder_does_not_pass(tmp_path):
    if not BEAM_100K.exists():
        pytest.skip(f"BEAM 100K not found at {BEAM_100K}")
    beam = tmp_path / "beam"
    shutil.copytree(BEAM_100K / "1", beam / "1")
    out = tmp_path / "run"
    code, output = invoke(
        "run", "--benchmark", "beam", "--dataset", str(beam), "--system", "bm25",
        "--answer-provider", "extractive", "--out", str(out), "--no-progress", "--skip-probe",
    )  # fmt: skip
    assert code == 0, output
    code, output = invoke("verify", str(out))
    assert code == 1, output
    assert _failed(output) == [
        "FAIL scored: not scored: the folder has no headline; judge it first (`locoscore judge`)"
    ]
    assert "verify: every gate passes" not in output


def test_a_floor_judged_by_another_judge_is_bad_input(
    bm25_run, no_memory_run, locomo_path, tmp_path, monkeypatch
):
    from locoscore.testing.fake_provider import FakeConfig, FakeProvider

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-claim-0123456789")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    result, floor = _copy(bm25_run, tmp_path / "result"), _copy(no_memory_run, tmp_path / "floor")
    with FakeProvider(FakeConfig(latency_s=0.0, timeout_s=5.0)) as fake:
        for folder, model in ((result, "judge-a"), (floor, "judge-strict")):
            code, output = invoke(
                "judge", str(folder / "predictions.jsonl"), "--out", str(folder), "--dataset",
                str(locomo_path), "--provider", "openai-compatible", "--model", model,
                "--base-url", fake.openai_url, "--runs", "1", "--no-progress",
            )  # fmt: skip
            assert code == 0, output
    code, output = invoke("verify", str(result), "--floor", str(floor), "--allow-fake")
    assert code == 2, output
    assert output.strip().startswith(f"error: {floor}, field '--floor': other judge: judge:")
    assert "model:judge-strict" in output and "the result's judge:" in output
