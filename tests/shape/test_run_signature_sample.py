"""What a run guarantees on every benchmark (LoCoMo, LongMemEval, BEAM, the example plugin), on
tiny cuts of each:
an answer-changing option is in the signature and run.json, and a rerun with another value
is refused; a rerun from the cache signs the served model and the fake mark as the first;
one sample draw for `run`, `judge` and `audit`, judged over the sample and shown as a subset."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from beam_helpers import BEAM_100K, rule
from locomo_plus_helpers import NINE, level_verdict, write_cut
from personamem_helpers import write_folder as write_personamem
from run_helpers import answer_requests, echo_first_memory, run_cli
from shapes import (
    SHAPES,
    SHORT_BATCH_WAIT,
    TINY,
    assert_batch_still_running,
    shape_id,
    write_tiny_data,
)
from typer.testing import CliRunner

from locoscore.benchmarks import get_benchmark
from locoscore.cli import app
from locoscore.testing._verdicts import reference_recall_score
from locoscore.testing.fake_provider import FakeConfig, FakeProvider
from locoscore.testing.longmemeval_fixture import write_fixture

LOCOMO = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "locomo10.json"
JUDGE = ["--provider", "openai", "--model", "gpt-4o-2024-08-06", "--runs", "1", "--no-progress"]


@dataclass
class Cut:
    """A benchmark's tiny data cut and how its judge is asked."""

    name: str
    data: Path
    population: int  # questions in the cut
    strat: str  # how its sample signs its strata
    verdict: Callable[[str], int | str] | None = None
    judge: list[str] = field(default_factory=list)
    audit: list[str] = field(default_factory=list)


@pytest.fixture(autouse=True)
def api_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-shape-run-0123456789abcdef")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("LOCOSCORE_DATASET", raising=False)


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    """The answerer (and judge): the words of the first retrieved memory."""
    with FakeProvider(FakeConfig(timeout_s=5.0, answer=echo_first_memory)) as provider:
        yield provider


def _locomo(root: Path) -> Cut:
    """conv-26 with its first 12 questions (none adversarial), and a probe file of them."""
    if not LOCOMO.exists():
        pytest.skip(f"real dataset not found at {LOCOMO}")
    sample = json.loads(LOCOMO.read_text(encoding="utf-8"))[0]
    sample["qa"] = sample["qa"][:12]
    assert 5 not in {qa["category"] for qa in sample["qa"]}
    data = root / "locomo_cut.json"
    data.write_text(json.dumps([sample]), encoding="utf-8")
    probes = [
        {"question_id": f"locomo_0_qa{j}", "question": qa["question"],
         "golden_answer": qa["answer"], "generated_answer": "something else entirely",
         "category": str(qa["category"])}
        for j, qa in enumerate(sample["qa"])
    ]  # fmt: skip
    probe = root / "vague-probe.json"
    probe.write_text(json.dumps({"detailed_results": {"locomo_exp_user_0": probes}}))
    return Cut("locomo", data, 12, "cat", audit=["--probes", str(probe)])


def _longmemeval(root: Path) -> Cut:
    data = write_fixture(root / "longmemeval_s.json")  # ten questions, six types
    binary = ["--protocol", "binary"]
    return Cut("longmemeval", data, 10, "type", reference_recall_score, binary, binary)


def _beam(root: Path) -> Cut:
    if not BEAM_100K.exists():
        pytest.skip(f"BEAM 100K not found at {BEAM_100K}")
    shutil.copytree(BEAM_100K / "1", root / "100K" / "1")  # conversation 1: 20 questions
    return Cut("beam", root / "100K", 20, "ability", rule)


def _locomo_plus(root: Path) -> Cut:
    """Nine items of the real file (three causal, two of each other relation)."""
    return Cut("locomo-plus", write_cut(root / "plus", NINE), 9, "relation", level_verdict)


def _personamem(root: Path) -> Cut:
    """A small folder in the derived copy's shape: six questions of four types (no judge)."""
    return Cut("personamem", write_personamem(root / "32k"), 6, "type")


def _tiny(root: Path) -> Cut:
    """The example plugin's six questions (two types), its data as a file."""
    return Cut(TINY, write_tiny_data(root / "tiny.json"), 6, "type", reference_recall_score)


@pytest.fixture(params=SHAPES, ids=shape_id)
def cut(request: pytest.FixtureRequest, tmp_path: Path, fake: FakeProvider) -> Cut:
    made = {
        "locomo": _locomo, "longmemeval": _longmemeval, "beam": _beam,
        "personamem": _personamem, "locomo-plus": _locomo_plus, TINY: _tiny,
    }[request.param]  # fmt: skip
    (tmp_path / "data").mkdir()
    chosen = made(tmp_path / "data")
    fake.config.verdict = chosen.verdict
    return chosen


