"""The card of a benchmark declared by its parts alone (examples/tiny_benchmark.py): the
generic run records it, `report` shows it first, `verify` reads it; nothing LoCoMo-shaped."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from conftest import invoke

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SPEC = "python:tiny_benchmark:BENCHMARK"


def test_a_third_party_benchmark_gets_its_card(tmp_path, monkeypatch):
    monkeypatch.chdir(EXAMPLES)
    monkeypatch.setattr(sys, "path", [str(EXAMPLES), *sys.path])
    out = tmp_path / "tiny"
    code, output = invoke(
        "run", "--benchmark", SPEC, "--system", "bm25", "--top-k", "1",
        "--answer-provider", "extractive", "--out", str(out), "--no-progress",
    )  # fmt: skip
    assert code == 0, output
    claim = json.loads((out / "summary.json").read_text())["claim"]
    assert claim["benchmark"]["name"] == "tiny"
    assert claim["benchmark"]["released"] is False  # inline data, no released file
    assert (claim["questions"]["in_folder"], claim["questions"]["in_benchmark"]) == (6, 6)
    assert claim["questions"]["subset"] is False
    assert claim["score"]["n"] == 6
    assert claim["retrieval"]["nothing_retrieved"] == 0
    assert claim["retrieval"]["top_k"] == 1
    assert [g["status"] for g in claim["gates"]] == [
        *("pass", "pass", "pass", "n/a", "pass", "pass", "n/a", "pass", "pass", "n/a")
    ]
    code, output = invoke("report", str(out), "--benchmark", SPEC)
    assert code == 0, output
    report = (out / "report.md").read_text()
    assert [line for line in report.splitlines() if line.startswith("#")][1] == "## Claim card"
    code, output = invoke("verify", str(out))
    assert code == 0, output
    assert "  questions: 6 of 6 (the whole benchmark); 6 answered; headline over 6" in output


PERSONAMEM = Path(__file__).resolve().parents[3] / "shared/data/personamem/32k"


def test_blind_floors_are_on_the_card_below_one_a_warning_and_unread_answers_fail(tmp_path):
    if not PERSONAMEM.exists():
        pytest.skip(f"PersonaMem 32k not found at {PERSONAMEM}")
    out = tmp_path / "pm"
    code, output = invoke(
        "run", "--benchmark", "personamem", "--dataset", str(PERSONAMEM), "--system", "bm25",
        "--answer-provider", "extractive", "--limit", "3", "--skip-probe", "--out", str(out),
        "--no-progress",
    )  # fmt: skip
    assert code == 0, output
    floors = json.loads((out / "summary.json").read_text())["floors"]["blind"]
    claim = json.loads((out / "summary.json").read_text())["claim"]
    # the extractive answerer never replies with a letter: 0, below every floor above 0
    assert claim["score"]["mean"] == 0.0
    assert claim["benchmark"]["takes_judge"] is False  # scored without one: never "not judged"
    assert [(b["name"], b["score"]) for b in claim["blind_floors"]] == [
        (f["name"], f["score"]) for f in floors
    ]
    below = [f"warning: not above the blind floor {f['name']} ({f['score']:.2f}, computed "
             "without a model)" for f in floors]  # fmt: skip
    code, output = invoke("verify", str(out))
    assert "  judge: none (scored without a judge)" in output
    # a reply that names no option is a failure the benchmark's scoring marks, not a guess:
    # all three fail the failures gate; being below a blind floor is a warning
    assert code == 1, output
    assert claim["failures"]["by_kind"]["unparsable"] == 3
    assert "FAIL failures: failed questions above threshold: 3 of 3 questions failed " in output
    assert "(100.0 %: 3 unparsable)" in output
    warned = [line for line in output.splitlines() if line.startswith("warning: not above")]
    assert warned == below
    # the blind floors edited down, below the result: re-derived, they are what they were
    summary = json.loads((out / "summary.json").read_text())
    stated = summary["floors"]["blind"][0]["score"]
    for entry in summary["floors"]["blind"]:
        entry["score"] = -1.0
    (out / "summary.json").write_text(json.dumps(summary))
    code, output = invoke("verify", str(out), "--max-failed", "1")
    assert code == 1, output
    assert [line for line in output.splitlines() if line.startswith("  FAIL")] == [
        "  FAIL consistent: folder parts disagree: summary.json.floors.blind[0].score: stated "
        f"-1.0, recomputed {stated!r}",
        "  FAIL bound: folder files edited: changed since locoscore wrote it: summary.json",
    ]
    # and the card shows the recomputed floors, the result below them
    warned = [line for line in output.splitlines() if line.startswith("warning: not above")]
    assert warned == below
