"""A LongMemEval-format file of 200 questions (the fixture's ten, twenty times over): three
shards of bm25 with the extractive answerer merge to the unsharded run exactly, with and
without --limit; a judge of the shards, merged and replayed from the joined caches, equals
the unsharded judge with no call made twice; `judge --shard` of the whole run's predictions
judges the same questions as the shard's own folder."""

from __future__ import annotations

import copy
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from shard_helpers import assert_same_results, cli, differences, jsonl, strip

from locoscore.testing._verdicts import reference_recall_score
from locoscore.testing.fake_provider import FakeConfig, FakeProvider
from locoscore.testing.longmemeval_fixture import make_records

COPIES = 20
FILES = ("predictions.jsonl", "hypotheses.jsonl")


def _question_id(qid: str, copy_index: int) -> str:
    """A distinct id per copy that keeps the id's meaning (`gpt4_` prefix, `_abs` suffix)."""
    abstention = qid.endswith("_abs")
    return f"{qid.removesuffix('_abs')}x{copy_index:02d}" + ("_abs" if abstention else "")


def _write_dataset(path: Path) -> Path:
    base = make_records(fillers=2)
    records = []
    for k in range(COPIES):
        for record in base:
            again = copy.deepcopy(record)
            again["question_id"] = _question_id(record["question_id"], k)
            records.append(again)
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


def _run(dataset: Path, out: Path, *extra: str) -> Any:
    return cli(
        "run", "--benchmark", "longmemeval", "--dataset", str(dataset), "--system", "bm25",
        "--answer-provider", "extractive", "--out", str(out), "--no-progress", "--skip-probe",
        *extra,
    )  # fmt: skip


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("lme-shards")
    made = {"data": _write_dataset(root / "longmemeval_s.json")}
    for tag, extra in (("", ()), ("limit-", ("--limit", "40"))):
        made[f"{tag}whole"] = root / f"{tag}whole"
        result = _run(made["data"], made[f"{tag}whole"], *extra)
        assert result.exit_code == 0, result.output
        for i in range(3):
            made[f"{tag}s{i}"] = root / f"{tag}s{i}"
            result = _run(made["data"], made[f"{tag}s{i}"], *extra, "--shard", f"{i}/3")
            assert result.exit_code == 0, result.output
    return made


@pytest.mark.parametrize("tag", ["", "limit-"])
def test_three_shards_merge_to_the_unsharded_run(
    runs: dict[str, Path], tmp_path: Path, tag: str
) -> None:
    whole = runs[f"{tag}whole"]
    questions = len(jsonl(whole / "predictions.jsonl"))
    assert questions == (10 * COPIES if not tag else 40)
    shards = [runs[f"{tag}s{i}"] for i in range(3)]
    sizes = [len(jsonl(s / "predictions.jsonl")) for s in shards]
    assert sum(sizes) == questions and min(sizes) > 0
    merged = tmp_path / "merged"
    result = cli("merge", *map(str, shards), "--out", str(merged))
    assert result.exit_code == 0, result.output
    assert_same_results(whole, merged, FILES)
    a = json.loads((whole / "run.json").read_text())
    b = json.loads((merged / "run.json").read_text())
    assert b["signature"] == a["signature"] and b["sample"] == a["sample"]
    assert b["conversations"] == a["conversations"]
    assert strip(b["measures"]) == strip(a["measures"])
    assert cli("report", str(merged)).exit_code == 0
    assert cli("board", str(whole), str(merged), "--out", str(tmp_path / "board")).exit_code == 0


@pytest.fixture
def judge_fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeProvider]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-lme-shards-0123456789")
    with FakeProvider(FakeConfig(timeout_s=5.0, verdict=reference_recall_score)) as provider:
        yield provider


def _judge(fake: FakeProvider, data: Path, answers: Path, out: Path, *extra: str) -> Any:
    return cli(
        "judge", str(answers), "--benchmark", "longmemeval", "--dataset", str(data),
        "--out", str(out), "--protocol", "binary", "--provider", "openai",
        "--model", "gpt-4o-2024-08-06", "--base-url", fake.openai_url, "--runs", "1",
        "--no-progress", *extra,
    )  # fmt: skip


def _section(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "summary.json").read_text())["judge"]


def test_judged_shards_merge_to_the_unsharded_judge(
    runs: dict[str, Path], judge_fake: FakeProvider, tmp_path: Path
) -> None:
    copies = {}
    for name in ("whole", "s0", "s1", "s2"):
        copies[name] = tmp_path / name
        shutil.copytree(runs[name], copies[name])
        result = _judge(judge_fake, runs["data"], copies[name] / "predictions.jsonl", copies[name])
        assert result.exit_code == 0, result.output
    whole = _section(copies["whole"])
    # each shard judged its own questions only (none counted missing)
    for i in range(3):
        section = _section(copies[f"s{i}"])
        assert section["questions"] == len(jsonl(copies[f"s{i}"] / "predictions.jsonl"))
        assert section["signature"].split("|")[-2] == f"shard:{i}/3"
    merged = tmp_path / "merged"
    shards = [str(copies[f"s{i}"]) for i in range(3)]
    requests = judge_fake.requests
    result = cli("merge", *shards, "--out", str(merged))  # one step: the run and its judge
    assert result.exit_code == 0, result.output
    assert judge_fake.requests == requests  # every verdict from the joined caches
    section = _section(merged)
    a, b = strip(whole), strip(section)
    for side in (a, b):
        side.pop("calls", None)  # how the passes went: made now vs by earlier attempts
    assert a == b, differences(a, b)[:10]
    # every verdict reused, and the calls made are the shards' (their attempts), summed
    assert section["calls"]["cached"] == whole["calls"]["made"] == 200
    assert section["calls"]["made"] == 200
    assert_same_results(copies["whole"], merged, (*FILES, "judgments.jsonl"))


def test_judge_shard_of_the_whole_predictions_is_the_shard_folders_judge(
    runs: dict[str, Path], judge_fake: FakeProvider, tmp_path: Path
) -> None:
    own, split = tmp_path / "own", tmp_path / "split"
    shutil.copytree(runs["s1"], own)
    answers = runs["whole"] / "predictions.jsonl"
    assert _judge(judge_fake, runs["data"], own / "predictions.jsonl", own).exit_code == 0
    result = _judge(judge_fake, runs["data"], answers, split, "--shard", "1/3")
    assert result.exit_code == 0, result.output
    a, b = strip(_section(own)), strip(_section(split))
    for side in (a, b):
        side.pop("input", None)  # another file
        side.pop("calls", None)
        side.get("sample", {}).pop("shard", None)
    assert a == b, differences(a, b)[:10]
    wrong = _judge(judge_fake, runs["data"], own / "predictions.jsonl", own, "--shard", "2/3")
    assert wrong.exit_code == 2 and "shard 1/3" in wrong.output
