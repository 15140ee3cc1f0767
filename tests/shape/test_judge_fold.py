"""The guarantees of the one judge fold (`judge.folder`), for every benchmark's `judge` and the
example plugin's (the generic judge), end
to end through the CLI against the real fake provider (faults scripted in it):

- failed judge calls past `--max-unscored` fail the command (exit 1, one clear line), the
  outputs written; a dead port too;
- a headline over the questions with a verdict is said to be over those, never over all;
- the served model and the `fake` flag are recorded and shown, cached reruns included;
- calls, tokens and cost count every attempt: a cached rerun reports the first pass's cost.
"""

from __future__ import annotations

import json
import socket
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from locomo_plus_helpers import level_verdict, write_cut
from shapes import (
    SHORT_BATCH_WAIT,
    TINY,
    assert_batch_still_running,
    shape_id,
    tiny_module,
    write_tiny_data,
)
from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.testing._verdicts import reference_recall_score
from locoscore.testing.fake_provider import FakeConfig, FakeProvider
from locoscore.testing.longmemeval_fixture import write_fixture

REPO = Path(__file__).resolve().parents[2]
BEAM_100K = REPO / "../shared/data/beam/100K"
LME_ANSWERS = {  # the fixture's questions, in file order; the fake's verdict by recall
    "e47becba": "Biscuit",
    "a3f9c2d1_abs": "The user never mentioned a cat; only a dog named Biscuit.",
    "7c2d9e10": "minestrone",
    "5d1a6c3e": "3",
    "9f3b2a81_abs": "2 concerts",
    "c81e728d": "You work at Acme Robotics now",
    "gpt4_1a2b3c4d": "10 days",
}


@dataclass(frozen=True)
class Case:
    name: str
    args: Callable[[Path], list[str]]  # the `judge` arguments before --out, files written
    refusals: int  # scripted refused verdicts that put the pass over --max-unscored 10 %
    verdict: Callable[[str], int | str] | None = None  # the fake's rule (None: its default)


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _locomo(tmp: Path) -> list[str]:
    rows = [
        {
            "sample_id": "conv-t0",
            "qa_index": i,
            "category": 1 + i % 4,
            "question": f"What did speaker A bring to gathering number {i}?",
            "answer": f"item {i}",
            "prediction": f"They brought item {i}.",
        }
        for i in range(10)
    ]
    return [str(_jsonl(tmp / "p.jsonl", rows)), "--format", "native"]


def _longmemeval(tmp: Path) -> list[str]:
    dataset = write_fixture(tmp / "s.json")
    answers = [{"question_id": q, "hypothesis": h} for q, h in LME_ANSWERS.items()]
    answers_path = _jsonl(tmp / "hyp.jsonl", answers)
    return [str(answers_path), "--benchmark", "longmemeval", "--dataset", str(dataset),
            "--protocol", "binary"]  # fmt: skip


def _beam(tmp: Path) -> list[str]:
    from locoscore.benchmarks.beam.data import load_beam

    data = load_beam(BEAM_100K)
    rows = [
        {"question_id": q.question_id, "prediction": q.rubric[0] if q.rubric else "x"}
        for q in data.questions
        if q.conversation_id == "1"
    ]
    return [str(_jsonl(tmp / "predictions.jsonl", rows)), "--benchmark", "beam",
            "--dataset", str(BEAM_100K)]  # fmt: skip


def _tiny(tmp: Path) -> list[str]:
    """The example's six questions, each answered with its gold (J 100 where judged)."""
    dataset = write_tiny_data(tmp / "tiny.json")
    rows = [
        {"question_id": q["id"], "prediction": q["answer"]} for q in tiny_module().DATA["questions"]
    ]
    return [str(_jsonl(tmp / "predictions.jsonl", rows)), "--benchmark", TINY,
            "--dataset", str(dataset)]  # fmt: skip


