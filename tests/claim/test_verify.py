"""`locoscore verify` on real runs of LoCoMo (60 questions): each gate flips on the case it
is for, and a floor must be beaten by a paired test."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import invoke, run_system

SAMPLE = "sample:60/1986@seed0:strat-cat"


def _copy(source: Path, target: Path) -> Path:
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("run_state.sqlite"))
    return target


def _lines(output: str, prefix: str) -> list[str]:
    return [line.strip() for line in output.splitlines() if line.strip().startswith(prefix)]


def test_a_memory_that_retrieves_nothing_fails_and_its_report_opens_on_it(empty_run):
    out = empty_run
    code, output = invoke("verify", str(out))
    assert code == 1, output
    assert _lines(output, "FAIL") == [
        "FAIL retrieval: empty retrieval: nothing retrieved for 60 of 60 questions (100.0 %), "
        "threshold 50.0 %"
    ]
    assert output.strip().endswith("verify: 1 gate(s) failed: retrieval")
    # the report's first box, under its title, is the card and says so first
    report = (out / "report.md").read_text(encoding="utf-8").splitlines()
    headings = [line for line in report if line.startswith("#")]
    assert headings[1] == "## Claim card"
    first_banner = next(line for line in report if line.startswith("> "))
    assert first_banner.startswith("> **FAIL empty retrieval: nothing retrieved for 60 of 60")
    claim = json.loads((out / "summary.json").read_text())["claim"]
    assert claim["retrieval"]["nothing_retrieved"] == 60
    assert claim["retrieval"]["items_stored"] is None  # the plugin does not say what it holds
    assert claim["questions"] == {
        "in_folder": 60,
        "answered": 60,
        "in_benchmark": 1986,
        "subset": True,
        "sample": SAMPLE,
        "selected_by": "sample",
        "conversations": 10,  # the run's, the sample drawn over them
        "size_stated": True,
        "denominator": 60,  # F1 (locomo) over every question, adversarial included
    }
    assert claim["benchmark"]["released"] is True
    # the card summary.json records does not re-derive (`verify` does): its question set n/a
    assert [(g["name"], g["status"]) for g in claim["gates"]] == [
        ("retrieval", "fail"),
        ("failures", "pass"),
        ("subset", "pass"),
        ("floor", "n/a"),
        ("consistent", "pass"),
        ("scored", "pass"),
        ("question set", "n/a"),
        ("memory system", "pass"),
        ("real models", "pass"),
        ("judge independent", "n/a"),
    ]


def test_a_memory_that_stores_nothing_fails_on_its_own_count(plugins, locomo_path, tmp_path):
    out = run_system(locomo_path, tmp_path / "nothing", "python:claim_plugins:StoresNothing")
    per = json.loads((out / "run.json").read_text())["ingestion"]["per_conversation"]
    assert {m["items"] for m in per.values()} == {0}  # recorded by the run, per haystack
    code, output = invoke("verify", str(out))
    assert code == 1, output
    assert _lines(output, "FAIL") == [
        "FAIL retrieval: nothing stored: the system holds 0 items over 10 haystacks "
        "(threshold: at least 1 item)"
    ]


def test_bm25_passes_every_gate_and_a_floor_must_be_a_no_memory_run(
    bm25_run, empty_run, no_memory_run
):
    code, output = invoke("verify", str(bm25_run))
    assert code == 0, output
    assert "  questions: 60 of 1,986 (subset: " + SAMPLE + "); 60 answered; headline over 60" in (
        output
    )
    # a memory that retrieves nothing is not the floor: the floor is the no-memory run
    code, output = invoke("verify", str(bm25_run), "--floor", str(empty_run))
    assert code == 2, output
    assert output.strip() == (
        f"error: {empty_run}, field '--floor': is a run of python:claim_plugins:Empty: a "
        "--floor is a no-memory run"
    )
    code, output = invoke("verify", str(bm25_run), "--floor", str(no_memory_run))
    assert code == 0, output
    [line] = _lines(output, "pass floor:")
    assert line.startswith("pass floor: above the floor: +")
    assert "points over the floor 0.00 (no-memory)" in line
    # 18 questions differ, too few for the normal approximation: the exact test ran
    assert "on 60 questions (Wilcoxon signed-rank, exact over 18 non-zero differences)" in line
    assert line.endswith("alpha 0.05")


def test_a_result_equal_to_its_floor_fails(no_memory_run, tmp_path):
    twin = _copy(no_memory_run, tmp_path / "twin")
    code, output = invoke("verify", str(no_memory_run), "--floor", str(twin))
    assert code == 1, output
    [line] = _lines(output, "FAIL floor")
    assert line.startswith("FAIL floor: not significantly above the floor: +0.00 points")
    # no non-zero difference: p = 1, exactly
    assert "p = 1 on 60 questions (Wilcoxon signed-rank, exact over 0 non-zero differences)" in line


def test_a_floor_of_other_questions_data_or_answer_step_is_bad_input(
    bm25_run, no_memory_run, locomo_path, tmp_path
):
    fewer = _copy(no_memory_run, tmp_path / "fewer")
    lines = (fewer / "predictions.jsonl").read_text().splitlines()
    (fewer / "predictions.jsonl").write_text("\n".join(lines[1:]) + "\n")
    code, output = invoke("verify", str(bm25_run), "--floor", str(fewer))
    assert code == 2, output
    first = json.loads(lines[0])["question_id"]
    assert output.strip() == (
        f"error: {fewer}, field '--floor': other question set: 1 of the result's questions "
        f"missing (e.g. {first})"
    )
    gold = run_system(locomo_path, tmp_path / "gold", "gold-evidence")
    other = _copy(gold, tmp_path / "other-data")
    summary = json.loads((other / "summary.json").read_text())
    summary["dataset"]["sha256"] = "0" * 64
    (other / "summary.json").write_text(json.dumps(summary))
    code, output = invoke("verify", str(bm25_run), "--ceiling", str(other))
    assert code == 2, output
    assert "field '--ceiling': other data file (sha256 000000000000, the result's " in output
    assert "79fa87e90f04)" in output
    assert "Traceback" not in output
    # the same no-memory floor, answered by another prompt: it measures something else
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("Context:\n{context}\n\nQuestion: {question}\nShort answer:\n")
    reprompted = run_system(
        locomo_path, tmp_path / "reprompted", "no-memory", "--answer-prompt", str(prompt)
    )
    code, output = invoke("verify", str(bm25_run), "--floor", str(reprompted))
    assert code == 2, output
    assert f"error: {reprompted}, field '--floor': other answer step: prompt '" in output


def test_failed_questions_flip_the_failure_gate_at_its_threshold(flaky_run):
    # two of the sample's 60 questions failed in search: 3.3 %, above 2 %, below 5 %
    code, output = invoke("verify", str(flaky_run))
    assert code == 1, output
    assert _lines(output, "FAIL") == [
        "FAIL failures: failed questions above threshold: 2 of 60 questions failed (3.3 %: "
        "2 errors), threshold 2.0 %"
    ]
    code, output = invoke("verify", str(flaky_run), "--max-failed", "0.05")
    assert code == 0, output
    assert _lines(output, "pass failures:") == [
        "pass failures: failed questions: 2 of 60 questions failed (3.3 %: 2 errors), "
        "threshold 5.0 %"
    ]


def test_a_subset_without_its_size_fails_where_a_run_states_it(locomo_path, tmp_path, bm25_run):
    # the run's answers to 30 of its questions, scored as a file: nothing says what part of
    # the benchmark they are
    part = tmp_path / "part.jsonl"
    lines = (bm25_run / "predictions.jsonl").read_text().splitlines()[:30]
    part.write_text("\n".join(lines) + "\n")
    out = tmp_path / "scored"
    code, output = invoke("score", str(part), "--dataset", str(locomo_path), "--out", str(out))
    assert code == 0, output
    code, output = invoke("verify", str(out))
    assert code == 1, output
    assert _lines(output, "FAIL") == [
        "FAIL subset: subset without its size: 30 of 1,986 questions, and the folder records "
        "neither a sample nor the run's conversations (threshold: a subset states its size)"
    ]
    # the run itself records its sample: the same questions' subset passes
    code, output = invoke("verify", str(bm25_run))
    assert _lines(output, "pass subset:") == [
        f"pass subset: subset stated with its size: 60 of 1,986 questions ({SAMPLE})"
    ]


def test_bad_input_is_one_line_exit_2(tmp_path):
    code, output = invoke("verify", str(tmp_path / "missing"))
    assert code == 2
    assert output.strip() == f"error: {tmp_path / 'missing'}: not a results folder (no such folder)"
    code, output = invoke("verify", str(tmp_path), "--max-failed", "3")
    assert code == 2
    assert output.strip() == (
        "error: field '--max-failed': 3.0: expected a share of the questions, 0-1"
    )


def test_a_folder_whose_parts_disagree_fails(bm25_run, tmp_path):
    tampered = _copy(bm25_run, tmp_path / "tampered")
    run = json.loads((tampered / "run.json").read_text())
    run["predictions"]["records"] = 61  # run.json says one answer more than the file holds
    (tampered / "run.json").write_text(json.dumps(run))
    code, output = invoke("verify", str(tampered))
    assert code == 1, output
    assert _lines(output, "FAIL") == [
        "FAIL consistent: folder parts disagree: run.json records 61 predictions, "
        "predictions.jsonl holds 60",
        "FAIL bound: folder files edited: changed since locoscore wrote it: run.json",
    ]


def test_bm25_beats_the_no_memory_floor_and_sits_below_gold_evidence(
    bm25_run, locomo_path, tmp_path
):
    floor = run_system(locomo_path, tmp_path / "no-memory", "no-memory")
    ceiling = run_system(locomo_path, tmp_path / "gold", "gold-evidence")
    code, output = invoke("verify", str(bm25_run), "--floor", str(floor), "--ceiling", str(ceiling))
    assert code == 0, output
    [line] = _lines(output, "pass floor:")
    assert line.startswith("pass floor: above the floor: +")
    assert "(no-memory)" in line
    [position] = _lines(output, "position:")
    percent = int(position.split()[1])
    assert 0 < percent < 100  # above no memory, below perfect memory
    # the floor itself retrieves nothing, by design: its own card fails that gate
    code, output = invoke("verify", str(floor))
    assert code == 1
    assert _lines(output, "FAIL")[0].startswith("FAIL retrieval: empty retrieval")
