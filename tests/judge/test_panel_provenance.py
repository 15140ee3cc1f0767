"""A judge panel binds every folder it writes to what it judged, and checks its inputs first.

Real `locoscore run`s on LoCoMo's released file (a stratified sample of 20 questions, the
extractive answerer), judged by two real local fake judges: every `judges/<name>/` folder
records the data file, the answers and the run that made them; `--gold-evidence` must be a
gold-evidence run of the same data and questions; a bad input stops the panel before any
call."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from locoscore.benchmarks import get_benchmark
from locoscore.claim.card import build_card
from locoscore.cli import app
from locoscore.testing.fake_provider import (
    FakeConfig,
    FakeProvider,
    reference_contains_score,
    reference_exact_score,
)

runner = CliRunner()
LIMIT = "20"


def invoke(*args: str) -> Any:
    return runner.invoke(app, list(args))


def run(locomo: Path, out: Path, system: str, *extra: str) -> Path:
    result = invoke(
        "run", "--system", system, "--dataset", str(locomo), "--limit", LIMIT, "--out",
        str(out), "--no-progress", "--skip-probe", *extra,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, locomo_path: Path) -> dict[str, Path]:
    home = tmp_path_factory.mktemp("runs")
    extractive = ("--answer-provider", "extractive")
    return {
        "bm25": run(locomo_path, home / "bm25", "bm25", *extractive),
        "gold": run(locomo_path, home / "gold", "gold-evidence", *extractive),
        "gold10": run(locomo_path, home / "gold10", "gold-evidence", *extractive, "--limit", "10"),
    }


@pytest.fixture
def judges() -> Iterator[tuple[FakeProvider, FakeProvider]]:
    with (
        FakeProvider(FakeConfig(verdict=reference_contains_score)) as lenient,
        FakeProvider(FakeConfig(verdict=reference_exact_score)) as strict,
    ):
        yield lenient, strict


def write_panel(path: Path, lenient: FakeProvider, strict: FakeProvider, model: str = "") -> Path:
    named = f'model = "{model}"\n' if model else ""
    path.write_text(
        f'[[judge]]\nname = "contains"\nprovider = "anthropic"\nbase_url = "{lenient.url}"\n'
        f'template = "lenient"\n{named}\n'
        f'[[judge]]\nname = "exact"\nprovider = "anthropic"\nbase_url = "{strict.url}"\n'
        'template = "strict"\n'
    )
    return path


def panel(answers: Path, out: Path, panel_file: Path, *extra: str) -> Any:
    args = ["judge", str(answers / "predictions.jsonl"), "--out", str(out), "--panel"]
    args += [str(panel_file), "--runs", "1", "--protocol", "binary", "--no-progress"]
    return invoke(*args, "--timeout", "2", *extra)


def summary(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "summary.json").read_text())


def calls(judges: tuple[FakeProvider, FakeProvider]) -> int:
    return sum(j.generation_calls for j in judges)


def test_every_judge_folder_records_the_data_the_answers_and_their_run(
    runs, judges, locomo_path, tmp_path
):
    out = tmp_path / "panel"
    result = panel(runs["bm25"], out, write_panel(tmp_path / "p.toml", *judges),
                   "--dataset", str(locomo_path))  # fmt: skip
    assert result.exit_code == 0, result.output
    run_json = json.loads((runs["bm25"] / "run.json").read_text())
    for folder in (out / "judges" / "contains", out / "judges" / "exact", out):
        own = summary(folder)
        assert own["dataset"]["sha256"] == run_json["dataset"]["sha256"]
        assert own["run"]["signature"] == run_json["signature"]
        assert own["run"]["sample"]["question_ids"] == run_json["sample"]["question_ids"]
        assert own["answers"]["path"] == str(runs["bm25"] / "predictions.jsonl")
    # each judge's folder holds the 20 questions (15 judged: categories 1-4), and its card
    # says which data file, sample and answer step (extractive: no model) it rests on
    card = summary(out / "judges" / "exact")["claim"]
    assert summary(out / "judges" / "exact")["answers"]["questions"] == 20
    assert card["benchmark"]["sha256"] == run_json["dataset"]["sha256"]
    assert card["benchmark"]["released"] is True
    assert card["questions"]["sample"] == "sample:20/1986@seed0:strat-cat"
    assert card["models"]["answer_provider"] == "extractive"


def test_a_floor_judged_by_a_panel_on_a_rewritten_data_file_is_refused(
    runs, judges, locomo_path, tmp_path
):
    """Before: neither panel folder recorded its data file, so `verify --floor` took a
    floor made on a rewritten locomo10.json."""
    rewritten = tmp_path / "locomo10.json"
    data = json.loads(locomo_path.read_text())
    data[0]["qa"][0]["answer"] = "a rewritten gold answer"
    rewritten.write_text(json.dumps(data))
    floor_run = run(rewritten, tmp_path / "floor", "no-memory", "--answer-provider", "extractive")
    panel_file = write_panel(tmp_path / "p.toml", *judges)
    result = panel(floor_run, tmp_path / "floor-panel", panel_file, "--dataset", str(rewritten))
    assert result.exit_code == 0, result.output
    result = panel(runs["bm25"], tmp_path / "panel", panel_file, "--dataset", str(locomo_path))
    assert result.exit_code == 0, result.output
    verify = invoke(
        "verify", str(tmp_path / "panel" / "judges" / "contains"),
        "--floor", str(tmp_path / "floor-panel" / "judges" / "contains"),
    )  # fmt: skip
    assert verify.exit_code == 2, verify.output
    assert "other data file" in verify.output and "--floor" in verify.output


def test_a_panel_over_answers_of_another_data_file_stops_before_any_call(
    runs, judges, locomo_path, tmp_path
):
    rewritten = tmp_path / "locomo10.json"
    rewritten.write_text(json.dumps(json.loads(locomo_path.read_text())[::-1]))
    result = panel(runs["bm25"], tmp_path / "out", write_panel(tmp_path / "p.toml", *judges),
                   "--dataset", str(rewritten))  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "the answers were made on another data file" in result.output
    assert calls(judges) == 0 and not (tmp_path / "out").exists()


def test_a_panel_without_a_data_file_stops_before_any_call(runs, judges, tmp_path):
    """Before: every judge was billed, then the panel failed on the missing data file."""
    result = panel(runs["bm25"], tmp_path / "out", write_panel(tmp_path / "p.toml", *judges))
    assert result.exit_code == 2, result.output
    assert "no dataset" in result.output and "Traceback" not in result.output
    assert calls(judges) == 0 and not (tmp_path / "out").exists()


def test_an_unknown_template_lists_the_built_in_variants(runs, judges, locomo_path, tmp_path):
    panel_file = write_panel(tmp_path / "p.toml", *judges)
    panel_file.write_text(panel_file.read_text().replace('"strict"', '"strickt"'))
    result = panel(runs["bm25"], tmp_path / "out", panel_file, "--dataset", str(locomo_path))
    assert result.exit_code == 2, result.output
    assert "unknown template 'strickt'" in result.output
    assert "locoscore, official, strict, lenient" in result.output
    assert calls(judges) == 0


def test_a_panel_judge_that_made_the_answers_is_named_per_judge_and_for_the_panel(
    judges, locomo_path, tmp_path
):
    """Before: the judge's folder recorded no answer step: "same model: unknown"."""
    lenient, strict = judges
    answered = run(
        locomo_path, tmp_path / "run", "bm25", "--answer-provider", "anthropic",
        "--answer-base-url", lenient.url, "--answer-model", "claude-haiku-4-5",
    )  # fmt: skip
    panel_file = write_panel(tmp_path / "p.toml", lenient, strict, model="claude-haiku-4-5")
    out = tmp_path / "panel"
    result = panel(answered, out, panel_file, "--dataset", str(locomo_path))
    assert result.exit_code == 0, result.output
    assert "self-judging: judge contains is claude-haiku-4-5" in result.output
    section = summary(out)["panel"]
    assert section["self_judged"] == ["contains"]
    assert section["answer_model"] == "claude-haiku-4-5"
    assert [section["judges"][n]["same_model_as_answer"] for n in ("contains", "exact")] == [
        True,
        False,
    ]
    own = summary(out / "judges" / "contains")["claim"]["models"]
    assert (own["answer"], own["judge"], own["same_model"]) == (
        "claude-haiku-4-5", "claude-haiku-4-5", True,
    )  # fmt: skip
    assert summary(out / "judges" / "exact")["claim"]["models"]["same_model"] is False
    verify = invoke("verify", str(out / "judges" / "contains"))
    assert "same model: yes" in verify.output, verify.output
    # the panel folder as a whole: one of its judges is the answerer
    whole = build_card(out, get_benchmark("locomo"))["models"]
    assert (whole["judge"], whole["same_model"]) == ("claude-haiku-4-5, claude-sonnet-4-6", True)


