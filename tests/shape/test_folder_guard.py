"""One folder guard for every benchmark and the example plugin: a run folder judged with its
own predictions composes; other answers are refused (exit 2, one line naming both inputs,
every file's bytes unchanged); `--replace` empties the other input's files, and a run then
refuses the folder of those other answers. Each benchmark: a small file, `run` with bm25 and
extractive answers (no model), `judge` against the fake provider."""

from __future__ import annotations

import json
import shutil
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from audit_helpers import write_dataset  # the LoCoMo file
from beam_helpers import rule as beam_rule  # BEAM's judge stand-in
from locomo_plus_helpers import write_cut
from shapes import SHAPES, TINY, shape_id, write_tiny_data
from typer.testing import CliRunner

from locoscore._io import read_jsonl, sha256_file
from locoscore.benchmarks import get_benchmark
from locoscore.cli import app
from locoscore.results.identity import predictions_fingerprint
from locoscore.results.layout import HYPOTHESES, PREDICTIONS, RUN_FILES, RUN_JSON, SUMMARY
from locoscore.testing.fake_provider import FakeConfig, FakeProvider
from locoscore.testing.longmemeval_fixture import write_fixture

TESTS = Path(__file__).resolve().parents[1]
BEAM_100K = TESTS.parent / "../shared/data/beam/100K"


@dataclass(frozen=True)
class Bench:
    name: str
    dataset: Path
    judge_options: tuple[str, ...]  # what the benchmark's judge needs beyond the defaults


def _dataset(name: str, root: Path) -> Bench:
    if name == "locomo":
        return Bench(name, write_dataset(root / "locomo.json", samples=2, questions=4), ())
    if name == "longmemeval":
        return Bench(name, write_fixture(root / "longmemeval_s.json"), ("--protocol", "binary"))
    if name == "locomo-plus":  # three items of the real file, beside the real locomo10.json
        return Bench(name, write_cut(root / "plus", (0, 101, 250)), ())
    if name == TINY:  # the example's data as a file: one way in for every benchmark
        return Bench(name, write_tiny_data(root / "tiny.json"), ())
    if not BEAM_100K.exists():
        pytest.skip("BEAM 100K not at ../shared")
    folder = root / "100K"
    shutil.copytree(BEAM_100K / "1", folder / "1")  # one real conversation: 20 questions
    return Bench(name, folder, ())


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeProvider]:
    with FakeProvider(FakeConfig(timeout_s=5.0, verdict=beam_rule_or_score)) as provider:
        yield provider


def beam_rule_or_score(prompt: str) -> int | str:
    """BEAM's stand-in where it decides (a rubric item or an event pair), else 70."""
    verdict = beam_rule(prompt)
    return 70 if verdict == 0 and "<candidate-" not in prompt else verdict


@pytest.fixture(scope="module", autouse=True)
def api_keys() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:  # module-wide: the run folder is built once
        patch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-folder-guard-0123456789")
        patch.delenv("ANTHROPIC_BASE_URL", raising=False)
        yield


def invoke(*args: str) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return CliRunner().invoke(app, list(args))


def run(bench: Bench, out: Path) -> Any:
    return invoke("run", "--benchmark", bench.name, "--dataset", str(bench.dataset),
                  "--out", str(out), "--system", "bm25", "--answer-provider", "extractive",
                  "--skip-probe", "--no-progress")  # fmt: skip


def judge(bench: Bench, fake: FakeProvider, answers: Path, out: Path, *extra: str) -> Any:
    return invoke("judge", str(answers), "--benchmark", bench.name, "--dataset",
                  str(bench.dataset), "--out", str(out), "--base-url", fake.url, "--runs", "1",
                  "--no-progress", *bench.judge_options, *extra)  # fmt: skip


@pytest.fixture(scope="module", params=SHAPES, ids=shape_id)
def ran(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, fake: FakeProvider
) -> tuple[Bench, Path]:
    """A run folder judged with its own predictions (one per benchmark; tests copy it)."""
    if "judge" not in get_benchmark(request.param).commands:
        # PersonaMem: no judge; `score`'s guard of a run folder is in test_personamem.py
        pytest.skip(f"{request.param} has no judge to guard")
    root = tmp_path_factory.mktemp(shape_id(request.param))
    bench = _dataset(request.param, root)
    out = root / "run"
    done = run(bench, out)
    assert done.exit_code == 0, done.output
    judged = judge(bench, fake, out / PREDICTIONS, out)
    assert judged.exit_code == 0, judged.output
    return bench, out


@pytest.fixture
def folder(ran: tuple[Bench, Path], tmp_path: Path) -> tuple[Bench, Path, Path]:
    """The judged run folder (a copy) and other answers to the same questions."""
    bench, original = ran
    out = shutil.copytree(original, tmp_path / "run")
    lines = (out / PREDICTIONS).read_text(encoding="utf-8").splitlines()
    other = tmp_path / "other.jsonl"
    rows = [json.loads(line) for line in lines if line.strip()]
    for row in rows:
        row["prediction"] = f"another answer: {row['prediction']}"
        row.pop("error", None)
    other.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return bench, out, other


