"""One results folder, one set of predictions: score, judge, audit and run refuse a folder
holding results of other predictions (exit 2, one line naming both), `--replace` drops
them, the same input is welcome again, and report refuses a folder whose parts disagree."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from audit_helpers import write_dataset, write_probe_file
from judge_helpers import write_native
from typer.testing import CliRunner

from locoscore.benchmarks.locomo.data.models import PredictionRecord
from locoscore.cli import app
from locoscore.testing.fake_provider import FakeProvider


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    return write_dataset(tmp_path / "locomo.json", samples=2, questions=4)


def _predictions(tmp_path: Path, dataset: Path, name: str) -> Path:
    samples = json.loads(dataset.read_text())
    records = [
        PredictionRecord(
            sample_id=sample["sample_id"],
            qa_index=j,
            category=qa["category"],
            question=qa["question"],
            answer=qa.get("answer", qa.get("adversarial_answer")),
            prediction=f"{name} says lantern {j}",
        )
        for sample in samples
        for j, qa in enumerate(sample["qa"])
    ]
    return write_native(tmp_path / f"{name}.jsonl", records)


class Commands:
    """Each command as a user types it, into one folder, against the fake provider."""

    def __init__(self, fake: FakeProvider, dataset: Path, probes: Path) -> None:
        self.fake, self.dataset, self.probes = fake, dataset, probes

    def invoke(self, *args: str) -> Any:
        return CliRunner().invoke(app, list(args))

    def score(self, predictions: Path, out: Path, *extra: str) -> Any:
        return self.invoke("score", str(predictions), "--dataset", str(self.dataset),
                           "--out", str(out), *extra)  # fmt: skip

    def judge(self, predictions: Path, out: Path, *extra: str) -> Any:
        return self.invoke("judge", str(predictions), "--out", str(out), "--dataset",
                           str(self.dataset), "--base-url", self.fake.url, "--runs", "1",
                           "--no-progress", *extra)  # fmt: skip

    def audit(self, predictions: Path, out: Path, *extra: str) -> Any:
        return self.invoke("audit", "--out", str(out), "--dataset", str(self.dataset),
                           "--probes", str(self.probes), "--predictions", str(predictions),
                           "--base-url", self.fake.url, "--runs", "1", "--no-progress",
                           *extra)  # fmt: skip

    def run(self, out: Path, *extra: str) -> Any:
        return self.invoke("run", "--system", "bm25", "--answer-provider", "extractive",
                           "--dataset", str(self.dataset), "--out", str(out),
                           "--no-progress", *extra)  # fmt: skip


@pytest.fixture
def cmd(fake: FakeProvider, dataset: Path, tmp_path: Path) -> Commands:
    return Commands(fake, dataset, write_probe_file(tmp_path / "vague.json", dataset))


def _first(cmd: Commands, name: str, predictions: Path, out: Path) -> Any:
    """Command `name` fills `out` with `predictions` (run: with its own)."""
    if name == "run":
        return cmd.run(out)
    return getattr(cmd, name)(predictions, out)


def _folder_state(out: Path) -> dict[str, bytes]:
    """The folder's result files (the SQLite stores are the commands' working state)."""
    files = (p for p in sorted(out.iterdir()) if p.is_file() and ".sqlite" not in p.name)
    return {p.name: p.read_bytes() for p in files}


COMMANDS = ("score", "judge", "audit", "run")


def _error_lines(result: Any) -> list[str]:
    """The error lines (the invented dataset's checksum warning aside); never a traceback."""
    assert "Traceback" not in result.output
    return [line for line in result.stderr.splitlines() if not line.startswith("warning:")]


@pytest.mark.parametrize("second", COMMANDS)
@pytest.mark.parametrize("first", COMMANDS)
def test_a_folder_of_other_predictions_is_refused_by_every_command(
    cmd: Commands, dataset: Path, tmp_path: Path, first: str, second: str
) -> None:
    a, b = _predictions(tmp_path, dataset, "A"), _predictions(tmp_path, dataset, "B")
    out = tmp_path / "out"
    done = _first(cmd, first, a, out)
    assert done.exit_code == 0, done.output
    before = _folder_state(out)
    # run after run: another run (another signature); otherwise other predictions
    result = cmd.run(out, "--top-k", "3") if second == "run" else getattr(cmd, second)(b, out)
    assert result.exit_code == 2, result.output
    lines = _error_lines(result)
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"error: {out}") and "--replace" in lines[0]
    if first != "run" and second != "run":  # both inputs named
        assert str(a) in lines[0] and str(b) in lines[0]
    elif second == "run":
        assert "run:bm25" in lines[0]
    assert _folder_state(out) == before  # nothing written, nothing dropped


