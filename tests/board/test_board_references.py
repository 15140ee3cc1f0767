"""The board's reference lines and its judge groups, on real runs of LoCoMo (20 questions,
the extractive answerer): `gold-evidence` is a ceiling line, `no-memory` a floor line, never
the leader nor a failure; a judge that made no call groups with the judge that made some."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.testing.fake_provider import FakeConfig, FakeProvider

runner = CliRunner()


def _run(locomo: Path, out: Path, system: str) -> Path:
    result = runner.invoke(app, [
        "run", "--system", system, "--dataset", str(locomo), "--limit", "20", "--out", str(out),
        "--no-progress", "--skip-probe", "--answer-provider", "extractive",
    ])  # fmt: skip
    assert result.exit_code == 0, result.output
    return out


def _board(tmp_path: Path, *folders: Path) -> dict:
    result = runner.invoke(app, ["board", *map(str, folders), "--out", str(tmp_path / "b")])
    assert result.exit_code == 0, result.output
    board = json.loads((tmp_path / "b" / "board.json").read_text())
    board["output"] = result.output
    return board


def test_floor_and_ceiling_are_lines_never_the_leader(locomo_path, tmp_path):
    """Before: gold-evidence led the board (its F1 is the highest), no-memory failed a gate."""
    floor = _run(locomo_path, tmp_path / "floor", "no-memory")
    bm25 = _run(locomo_path, tmp_path / "bm25", "bm25")
    ceiling = _run(locomo_path, tmp_path / "ceiling", "gold-evidence")
    board = _board(tmp_path, floor, bm25, ceiling)
    [group] = board["groups"]
    # as the floors-and-ceilings page shows it
    assert f"leader {bm25} (retrieval ceiling {ceiling}, floor {floor}: reference lines)" in (
        " ".join(board["output"].split())
    )
    rows = [(Path(r["folder"]).name, r["rank"], r["reference"], r["gates"]["pass"])
            for r in group["rows"]]  # fmt: skip
    assert rows == [
        ("ceiling", 0, "retrieval ceiling", True),
        ("bm25", 1, None, True),
        ("floor", 0, "floor", True),
    ]
    page = (tmp_path / "b" / "board.md").read_text()
    assert "reference: the retrieval ceiling, not ranked" in page
    assert "reference: the floor, not ranked" in page


def test_a_judge_that_made_no_call_groups_with_its_judge(locomo_path, tmp_path, monkeypatch):
    """Before: the floor's answers (extractive, nothing retrieved) were all graded without a
    call, so its judge signature had no `served:` part and it stood in a group of its own."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    floor = _run(locomo_path, tmp_path / "floor", "no-memory")
    bm25 = _run(locomo_path, tmp_path / "bm25", "bm25")
    with FakeProvider(FakeConfig()) as fake:
        made = []
        for folder in (floor, bm25):
            before = fake.generation_calls
            result = runner.invoke(app, [
                "judge", str(folder / "predictions.jsonl"), "--out", str(folder), "--runs", "1",
                "--base-url", fake.url, "--no-progress", "--dataset", str(locomo_path),
            ])  # fmt: skip
            assert result.exit_code == 0, result.output
            made.append(fake.generation_calls - before)
    assert made[0] == 0 and made[1] > 0
    signatures = [
        json.loads((f / "summary.json").read_text())["judge"]["signature"] for f in (floor, bm25)
    ]
    assert "|served:" not in signatures[0] and "|served:" in signatures[1]
    [group] = _board(tmp_path, floor, bm25)["groups"]
    rows = [(Path(r["folder"]).name, r["rank"], r["reference"]) for r in group["rows"]]
    assert rows == [("bm25", 1, None), ("floor", 0, "floor")]
