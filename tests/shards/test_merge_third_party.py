"""A third-party benchmark (the tiny example, `python:tiny_benchmark:BENCHMARK`, data inline
in its module): two shards of bm25 with the extractive answerer merge to the unsharded run.
`merge` finds the benchmark by the spec the shards recorded (not its bare name, which no
registry knows) and its inline data by the module path they recorded as their data path."""

from __future__ import annotations

from pathlib import Path

import pytest
from shard_helpers import assert_same_results, cli, jsonl

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_shards_of_a_python_benchmark_merge_to_the_unsharded_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLES))
    common = [
        "run", "--benchmark", "python:tiny_benchmark:BENCHMARK", "--system", "bm25",
        "--top-k", "1", "--answer-provider", "extractive", "--no-progress", "--skip-probe",
    ]  # fmt: skip
    whole = tmp_path / "whole"
    assert cli(*common, "--out", str(whole)).exit_code == 0
    shards = [tmp_path / f"s{i}" for i in range(2)]
    for i, shard in enumerate(shards):
        result = cli(*common, "--out", str(shard), "--shard", f"{i}/2")
        assert result.exit_code == 0, result.output
    merged = tmp_path / "merged"
    result = cli("merge", *map(str, shards), "--out", str(merged))
    assert result.exit_code == 0, result.output
    assert len(jsonl(merged / "predictions.jsonl")) == 6
    assert_same_results(whole, merged, ("predictions.jsonl",))