@pytest.mark.parametrize("name", COMMANDS)
def test_the_same_input_twice_is_accepted(
    cmd: Commands, dataset: Path, tmp_path: Path, name: str
) -> None:
    a = _predictions(tmp_path, dataset, "A")
    out = tmp_path / "out"
    for _ in range(2):
        result = _first(cmd, name, a, out)
        assert result.exit_code == 0, result.output
        assert "replaced" not in result.stderr


def test_every_command_composes_on_one_input_and_report_accepts_it(
    cmd: Commands, dataset: Path, tmp_path: Path
) -> None:
    a = _predictions(tmp_path, dataset, "A")
    out = tmp_path / "out"
    for result in (cmd.judge(a, out), cmd.score(a, out), cmd.audit(a, out), cmd.audit(out, out)):
        assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["input"]["fingerprint"] == summary["judge"]["input"]["fingerprint"]
    assert summary["input"]["fingerprint"].startswith("sha256:")
    assert cmd.invoke("report", str(out)).exit_code == 0


def test_a_run_folder_takes_the_judge_of_its_own_predictions_and_resumes(
    cmd: Commands, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    first = cmd.run(out)
    assert first.exit_code == 0
    own = out / "predictions.jsonl"
    for result in (cmd.judge(own, out), cmd.audit(own, out), cmd.run(out), cmd.score(own, out)):
        assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    run = json.loads((out / "run.json").read_text())
    assert len(run["signature"]) > 80 and run["signature"] in first.output.splitlines()
    assert summary["judge"]["input"]["fingerprint"] == run["predictions"]["fingerprint"]
    assert all((row.get("j_mean") is not None) == (row["category"] != 5) for row in _rows(out))
    assert cmd.invoke("report", str(out)).exit_code == 0


def _rows(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "scores.jsonl").read_text().splitlines()]


def test_replace_drops_every_part_of_the_old_predictions(
    cmd: Commands, dataset: Path, tmp_path: Path
) -> None:
    a, b = _predictions(tmp_path, dataset, "A"), _predictions(tmp_path, dataset, "B")
    out = tmp_path / "out"
    for result in (cmd.judge(a, out), cmd.audit(a, out)):
        assert result.exit_code == 0, result.output
    (out / "notes.txt").write_text("mine")
    result = cmd.score(b, out, "--replace")
    assert result.exit_code == 0, result.output
    assert "replaced: dropped" in result.stderr and "judgments.jsonl" in result.stderr
    names = {p.name for p in out.iterdir()}
    assert not names & {"judgments.jsonl", "audit.json", "audit.md", "audit.html"}
    assert {"notes.txt", "judge_cache.sqlite"} <= names  # not ours / content-addressed
    summary = json.loads((out / "summary.json").read_text())
    assert "judge" not in summary and summary["input"]["path"] == str(b)
    rows = _rows(out)
    assert all(not k.startswith("j_") for row in rows for k in row)
    assert {row["prediction"] for row in rows} == {f"B says lantern {j}" for j in range(5)}
    assert cmd.invoke("report", str(out)).exit_code == 0