def _locomo_plus(tmp: Path) -> list[str]:
    """Nine items of the real file; every reply earns its three-level verdict (FULL: 100)."""
    dataset = write_cut(tmp / "plus")
    rows = [{"question_id": f"lp-{i:03d}", "prediction": "reply FULL"} for i in range(9)]
    return [str(_jsonl(tmp / "answers.jsonl", rows)), "--benchmark", "locomo-plus",
            "--dataset", str(dataset)]  # fmt: skip


beam_data = pytest.mark.skipif(not BEAM_100K.exists(), reason="BEAM 100K not at ../shared")


def _full_marks(prompt: str) -> int:
    """BEAM's verdicts on its asked scale (100, 50 or 0), and CORRECT for an order pair."""
    return 100


LOCOMO_CASE = Case("locomo", _locomo, 2)
LME_CASE = Case("longmemeval", _longmemeval, 2, reference_recall_score)
LOCOMO = pytest.param(LOCOMO_CASE, id="locomo")
LONGMEMEVAL = pytest.param(LME_CASE, id="longmemeval")
BEAM = pytest.param(Case("beam", _beam, 12, _full_marks), id="beam", marks=beam_data)
# one refused run of 6 (17 %) is past --max-unscored 10 %
TINY_ONE = Case(TINY, _tiny, 1, reference_recall_score)
TINY_CASE = pytest.param(TINY_ONE, id=shape_id(TINY))
# one refused run of 9 (11 %) is past --max-unscored 10 %
PLUS = pytest.param(Case("locomo-plus", _locomo_plus, 1, level_verdict), id="locomo-plus")


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-fold-0123456789")
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    monkeypatch.delenv("LOCOSCORE_DATASET", raising=False)


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    with FakeProvider(FakeConfig(latency_s=0.0, timeout_s=5.0)) as provider:
        yield provider


def _judge(case: Case, tmp: Path, url: str, out: Path, *extra: str) -> Any:
    """The benchmark's judge at `url` with Anthropic's default model (priced), one run."""
    args = ["judge", *case.args(tmp), "--out", str(out), "--base-url", url, "--runs", "1",
            "--no-progress", "--timeout", "2", *extra]  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return CliRunner().invoke(app, args)


def _section(out: Path) -> dict[str, Any]:
    section: dict[str, Any] = json.loads((out / "summary.json").read_text())["judge"]
    return section


def _report(out: Path) -> str:
    """The folder's report.md as `locoscore report` writes it (no call)."""
    result = CliRunner().invoke(app, ["report", str(out)])
    assert result.exit_code == 0, result.output
    return (out / "report.md").read_text()


def _usage(section: dict[str, Any]) -> tuple[int, int, float | None]:
    usage = section["usage"]
    return usage["input_tokens"], usage["output_tokens"], usage["estimated_cost_usd"]


@pytest.mark.parametrize("case", [LOCOMO, LONGMEMEVAL, BEAM, TINY_CASE, PLUS])
def test_failed_calls_past_max_unscored_fail_the_command(
    case: Case, fake: FakeProvider, tmp_path: Path
) -> None:
    fake.config.verdict = case.verdict  # the benchmark\'s verdicts on its asked scale
    fake.config.scores = ["refusal"] * case.refusals
    out = tmp_path / "out"
    result = _judge(case, tmp_path, fake.url, out, "--concurrency", "1")
    assert result.exit_code == 1, result.output
    assert "above --max-unscored 10%" in result.output
    assert f"{case.refusals} of " in result.output and "refused" in result.output
    assert "Traceback" not in result.output
    section = _section(out)  # written before the command fails, as LoCoMo's
    assert section["calls"]["failed"] == case.refusals
    # the same verdicts within a raised limit stand (BEAM alone still refuses a question
    # without every item's verdict: its own, stricter rule)
    fake.config.scores = ["refusal"] * case.refusals
    again = _judge(case, tmp_path, fake.url, tmp_path / "again", "--max-unscored", "1")
    assert again.exit_code == (1 if case.name == "beam" else 0), again.output