def test_gold_evidence_must_be_a_gold_evidence_run_of_the_same_questions(
    runs, judges, locomo_path, tmp_path
):
    panel_file = write_panel(tmp_path / "p.toml", *judges)
    dataset = ("--dataset", str(locomo_path))
    for name in ("bm25", "gold", "gold10"):
        result = panel(runs[name], tmp_path / name, panel_file, *dataset)
        assert result.exit_code == 0, result.output
    before = calls(judges)
    cases = [
        ("bm25", "is a run of 'bm25', not of --system gold-evidence"),
        ("gold10", "another question selection (sample: 10"),
    ]
    for gold, message in cases:
        result = panel(runs["bm25"], tmp_path / "again", panel_file, *dataset,
                       "--gold-evidence", str(tmp_path / gold))  # fmt: skip
        assert result.exit_code == 2, result.output
        assert message in result.output and "--gold-evidence" in result.output
    assert calls(judges) == before  # refused before any call
    # the gold-evidence panel of the same 20 questions: its figures are under every judge
    result = panel(runs["bm25"], tmp_path / "bm25", panel_file, *dataset,
                   "--gold-evidence", str(tmp_path / "gold"))  # fmt: skip
    assert result.exit_code == 0, result.output
    gold_scores = json.loads((tmp_path / "gold" / "panel.json").read_text())["scores"]
    judged = [q for q, score in gold_scores["contains"].items() if score is not None]
    right = [q for q in judged if all(gold_scores[j][q] >= 50 for j in gold_scores)]
    assert len(judged) == 15  # categories 1-4 of the 20
    # the extractive answer holds the gold's words for 4 questions (the lenient judge), is
    # the gold itself for none (the strict one): right under every judge for none
    assert sum(gold_scores["contains"][q] >= 50 for q in judged) == 4 and right == []
    figures = summary(tmp_path / "bm25")["panel"]["losses"]["gold_evidence"]
    assert figures["questions"] == 15
    assert figures["p_correct_given_gold_retrieved"] == 0.0  # not 4 / 15 (one judge's)
    assert "P(correct under every judge | gold retrieved)" in result.output
    assert "lost questions (not correct under every judge)" in result.output