def _run(fake: FakeProvider, cut: Cut, out: Path, *extra: str) -> Any:
    return run_cli(
        "--benchmark", cut.name, "--dataset", str(cut.data), "--out", str(out),
        "--answer-provider", "openai-compatible", "--answer-model", "fake-answerer",
        "--answer-base-url", fake.openai_url, "--skip-probe", *extra,
    )  # fmt: skip


def _invoke(command: str, fake: FakeProvider, cut: Cut, *args: str) -> Any:
    extra = cut.audit if command == "audit" else cut.judge
    return CliRunner().invoke(
        app,
        [command, *args, "--benchmark", cut.name, "--dataset", str(cut.data),
         "--base-url", fake.openai_url, *JUDGE, *extra],
    )  # fmt: skip


def _read(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def test_an_answer_changing_system_option_is_signed_and_another_value_is_refused(
    fake: FakeProvider, cut: Cut, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    window = ("--system", "full-context", "--limit", "2")
    first = _run(fake, cut, out, *window, "--system-option", "window_tokens=5000")
    assert first.exit_code == 0, first.output
    run = _read(out / "run.json")
    assert run["system"]["options"] == {"window_tokens": "5000"}
    assert "|opts:window_tokens=5000|" in run["signature"]
    assert len(answer_requests(fake)) == 2
    predictions = (out / "predictions.jsonl").read_bytes()

    # another window is another run: refused in the same folder, nothing asked or changed
    other = _run(fake, cut, out, *window, "--system-option", "window_tokens=40")
    assert other.exit_code == 2, other.output
    line = " ".join(other.output.split())
    assert "holds a run with another signature" in line and "opts:window_tokens=40" in line
    assert len(answer_requests(fake)) == 2
    assert (out / "predictions.jsonl").read_bytes() == predictions

    # with --replace it is answered anew (the 40-token prompts are not in the cache)
    again = _run(fake, cut, out, *window, "--system-option", "window_tokens=40", "--replace")
    assert again.exit_code == 0, again.output
    assert len(answer_requests(fake)) == 4
    assert _read(out / "run.json")["system"]["options"] == {"window_tokens": "40"}


def test_a_rerun_from_the_cache_signs_the_served_model_and_the_fake_mark(
    fake: FakeProvider, cut: Cut, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    first = _run(fake, cut, out, "--system", "bm25", "--limit", "3")
    assert first.exit_code == 0, first.output
    signed = _read(out / "run.json")["signature"]
    assert "|model:fake-answerer|served:fake-answerer|fake|" in signed

    again = _run(fake, cut, out, "--system", "bm25", "--limit", "3")
    assert again.exit_code == 0, again.output
    assert len(answer_requests(fake)) == 3  # nothing asked again
    run = _read(out / "run.json")
    assert run["signature"] == signed
    assert run["answer"]["served"] == {"models": ["fake-answerer"], "fake": True}
    assert _read(out / "summary.json")["run"]["signature"] == signed


def _verify_states_the_sample(folder: Path, population: int, signature: str) -> None:
    """`verify` of every benchmark's sampled folder: its card says it is a subset of
    `population` questions and the subset gate passes (the size is stated)."""
    verified = CliRunner().invoke(app, ["verify", str(folder)])
    assert verified.exit_code in (0, 1), verified.output  # a gate may fail; input is good
    text = " ".join(verified.output.split())
    assert f"questions: 4 of {population:,} (subset: {signature})" in text
    assert f"pass subset: subset stated with its size: 4 of {population:,} questions" in text


def test_run_judge_and_audit_share_one_sample_judged_and_shown_as_a_subset(
    fake: FakeProvider, cut: Cut, tmp_path: Path
) -> None:
    sampled, full = tmp_path / "sampled", tmp_path / "full"
    limit = ("--limit", "4", "--seed", "1")
    assert _run(fake, cut, sampled, "--system", "bm25", *limit).exit_code == 0
    drawn = _read(sampled / "run.json")["sample"]
    signature = f"sample:4/{cut.population}@seed1:strat-{cut.strat}"
    assert drawn["signature"] == signature and len(drawn["question_ids"]) == 4
    if "judge" not in get_benchmark(cut.name).commands:
        # scored by the run itself (PersonaMem): its scores and report are over the sample
        scored = _read(sampled / "summary.json")
        assert scored["answers"]["questions"] == 4
        assert CliRunner().invoke(app, ["report", str(sampled)]).exit_code == 0
        assert signature in (sampled / "report.md").read_text(encoding="utf-8")
        _verify_states_the_sample(sampled, cut.population, signature)
        return

    # judge of the run's predictions, without --limit: exactly the run's sample, over it
    judged = _invoke("judge", fake, cut, str(sampled / "predictions.jsonl"), "--out", str(sampled))
    assert judged.exit_code == 0, judged.output
    assert f"({signature}); J is a subset" in " ".join(judged.output.split())
    section = _read(sampled / "summary.json")["judge"]
    assert section["sample"] == drawn and f"|{signature}|" in section["signature"]
    questions = (
        section["overall"]["count"] if cut.name == "locomo" else section["questions"]
    )  # LoCoMo's J table counts the judged questions; the others count every one asked
    assert questions == 4
    assert section.get("missing", 0) == 0
    report = CliRunner().invoke(app, ["report", str(sampled)])
    assert report.exit_code == 0, report.output
    assert signature in (sampled / "report.md").read_text(encoding="utf-8")
    _verify_states_the_sample(sampled, cut.population, signature)

    # with the run's own --limit: the run's sample, not a draw over the predictions it holds
    same = _invoke("judge", fake, cut, str(sampled / "predictions.jsonl"),
                   "--out", str(tmp_path / "j1"), *limit)  # fmt: skip
    assert same.exit_code == 0, same.output
    assert _read(tmp_path / "j1" / "summary.json")["judge"]["sample"] == drawn

    # another --limit than the run's would judge questions it never asked: refused
    other = _invoke(
        "judge", fake, cut, str(sampled / "predictions.jsonl"), "--out", str(tmp_path / "j2"),
        "--limit", "4", "--seed", "2",
    )  # fmt: skip
    assert other.exit_code == 2 and "the predictions are a run's sample" in other.output

    # the same spec over every question draws the same questions in judge and audit
    assert _run(fake, cut, full, "--system", "bm25").exit_code == 0
    answers = tmp_path / "answers.jsonl"  # the full run's answers, away from its run.json
    shutil.copy(full / "predictions.jsonl", answers)
    again = _invoke("judge", fake, cut, str(answers), "--out", str(tmp_path / "j3"), *limit)
    assert again.exit_code == 0, again.output
    assert _read(tmp_path / "j3" / "summary.json")["judge"]["sample"] == drawn
    if "audit" not in get_benchmark(cut.name).commands:
        return  # the example declares no audit (its probe sets would be the audit's input)
    audit = _invoke("audit", fake, cut, "--out", str(tmp_path / "audit"), *limit)
    assert audit.exit_code == 0, audit.output
    assert (
        _read(tmp_path / "audit" / "audit.json")["sample"]["question_ids"]
        == (drawn["question_ids"])
    )


def test_an_audit_of_a_sampled_runs_predictions_probes_the_runs_sample(
    fake: FakeProvider, tmp_path: Path
) -> None:
    (tmp_path / "data").mkdir()
    cut = _locomo(tmp_path / "data")  # the one audit that takes --predictions
    sampled = tmp_path / "sampled"
    limit = ("--limit", "4", "--seed", "1")
    assert _run(fake, cut, sampled, "--system", "bm25", *limit).exit_code == 0
    drawn = _read(sampled / "run.json")["sample"]
    audit = _invoke("audit", fake, cut, "--out", str(tmp_path / "audit"), "--predictions",
                    str(sampled / "predictions.jsonl"))  # fmt: skip
    assert audit.exit_code == 0, audit.output
    assert f"({drawn['signature']}) of every probe set" in " ".join(audit.output.split())
    document = _read(tmp_path / "audit" / "audit.json")
    assert document["sample"] == drawn
    assert {s["name"]: s["acceptance"]["overall"]["n"] for s in document["probe_sets"]} == {
        "gold": 4, "vague-probe": 4, "predictions": 4,
    }  # fmt: skip


def test_an_audit_batch_still_running_is_said_and_nothing_is_written(
    cut: Cut, fake: FakeProvider, tmp_path: Path
) -> None:
    """Every audit takes `--batch-poll` and `--batch-wait`; a batch still running when the
    wait ends is named, nothing written; the same command collects it."""
    if "audit" not in get_benchmark(cut.name).commands:
        pytest.skip("this benchmark declares no audit")
    out = tmp_path / "audit"
    fake.config.batch_ready_after_polls = 1000
    pending = _invoke("audit", fake, cut, "--out", str(out), *SHORT_BATCH_WAIT)
    assert_batch_still_running(pending, out / "audit.json")
    fake.config.batch_ready_after_polls = 1
    done = _invoke("audit", fake, cut, "--out", str(out), "--batch", "--batch-poll", "0.01")
    assert done.exit_code == 0, done.output
    assert "still running" not in done.output
    assert _read(out / "audit.json")  # written once the batch is collected
