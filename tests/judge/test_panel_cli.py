"""`locoscore judge --panel` end to end on 40 real LoCoMo questions, two real local fake
judges: one accepts any reply containing the gold (`reference_contains_score`), the other
only the gold itself (`reference_exact_score`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.testing.fake_provider import (
    FakeConfig,
    FakeProvider,
    reference_contains_score,
    reference_exact_score,
)

runner = CliRunner()
# the run's evidence recall of question k by k % 4: odd questions (terse: "No idea") lost
# with nothing retrieved (k % 4 == 1) or with every evidence turn retrieved (k % 4 == 3)
RECALL = (1.0, 0.0, 0.5, 1.0)


@pytest.fixture
def judges() -> Iterator[tuple[FakeProvider, FakeProvider]]:
    with (
        FakeProvider(FakeConfig(verdict=reference_contains_score)) as lenient,
        FakeProvider(FakeConfig(verdict=reference_exact_score)) as strict,
    ):
        yield lenient, strict


def write_answers(locomo: Path, out: Path) -> tuple[Path, Path]:
    """The first 40 judged questions (categories 1-4): verbose, the gold inside a long
    reply; terse, the gold itself on every even question and "No idea" on every odd one."""
    data = json.loads(locomo.read_text())
    qs = [(c["sample_id"], i, q) for c in data for i, q in enumerate(c["qa"]) if q["category"] != 5]
    qs = qs[:40]

    def write(path: Path, answer: Any) -> Path:
        lines = [
            json.dumps({"sample_id": sid, "qa_index": i, "question_id": f"{sid}#{i}",
                        "category": q["category"], "question": q["question"],
                        "answer": q["answer"], "prediction": answer(k, str(q["answer"])),
                        "evidence_recall": RECALL[k % 4]})
            for k, (sid, i, q) in enumerate(qs)
        ]  # fmt: skip
        path.write_text("\n".join(lines) + "\n")
        return path

    verbose = write(out / "verbose.jsonl", lambda k, g: f"Going back over the chats: {g}, I think.")
    terse = write(out / "terse.jsonl", lambda k, g: g if k % 2 == 0 else "No idea")
    return verbose, terse


def write_panel(path: Path, lenient: FakeProvider, strict: FakeProvider) -> Path:
    path.write_text(
        f'[[judge]]\nname = "contains"\nprovider = "anthropic"\nbase_url = "{lenient.url}"\n'
        'template = "lenient"\n\n'
        f'[[judge]]\nname = "exact"\nprovider = "anthropic"\nbase_url = "{strict.url}"\n'
        'template = "strict"\n'
    )
    return path


def judge(answers: Path, out: Path, panel: Path, locomo: Path, *extra: str) -> Any:
    args = ["judge", str(answers), "--out", str(out), "--panel", str(panel), "--runs", "1"]
    args += ["--protocol", "binary", "--dataset", str(locomo), "--no-progress", "--timeout", "2"]
    return runner.invoke(app, [*args, *extra])


def test_panel_headline_per_judge_spread_and_board_flip(
    judges: tuple[FakeProvider, FakeProvider], locomo_path: Path, tmp_path: Path
) -> None:
    lenient, strict = judges
    verbose, terse = write_answers(locomo_path, tmp_path)
    panel = write_panel(tmp_path / "panel.toml", lenient, strict)
    result = judge(verbose, tmp_path / "verbose", panel, locomo_path)
    assert result.exit_code == 0, result.output
    section = json.loads((tmp_path / "verbose" / "panel.json").read_text())
    # verbose: every reply holds the gold (contains: 40/40 = 100), none is the gold (exact: 0)
    assert section["judges"]["contains"]["overall"]["mean"] == 100.0
    assert section["judges"]["exact"]["overall"]["mean"] == 0.0
    assert section["spread"]["overall"] == 100.0
    assert set(section["spread"]["by_type"].values()) == {100.0}
    assert len(section["split"]) == 40
    assert section["agreement"]["krippendorff_alpha"]["overall"] == -0.975  # by hand above
    assert section["losses"]["overall"] == {"judges split": 40}
    summary = json.loads((tmp_path / "verbose" / "summary.json").read_text())
    assert summary["panel"]["judges"]["exact"]["signature"].startswith("judge:binary|")
    # each judge its own folder and signature, side by side, never one merged J
    for name, server in (("contains", lenient), ("exact", strict)):
        own = json.loads((tmp_path / "verbose" / "judges" / name / "summary.json").read_text())
        assert f"endpoint:127.0.0.1:{server.port}" in own["judge"]["signature"]
    assert "judge" not in summary
    assert "spread (largest - smallest J): 100.0 points" in result.output
    # terse: 20 of 40 are the gold itself, so both judges give 50; they never split
    calls = lenient.generation_calls + strict.generation_calls
    result = judge(terse, tmp_path / "terse", panel, locomo_path)
    assert result.exit_code == 0, result.output
    section = json.loads((tmp_path / "terse" / "panel.json").read_text())
    # the 20 odd questions are lost under both judges: 10 with nothing retrieved, 10 with
    # the evidence retrieved and "No idea" answered (the gold-evidence figures:
    # test_panel_provenance, on real runs)
    losses = section["losses"]
    assert losses["overall"] == {"not retrieved": 10, "abstained": 10}
    assert losses["causes"]["conv-26#1"] == "not retrieved"
    assert losses["causes"]["conv-26#3"] == "abstained"
    assert "gold_evidence" not in losses
    assert (
        "## Why each question was lost (20 of 40)" in (tmp_path / "terse" / "panel.md").read_text()
    )
    assert [section["judges"][n]["overall"]["mean"] for n in ("contains", "exact")] == [50, 50]
    assert section["spread"]["overall"] == 0.0 and section["split"] == []
    assert lenient.generation_calls + strict.generation_calls == calls + 80
    # the board: contains puts verbose (100) above terse (50), exact below (0 < 50)
    board = runner.invoke(
        app,
        ["board", str(tmp_path / "verbose"), str(tmp_path / "terse"), "--out", str(tmp_path / "b")],
    )
    assert board.exit_code == 0, board.output
    verbose_name, terse_name = str(tmp_path / "verbose"), str(tmp_path / "terse")
    sentence = f"{verbose_name} above {terse_name} under judge contains, below under judge exact"
    assert f"order flips: {sentence}: neither is better" in board.output
    stability = json.loads((tmp_path / "b" / "board.json").read_text())["rank_stability"]
    # two systems in opposite orders: one discordant pair of one -> tau = -1
    assert stability["kendall_tau"] == [{"a": "contains", "b": "exact", "tau": -1.0}]
    assert stability["flips"] == [
        {"a": verbose_name, "b": terse_name, "above_under": "contains", "below_under": "exact"}
    ]
    # neither is called better; and no row leads: each judge's folder records the data file
    # (the panel binds it), so 40 hand-written answers are a subset that states no size
    rows = [r for g in json.loads((tmp_path / "b" / "board.json").read_text())["groups"]
            for r in g["rows"]]  # fmt: skip
    assert [(r["rank"], r["tied"]) for r in rows] == [(0, False)] * 4
    assert {r["gates"]["failed"][0].split(":")[0] for r in rows} == {"subset"}
    page = (tmp_path / "b" / "board.md").read_text()
    assert "(worse)" not in page and "(better)" not in page


def test_panel_reports_a_failed_judge_then_resumes_only_its_calls(
    judges: tuple[FakeProvider, FakeProvider], locomo_path: Path, tmp_path: Path
) -> None:
    lenient, strict = judges
    _, terse = write_answers(locomo_path, tmp_path)
    panel = write_panel(tmp_path / "panel.toml", lenient, strict)
    strict.config.faults = {"refusal": 1.0}  # every call of the exact judge is refused
    result = judge(terse, tmp_path / "out", panel, locomo_path)
    assert result.exit_code == 1, result.output
    section = json.loads((tmp_path / "out" / "panel.json").read_text())
    assert section["failed"] == ["exact"]
    assert section["judges"]["exact"]["status"] == "failed"
    assert "40 of 40 questions without a verdict" in section["judges"]["exact"]["error"]
    assert section["judges"]["contains"]["overall"]["mean"] == 50.0
    assert "**Failed judges**" in (tmp_path / "out" / "panel.md").read_text()
    # the provider is back: the rerun makes the exact judge's 40 calls, none of the other's
    strict.config.faults = {}
    before = lenient.generation_calls
    result = judge(terse, tmp_path / "out", panel, locomo_path)
    assert result.exit_code == 0, result.output
    assert lenient.generation_calls == before
    section = json.loads((tmp_path / "out" / "panel.json").read_text())
    assert section["failed"] == [] and section["judges"]["exact"]["overall"]["mean"] == 50.0


def test_panel_dry_run_prints_calls_per_judge_and_writes_nothing(
    judges: tuple[FakeProvider, FakeProvider], locomo_path: Path, tmp_path: Path
) -> None:
    lenient, strict = judges
    verbose, _ = write_answers(locomo_path, tmp_path)
    panel = write_panel(tmp_path / "panel.toml", lenient, strict)
    result = judge(verbose, tmp_path / "out", panel, locomo_path, "--dry-run")
    assert result.exit_code == 0, result.output
    assert "  contains: 40 calls," in result.output
    assert "  exact: 40 calls," in result.output
    assert "  whole panel: 80 calls," in result.output
    assert not (tmp_path / "out").exists()
    assert lenient.generation_calls + strict.generation_calls == 0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[[judge]]\nname = "a"\n', "a panel lists two judges or more"),
        ('[[judge]]\nname = "a"\n[[judge]]\nname = "A"\n', "judge name 'A' is used twice"),
        ('[[judge]]\nname = "a"\n[[judge]]\nname = "b"\nrunz = 2\n', "field 'runz'"),
        (
            '[[judge]]\nname = "a"\n[[judge]]\nname = "b"\ntemplate = "official"\nprovider = "x"\n',
            "unknown provider",
        ),
        ('[[judge]]\nname = "a/b"\n[[judge]]\nname = "b"\n', "field 'name'"),
        (
            '[[judge]]\nname = "a"\n[[judge]]\nname = "b"\ntemplate = "strickt"\n',
            "unknown template 'strickt': not a built-in variant (locoscore, official, strict",
        ),
    ],
)
def test_bad_panel_file_exits_2_naming_it(
    text: str, message: str, locomo_path: Path, tmp_path: Path
) -> None:
    verbose, _ = write_answers(locomo_path, tmp_path)
    panel = tmp_path / "panel.toml"
    panel.write_text(text)
    result = judge(verbose, tmp_path / "out", panel, locomo_path)
    assert result.exit_code == 2, result.output
    assert message in result.output and str(panel) in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "out").exists()


def test_a_judge_without_its_api_key_stops_the_panel_before_any_call(
    judges: tuple[FakeProvider, FakeProvider],
    locomo_path: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lenient, _ = judges
    monkeypatch.delenv("OPENAI_API_KEY")
    verbose, _ = write_answers(locomo_path, tmp_path)
    panel = tmp_path / "panel.toml"
    panel.write_text(
        f'[[judge]]\nname = "a"\nbase_url = "{lenient.url}"\n\n'
        f'[[judge]]\nname = "b"\nprovider = "openai"\nbase_url = "{lenient.openai_url}"\n'
    )
    result = judge(verbose, tmp_path / "out", panel, locomo_path)
    assert result.exit_code == 2, result.output
    assert "judge 2 (b)" in result.output and "OPENAI_API_KEY is not set" in result.output
    assert lenient.generation_calls == 0 and not (tmp_path / "out").exists()


def test_a_killed_panel_resumes_without_paying_a_call_twice(
    judges: tuple[FakeProvider, FakeProvider], locomo_path: Path, tmp_path: Path
) -> None:
    """SIGKILL while the panel judges (each judge at concurrency 1), then the same command:
    both judges finish, each call is paid once but for the one in flight at the kill."""
    import os
    import signal
    import subprocess
    import sys
    import time

    lenient, strict = judges
    verbose, _ = write_answers(locomo_path, tmp_path)
    panel = write_panel(tmp_path / "panel.toml", lenient, strict)
    out = tmp_path / "panel"
    command = [
        sys.executable, "-m", "locoscore", "judge", str(verbose), "--out", str(out),
        "--panel", str(panel), "--runs", "1", "--protocol", "binary", "--dataset",
        str(locomo_path), "--no-progress", "--timeout", "2", "--concurrency", "1",
    ]  # fmt: skip
    env = {**os.environ, "ANTHROPIC_API_KEY": os.environ.get("ANTHROPIC_API_KEY") or "sk-ant-x"}
    lenient.config.latency_s = strict.config.latency_s = 0.05
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while lenient.generation_calls < 10 and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=10)
    assert process.returncode == -signal.SIGKILL
    before = lenient.generation_calls + strict.generation_calls
    assert 0 < before < 80  # it died part way through the 2 x 40 calls

    lenient.config.latency_s = strict.config.latency_s = 0.0
    again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stdout + again.stderr
    paid = lenient.generation_calls + strict.generation_calls
    assert 80 <= paid <= 81  # 40 questions x 2 judges; at most the one in flight again
    panel_json = json.loads((out / "panel.json").read_text())
    assert sorted(panel_json["judges"]) == ["contains", "exact"]
