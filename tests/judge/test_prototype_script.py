"""scripts/score_prototype.py: F1 table, J table, latency summary and the closing note."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("score_prototype", REPO / "scripts" /
                                                  "score_prototype.py")  # fmt: skip
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_prototype_script_prints_f1_j_latency_and_the_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = _script().main(["--fake-provider", "--runs", "3", "--out", str(tmp_path)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "f1 spec" in printed and "LLM judge J (rubric" in printed
    assert "search latency (s): mean 0.150" in printed  # mean of the 14 search latencies
    assert "prototype on 14 questions (12 judged) from 2 conversation(s)" in printed
    assert "`locoscore judge` on the full" in printed
    # the same library path as the CLI: its outputs are the CLI's outputs
    judge = json.loads((tmp_path / "summary.json").read_text())["judge"]
    assert judge["runs"] == 3 and judge["overall"]["count"] == 12


def test_example_is_invented_and_covers_all_five_categories() -> None:
    data = json.loads((REPO / "examples" / "prototype_results.json").read_text())
    records = data["results"]
    assert {r["category"] for r in records} == {1, 2, 3, 4, 5}
    assert all(r["sample_id"].startswith("proto-") for r in records)
    assert all("search_latency_ms" in r and "total_latency_ms" in r for r in records)
