"""BEAM (three conversations of the 100K set): three shards of bm25 with the extractive
answerer merge to the unsharded run exactly."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from shard_helpers import assert_same_results, cli, jsonl

BEAM_100K = Path("/work/shared/data/beam/100K")


def test_three_shards_merge_to_the_unsharded_run(tmp_path: Path) -> None:
    if not BEAM_100K.exists():
        pytest.skip(f"BEAM 100K not found at {BEAM_100K}")
    data = tmp_path / "100K"
    for name in ("1", "2", "3"):
        shutil.copytree(BEAM_100K / name, data / name)
    common = [
        "run", "--benchmark", "beam", "--dataset", str(data), "--system", "bm25",
        "--answer-provider", "extractive", "--no-progress", "--skip-probe",
    ]  # fmt: skip
    whole = tmp_path / "whole"
    assert cli(*common, "--out", str(whole)).exit_code == 0
    shards = [tmp_path / f"s{i}" for i in range(3)]
    for i, shard in enumerate(shards):
        result = cli(*common, "--out", str(shard), "--shard", f"{i}/3")
        assert result.exit_code == 0, result.output
        # whole conversations: one each
        assert len(json.loads((shard / "run.json").read_text())["conversations"]) == 1
    merged = tmp_path / "merged"
    result = cli("merge", *map(str, shards), "--out", str(merged))
    assert result.exit_code == 0, result.output
    assert len(jsonl(merged / "predictions.jsonl")) == 60
    assert_same_results(whole, merged, ("predictions.jsonl",))