def test_replace_over_a_run_drops_the_run_but_keeps_its_answer_cache(
    cmd: Commands, dataset: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    assert cmd.run(out).exit_code == 0
    b = _predictions(tmp_path, dataset, "B")
    result = cmd.judge(b, out, "--replace")
    assert result.exit_code == 0, result.output
    names = {p.name for p in out.iterdir()}
    assert "run.json" not in names and "predictions.jsonl" not in names
    with sqlite3.connect(out / "run_state.sqlite") as db:
        assert db.execute("SELECT count(*) FROM questions").fetchone() == (0,)
        assert db.execute("SELECT count(*) FROM meta").fetchone() == (0,)
    # and back: a run with --replace takes the folder over again
    result = cmd.run(out, "--replace")
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert "judge" not in summary and summary["input"]["path"] == str(out / "predictions.jsonl")
    assert cmd.run(out, "--top-k", "3", "--replace").exit_code == 0  # another run, replaced


def test_a_rerun_whose_answers_changed_refuses_the_old_judge_until_replace(
    cmd: Commands, tmp_path: Path
) -> None:
    """A rerun retries the questions that failed: their new answers must not keep the J of
    the old ones. Here the run state's answer changes under a judged folder."""
    out = tmp_path / "run"
    assert cmd.run(out).exit_code == 0
    assert cmd.judge(out / "predictions.jsonl", out).exit_code == 0
    with sqlite3.connect(out / "run_state.sqlite") as db:
        qid, record = db.execute("SELECT question_id, record FROM questions").fetchone()
        changed = {**json.loads(record), "prediction": "a retried answer"}
        db.execute("UPDATE questions SET record = ? WHERE question_id = ?",
                   (json.dumps(changed), qid))  # fmt: skip
    before = _folder_state(out)
    result = cmd.run(out)
    assert result.exit_code == 2, result.output
    (line,) = _error_lines(result)
    assert "summary.json judge.input" in line and "--replace" in line
    assert _folder_state(out) == before
    result = cmd.run(out, "--replace")
    assert result.exit_code == 0, result.output
    assert "judgments.jsonl" in result.stderr
    assert "judge" not in json.loads((out / "summary.json").read_text())
    assert "a retried answer" in (out / "predictions.jsonl").read_text()
    assert cmd.invoke("report", str(out)).exit_code == 0


def _tamper(path: Path, change: Callable[[dict[str, Any]], None]) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize(
    "tampering",
    ["judge fingerprint", "scores row", "audit fingerprint", "run fingerprint", "legacy sha"],
)
def test_report_refuses_a_folder_whose_parts_disagree(
    cmd: Commands, dataset: Path, tmp_path: Path, tampering: str
) -> None:
    out = tmp_path / "run"
    own = out / "predictions.jsonl"
    for result in (cmd.run(out), cmd.judge(own, out), cmd.audit(own, out)):
        assert result.exit_code == 0, result.output
    assert cmd.invoke("report", str(out)).exit_code == 0
    summary = out / "summary.json"
    if tampering == "judge fingerprint":
        _tamper(summary, lambda s: s["judge"]["input"].update(fingerprint="sha256:0"))
    elif tampering == "scores row":
        rows = _rows(out)
        rows[0]["prediction"] = "someone else's answer"
        (out / "scores.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    elif tampering == "audit fingerprint":
        _tamper(out / "audit.json", lambda d: d["probe_sets"][-1]["source"].update(fingerprint="x"))
    elif tampering == "run fingerprint":
        _tamper(out / "run.json", lambda d: d["predictions"].update(fingerprint="sha256:1"))
    else:  # written before fingerprints: the judge read another file than the scores

        def legacy(s: dict[str, Any]) -> None:
            for section in (s["input"], s["judge"]["input"]):
                section.pop("fingerprint")
            s["judge"]["input"]["sha256"] = "f" * 64

        _tamper(summary, legacy)
        (out / "run.json").unlink()
        (out / "audit.json").unlink()
    result = cmd.invoke("report", str(out))
    assert result.exit_code == 2, result.output
    (line,) = _error_lines(result)
    assert line.startswith(f"error: {out}")
    assert (
        "different files" if tampering == "legacy sha" else "parts of this folder disagree"
    ) in line
    compared = cmd.invoke("compare", str(out), str(out), "--out", str(tmp_path / "cmp"))
    assert compared.exit_code == 2 and _error_lines(compared) == [line]  # every reader refuses


def test_a_folder_written_before_fingerprints_is_known_by_its_files_sha256(
    cmd: Commands, dataset: Path, tmp_path: Path
) -> None:
    a, b = _predictions(tmp_path, dataset, "A"), _predictions(tmp_path, dataset, "B")
    out = tmp_path / "out"
    assert cmd.judge(a, out).exit_code == 0

    def legacy(summary: dict[str, Any]) -> None:
        summary["judge"]["input"].pop("fingerprint")

    _tamper(out / "summary.json", legacy)
    (out / "scores.jsonl").write_text("")  # nothing to recompute a fingerprint from
    result = cmd.score(b, out)
    assert result.exit_code == 2, result.output
    (line,) = _error_lines(result)
    assert "summary.json judge.input" in line and str(a) in line and str(b) in line
    assert cmd.score(a, out).exit_code == 0  # the same file: its J composes
