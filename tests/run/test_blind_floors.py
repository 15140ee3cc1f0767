"""A benchmark's blind baselines (`Benchmark.blind_baselines`), computed by the run over the
questions it asked and recorded in summary.json `floors`, then shown in the report.

The test benchmark is the tiny example with two baselines that read no conversation:
`always-2024` answers "2024" and `always-miso` answers "Miso" to every question, each scored
with the example's gold recall (share of the gold's words said). By hand, on the six golds
(Miso | April 2024 | Lisbon | 1 June 2024 | the cello | 20 July 2024):
- always-2024: 0, 1/2, 0, 1/3, 0, 1/3 -> overall 7/36 = 19.4444; single fact 0, when 38.8889.
- always-miso: 1, 0, 0, 0, 0, 0 -> overall 1/6 = 16.6667; single fact 33.3333, when 0.
`--limit 4` (seed 0, stratified by type) asks ana-1, ben-1, ben-2 and cho-2:
- always-2024: 0, 0, 1/3, 1/3 -> 16.6667; single fact 0, when 33.3333.
- always-miso: 1, 0, 0, 0 -> 25.0; single fact 50.0, when 0.
The runs here (`no-memory` with the extractive answerer) say nothing: 0 on every question.
Their margin over the best floor is result - floor question by question:
- all six, over always-2024: 0, -1/2, 0, -1/3, 0, -1/3 -> mean -7/36 = -19.4444. Wilcoxon
  signed-rank on the three nonzero: |d| 1/3, 1/3 tie at ranks 1.5, 1.5, and 1/2 is rank 3;
  W+ = 0, mean n(n+1)/4 = 3, var 3*4*7/24 - (2^3 - 2)/48 = 3.375, z = -3/sqrt(3.375),
  p = erfc(|z|/sqrt 2).
- the `--limit 4` sample, over always-miso: -1, 0, 0, 0 -> -25.0; one nonzero difference:
  W+ = 0, mean 1/2, var 1/4, z = -1, p = erfc(1/sqrt 2).
"""

from __future__ import annotations

import json
import math
import textwrap
from pathlib import Path
from typing import Any

import pytest
from run_helpers import run_cli
from typer.testing import CliRunner

from locoscore.cli import app

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
MODULE = textwrap.dedent("""\
    from tiny_benchmark import TinyBenchmark, gold_recall

    from locoscore.benchmarks import BlindBaseline, QuestionType


    class Floored(TinyBenchmark):
        name = "tiny-floored"
        types = (QuestionType(1, "fact", "single fact"),
                 QuestionType(2, "when", "when", in_overall={when_in_overall}))

        def blind_baselines(self, data, questions):
            return tuple(
                BlindBaseline(
                    f"always-{{answer.lower()}}",
                    f"answers {{answer!r}} to every question",
                    {{q.question_id: gold_recall(answer, str(q.gold)) for q in questions}},
                )
                for answer in ("2024", "Miso")
            )


    BENCHMARK = Floored()
    """)


@pytest.fixture
def spec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> str:
    when_in_overall = getattr(request, "param", True)
    module = f"floored_{'all' if when_in_overall else 'facts'}"
    (tmp_path / f"{module}.py").write_text(MODULE.format(when_in_overall=when_in_overall))
    monkeypatch.syspath_prepend(str(EXAMPLES))
    monkeypatch.syspath_prepend(str(tmp_path))
    return f"python:{module}:BENCHMARK"


def _floors(out: Path) -> dict[str, Any]:
    floors: dict[str, Any] = json.loads((out / "summary.json").read_text())["floors"]
    return floors


def _scores(floors: dict[str, Any]) -> dict[str, tuple[float, int, dict[str, float]]]:
    return {
        b["name"]: (b["score"], b["n"], {t: v["mean"] for t, v in b["by_type"].items()})
        for b in floors["blind"]
    }


def _run(spec: str, out: Path, *extra: str) -> None:
    result = run_cli(
        "--benchmark", spec, "--system", "no-memory", "--answer-provider", "extractive",
        "--out", str(out), *extra,
    )  # fmt: skip
    assert result.exit_code == 0, result.output


