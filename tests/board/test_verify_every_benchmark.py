"""`verify` on folders written by `run` + `judge` (+ `report`) of LoCoMo, LongMemEval and
BEAM, untouched: every number re-derives; one edited byte of a score is named."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from locoscore.cli import app


def _verify(folder: Path, *extra: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["verify", str(folder), "--allow-fake", *extra])
    return result.exit_code, result.output


@pytest.mark.parametrize(
    "name", ["locomo", "lme-k1", "lme-k20", "beam-k1", "beam-k10", "lme-answers"]
)
def test_an_untouched_folder_passes_with_every_number_re_derived(made, name):
    code, output = _verify(made[name])
    assert code == 0, output
    [line] = [x for x in output.splitlines() if x.startswith("  pass consistent:")]
    assert line.startswith("  pass consistent: folder parts agree: every number re-derived")


@pytest.mark.parametrize("name", ["lme-unjudged", "beam-unjudged"])
def test_an_unjudged_folder_is_not_a_result(made, name):
    code, output = _verify(made[name])
    assert code == 1, output
    assert [x for x in output.splitlines() if x.startswith("  FAIL")] == [
        "  FAIL scored: not scored: the folder has no headline; judge it first (`locoscore judge`)"
    ]


def test_a_retrieval_recall_edited_is_named(made, tmp_path):
    # LongMemEval's recall is recomputed from the items the run stored per question
    folder = shutil.copytree(made["lme-k1"], tmp_path / "edited")
    summary = json.loads((folder / "summary.json").read_text())
    session = summary["retrieval"]["overall"]["session"]
    stated = session["recall_all@1"]
    session["recall_all@1"] = stated + 0.5
    (folder / "summary.json").write_text(json.dumps(summary))
    code, output = _verify(folder)
    assert code == 1, output
    assert (
        "  FAIL consistent: folder parts disagree: summary.json.retrieval.overall.session."
        f"recall_all@1: stated {stated + 0.5!r}, recomputed {stated!r}"
    ) in output.splitlines()


def test_a_longmemeval_verdict_edited_is_a_j_that_does_not_re_derive(made, tmp_path):
    folder = shutil.copytree(made["lme-k20"], tmp_path / "edited")
    lines = [json.loads(x) for x in (folder / "judgments.jsonl").read_text().splitlines()]
    flipped = next(x for x in lines if x["score"] == 100.0)
    flipped["score"] = 0.0
    (folder / "judgments.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    code, output = _verify(folder)
    assert code == 1, output
    line, bound = [x for x in output.splitlines() if x.startswith("  FAIL")]
    # the manifest names the edited file; the re-derivation names the numbers it moves
    assert bound == "  FAIL bound: folder files edited: changed since locoscore wrote it: " + (
        "judgments.jsonl"
    )
    # the stated J (summary.json and scores.jsonl) is not the recomputation from the verdicts
    assert line.startswith("  FAIL consistent: folder parts disagree: summary.json.judge.")
    question = flipped["key"].split("#")[0]
    assert f"scores.jsonl {question}.j: stated 1.0, recomputed 0.5" in line


def test_a_beam_verdict_edited_is_a_score_that_does_not_re_derive(made, tmp_path):
    folder = shutil.copytree(made["beam-k1"], tmp_path / "edited")
    lines = [json.loads(x) for x in (folder / "judgments.jsonl").read_text().splitlines()]
    flipped = next(x for x in lines if x["score"] == 0.0 and "|pair" not in x["sample_id"])
    flipped["score"] = 100.0
    (folder / "judgments.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    code, output = _verify(folder)
    assert code == 1, output
    line, bound = [x for x in output.splitlines() if x.startswith("  FAIL")]
    assert bound.endswith("changed since locoscore wrote it: judgments.jsonl")
    assert line.startswith("  FAIL consistent: folder parts disagree: summary.json.judge.")
    assert f"scores.jsonl {flipped['sample_id']}.beam_runs[0]: stated " in line
