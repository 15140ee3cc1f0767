"""`judge --executor ray --shards N`: the shards judged as Ray tasks, then every question in
DIR from their joined caches, equal to the unsharded judge; a shard killed mid-run resumes
without paying a call twice; the shards together never exceed one judge's concurrency;
the dry run prints each shard's estimate and the whole's."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from shard_helpers import cli, differences, jsonl, strip

from locoscore.testing._verdicts import reference_recall_score
from locoscore.testing.fake_provider import FakeConfig, FakeProvider

# one worker runs every Ray test (`--dist loadgroup`): never two local Rays at once
pytestmark = pytest.mark.xdist_group("ray")

LOCOMO = Path("/work/shared/data/locomo10.json")
KEY = "sk-ant-test-ray-judge-0123456789"
SAMPLE = ("--limit", "36", "--seed", "3")  # drawn first, then sharded


@pytest.fixture(scope="module")
def ray_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A local Ray (its workers inherit the key) and a run's predictions to judge."""
    ray = pytest.importorskip("ray")
    root = tmp_path_factory.mktemp("ray-judge")
    run = cli(
        "run", "--system", "bm25", "--answer-provider", "extractive", "--dataset", str(LOCOMO),
        "--conversations", "conv-26,conv-30,conv-41", "--out", str(root / "run"),
        "--no-progress", "--skip-probe",
    )  # fmt: skip
    assert run.exit_code == 0, run.output
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ANTHROPIC_API_KEY", KEY)
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        try:
            yield root / "run" / "predictions.jsonl"
        finally:
            ray.shutdown()


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    with FakeProvider(FakeConfig(timeout_s=5.0, verdict=reference_recall_score)) as provider:
        yield provider


def _judge(fake: FakeProvider, predictions: Path, out: Path, *extra: str) -> Any:
    return cli(
        "judge", str(predictions), "--out", str(out), "--dataset", str(LOCOMO), "--base-url",
        fake.url, "--runs", "2", "--no-progress", *SAMPLE, *extra,
    )  # fmt: skip


def _judged(folder: Path) -> dict[str, Any]:
    """What a judge found: its summary section and verdicts, without how the pass went."""
    section = json.loads((folder / "summary.json").read_text())["judge"]
    # how the pass went: calls, spend, the response format negotiated by the calls it made
    for how in ("calls", "usage", "attempts", "earlier_attempts", "input", "retries",
                "response_format"):  # fmt: skip
        section.pop(how, None)
    return {"section": strip(section), "judgments": strip(jsonl(folder / "judgments.jsonl"))}


def test_three_ray_shards_judge_as_the_unsharded_judge_paying_each_call_once(
    ray_env: Path, fake: FakeProvider, tmp_path: Path
) -> None:
    whole = _judge(fake, ray_env, tmp_path / "whole")
    assert whole.exit_code == 0, whole.output
    needed = fake.generation_calls
    assert needed == 2 * 36  # two runs per sampled question
    fake.reset_counters()

    out = tmp_path / "ray"
    result = _judge(fake, ray_env, out, "--executor", "ray", "--shards", "3")
    assert result.exit_code == 0, result.output
    assert fake.generation_calls == needed  # every call made once, by some shard
    assert "shard 2/3 judged" in result.output
    assert not differences(_judged(tmp_path / "whole"), _judged(out))
    shard_questions = [
        {r["key"] for r in jsonl(out / "shards" / f"shard-{i}" / "judgments.jsonl")}
        for i in range(3)
    ]
    assert sum(map(len, shard_questions)) == len(set().union(*shard_questions))  # disjoint
    # the judge's spend is the shards' summed (their attempts are the folder's earlier
    # ones): the calls, tokens and cost the unsharded judge reports
    section = json.loads((out / "summary.json").read_text())["judge"]
    alone = json.loads((tmp_path / "whole" / "summary.json").read_text())["judge"]
    assert section["calls"]["made"] == alone["calls"]["made"] == needed
    assert section["usage"] == alone["usage"]

    fake.reset_counters()  # a rerun: every shard resumes, nothing is asked again
    again = _judge(fake, ray_env, out, "--executor", "ray", "--shards", "3")
    assert again.exit_code == 0, again.output
    assert fake.generation_calls == 0
    assert not differences(_judged(tmp_path / "whole"), _judged(out))


