"""`run --executor ray --shards N`: without Ray, one line saying how to install it; with
Ray (the `ray` extra), three shards as tasks on a local Ray merge to the unsharded run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from shard_helpers import assert_same_results, cli, jsonl

# one worker runs every Ray test (`--dist loadgroup`): never two local Rays at once
pytestmark = pytest.mark.xdist_group("ray")

LOCOMO = Path("/work/shared/data/locomo10.json")
CONVERSATIONS = "conv-26,conv-30,conv-41"


def _args(out: Path, *extra: str) -> list[str]:
    return [
        "run", "--system", "bm25", "--answer-provider", "extractive", "--dataset", str(LOCOMO),
        "--conversations", CONVERSATIONS, "--out", str(out), "--no-progress", "--skip-probe",
        *extra,
    ]  # fmt: skip


def test_without_ray_the_executor_says_how_to_install_it(tmp_path: Path) -> None:
    # `ray` made unimportable in a fresh process, whether or not it is installed here
    code = (
        "import sys; sys.modules['ray'] = None; sys.argv = ['locoscore', *sys.argv[1:]]; "
        "from locoscore.cli import main; main()"
    )
    out = tmp_path / "r"
    args = _args(out, "--executor", "ray", "--shards", "3")
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2, done.stdout + done.stderr
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert len(lines) == 1 and "pip install 'locoscore[ray]'" in lines[0], lines
    assert not out.exists()


def test_shards_need_the_ray_executor(tmp_path: Path) -> None:
    result = cli(*_args(tmp_path / "r", "--shards", "3"))
    assert result.exit_code == 2 and "--executor ray" in result.output


def test_three_ray_tasks_merge_to_the_unsharded_run(tmp_path: Path) -> None:
    ray = pytest.importorskip("ray")
    whole, out = tmp_path / "whole", tmp_path / "ray"
    assert cli(*_args(whole)).exit_code == 0
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        with pytest.MonkeyPatch.context() as env:
            env.setenv("LOCOSCORE_PROGRESS_EVERY", "0.5")
            result = cli(*_args(out, "--executor", "ray", "--shards", "3"), "--progress")
        assert result.exit_code == 0, result.output
        assert_same_results(whole, out, ("predictions.jsonl", "scores.jsonl"))
        # one progress line for the three tasks together, ending at every question
        questions = len(jsonl(whole / "predictions.jsonl"))
        assert f"answering (all shards): {questions:,}/{questions:,} questions" in result.output
        shards = sorted(p.name for p in (out / "shards").iterdir())
        assert shards == ["shard-0", "shard-1", "shard-2"]
        run = json.loads((out / "run.json").read_text())
        assert run["signature"] == json.loads((whole / "run.json").read_text())["signature"]
        # the final predictions' path, not the merge's staging folder (deleted after it)
        summary = json.loads((out / "summary.json").read_text())
        assert summary["input"]["path"] == str(out / "predictions.jsonl")
        for name in ("summary.json", "run.json", "report.md"):
            assert ".merged" not in (out / name).read_text(), name
        # a rerun resumes every shard (nothing to redo) and merges again to the same folder
        before = jsonl(out / "predictions.jsonl")
        again = cli(*_args(out, "--executor", "ray", "--shards", "3"))
        assert again.exit_code == 0, again.output
        assert jsonl(out / "predictions.jsonl") == before
    finally:
        ray.shutdown()


def test_the_dry_run_prints_each_shard_and_their_sum_before_anything_starts(
    tmp_path: Path,
) -> None:
    import re

    out = tmp_path / "dry"
    with pytest.MonkeyPatch.context() as env:
        env.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0123456789")
        result = cli(
            *_args(out, "--executor", "ray", "--shards", "3", "--dry-run"),
            "--answer-provider", "anthropic", "--answer-model", "claude-sonnet-4-5",
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    parts = re.split(r"shard \d/3: |all 3 shards together: ", text)[1:]
    assert len(parts) == 4, text
    calls = [
        int(re.search(r"answer calls to make: ([\d,]+)", p)[1].replace(",", "")) for p in parts
    ]
    costs = [float(re.search(r"estimated cost: \$([\d.]+)", p)[1]) for p in parts]
    assert calls[3] == sum(calls[:3]) > 0 and all(calls[:3])  # every shard has questions
    assert costs[3] == pytest.approx(sum(costs[:3]), abs=0.015)  # each shown to the cent
    assert not out.exists()  # a dry run writes nothing