@pytest.mark.parametrize(
    ("case", "calls"), [(LME_CASE, 7), (TINY_ONE, 6)], ids=["longmemeval", shape_id(TINY)]
)
def test_a_judge_against_a_dead_port_exits_1_with_one_clear_line(
    case: Case, calls: int, tmp_path: Path
) -> None:
    with socket.socket() as sock:  # bound then closed: connection refused, no network used
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    # one attempt per call: the refused connection is final at once (the default retries
    # with backoff for ~15 s, as a restarting server deserves)
    result = _judge(
        case, tmp_path, f"http://127.0.0.1:{port}", tmp_path / "out", "--max-attempts", "1"
    )
    assert result.exit_code == 1, result.output
    assert f"error: every judge call failed ({calls} of {calls}: connection {calls})" in (
        " ".join(result.output.split())
    )
    assert "Traceback" not in result.output


@pytest.mark.parametrize("case", [LONGMEMEVAL, BEAM, TINY_CASE, PLUS])
def test_a_headline_over_the_scored_questions_says_so(
    case: Case, fake: FakeProvider, tmp_path: Path
) -> None:
    fake.config.verdict = case.verdict  # the benchmark\'s verdicts on its asked scale
    fake.config.scores = ["refusal"] * case.refusals
    out = tmp_path / "out"
    result = _judge(case, tmp_path, fake.url, out, "--concurrency", "1")
    section = _section(out)
    questions, scored = section["questions"], section["scored"]
    assert section["unscored"] == questions - scored > 0
    claim = f"over {scored} of {questions} questions"
    assert claim in " ".join(result.output.split())
    report = _report(out)
    assert claim in report and f"over {questions} questions" not in report


def test_longmemeval_headline_is_over_the_judged_questions_hand_computed(
    fake: FakeProvider, tmp_path: Path
) -> None:
    """The first two calls (e47becba and a3f9c2d1_abs, both right) fail: of the 10
    questions, 8 have a verdict, 3 of them right (5d1a6c3e, c81e728d, gpt4_1a2b3c4d)."""
    fake.config.verdict = reference_recall_score
    fake.config.scores = ["refusal", "refusal"]
    out = tmp_path / "out"
    _judge(LME_CASE, tmp_path, fake.url, out, "--concurrency", "1")
    section = _section(out)
    assert (section["questions"], section["scored"], section["unjudged"]) == (10, 8, 2)
    assert section["missing_counts_as_wrong"]["overall"]["accuracy"] == 37.5
    assert section["missing_counts_as_wrong"]["overall"]["count"] == 8


@pytest.mark.parametrize("case", [LOCOMO, LONGMEMEVAL, BEAM, TINY_CASE, PLUS])
def test_served_model_and_fake_are_recorded_and_shown_cached_reruns_too(
    case: Case, fake: FakeProvider, tmp_path: Path
) -> None:
    fake.config.verdict = case.verdict  # the benchmark\'s verdicts on its asked scale
    out = tmp_path / "out"
    for _attempt in range(2):  # the second answered from the cache
        result = _judge(case, tmp_path, fake.url, out)
        assert result.exit_code == 0, result.output
        section = _section(out)
        assert section["served"] == {"models": ["claude-sonnet-4-6"], "fake": True}
        signature = section["signature"]
        assert "|model:claude-sonnet-4-6|served:claude-sonnet-4-6|fake|" in signature
        flat = " ".join(result.output.split())
        assert signature in flat and "locoscore's fake provider, not a real model" in flat
        assert signature in _report(out).replace("\n", "")
    assert fake.requests > 0 and section["calls"]["cached"] > 0


