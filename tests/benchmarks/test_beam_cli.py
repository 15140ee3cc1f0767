"""BEAM at the command line: bad folders are one line and exit 2 with nothing written; the
audit's dry run counts its calls without making one."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.testing.fake_provider import FakeConfig, FakeProvider

BEAM_100K = Path(__file__).resolve().parents[2] / "../shared/data/beam/100K"
pytestmark = pytest.mark.skipif(not BEAM_100K.exists(), reason="BEAM 100K not at ../shared")


def _folder(tmp_path: Path, edit=None) -> Path:
    root = tmp_path / "100K"
    shutil.copytree(BEAM_100K / "3", root / "3")
    if edit is not None:
        path = root / "3" / "probing_questions.json"
        probing = json.loads(path.read_text())
        edit(probing)
        path.write_text(json.dumps(probing))
    return root


def _drop_rubric(probing: dict) -> None:
    del probing["summarization"][1]["rubric"]


def _rename_ability(probing: dict) -> None:
    probing["mind_reading"] = probing.pop("abstention")


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda tmp: tmp, "not a BEAM folder"),
        (lambda tmp: _folder(tmp, _drop_rubric), "record summarization[1], field 'rubric'"),
        (lambda tmp: _folder(tmp, _rename_ability), "unknown ability 'mind_reading'"),
    ],
)
def test_bad_folders_are_one_line_and_write_nothing(tmp_path: Path, make, expected) -> None:
    dataset = make(tmp_path / "data")
    (tmp_path / "data").mkdir(exist_ok=True)
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app,
        [
            "run",
            "--benchmark",
            "beam",
            "--dataset",
            str(dataset),
            "--out",
            str(out),
            "--system",
            "bm25",
            "--answer-provider",
            "extractive",
            "--no-progress",
        ],
    )
    assert result.exit_code == 2, result.output
    assert expected in result.output
    assert "Traceback" not in result.output
    assert len([line for line in result.output.splitlines() if line.strip()]) == 1
    assert not out.exists()


def test_audit_dry_run_counts_calls(tmp_path: Path) -> None:
    dataset = _folder(tmp_path)
    with FakeProvider(FakeConfig()) as fake:
        result = CliRunner().invoke(
            app,
            [
                "audit",
                "--benchmark",
                "beam",
                "--dataset",
                str(dataset),
                "--out",
                str(tmp_path / "audit"),
                "--base-url",
                fake.url,
                "--runs",
                "2",
                "--dry-run",
            ],
        )
        assert fake.generation_calls == 0
    assert result.exit_code == 0, result.output
    assert "judge:beam|half:kept" in result.output
    # one conversation: no off-topic source (it needs another conversation); empty answers
    # are graded 0 without a call; the gold: every rubric item, and line/item pairs for
    # event ordering, twice (two runs)
    from locoscore.benchmarks.beam.data import load_beam
    from locoscore.benchmarks.beam.judge import count_calls

    data = load_beam(dataset)
    gold = [(q.rubric, q.gold, q.ability == "event_ordering") for q in data.questions if q.gold]
    expected = count_calls(gold, 2, official=False)
    assert f"calls to make: {expected:,}" in result.output
