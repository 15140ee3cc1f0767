"""`reproduce mem0-table` on two conversations' stratified sample, against the fake
provider: the dry run's calls per row, then the table written from the judged folders."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.reproduce.plan import SKIPPED_ROWS, row_named
from locoscore.reproduce.table import Measured, write_table
from locoscore.testing.fake_provider import FakeConfig, FakeProvider

LIMIT = 12
RUNS = 2
CATEGORIES = ("4", "1", "2", "3")  # the table's columns: single-hop, multi-hop, temporal, open


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeProvider]:
    with FakeProvider(FakeConfig(latency_s=0.0, timeout_s=5.0)) as provider:
        yield provider


def _invoke(fake: FakeProvider, locomo_path: Path, out: Path, *extra: str) -> Any:
    args = [
        "reproduce", "mem0-table", "--out", str(out), "--dataset", str(locomo_path),
        "--rows", "full-context,rag-bm25", "--conversations", "conv-26,conv-30",
        "--limit", str(LIMIT), "--runs", str(RUNS), "--answer-base-url", fake.openai_url,
        "--judge-base-url", fake.openai_url, *extra,
    ]  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return CliRunner().invoke(app, args, env={"OPENAI_API_KEY": "sk-test-reproduce-0000"})


@pytest.fixture(scope="module")
def reproduced(
    fake: FakeProvider, locomo_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    out = tmp_path_factory.mktemp("reproduce") / "table"
    result = _invoke(fake, locomo_path, out)
    assert result.exit_code == 0, result.output
    return out


def _expected_cells(folder: Path) -> dict[str, list[float]]:
    """J (0-100) of each judged question, by category id, read off scores.jsonl."""
    cells: dict[str, list[float]] = {}
    for line in (folder / "scores.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row.get("j_mean") is not None:
            cells.setdefault(str(row["category"]), []).append(float(row["j_mean"]))
    return cells


def test_dry_run_prints_every_rows_answer_and_judge_calls(
    fake: FakeProvider, locomo_path: Path, tmp_path: Path
) -> None:
    result = _invoke(fake, locomo_path, tmp_path / "dry", "--dry-run")
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    for label in ("Full-context (--system full-context):", "RAG, BM25 over turns (--system bm25):"):
        assert label in text
    # the sample's 12 questions (no category 5) per row, each judged RUNS times
    assert text.count(f"answer calls to make: {LIMIT}") == 2
    assert text.count(f"judge calls: {LIMIT * RUNS} ({RUNS} runs per question)") == 2
    assert "OpenAI Memory: not run (no API" in text
    assert not (tmp_path / "dry" / "full-context" / "predictions.jsonl").exists()


def test_table_sets_each_cell_beside_the_paper_with_its_gap(reproduced: Path) -> None:
    document = json.loads((reproduced / "reproduce.json").read_text(encoding="utf-8"))
    rows = {r["row"]: r for r in document["rows"]}
    full = rows["full-context"]
    expected = _expected_cells(reproduced / "full-context")
    assert sum(len(v) for v in expected.values()) == LIMIT  # every question judged
    for cid in CATEGORIES:
        cell = full["categories"][cid]
        if cid not in expected:
            assert cell is None
            continue
        assert cell["j"] == pytest.approx(sum(expected[cid]) / len(expected[cid]), abs=1e-4)
        assert cell["n"] == len(expected[cid])
        assert cell["paper"] is None  # the paper gives full-context's overall only
    overall = full["overall"]
    values = [v for vs in expected.values() for v in vs]
    assert overall["j"] == pytest.approx(sum(values) / len(values), abs=1e-4)
    assert overall["paper"] == 72.90
    assert overall["gap"] == pytest.approx(overall["j"] - 72.90, abs=1e-4)
    low, high = overall["ci95"]
    assert low <= overall["j"] <= high
    assert overall["paper_inside_ci"] == (low <= 72.90 <= high)
    assert rows["rag-bm25"]["overall"]["paper"] is None  # no published BM25 row
    assert [s["published_row"] for s in document["not_run"]] == [s.published for s in SKIPPED_ROWS]
    md = (reproduced / "reproduce.md").read_text(encoding="utf-8")
    assert f"paper 72.90, gap {overall['gap']:+.2f}" in md
    assert "Self-judged" in md and "| OpenAI Memory | no API" in md
    assert f"Subset (sample:{LIMIT}/" in md


def test_the_writer_rebuilds_the_same_table_from_the_recorded_folders(
    reproduced: Path, tmp_path: Path
) -> None:
    measured = [
        Measured(row_named(name), reproduced / name) for name in ("full-context", "rag-bm25")
    ]
    measured.append(Measured(row_named("mem0"), reproduced / "mem0", "no key"))
    write_table(tmp_path, measured, list(SKIPPED_ROWS))
    again = json.loads((tmp_path / "reproduce.json").read_text(encoding="utf-8"))
    first = json.loads((reproduced / "reproduce.json").read_text(encoding="utf-8"))
    assert again["rows"][:2] == first["rows"]
    assert again["rows"][2]["missing"] == "no key"
    assert "| **Mem0** | **not measured: no key** |" in (tmp_path / "reproduce.md").read_text()


def test_an_unknown_row_is_refused_in_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["reproduce", "mem0-table", "--out", str(tmp_path / "t"), "--rows", "zep"]
    )
    assert result.exit_code == 2
    assert "zep: unknown row (known: full-context, rag-dense, rag-bm25" in result.output
    assert "Traceback" not in result.output and not (tmp_path / "t").exists()