def test_the_board_keys_panel_systems_by_folder_not_by_run_name(judges, locomo_path, tmp_path):
    """Before: two bm25 runs, each panel-judged in its own folder, were both named "bm25"
    in the rank stability section ("bm25 (x) > bm25 (x)")."""
    panel_file = write_panel(tmp_path / "p.toml", *judges)
    folders = []
    for name, top_k in (("bm25-k10", "10"), ("bm25-k2", "2")):
        folder = run(locomo_path, tmp_path / name, "bm25", "--answer-provider", "extractive",
                     "--top-k", top_k)  # fmt: skip
        result = panel(folder, folder, panel_file, "--dataset", str(locomo_path))
        assert result.exit_code == 0, result.output
        assert "measures" in summary(folder)["run"]  # the run's own records kept
        folders.append(str(folder))
    board = invoke("board", *folders, "--out", str(tmp_path / "b"))
    assert board.exit_code == 0, board.output
    stability = json.loads((tmp_path / "b" / "board.json").read_text())["rank_stability"]
    for ordering in stability["orderings"].values():
        assert sorted(entry["system"] for entry in ordering) == sorted(folders)


def test_rejudge_of_a_panel_judge_asks_its_own_judge_with_its_variant(
    runs, judges, locomo_path, tmp_path
):
    """A panel judge's folder holds no answers: --rejudge reads them where the panel
    recorded them, and rebuilds the judge's `strict` prompt from its recorded name."""
    out = tmp_path / "panel"
    result = panel(runs["bm25"], out, write_panel(tmp_path / "p.toml", *judges),
                   "--dataset", str(locomo_path))  # fmt: skip
    assert result.exit_code == 0, result.output
    lenient, strict = judges
    before = strict.generation_calls, lenient.generation_calls
    verify = invoke("verify", str(out / "judges" / "exact"), "--rejudge", "5")
    assert "pass rejudge: re-judged 5 question(s): 5/5 verdicts agree" in verify.output, (
        verify.output
    )
    assert (strict.generation_calls, lenient.generation_calls) == (before[0] + 5, before[1])
