"""The board's gate column and `compare`'s card lines, on real runs of one LoCoMo sample."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import invoke, run_system


def test_a_row_failing_a_gate_is_marked_and_never_the_leader(
    plugins, locomo_path, tmp_path, bm25_run
):
    # answers every question with its gold and retrieves nothing: the best F1 of the group
    cheater = run_system(locomo_path, tmp_path / "cheater", "python:claim_plugins:Cheater")
    out = tmp_path / "board"
    code, output = invoke("board", str(bm25_run), str(cheater), "--out", str(out))
    assert code == 0, output
    board = json.loads((out / "board.json").read_text())
    [group] = board["groups"]
    headline = group["headline"]
    rows = {Path(r["folder"]).name: r for r in group["rows"]}
    means = {name: r["metrics"][headline]["overall"]["mean"] for name, r in rows.items()}
    assert means["cheater"] > means["run"]  # without the gate it would lead
    first = group["rows"][0]
    assert Path(first["folder"]).parent == bm25_run.parent
    assert (first["rank"], first["gates"]) == (1, {"pass": True, "failed": []})
    marked = rows["cheater"]
    assert marked["rank"] == 0
    assert marked["gates"]["pass"] is False
    assert marked["gates"]["failed"] == [
        "retrieval: empty retrieval: nothing retrieved for 60 of 60 questions (100.0 %), "
        "threshold 50.0 %"
    ]
    page = (out / "board.md").read_text()
    # the scores table (first) and the costs table name the row; both mark it unranked
    scores_line = next(line for line in page.splitlines() if str(cheater) in line)
    assert scores_line.startswith("| ✗ |")
    assert "| not ranked: FAIL retrieval |" in scores_line


def test_compare_prints_the_card_lines_that_differ(bm25_run, flaky_run, tmp_path):
    code, output = invoke("compare", str(bm25_run), str(flaky_run), "--out", str(tmp_path / "c"))
    assert code == 0, output
    lines = output[output.index("claim card lines that differ:") :].splitlines()
    fields = [line.strip().split(":", 1)[0] for line in lines[1:] if line.startswith("  ")]
    # the same benchmark, data, questions and answerer: only these differ
    assert fields == ["system", "questions", "score", "failures", "retrieval"]
    [failures] = [line.strip() for line in lines if line.strip().startswith("failures:")]
    assert failures == (
        "failures: A: 0 of 60 (0.0 %): errors 0, context overflow 0, unparsable 0 | "
        "B: 2 of 60 (3.3 %): errors 2, context overflow 0, unparsable 0"
    )