@pytest.mark.parametrize("case", [LOCOMO, LONGMEMEVAL, BEAM, TINY_CASE, PLUS])
def test_cost_and_tokens_count_every_attempt(
    case: Case, fake: FakeProvider, tmp_path: Path
) -> None:
    fake.config.verdict = case.verdict  # the benchmark\'s verdicts on its asked scale
    out = tmp_path / "out"
    # attempt 1 leaves some runs without a verdict (paid for, not cached)
    fake.config.scores = ["refusal"] * case.refusals
    _judge(case, tmp_path, fake.url, out, "--concurrency", "1")
    first = _section(out)
    first_in, first_out, first_cost = _usage(first)
    assert first_in > 0 and first_out > 0 and first_cost is not None and first_cost > 0
    made = first["calls"]["made"]
    # attempt 2 makes only the failed calls; the totals are both attempts'
    second = _judge(case, tmp_path, fake.url, out)
    assert second.exit_code == 0, second.output
    section = _section(out)
    now = section["calls"]["this_attempt"]
    assert now["requests"] == case.refusals
    assert section["calls"]["earlier_attempts"]["attempts"] == 1
    assert section["calls"]["made"] == made + case.refusals
    tokens_in, tokens_out, cost = _usage(section)
    assert tokens_in == first_in + now["input_tokens"]
    assert tokens_out == first_out + now["output_tokens"]
    assert cost == pytest.approx(first_cost + now["cost_usd"], abs=1e-4)
    # attempt 3: every verdict cached, nothing paid now; the cost stays the whole pass's
    third = _judge(case, tmp_path, fake.url, out)
    assert third.exit_code == 0, third.output
    cached = _section(out)
    assert cached["calls"]["this_attempt"]["requests"] == 0
    assert _usage(cached) == (tokens_in, tokens_out, cost)
    assert f"${cost:.2f}" in third.output and "by 2 earlier attempts" in third.output


def test_the_board_shows_a_locomo_judge_cost(fake: FakeProvider, tmp_path: Path) -> None:
    out = tmp_path / "runs" / "locomo"
    assert _judge(LOCOMO_CASE, tmp_path, fake.url, out).exit_code == 0
    cost = _section(out)["usage"]["estimated_cost_usd"]
    board = CliRunner().invoke(app, ["board", str(out), "--out", str(tmp_path / "board")])
    assert board.exit_code == 0, board.output
    (group,) = json.loads((tmp_path / "board" / "board.json").read_text())["groups"]
    (row,) = group["rows"]
    assert row["judge_cost_usd"] == cost > 0


@pytest.mark.parametrize("case", [LOCOMO, LONGMEMEVAL, BEAM, TINY_CASE, PLUS])
def test_every_judge_takes_the_batch_wait_and_shows_its_progress(
    case: Case, fake: FakeProvider, tmp_path: Path
) -> None:
    """`--batch-poll`, `--batch-wait` and the progress line reach every benchmark's pass, not
    LoCoMo's alone (another benchmark's batch was waited on for the default 24 hours)."""
    fake.config.verdict = case.verdict  # the benchmark's verdicts on its asked scale
    fake.config.batch_ready_after_polls = 1000
    out = tmp_path / "out"
    pending = _judge(case, tmp_path, fake.url, out, *SHORT_BATCH_WAIT)
    assert_batch_still_running(pending, out / "summary.json")
    fake.config.batch_ready_after_polls = 1
    args = ["judge", *case.args(tmp_path), "--out", str(out), "--base-url", fake.url,
            "--runs", "1", "--batch", "--batch-poll", "0.01"]  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        done = CliRunner().invoke(app, args)
    assert done.exit_code == 0, done.output
    judged = _section(out)["calls"]["made"]
    # stderr is not a terminal here: the plain progress line, at the end of each pass
    lines = [line for line in done.output.splitlines() if line.startswith("judging: ")]
    assert lines and all(" judgments (100 %)" in line for line in lines)
    assert sum(int(line.split("/")[1].split()[0]) for line in lines) >= judged > 0
