"""The manifest binds a results folder, for every benchmark and the example plugin: a folder
written by `run` + `judge` + `report`, untouched, passes `verify`; one byte changed in any
file those commands wrote (predictions, scores, judgments, summary, run.json) fails it
(exit 1), naming the file. One folder per benchmark, built once; each edit on a copy."""

from __future__ import annotations

import json
import shutil
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from audit_helpers import write_dataset  # the LoCoMo file
from beam_helpers import rule as beam_rule  # BEAM's judge stand-in
from locomo_plus_helpers import write_cut
from personamem_helpers import write_folder as write_personamem
from shapes import SHAPES, TINY, shape_id, write_tiny_data
from typer.testing import CliRunner

from locoscore.benchmarks import get_benchmark
from locoscore.cli import app
from locoscore.results.layout import (
    JUDGMENTS,
    MANIFEST,
    PREDICTIONS,
    REPORT_HTML,
    REPORT_MD,
    RUN_JSON,
    SCORES,
    SUMMARY,
)
from locoscore.testing.fake_provider import FakeConfig, FakeProvider
from locoscore.testing.longmemeval_fixture import write_fixture

BEAM_100K = Path(__file__).resolve().parents[2].parent / "shared/data/beam/100K"
EDITED = (PREDICTIONS, SCORES, JUDGMENTS, SUMMARY, RUN_JSON)


def _dataset(name: str, root: Path) -> tuple[Path, tuple[str, ...]]:
    """The benchmark's small data file, and what its judge needs beyond the defaults."""
    if name == "locomo":
        return write_dataset(root / "locomo.json", samples=2, questions=4), ()
    if name == "longmemeval":
        return write_fixture(root / "longmemeval_s.json"), ("--protocol", "binary")
    if name == "locomo-plus":
        return write_cut(root / "plus", (0, 101, 250)), ()
    if name == "personamem":
        return write_personamem(root / "32k"), ()
    if name == TINY:
        return write_tiny_data(root / "tiny.json"), ()
    if not BEAM_100K.exists():
        pytest.skip("BEAM 100K not at ../shared")
    shutil.copytree(BEAM_100K / "1", root / "100K" / "1")  # one real conversation
    return root / "100K", ()


def _verdict(prompt: str) -> int | str:
    verdict = beam_rule(prompt)  # BEAM's stand-in where it decides, else a passing score
    return 70 if verdict == 0 and "<candidate-" not in prompt else verdict


def invoke(*args: str) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return CliRunner().invoke(app, list(args))


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeProvider]:
    with FakeProvider(FakeConfig(timeout_s=5.0, verdict=_verdict)) as provider:
        yield provider


@pytest.fixture(scope="module", autouse=True)
def api_keys() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-manifest-0123456789")
        patch.delenv("ANTHROPIC_BASE_URL", raising=False)
        yield


@pytest.fixture(scope="module", params=SHAPES, ids=shape_id)
def written(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, fake: FakeProvider
) -> tuple[str, Path]:
    """run + judge (where the benchmark has one) + report, once per benchmark."""
    name = request.param
    root = tmp_path_factory.mktemp(f"manifest-{shape_id(name)}")
    data, judge_options = _dataset(name, root)
    out = root / "run"
    done = invoke("run", "--benchmark", name, "--dataset", str(data), "--out", str(out),
                  "--system", "bm25", "--answer-provider", "extractive", "--skip-probe",
                  "--no-progress")  # fmt: skip
    assert done.exit_code == 0, done.output
    if "judge" in get_benchmark(name).commands:
        judged = invoke("judge", str(out / PREDICTIONS), "--benchmark", name, "--dataset",
                        str(data), "--out", str(out), "--base-url", fake.url, "--runs", "1",
                        "--no-progress", *judge_options)  # fmt: skip
        assert judged.exit_code == 0, judged.output
    reported = invoke("report", str(out), "--benchmark", name, "--dataset", str(data))
    assert reported.exit_code == 0, reported.output
    return name, out