def test_a_killed_shard_resumes_without_a_second_call(
    ray_env: Path, fake: FakeProvider, tmp_path: Path
) -> None:
    needed_whole = _judge(fake, ray_env, tmp_path / "whole")
    assert needed_whole.exit_code == 0
    needed = fake.generation_calls
    fake.reset_counters()
    fake.config.latency_s = 0.05
    out = tmp_path / "ray"
    shard = out / "shards" / "shard-1"
    command = [
        sys.executable, "-m", "locoscore", "judge", str(ray_env), "--out", str(shard),
        "--dataset", str(LOCOMO), "--base-url", fake.url, "--runs", "2", "--no-progress",
        "--concurrency", "1", "--shard", "1/3", *SAMPLE,
    ]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while fake.generation_calls < 4 and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=10)
    assert process.returncode == -signal.SIGKILL
    paid_before = fake.generation_calls
    assert 0 < paid_before < needed // 3  # it died mid-shard

    fake.config.latency_s = 0.0
    result = _judge(fake, ray_env, out, "--executor", "ray", "--shards", "3")
    assert result.exit_code == 0, result.output
    # one call at most was in flight when it died (concurrency 1): at most one paid twice
    assert needed <= fake.generation_calls <= needed + 1
    assert not differences(_judged(tmp_path / "whole"), _judged(out))


def test_shards_share_one_judges_concurrency(
    ray_env: Path, fake: FakeProvider, tmp_path: Path
) -> None:
    fake.config.latency_s = 0.05  # calls overlap: the peak shows what was sent together
    result = _judge(
        fake, ray_env, tmp_path / "ray", "--executor", "ray", "--shards", "3", "--concurrency", "3"
    )
    assert result.exit_code == 0, result.output
    assert 1 <= fake.peak_in_flight <= 3  # each shard 3 // 3 = 1 in flight


def test_the_dry_run_prints_each_shards_estimate_and_the_wholes(
    ray_env: Path, fake: FakeProvider, tmp_path: Path
) -> None:
    out = tmp_path / "dry"
    result = _judge(fake, ray_env, out, "--executor", "ray", "--shards", "3", "--dry-run")
    assert result.exit_code == 0, result.output
    text = result.output
    heads = [text.index(f"shard {i}/3:") for i in range(3)]
    assert heads == sorted(heads) and text.index("all 3 shards together:") > heads[-1]
    assert fake.generation_calls == 0 and not out.exists()


def test_ray_judge_without_dataset_finds_the_data_as_a_plain_judge(
    ray_env: Path, fake: FakeProvider, tmp_path: Path
) -> None:
    def judge(out: Path, *extra: str) -> Any:  # no --dataset, none fetched
        return cli(
            "judge", str(ray_env), "--out", str(out), "--base-url", fake.url, "--runs", "1",
            "--no-progress", *SAMPLE, *extra,
        )  # fmt: skip

    plain = judge(tmp_path / "plain")
    assert plain.exit_code == 0, plain.output
    ray = judge(tmp_path / "ray", "--executor", "ray", "--shards", "3")
    assert ray.exit_code == 0, ray.output
    assert not differences(_judged(tmp_path / "plain"), _judged(tmp_path / "ray"))


def test_ray_judge_refuses_a_shard_option(
    ray_env: Path, fake: FakeProvider, tmp_path: Path
) -> None:
    result = _judge(
        fake, ray_env, tmp_path / "x", "--executor", "ray", "--shards", "3", "--shard", "0/3"
    )
    assert result.exit_code == 2 and "drop --shard" in result.output
    assert not (tmp_path / "x").exists()