def test_floors_over_every_question(spec: str, tmp_path: Path) -> None:
    out = tmp_path / "all"
    _run(spec, out)
    floors = _floors(out)
    assert floors["scale"] == "0-100" and floors["questions"] == 6
    assert _scores(floors) == {
        "always-2024": (19.4444, 6, {"single fact": 0.0, "when": 38.8889}),
        "always-miso": (16.6667, 6, {"single fact": 33.3333, "when": 0.0}),
    }
    first = floors["blind"][0]
    assert first["description"] == "answers '2024' to every question"
    low, high = first["ci95"]
    assert low <= first["score"] <= high
    # the report shows them in a block of their own
    result = CliRunner().invoke(app, ["report", str(out), "--benchmark", spec])
    assert result.exit_code == 0, result.output
    report = (out / "report.md").read_text()
    assert "## Blind baselines (floors without a model)" in report
    assert "| always-2024 | 6 | 19.4 [" in report
    assert "- always-miso: answers 'Miso' to every question" in report
    # the run's margin over the best floor, paired over the six questions
    margin = floors["margin"]
    assert (margin["over"], margin["mean"], margin["count"]) == ("always-2024", -19.4444, 6)
    assert margin["p_value"] == round(math.erfc(3 / math.sqrt(3.375) / math.sqrt(2)), 6)
    low, high = margin["ci95"]
    assert low <= -19.4444 <= high <= 0
    assert "Margin over the best floor (always-2024): -19.4 [" in report
    # the board shows it beside the headline
    board = CliRunner().invoke(app, ["board", str(out), "--out", str(tmp_path / "board")])
    assert board.exit_code == 0, board.output
    [row] = [r for g in json.loads((tmp_path / "board" / "board.json").read_text())["groups"]
             for r in g["rows"]]  # fmt: skip
    assert row["metrics"]["floor_margin"]["overall"]["mean"] == -19.4444


def test_a_judge_pass_keeps_the_floors(
    spec: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from locoscore.testing._verdicts import reference_recall_score
    from locoscore.testing.fake_provider import FakeConfig, FakeProvider

    out = tmp_path / "judged"
    _run(spec, out, "--limit", "4")
    before = _floors(out)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-floors-0123456789")
    with FakeProvider(FakeConfig(timeout_s=5.0, verdict=reference_recall_score)) as fake:
        result = CliRunner().invoke(app, [
            "judge", str(out / "predictions.jsonl"), "--out", str(out), "--benchmark", spec,
            "--protocol", "binary", "--provider", "openai", "--model", "gpt-4o-mini",
            "--base-url", fake.openai_url, "--no-progress",
        ])  # fmt: skip
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["judge"]["overall"]["mean"] == 0.0  # no-memory said nothing
    assert summary["floors"] == before
    # the margin is of the benchmark's metric, which the floors are scored with: kept
    assert (before["margin"]["over"], before["margin"]["mean"]) == ("always-miso", -25.0)


def test_floors_over_the_run_sample(spec: str, tmp_path: Path) -> None:
    out = tmp_path / "sample"
    _run(spec, out, "--limit", "4")
    asked = [json.loads(line)["question_id"] for line in (out / "predictions.jsonl").open()]
    assert asked == ["ana-1", "ben-1", "ben-2", "cho-2"]
    floors = _floors(out)
    assert floors["questions"] == 4
    assert _scores(floors) == {
        "always-2024": (16.6667, 4, {"single fact": 0.0, "when": 33.3333}),
        "always-miso": (25.0, 4, {"single fact": 50.0, "when": 0.0}),
    }
    margin = floors["margin"]
    assert (margin["over"], margin["mean"], margin["count"]) == ("always-miso", -25.0, 4)
    assert margin["p_value"] == round(math.erfc(1 / math.sqrt(2)), 6)


@pytest.mark.parametrize("spec", [False], indirect=True)
def test_the_overall_leaves_out_the_types_the_headline_leaves_out(
    spec: str, tmp_path: Path
) -> None:
    # `when` out of the overall: each overall is over the three fact questions only
    out = tmp_path / "facts"
    _run(spec, out)
    assert _scores(_floors(out)) == {
        "always-2024": (0.0, 3, {"single fact": 0.0, "when": 38.8889}),
        "always-miso": (33.3333, 3, {"single fact": 33.3333, "when": 0.0}),
    }
    # and so is the margin: over always-miso on the three facts, 0 - (1, 0, 0)
    margin = _floors(out)["margin"]
    assert (margin["over"], margin["mean"], margin["count"]) == ("always-miso", -33.3333, 3)


def test_shards_merged_get_the_floors_of_every_question(spec: str, tmp_path: Path) -> None:
    shards = [tmp_path / "shard-1", tmp_path / "shard-2"]
    for index, folder in enumerate(shards):
        _run(spec, folder, "--shard", f"{index}/2")
    assert sum(_floors(f)["questions"] for f in shards) == 6  # each over its own questions
    merged = tmp_path / "merged"
    result = CliRunner().invoke(app, ["merge", *map(str, shards), "--out", str(merged)])
    assert result.exit_code == 0, result.output
    assert _scores(_floors(merged))["always-2024"] == (
        19.4444,
        6,
        {"single fact": 0.0, "when": 38.8889},
    )
    # the merged folder's margin is over every question, not a shard's
    assert _floors(merged)["margin"]["mean"] == -19.4444
    assert _floors(merged)["margin"]["count"] == 6


def test_a_benchmark_without_baselines_records_no_floors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLES))
    out = tmp_path / "plain"
    _run("python:tiny_benchmark:BENCHMARK", out)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["metric"]["overall"]["count"] == 6 and "floors" not in summary
    result = CliRunner().invoke(app, ["report", str(out)])
    assert result.exit_code == 0, result.output
    assert "Blind baselines" not in (out / "report.md").read_text()