def verify(name: str, folder: Path, *extra: str) -> tuple[int, str]:
    result = invoke(
        "verify", str(folder), "--benchmark", name, "--max-failed", "1", "--allow-fake", *extra
    )
    assert "Traceback" not in result.output
    return result.exit_code, " ".join(result.output.split())


def test_an_untouched_folder_is_bound_and_passes(written: tuple[str, Path]) -> None:
    name, out = written
    manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    assert set(manifest["files"]) >= {PREDICTIONS, RUN_JSON, SCORES, SUMMARY}
    assert {"run", "report"} <= set(manifest["inputs"])
    code, text = verify(name, out)
    assert "pass bound: every file as locoscore wrote it" in text
    assert code == 0, text


def _change_one_byte(path: Path) -> None:
    """One digit of the file's second half made another digit (the file still reads)."""
    data = bytearray(path.read_bytes())
    at = next(i for i in range(len(data) // 2, len(data)) if chr(data[i]).isdigit())
    data[at] = ord("7") if data[at] != ord("7") else ord("3")
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("edited", EDITED)
def test_one_byte_changed_in_a_written_file_fails_naming_it(
    written: tuple[str, Path], edited: str, tmp_path: Path
) -> None:
    name, original = written
    if not (original / edited).is_file():
        pytest.skip(f"{shape_id(name)} writes no {edited}")
    out = shutil.copytree(original, tmp_path / "run")
    _change_one_byte(out / edited)
    code, text = verify(name, out)
    assert code == 1, text
    assert f"FAIL bound: folder files edited: changed since locoscore wrote it: {edited}" in text


def test_a_file_that_no_longer_reads_fails_the_gate_not_the_input(
    written: tuple[str, Path], tmp_path: Path
) -> None:
    name, original = written
    out = shutil.copytree(original, tmp_path / "run")
    with (out / SCORES).open("a", encoding="utf-8") as handle:
        handle.write("{not json\n")
    code, text = verify(name, out)
    assert code == 1, text
    assert f"changed since locoscore wrote it: {SCORES}" in text


def test_a_removed_or_added_result_file_fails_and_no_manifest_is_unbound(
    written: tuple[str, Path], tmp_path: Path
) -> None:
    name, original = written
    out = shutil.copytree(original, tmp_path / "run")
    (out / SCORES).unlink()
    assert f"recorded but missing: {SCORES}" in verify(name, out)[1]

    pages = shutil.copytree(original, tmp_path / "pages")
    (pages / REPORT_HTML).unlink()  # a folder shared without a rendered page: still bound
    code, text = verify(name, pages)
    assert code == 0 and "pass bound:" in text, text
    (pages / REPORT_MD).write_text("# J 99.0\n", encoding="utf-8")  # an edited one is not
    code, text = verify(name, pages)
    assert code == 1 and f"changed since locoscore wrote it: {REPORT_MD}" in text

    added = shutil.copytree(original, tmp_path / "added")
    if not (added / JUDGMENTS).is_file():
        (added / JUDGMENTS).write_text("", encoding="utf-8")
        code, text = verify(name, added)
        assert code == 1 and f"not written by locoscore (not in {MANIFEST}): {JUDGMENTS}" in text

    unbound = shutil.copytree(original, tmp_path / "unbound")
    (unbound / MANIFEST).unlink()
    code, text = verify(name, unbound)
    assert code == 0 and "warning: unbound: the folder has no manifest.json" in text
    code, text = verify(name, unbound, "--strict")
    assert code == 1 and "FAIL bound: unbound" in text

    # `report` of such a folder binds what it writes; the older files stay unbound
    assert invoke("report", str(unbound), "--benchmark", name).exit_code == 0
    code, text = verify(name, unbound)
    assert code == 0 and f"warning: partly unbound: {PREDICTIONS}" in text, text
    assert verify(name, unbound, "--strict")[0] == 1