def _bytes(out: Path) -> dict[str, bytes]:
    """Every file of the folder, the stores and the system's state included."""
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def _error_lines(result: Any) -> list[str]:
    assert "Traceback" not in result.output
    return [line for line in result.stderr.splitlines() if not line.startswith("warning:")]


def test_the_run_and_the_judge_of_its_predictions_record_one_input(
    folder: tuple[Bench, Path, Path], fake: FakeProvider
) -> None:
    bench, out, _ = folder
    again = judge(bench, fake, out / PREDICTIONS, out)  # the same input, into the same folder
    assert again.exit_code == 0, again.output
    summary = json.loads((out / SUMMARY).read_text())
    recorded = json.loads((out / RUN_JSON).read_text())["predictions"]
    judged = summary["judge"]["input"]
    assert judged["fingerprint"] == recorded["fingerprint"]
    assert judged["records"] == recorded["records"] > 0
    if (out / HYPOTHESES).is_file():  # the run's official hypothesis file: the same answers
        official = judge(bench, fake, out / HYPOTHESES, out)
        assert official.exit_code == 0, official.output


def test_a_folder_written_before_answer_fingerprints_still_takes_its_own_answers(
    folder: tuple[Bench, Path, Path], fake: FakeProvider
) -> None:
    bench, out, other = folder
    if bench.name == "locomo":
        pytest.skip("LoCoMo's fingerprints are unchanged (older folders: test_folder_input)")
    if bench.name == TINY:
        pytest.skip("the generic path wrote answer fingerprints from its first folder")
    # as an older locoscore wrote them: run.json fingerprinted LoCoMo-shaped rows, the judge
    # section named its input by path (and, for LongMemEval, the file's hash) alone
    run_json = json.loads((out / RUN_JSON).read_text())
    rows = read_jsonl(out / PREDICTIONS)
    run_json["predictions"] = {"fingerprint": predictions_fingerprint(rows), "records": len(rows)}
    (out / RUN_JSON).write_text(json.dumps(run_json))
    summary = json.loads((out / SUMMARY).read_text())
    path = summary["judge"]["input"]["path"]
    if bench.name == "longmemeval":
        summary["judge"]["input"] = {"path": path, "sha256": sha256_file(out / PREDICTIONS)}
    else:
        summary["judge"]["input"] = path
    (out / SUMMARY).write_text(json.dumps(summary))
    again = judge(bench, fake, out / PREDICTIONS, out)
    assert again.exit_code == 0, again.output
    refused = judge(bench, fake, other, out)
    assert refused.exit_code == 2, refused.output  # the new judge section names its input


def test_other_answers_are_refused_and_nothing_changes(
    folder: tuple[Bench, Path, Path], fake: FakeProvider
) -> None:
    bench, out, other = folder
    before = _bytes(out)
    result = judge(bench, fake, other, out)
    assert result.exit_code == 2, result.output
    lines = _error_lines(result)
    assert len(lines) == 1, result.stderr
    ours = json.loads((out / SUMMARY).read_text())["judge"]["input"]["path"]
    assert ours.endswith(PREDICTIONS)  # the run's predictions (where the folder was built)
    assert f"{ours} (" in lines[0] and f"{other} (" in lines[0]
    assert "--replace" in lines[0]
    assert _bytes(out) == before


def test_replace_empties_the_other_inputs_files_and_a_run_then_refuses(
    folder: tuple[Bench, Path, Path], fake: FakeProvider
) -> None:
    bench, out, other = folder
    replaced = judge(bench, fake, other, out, "--replace")
    assert replaced.exit_code == 0, replaced.output
    assert not any((out / name).exists() for name in RUN_FILES)
    judged = json.loads((out / SUMMARY).read_text())["judge"]["input"]
    assert judged["path"] == str(other)
    assert "run" not in json.loads((out / SUMMARY).read_text())
    before = _bytes(out)
    rerun = run(bench, out)  # the folder now holds the other answers' judge
    assert rerun.exit_code == 2, rerun.output
    assert len(_error_lines(rerun)) == 1 and str(other) in rerun.stderr
    assert _bytes(out) == before


def test_an_out_that_is_a_file_is_refused_before_any_call(
    folder: tuple[Bench, Path, Path], fake: FakeProvider, tmp_path: Path
) -> None:
    bench, out, _ = folder
    target = tmp_path / "notes.txt"
    target.write_text("mine", encoding="utf-8")
    asked = fake.requests
    result = judge(bench, fake, out / PREDICTIONS, target)
    assert result.exit_code == 2, result.output
    (line,) = _error_lines(result)
    assert str(target) in line and "not a folder" in line and "--out" in line
    assert target.read_text(encoding="utf-8") == "mine" and fake.requests == asked
