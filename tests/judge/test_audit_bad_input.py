"""`locoscore audit` on bad input: one line naming file, record and field; exit 2; nothing
written (not even the cache); no call made."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from audit_helpers import write_dataset, write_probe_file
from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.testing.fake_provider import FakeProvider


def _not_json(path: Path, dataset: Path) -> None:
    path.write_text("{not json")


def _zep_shape(path: Path, dataset: Path) -> None:
    path.write_text(json.dumps({"locomo_experiment_user_0": []}))


def _edited(change: Callable[[dict[str, object]], None]) -> Callable[[Path, Path], None]:
    def make(path: Path, dataset: Path) -> None:
        write_probe_file(path, dataset)
        raw = json.loads(path.read_text())
        change(raw["detailed_results"]["locomo_exp_user_1"][2])
        path.write_text(json.dumps(raw))

    return make


CASES: dict[str, tuple[Callable[[Path, Path], None], str]] = {
    "not-json": (_not_json, "probe.json, line 1: not valid JSON"),
    "wrong-shape": (_zep_shape, "probe.json, field 'detailed_results': memos format expects"),
    "id-beyond-the-dataset": (
        _edited(lambda item: item.update(question_id="locomo_7_qa2")),
        "probe.json, record locomo_exp_user_1[2], field 'question_id': locomo_7_qa2: no sample 7",
    ),
    "id-of-another-question": (
        _edited(lambda item: item.update(question_id="locomo_1_qa4")),
        "probe.json, record locomo_exp_user_1[2], field 'question': locomo_1_qa4 is conv-t1#4",
    ),
    "bad-verdict": (
        _edited(lambda item: item.update(llm_judgments={"judgment_1": "yes"})),
        "probe.json, record locomo_exp_user_1[2], field 'llm_judgments.judgment_1'",
    ),
    "gold-differs": (
        _edited(lambda item: item.update(golden_answer="something else")),
        "join with the dataset failed (1 gold mismatches); first: differs from the dataset",
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_bad_probe_file_is_one_line_exit_2_nothing_written(
    fake: FakeProvider, tmp_path: Path, name: str
) -> None:
    make, expected = CASES[name]
    dataset = write_dataset(tmp_path / "locomo.json", samples=2, questions=4)
    probe = tmp_path / "probe.json"
    make(probe, dataset)
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["audit", "--out", str(out), "--dataset", str(dataset),
                                      "--probes", str(probe), "--base-url", fake.url])  # fmt: skip
    assert result.exit_code == 2, result.output
    # (the invented dataset also draws the checksum warning)
    error = " ".join(result.output.split()).split("error: ")
    assert len(error) == 2 and expected in error[1], result.output
    assert "Traceback" not in result.output
    assert not out.exists() and fake.requests == 0


def _run(args: list[str]) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["audit", *args])
    return result.exit_code, " ".join(result.output.split())


def test_two_probe_sets_with_one_name_are_refused(fake: FakeProvider, tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "locomo.json", samples=1, questions=4)
    (tmp_path / "a").mkdir()
    first = write_probe_file(tmp_path / "probe.json", dataset)
    second = write_probe_file(tmp_path / "a" / "probe.json", dataset)
    out = tmp_path / "out"
    code, output = _run(["--out", str(out), "--dataset", str(dataset), "--probes", str(first),
                         "--probes", str(second), "--base-url", fake.url])  # fmt: skip
    assert code == 2 and "two probe sets are named 'probe'" in output
    assert not out.exists()


def test_without_probe_files_the_message_says_how_to_get_them(
    fake: FakeProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "empty-cache"))
    dataset = write_dataset(tmp_path / "locomo.json", samples=1, questions=4)
    code, output = _run(["--out", str(tmp_path / "out"), "--dataset", str(dataset)])
    assert code == 2 and "run `locoscore dataset fetch probes` or pass --probes FILE" in output


@pytest.mark.parametrize("threshold", ["0", "101"])
def test_accept_threshold_outside_0_100_is_refused(tmp_path: Path, threshold: str) -> None:
    code, output = _run(["--out", str(tmp_path / "o"), "--accept-threshold", threshold])
    assert code == 2 and "field '--accept-threshold': must be in (0, 100]" in output


def test_out_that_is_a_file_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "file"
    target.write_text("x")
    code, output = _run(["--out", str(target)])
    assert code == 2 and "field '--out': exists and is not a folder" in output
