"""The selection is part of a folder's identity: which questions it holds is recorded (run.json
`selection`, the card's `selection` line), signed (`convs:` in the run signature; a whole-
benchmark run's signature unchanged), and folders of other selections are refused where they
would be compared: a rerun into the folder, `compare`, `merge`, `verify --floor`. A judge's
own sample of a whole run is what the card's question count and subset gate describe."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from audit_helpers import write_dataset  # an invented LoCoMo file: 3 conversations
from typer.testing import CliRunner

from locoscore._io import read_jsonl
from locoscore.cli import app
from locoscore.data.selection import ids_sha256
from locoscore.results.layout import PREDICTIONS, RUN_JSON, SUMMARY
from locoscore.testing.fake_provider import FakeConfig, FakeProvider


def invoke(*args: str) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return CliRunner().invoke(app, list(args))


def one_line(result: Any) -> str:
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if not line.startswith("warning:")]
    return " ".join(" ".join(lines).split())


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_dataset(
        tmp_path_factory.mktemp("selection") / "locomo.json", samples=3, questions=4
    )


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeProvider]:
    with FakeProvider(FakeConfig(timeout_s=5.0)) as provider:
        yield provider


@pytest.fixture(autouse=True)
def api_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-selection-0123456789")
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)


def run(data: Path, out: Path, *extra: str) -> Any:
    return invoke("run", "--dataset", str(data), "--out", str(out), "--system", "bm25",
                  "--answer-provider", "extractive", "--skip-probe", "--no-progress",
                  *extra)  # fmt: skip


def judge(data: Path, fake: FakeProvider, folder: Path, *extra: str) -> Any:
    return invoke("judge", str(folder / PREDICTIONS), "--dataset", str(data), "--out",
                  str(folder), "--base-url", fake.url, "--runs", "1", "--no-progress",
                  *extra)  # fmt: skip


def _json(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def test_a_run_records_its_selection_and_signs_chosen_conversations(
    data: Path, tmp_path: Path
) -> None:
    whole, part = tmp_path / "whole", tmp_path / "part"
    assert run(data, whole).exit_code == 0
    assert run(data, part, "--conversations", "conv-t1").exit_code == 0
    full = _json(whole / RUN_JSON)
    assert full["selection"]["signature"] == "all"
    assert "convs:" not in full["signature"]  # a whole-benchmark run's signature unchanged
    chosen = _json(part / RUN_JSON)
    component = f"convs:1/3@{ids_sha256(['conv-t1'])[:12]}"
    assert chosen["selection"]["signature"] == component
    assert chosen["selection"]["conversations_of"] == 3
    assert f"|{component}|version:" in chosen["signature"]
    card = one_line(invoke("verify", str(part)))
    questions = chosen["selection"]["questions"]
    assert f"selection: {component} ({questions} questions" in card


def test_a_rerun_with_other_conversations_is_refused_and_nothing_changes(
    data: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    assert run(data, out, "--conversations", "conv-t1").exit_code == 0
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    again = run(data, out)  # the whole benchmark, into the folder of one conversation
    assert again.exit_code == 2, again.output
    line = one_line(again)
    assert "holds a run with another signature" in line and "convs:1/3@" in line
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before


def test_judge_limit_of_a_whole_run_is_shown_as_the_judged_sample(
    data: Path, fake: FakeProvider, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    assert run(data, out).exit_code == 0
    asked = len(read_jsonl(out / PREDICTIONS))
    judged = judge(data, fake, out, "--limit", "3")
    assert judged.exit_code == 0, judged.output
    drawn = _json(out / SUMMARY)["judge"]["sample"]
    assert drawn["size"] == 3 and drawn["population"] < asked
    card = one_line(invoke("verify", str(out)))
    population = drawn["population"]
    assert (
        f"questions: 3 of {population} (subset: {drawn['signature']}); 3 answered; "
        "headline over 3" in card
    )
    assert f"selection: judged:{drawn['signature']} (3 questions" in card
    assert f"pass subset: subset stated with its size: 3 of {population} questions" in card


def test_compare_and_a_floor_of_another_selection_are_refused(
    data: Path, fake: FakeProvider, tmp_path: Path
) -> None:
    whole, part = tmp_path / "whole", tmp_path / "part"
    assert run(data, whole).exit_code == 0
    assert run(data, part, "--conversations", "conv-t1").exit_code == 0
    refused = invoke("compare", str(whole), str(part), "--out", str(tmp_path / "cmp"))
    assert refused.exit_code == 2, refused.output
    line = one_line(refused)
    assert line.startswith("error: hold other questions: A (") and "B (" in line
    assert "(all)" in line and "(convs:1/3@" in line
    assert not (tmp_path / "cmp").exists()

    floor = tmp_path / "floor"
    assert run(data, floor, "--system", "no-memory").exit_code == 0
    assert judge(data, fake, floor).exit_code == 0  # judged over every answer
    assert judge(data, fake, whole, "--limit", "3").exit_code == 0  # over a sample of them
    refused = invoke("verify", str(whole), "--floor", str(floor))
    assert refused.exit_code == 2, refused.output
    line = one_line(refused)
    assert "hold other questions" in line and f"--floor {floor}" in line
    assert "(judged:sample:3/" in line and "(all)" in line


def test_a_merge_of_shards_of_other_conversations_is_refused(data: Path, tmp_path: Path) -> None:
    a, b, other = tmp_path / "a", tmp_path / "b", tmp_path / "other"
    every = "conv-t0,conv-t1,conv-t2"  # every conversation named: the whole benchmark
    assert run(data, a, "--shard", "0/2").exit_code == 0
    assert run(data, b, "--shard", "1/2", "--conversations", every).exit_code == 0
    merged = invoke("merge", str(a), str(b), "--out", str(tmp_path / "m"))
    assert merged.exit_code == 0, merged.output
    selection = _json(tmp_path / "m" / RUN_JSON)["selection"]
    assert selection["signature"] == "all" and selection["shard"] is None
    # shard 1 of two of the conversations is not shard 1 of the whole: refused
    assert run(data, other, "--shard", "1/2", "--conversations", "conv-t0,conv-t1").exit_code == 0
    refused = invoke("merge", str(a), str(other), "--out", str(tmp_path / "m2"))
    assert refused.exit_code == 2, refused.output
    line = one_line(refused)  # the merge's own check names the conversation that differs
    assert "shards of different selections" in line and "conv-t2" in line, line
    assert not (tmp_path / "m2").exists()


def test_answers_scored_without_the_data_are_a_selection_of_their_own(
    data: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    assert run(data, out).exit_code == 0
    rows = (out / PREDICTIONS).read_text(encoding="utf-8").splitlines()
    kept = tmp_path / "kept.jsonl"
    kept.write_text("\n".join(rows[:3]) + "\n", encoding="utf-8")  # a chosen few answers
    scored = tmp_path / "scored"
    assert invoke("score", str(kept), "--out", str(scored)).exit_code == 0
    ids = [json.loads(r)["question_id"] for r in rows[:3]]
    card = one_line(invoke("verify", str(scored)))
    assert f"selection: answers:3@{ids_sha256(ids)[:12]} (3 questions" in card
    refused = invoke("compare", str(out), str(scored), "--out", str(tmp_path / "cmp"))
    assert refused.exit_code == 2 and "hold other questions" in one_line(refused)
    # every answer of the run, scored as a file: drawn otherwise, the same questions
    every = tmp_path / "every"
    given = ("--dataset", str(data))
    assert invoke("score", str(out / PREDICTIONS), "--out", str(every), *given).exit_code == 0
    assert "selection: answers:" in one_line(invoke("verify", str(every)))
    same = invoke("compare", str(out), str(every), "--out", str(tmp_path / "cmp2"))
    assert same.exit_code == 0, same.output
    # as a floor the run is refused for what it is (not a no-memory run), never for its
    # selection: the same questions, drawn otherwise
    floor = invoke("verify", str(every), "--floor", str(out))
    assert "hold other questions" not in one_line(floor), floor.output
    assert "a --floor is a no-memory run" in one_line(floor), floor.output
