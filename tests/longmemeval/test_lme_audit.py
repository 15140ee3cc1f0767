"""`locoscore audit --benchmark longmemeval`: probe sets built from the dataset, judged with
the per-type rules; the fake judge's reference-recall rule makes every verdict known."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from locoscore.benchmarks.longmemeval.audit import ABSTAIN, probe_sets
from locoscore.benchmarks.longmemeval.data import load_longmemeval
from locoscore.cli import app
from locoscore.testing.longmemeval_fixture import write_fixture


def test_probe_sets_from_the_fixture(tmp_path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        data = load_longmemeval(write_fixture(tmp_path / "s.json"))
    sets = probe_sets(data)
    assert sets["gold"]["5d1a6c3e"] == "3" and len(sets["gold"]) == 10
    assert set(sets["abstain"].values()) == {ABSTAIN} and len(sets["abstain"]) == 6
    # integers shifted by 3; an _abs question gets a confident answer of its type; a type
    # with no other answerable question has no plausible wrong answer
    assert sets["wrong"] == {
        "a3f9c2d1_abs": "Biscuit",
        "5d1a6c3e": "6",
        "9f3b2a81_abs": "3",
        "d3d94468_abs": "Acme Robotics",
        "gpt4_1a2b3c4d": "13",
        "gpt4_9e8d7c6b_abs": "10",
    }


def test_audit_accepts_gold_and_rejects_the_rest(fake: Any, tmp_path: Path) -> None:
    dataset = write_fixture(tmp_path / "s.json")
    out = tmp_path / "audit"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = CliRunner().invoke(app, [
            "audit", "--benchmark", "longmemeval", "--dataset", str(dataset), "--out", str(out),
            "--protocol", "binary", "--provider", "openai", "--model", "gpt-4o-2024-08-06",
            "--base-url", fake.openai_url, "--runs", "2", "--no-progress",
        ])  # fmt: skip
    assert result.exit_code == 0, result.output
    sets = json.loads((out / "audit.json").read_text())["sets"]
    assert sets["gold"]["accepted"]["overall"] == {"count": 10, "rate": 100.0}
    assert sets["gold"]["accepted"]["abstention"] == {"count": 4, "rate": 100.0}
    assert sets["abstain"]["accepted"]["overall"] == {"count": 6, "rate": 0.0}
    assert sets["wrong"]["accepted"]["overall"] == {"count": 6, "rate": 0.0}
    assert "| gold | accepted |" in (out / "audit.md").read_text()


def test_audit_limit_cuts_every_set_to_one_sample(fake: Any, tmp_path: Path) -> None:
    """`--limit 5`: the judge's sample (see test_lme_judge): a3f9c2d1_abs, 7c2d9e10,
    5d1a6c3e, d3d94468_abs, gpt4_1a2b3c4d. Gold: all 5 (2 `_abs`); abstain: the 3
    answerable ones; wrong: the 4 with a plausible wrong answer (7c2d9e10 has none)."""
    dataset = write_fixture(tmp_path / "s.json")
    out = tmp_path / "audit"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = CliRunner().invoke(app, [
            "audit", "--benchmark", "longmemeval", "--dataset", str(dataset), "--out", str(out),
            "--protocol", "binary", "--provider", "openai", "--model", "gpt-4o-2024-08-06",
            "--base-url", fake.openai_url, "--runs", "1", "--no-progress", "--limit", "5",
        ])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "sample:5/10@seed0:strat-type" in " ".join(result.output.split())
    document = json.loads((out / "audit.json").read_text())
    sets = document["sets"]
    assert sets["gold"]["accepted"]["overall"] == {"count": 5, "rate": 100.0}
    assert sets["gold"]["accepted"]["abstention"] == {"count": 2, "rate": 100.0}
    assert sets["abstain"]["accepted"]["overall"] == {"count": 3, "rate": 0.0}
    assert sets["wrong"]["accepted"]["overall"] == {"count": 4, "rate": 0.0}
    assert document["judge"]["signature"].endswith("|sample:5/10@seed0:strat-type|version:0.1.0")
    assert document["sample"]["question_ids"] == sorted(
        ["a3f9c2d1_abs", "7c2d9e10", "5d1a6c3e", "d3d94468_abs", "gpt4_1a2b3c4d"]
    )
    assert "Subset (sample:5/10@seed0:strat-type)" in (out / "audit.md").read_text()
