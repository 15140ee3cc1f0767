"""LoCoMo (four conversations): three shards merged equal the unsharded run exactly, and a
judge of the three shards, merged and replayed from the joined caches, equals the unsharded
judge with no call made twice."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from shard_helpers import assert_same_results, cli, differences, jsonl, strip

from locoscore.testing._verdicts import reference_recall_score
from locoscore.testing.fake_provider import FakeConfig, FakeProvider

LOCOMO = Path("/work/shared/data/locomo10.json")
CONVERSATIONS = "conv-26,conv-30,conv-41,conv-44"


def _run(out: Path, *extra: str) -> Any:
    return cli(
        "run", "--system", "bm25", "--answer-provider", "extractive", "--dataset", str(LOCOMO),
        "--conversations", CONVERSATIONS, "--out", str(out), "--no-progress", "--skip-probe",
        *extra,
    )  # fmt: skip


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("locomo-shards")
    made = {"whole": root / "whole"}
    assert _run(made["whole"]).exit_code == 0
    for i in range(3):
        made[f"s{i}"] = root / f"s{i}"
        result = _run(made[f"s{i}"], "--shard", f"{i}/3")
        assert result.exit_code == 0, result.output
    return made


def test_three_shards_merge_to_the_unsharded_run(folders: dict[str, Path], tmp_path: Path) -> None:
    shards = [folders[f"s{i}"] for i in range(3)]
    runs = [json.loads((s / "run.json").read_text()) for s in shards]
    # whole conversations, each in one shard; the shard is in the signature
    held = [r["conversations"] for r in runs]
    assert sorted(c for h in held for c in h) == sorted(CONVERSATIONS.split(","))
    assert [r["signature"].split("|")[-2] for r in runs] == ["shard:0/3", "shard:1/3", "shard:2/3"]
    whole_questions = len(jsonl(folders["whole"] / "predictions.jsonl"))
    assert sum(r["questions"] for r in runs) == whole_questions
    assert {r["shard"]["population"] for r in runs} == {whole_questions}

    merged = tmp_path / "merged"
    result = cli("merge", *map(str, reversed(shards)), "--out", str(merged))  # any order
    assert result.exit_code == 0, result.output
    assert_same_results(folders["whole"], merged, ("predictions.jsonl", "scores.jsonl"))
    whole_run = json.loads((folders["whole"] / "run.json").read_text())
    merged_run = json.loads((merged / "run.json").read_text())
    assert merged_run["signature"] == whole_run["signature"]
    assert strip(merged_run["measures"]) == strip(whole_run["measures"])
    assert merged_run["predictions"] == whole_run["predictions"]  # the same fingerprint
    assert merged_run["ingestion"]["totals"]["conversations"] == 4
    # a normal folder: its report builds, and rerunning the unsharded command finds it done
    assert cli("report", str(merged)).exit_code == 0
    again = cli(
        "run", "--system", "bm25", "--answer-provider", "extractive", "--dataset",
        str(LOCOMO), "--conversations", CONVERSATIONS, "--out", str(merged), "--no-progress",
        "--skip-probe",
    )  # fmt: skip
    assert again.exit_code == 0, again.output
    files = ("predictions.jsonl", "scores.jsonl")
    assert_same_results(folders["whole"], merged, files, summary=False)


def test_a_shard_folder_is_an_ordinary_resumable_folder(
    folders: dict[str, Path], tmp_path: Path
) -> None:
    import shutil

    shard = tmp_path / "s1"
    shutil.copytree(folders["s1"], shard)  # the module's folders stay as they were run
    before = jsonl(shard / "predictions.jsonl")
    assert _run(shard, "--shard", "1/3").exit_code == 0  # resumes: nothing to redo
    assert strip(jsonl(shard / "predictions.jsonl")) == strip(before)
    other = _run(shard, "--shard", "2/3")  # another shard is another run
    assert other.exit_code == 2 and "shard:1/3" in other.output


@pytest.fixture
def judge_fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeProvider]:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-shards-0123456789")
    with FakeProvider(FakeConfig(timeout_s=5.0, verdict=reference_recall_score)) as provider:
        yield provider


def _judge(fake: FakeProvider, folder: Path, *extra: str) -> Any:
    return cli(
        "judge", str(folder / "predictions.jsonl"), "--out", str(folder), "--dataset",
        str(LOCOMO), "--base-url", fake.url, "--runs", "2", "--no-progress", *extra,
    )  # fmt: skip


def _judge_section(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "summary.json").read_text())["judge"]


def test_judged_shards_merge_to_the_unsharded_judge_without_a_second_call(
    folders: dict[str, Path], judge_fake: FakeProvider, tmp_path: Path
) -> None:
    import shutil

    copies = {}
    for name, folder in folders.items():
        copies[name] = tmp_path / name
        shutil.copytree(folder, copies[name])
        result = _judge(judge_fake, copies[name])
        assert result.exit_code == 0, result.output
    calls = [_judge_section(copies[f"s{i}"])["calls"]["made"] for i in range(3)]
    whole = _judge_section(copies["whole"])
    assert sum(calls) == whole["calls"]["made"] > 0
    assert [_judge_section(copies[f"s{i}"])["signature"].split("|")[-2] for i in range(3)] == [
        "shard:0/3", "shard:1/3", "shard:2/3",
    ]  # fmt: skip

    merged = tmp_path / "merged"
    shards = [str(copies[f"s{i}"]) for i in range(3)]
    requests = judge_fake.requests
    result = cli("merge", *shards, "--out", str(merged))  # one step: run and judge
    assert result.exit_code == 0, result.output
    assert judge_fake.requests == requests  # every verdict from the joined caches
    assert "run-level J" in result.output  # the judge's table, as `judge` prints it
    section = _judge_section(merged)
    for key in ("overall", "by_category", "run_level", "std", "signature", "usage"):
        assert strip(section[key]) == strip(whole[key]), differences(section[key], whole[key])
    assert section["calls"]["made"] == whole["calls"]["made"]  # the shards' calls, summed
    assert section["calls"]["earlier_attempts"]["cost_usd"] == pytest.approx(
        whole["calls"]["this_attempt"]["cost_usd"]
    )

    def verdicts(folder: Path) -> list[dict[str, Any]]:  # `cached`: how the pass went
        return [{k: v for k, v in strip(r).items() if k != "cached"} for r in jsonl(folder)]

    assert verdicts(merged / "judgments.jsonl") == verdicts(copies["whole"] / "judgments.jsonl")
    assert_same_results(copies["whole"], merged, ("scores.jsonl",))

    def j_lines(folder: Path) -> list[str]:  # J in the report, as the unsharded folder's
        return [line for line in (folder / "report.md").read_text().splitlines() if "J " in line]

    assert j_lines(merged) == j_lines(copies["whole"]) and j_lines(merged)
    assert _judge(judge_fake, merged).exit_code == 0  # judging it again: nothing to call
    assert judge_fake.requests == requests

    # a judge the section cannot rebuild (a user's template): the run merges, the judge
    # is refused in one line naming the command
    template = tmp_path / "mine.txt"
    template.write_text(
        "Score 0-100.\nQ: {question}\nGold: {gold}\nAnswer: {prediction}\n"
        'Reply as JSON {{"score": N}}.'
    )
    own = [tmp_path / f"own{i}" for i in range(3)]
    for i, folder in enumerate(own):
        shutil.copytree(folders[f"s{i}"], folder)
        judged = _judge(judge_fake, folder, "--prompt-template", str(template))
        assert judged.exit_code == 0, judged.output
    refused = cli("merge", *map(str, own), "--out", str(tmp_path / "own-merged"))
    assert refused.exit_code == 2, refused.output
    assert "locoscore judge" in refused.output and "Traceback" not in refused.output
    assert not (tmp_path / "own-merged" / "judgments.jsonl").exists()
    skipped = cli("merge", *map(str, own), "--out", str(tmp_path / "run-only"), "--no-judge")
    assert skipped.exit_code == 0 and not (tmp_path / "run-only" / "judgments.jsonl").exists()

    # a shard judged with other options does not merge with the others
    assert _judge(judge_fake, copies["s2"], "--runs", "1").exit_code == 0
    again = tmp_path / "again"
    refused = cli("merge", *shards, "--out", str(again))
    assert refused.exit_code == 2 and "judged differently (runs:2 vs runs:1)" in refused.output
    assert not again.exists()


def _refused(result: Any, out: Path, words: str) -> None:
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and words in lines[0], result.output
    assert "Traceback" not in result.output
    assert not out.exists()  # a refused merge writes nothing


def test_missing_overlapping_and_mismatched_shards_are_refused(
    folders: dict[str, Path], tmp_path: Path
) -> None:
    s0, s1, s2 = (str(folders[f"s{i}"]) for i in range(3))
    out = tmp_path / "merged"
    _refused(cli("merge", s0, s1, "--out", str(out)), out, "missing shard(s) 2/3")
    _refused(cli("merge", s0, s1, s1, s2, "--out", str(out)), out, "shard 1/3 given twice")
    other_k = tmp_path / "k5"
    assert _run(other_k, "--shard", "2/3", "--top-k", "5").exit_code == 0
    _refused(cli("merge", s0, s1, str(other_k), "--out", str(out)), out, "top_k:10 vs top_k:5")
    halves = tmp_path / "half"
    assert _run(halves, "--shard", "0/2").exit_code == 0
    _refused(cli("merge", s1, s2, str(halves), "--out", str(out)), out, "shard counts (2 vs 3)")
    _refused(cli("merge", s0, str(tmp_path), "--out", str(out)), out, "not a finished run's folder")
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "x").write_text("x")
    busy = cli("merge", s0, s1, s2, "--out", str(tmp_path / "busy"))
    assert busy.exit_code == 2 and "not empty" in busy.output


def test_shards_of_runs_over_other_conversations_are_refused(
    folders: dict[str, Path], tmp_path: Path
) -> None:
    # shard 0 of a run over three other conversations: same signature, another selection
    other = tmp_path / "other-0"
    ran = cli(
        "run", "--system", "bm25", "--answer-provider", "extractive", "--dataset", str(LOCOMO),
        "--conversations", "conv-43,conv-47,conv-48", "--out", str(other), "--no-progress",
        "--skip-probe", "--shard", "0/3",
    )  # fmt: skip
    assert ran.exit_code == 0, ran.output
    recorded = json.loads((other / "run.json").read_text())["shard"]["selection"]
    assert recorded == ["conv-43", "conv-47", "conv-48"]  # dataset order, every shard's
    out = tmp_path / "merged"
    shards = (str(other), str(folders["s1"]), str(folders["s2"]))
    _refused(
        cli("merge", *shards, "--out", str(out)),
        out,
        "shards of different selections (conversations conv-43,conv-47,conv-48 vs "
        "conv-26,conv-30,conv-41,conv-44)",
    )


def test_a_partial_merge_says_it_is_a_subset(folders: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "partial"
    shards = [str(folders["s0"]), str(folders["s2"])]
    result = cli("merge", *shards, "--out", str(out), "--allow-partial")
    assert result.exit_code == 0, result.output
    run = json.loads((out / "run.json").read_text())
    assert "|shards:0+2/3|" in run["signature"]
    kept = [json.loads((folders[f"s{i}"] / "run.json").read_text())["questions"] for i in (0, 2)]
    assert run["questions"] == sum(kept) == len(jsonl(out / "predictions.jsonl"))
    summary = json.loads((out / "summary.json").read_text())
    assert "|shards:0+2/3|" in summary["run"]["signature"]


def test_judge_shard_of_the_whole_predictions_judges_the_shards_questions(
    folders: dict[str, Path], judge_fake: FakeProvider, tmp_path: Path
) -> None:
    out = tmp_path / "j1"
    answers = folders["whole"] / "predictions.jsonl"
    result = cli(
        "judge", str(answers), "--out", str(out), "--dataset", str(LOCOMO), "--base-url",
        judge_fake.url, "--runs", "1", "--no-progress", "--shard", "1/3",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    judged = {r["sample_id"] for r in jsonl(out / "judgments.jsonl")}
    ran = json.loads((folders["s1"] / "run.json").read_text())["conversations"]
    assert sorted(judged) == sorted(ran)
    # the shard run's questions but category 5 (the judge leaves it out by default)
    own = jsonl(folders["s1"] / "predictions.jsonl")
    keys = {r["key"] for r in jsonl(out / "judgments.jsonl")}
    assert keys == {r["question_id"] for r in own if r["category"] != 5}
    section = _judge_section(out)
    assert section["sample"]["shard"]["index"] == 1
    assert section["signature"].split("|")[-2] == "shard:1/3"


def test_judge_shard_without_dataset_splits_by_the_runs_data_file(
    folders: dict[str, Path], judge_fake: FakeProvider, tmp_path: Path
) -> None:
    answers = folders["whole"] / "predictions.jsonl"

    def judge_shard(out: Path, *extra: str) -> Any:
        return cli(
            "judge", str(answers), "--out", str(out), "--base-url", judge_fake.url, "--runs",
            "1", "--no-progress", "--shard", "1/3", *extra,
        )  # fmt: skip

    given, found = tmp_path / "given", tmp_path / "found"
    assert judge_shard(given, "--dataset", str(LOCOMO)).exit_code == 0
    result = judge_shard(found)  # as a plain judge: no --dataset, none fetched
    assert result.exit_code == 0, result.output
    keys = [r["key"] for r in jsonl(found / "judgments.jsonl")]
    assert keys == [r["key"] for r in jsonl(given / "judgments.jsonl")] and keys
    assert _judge_section(found)["signature"].split("|")[-2] == "shard:1/3"

    # predictions with no run.json beside them: one line asking for the data file
    lone = tmp_path / "lone" / "predictions.jsonl"
    lone.parent.mkdir()
    lone.write_bytes(answers.read_bytes())
    refused = cli(
        "judge", str(lone), "--out", str(tmp_path / "x"), "--base-url", judge_fake.url,
        "--runs", "1", "--no-progress", "--shard", "1/3",
    )  # fmt: skip
    assert refused.exit_code == 2 and "give --dataset" in refused.output, refused.output
    assert "Traceback" not in refused.output
