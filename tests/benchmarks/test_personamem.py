"""PersonaMem (`--benchmark personamem`): the floors on the real 32k copy, the seeded shuffle,
the strict reply parse, an answers file scored against a hand count, bad input, and run,
report, board and compare end to end with the fake provider's answerer."""

from __future__ import annotations

import functools
import http.server
import json
import re
import shutil
import threading
import warnings
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from personamem_helpers import REAL_32K, pick_longest, write_folder
from typer.testing import CliRunner

from locoscore.benchmarks import get_benchmark
from locoscore.benchmarks.personamem.data import load_personamem
from locoscore.benchmarks.personamem.options import blind_pick, correct_letters, order
from locoscore.benchmarks.personamem.replies import read_reply
from locoscore.cli import app
from locoscore.testing.fake_provider import FakeConfig, FakeProvider

BENCH = get_benchmark("personamem")
real = pytest.mark.skipif(not REAL_32K.is_dir(), reason="PersonaMem 32k not at ../shared")


def cli(*args: str) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return CliRunner().invoke(app, list(args))


@real
def test_the_real_copy_and_its_floors() -> None:
    data = BENCH.load(REAL_32K)
    assert BENCH.data_version(data) == "personamem-32k-derived"
    assert (len(data.items), len(data.contexts)) == (589, 37)
    assert len({i.persona_id for i in data.items}) == 20
    assert sum(len(s) for s in data.contexts.values()) == 195
    assert sum(len(i.gold_indexes) == 2 for i in data.items) == 17
    questions = BENCH.questions(data, BENCH.conversations(data))
    floors = {f.name: f for f in BENCH.blind_baselines(data, questions)}
    assert set(floors["always-longest"].scores) == {q.question_id for q in questions}
    # whole option after strip, ties to the earlier stored letter: 304 (51.6 %)
    assert sum(floors["always-longest"].scores.values()) == 304
    assert sum(floors["always-shortest"].scores.values()) == 138
    # the summary's section (the generic writer), with a result that is the longest floor
    # except on one question it gets wrong: margin -1/589 = -0.1698
    from locoscore.generic.floors import blind_floors

    longest = dict(floors["always-longest"].scores)
    missed = next(q for q, v in longest.items() if v == 1.0)
    section = blind_floors(BENCH, data, questions, {**longest, missed: 0.0})
    assert section is not None and section["questions"] == 589
    row = {b["name"]: b for b in section["blind"]}["always-longest"]
    assert (row["total"], row["n"], row["score"]) == (304, 589, 51.6129)
    assert row["by_type"]["suggest_new_ideas"]["mean"] == 0.0  # 0 of 93, as in the docs
    margin = section["margin"]
    assert (margin["over"], margin["mean"], margin["count"]) == ("always-longest", -0.1698, 589)
    # the one option over three lines: measured by its first line only, the floor is 305
    [multi] = [i for i in data.items if any("\n" in o for o in i.options)]
    assert [o.count("\n") for o in multi.options] == [0, 0, 2, 0]

    def first_line_longest(item: Any) -> int:
        lengths = [len(o.split("\n")[0].strip()) for o in item.options]
        return max(range(4), key=lambda i: (lengths[i], -i))

    assert sum(first_line_longest(i) in i.gold_indexes for i in data.items) == 305
    # generalizing_to_new_scenarios: the gold is the longest every time
    general = [i for i in data.items if i.type_key == "generalizing_to_new_scenarios"]
    assert len(general) == 57 and all(blind_pick(i, "longest") in i.gold_indexes for i in general)


@real
def test_the_shuffle_is_deterministic_and_spreads_the_gold_evenly() -> None:
    data = load_personamem(REAL_32K)
    first = [order(i.question_id, 0) for i in data.items]
    assert first == [order(i.question_id, 0) for i in data.items]
    assert all(sorted(p) == [0, 1, 2, 3] for p in first)
    assert first != [order(i.question_id, 1) for i in data.items]
    # as stored, c holds the gold 158 times; shown, every position within 5 points of 25 %
    for seed in (0, 1, 2):
        shown = Counter(min(correct_letters(i, seed)) for i in data.items)
        assert all(abs(shown[x] / 589 - 0.25) <= 0.05 for x in "abcd"), (seed, shown)
    # the seed is signed
    assert BENCH.signature_part(data).endswith(":shuffle0")


@pytest.mark.parametrize(
    ("reply", "letter"),
    [
        ("(b)", "b"), ("b", "b"), ("B.", "b"), ("**(c)**", "c"), ("d)", "d"),
        ("(a) It's great to see such innovative approaches.", "a"),
        ("The answer is (D).", "d"),
        # the official fallback reads the article "a" as option (a): never here
        ("I would pick a reply that mentions jazz.", None),
        ("a or b", None), ("(a) or (c)", None), ("", None), ("none of them", None),
        ("(b), definitely (b)", "b"),
    ],
)  # fmt: skip
def test_a_reply_naming_one_option_is_read_and_an_ambiguous_one_refused(
    reply: str, letter: str | None
) -> None:
    assert read_reply(reply, ("Jazz.", "Rock.", "Pop.", "Folk.")).letter == letter


def _shown_letter(text: str, option: str) -> str:
    return next(
        m.group(1) for m in re.finditer(r"^\(([a-d])\) (.*)$", text, re.M) if m.group(2) == option
    )


def test_an_answers_file_scores_as_counted_by_hand(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "32k")
    data = BENCH.load(folder)
    shown = {q.question_id: q.text for q in BENCH.questions(data, BENCH.conversations(data))}
    letter = {  # the shown letter of an option, found in the text the answerer sees
        "q1": _shown_letter(shown["q1"], "Go hiking in the hills you love."),
        "q2": _shown_letter(shown["q2"], "Cook."),
        "q3": _shown_letter(shown["q3"], "Swim in the lake by your cabin."),
    }
    q6 = [m for m in re.findall(r"^\(([a-d])\) Chess\.$", shown["q6"], re.M)]
    assert len(q6) == 2  # the doubled gold: either letter is right
    answers = [
        {"question_id": "q1", "prediction": f"({letter['q1']})"},  # right
        {"question_id": "q2", "prediction": letter["q2"]},  # wrong option
        {"question_id": "q3", "prediction": f"({letter['q3']}) Swim in the lake"},  # right
        {"question_id": "q4", "prediction": "I think a jazz reply fits"},  # unparsable: wrong
        {"question_id": "q5", "prediction": "", "error": "timeout"},  # failed: wrong
        {"question_id": "q6", "prediction": max(q6)},  # the second letter of the gold: right
    ]
    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps(a) + "\n" for a in answers))
    out = tmp_path / "scored"
    done = cli(
        "score", str(path), "--benchmark", "personamem", "--dataset", str(folder), "--out", str(out)
    )
    assert done.exit_code == 0, done.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["metric"]["overall"]["mean"] == 50.0  # 3 of 6
    assert summary["metric"]["by_type"]["suggest_new_ideas"]["mean"] == 50.0  # q6 of q2, q6
    assert summary["answers"] == {
        "questions": 6, "answered": 5, "failed": 1, "unparsable": 1, "counted": 6,
    }  # fmt: skip
    floors = {f["name"]: f for f in summary["floors"]["blind"]}
    # by hand: longest right on q1, q3, q5; shortest on q6 (q4's tie Rock./Jazz. goes to (b))
    assert (floors["always-longest"]["total"], floors["always-shortest"]["total"]) == (3, 1)
    assert (floors["always-longest"]["score"], floors["always-longest"]["n"]) == (50.0, 6)
    # result - longest per question: 0, 0, 0, 0, -1 (q5), +1 (q6): mean 0; the Wilcoxon
    # test ranks the two equal |differences| 1.5 each, W+ = W- = 1.5, z = 0, p = 1
    margin = summary["floors"]["margin"]
    assert (margin["over"], margin["mean"], margin["count"]) == ("always-longest", 0.0, 6)
    assert margin["p_value"] == 1.0
    rows = {
        r["question_id"]: r
        for r in map(json.loads, (out / "scores.jsonl").read_text().splitlines())
    }
    assert [rows[q]["metric"] for q in ("q1", "q2", "q3", "q4", "q5", "q6")] == [1, 0, 1, 0, 0, 1]
    assert len(rows["q6"]["correct"]) == 2
    # other answers into the same folder: refused, one line
    path.write_text(json.dumps({"question_id": "q1", "prediction": "(a)"}) + "\n")
    again = cli(
        "score", str(path), "--benchmark", "personamem", "--dataset", str(folder), "--out", str(out)
    )
    assert again.exit_code == 2 and "--replace" in again.output


def _break_gold_letter(raw: dict[str, Any]) -> None:
    raw["queries"][1]["gold_answers"][1] = "e"


def _break_gold_text(raw: dict[str, Any]) -> None:
    raw["queries"][2]["gold_answers"][0] = "(c) Something else."


def _break_type(raw: dict[str, Any]) -> None:
    raw["queries"][0]["meta"]["question_type"] = "telepathy"


def _break_options(raw: dict[str, Any]) -> None:
    raw["queries"][3]["query"] = raw["queries"][3]["query"].replace("\n(d) ", " (d) ")


def _break_marker(raw: dict[str, Any]) -> None:
    raw["documents"][0]["content"] = "Hello " + raw["documents"][0]["content"]


def _break_context(raw: dict[str, Any]) -> None:
    raw["queries"][4]["user_id"] = "ctxZ"


@pytest.mark.parametrize(
    ("change", "names"),
    [
        (_break_gold_letter, "queries.json.gz, record q2, field 'gold_answers'"),
        (_break_gold_text, "queries.json.gz, record q3, field 'gold_answers'"),
        (_break_type, "queries.json.gz, record q1, field 'meta.question_type'"),
        (_break_options, "queries.json.gz, record q4, field 'query'"),
        (_break_marker, "documents.json.gz, record ctxA_0, field 'content'"),
        (_break_context, "queries.json.gz, record q5, field 'user_id'"),
    ],
)
def test_a_broken_folder_is_one_line_naming_file_record_and_field(
    tmp_path: Path, change: Any, names: str
) -> None:
    folder = write_folder(tmp_path / "32k", change)
    result = cli("dataset", "info", "--benchmark", "personamem", "--dataset", str(folder))
    assert result.exit_code == 2
    [line] = result.stderr.strip().splitlines()
    assert names in line, line


def test_judge_says_it_is_not_needed_and_fetch_says_no_pinned_url(tmp_path: Path) -> None:
    judged = cli(
        "judge",
        str(tmp_path / "p.jsonl"),
        "--benchmark",
        "personamem",
        "--out",
        str(tmp_path / "j"),
    )
    assert judged.exit_code == 2
    [line] = judged.stderr.strip().splitlines()
    assert "personamem needs no judge" in line
    fetched = cli("dataset", "fetch", "personamem", "--dest", str(tmp_path / "pm"))
    assert fetched.exit_code == 2
    [line] = fetched.stderr.strip().splitlines()
    assert "no pinned download" in line and "--url" in line
    assert not (tmp_path / "pm").exists()
    unknown = cli("score", str(tmp_path / "a.jsonl"), "--benchmark", "personamem",
                  "--dataset", str(write_folder(tmp_path / "32k")))  # fmt: skip
    assert unknown.exit_code == 2 and len(unknown.stderr.strip().splitlines()) == 1


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeProvider]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-personamem-0123456789")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with FakeProvider(FakeConfig(latency_s=0.0, timeout_s=5.0, answer=pick_longest)) as provider:
        yield provider


def test_run_report_board_and_compare(fake: FakeProvider, tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "32k")
    base = ["run", "--benchmark", "personamem", "--dataset", str(folder), "--system", "bm25",
            "--skip-probe", "--no-progress"]  # fmt: skip
    longest = tmp_path / "longest"
    done = cli(*base, "--out", str(longest), "--answer-provider", "openai-compatible",
               "--answer-model", "fake-answerer", "--answer-base-url", fake.openai_url)  # fmt: skip
    assert done.exit_code == 0, done.output
    run = json.loads((longest / "run.json").read_text())
    assert "|bench:personamem-unknown@" in run["signature"] and ":shuffle0|" in run["signature"]
    summary = json.loads((longest / "summary.json").read_text())
    # an answerer that picks the longest option it is shown scores the always-longest floor
    assert summary["metric"]["overall"]["mean"] == 50.0
    assert summary["floors"]["margin"]["mean"] == 0.0
    extractive = tmp_path / "extractive"
    done = cli(*base, "--out", str(extractive), "--answer-provider", "extractive")
    assert done.exit_code == 0, done.output
    summary = json.loads((extractive / "summary.json").read_text())
    assert summary["answers"]["unparsable"] == 6 and summary["metric"]["overall"]["mean"] == 0.0

    assert cli("report", str(longest)).exit_code == 0
    report = (longest / "report.md").read_text()
    assert "| always-longest | 6 | 50.0 [" in report
    assert "Margin over the best floor (always-longest): +0.0 [" in report
    assert "fake provider" in report

    board = cli("board", str(longest), str(extractive), "--out", str(tmp_path / "board"))
    assert board.exit_code == 0, board.output
    document = json.loads((tmp_path / "board" / "board.json").read_text())
    rows = [r for g in document["groups"] for r in g["rows"]]
    means = {r["folder"]: r["metrics"]["metric"]["overall"]["mean"] for r in rows}
    assert means == {str(longest): 50.0, str(extractive): 0.0}
    margins = {r["folder"]: r["metrics"]["floor_margin"]["overall"]["mean"] for r in rows}
    assert margins == {str(longest): 0.0, str(extractive): -50.0}

    compared = cli("compare", str(extractive), str(longest), "--out", str(tmp_path / "cmp"))
    assert compared.exit_code == 0, compared.output
    result = json.loads((tmp_path / "cmp" / "compare.json").read_text())
    assert (result["groups"]["overall"]["a"], result["groups"]["overall"]["b"]) == (0.0, 50.0)


def test_the_no_memory_floor(fake: FakeProvider, tmp_path: Path) -> None:
    """`--system no-memory` gives the answerer the question and its options and no
    conversation: a model that picks the longest option it is shown scores exactly the
    always-longest floor (3 of 6 by hand, as above), margin 0; the extractive answerer,
    with nothing to quote, replies nothing: every answer unparsable, 0, margin -50."""
    folder = write_folder(tmp_path / "32k")
    base = ["run", "--benchmark", "personamem", "--dataset", str(folder), "--system",
            "no-memory", "--no-progress"]  # fmt: skip
    blind = tmp_path / "blind"
    done = cli(*base, "--out", str(blind), "--answer-provider", "openai-compatible",
               "--answer-model", "fake-answerer", "--answer-base-url", fake.openai_url)  # fmt: skip
    assert done.exit_code == 0, done.output
    summary = json.loads((blind / "summary.json").read_text())
    assert summary["run"]["system"]["name"] == "no-memory"
    assert summary["metric"]["overall"]["mean"] == 50.0
    assert summary["floors"]["margin"]["over"] == "always-longest"
    assert summary["floors"]["margin"]["mean"] == 0.0
    records = [json.loads(line) for line in (blind / "predictions.jsonl").open()]
    assert all(r["retrieved"] == [] for r in records)
    sent = json.dumps(fake.requests_log)
    assert "What should I do this weekend?" in sent and "Noted, session" not in sent
    quiet = tmp_path / "quiet"
    done = cli(*base, "--out", str(quiet), "--answer-provider", "extractive")
    assert done.exit_code == 0, done.output
    summary = json.loads((quiet / "summary.json").read_text())
    assert summary["answers"]["unparsable"] == 6 and summary["metric"]["overall"]["mean"] == 0.0
    assert summary["floors"]["margin"]["mean"] == -50.0


def test_score_guards_a_run_folder(tmp_path: Path) -> None:
    """`score` of the run's own answers into its folder keeps the run; other answers are
    refused (one line, nothing changed), and --replace drops the run's files."""
    folder = write_folder(tmp_path / "32k")
    out = tmp_path / "run"
    done = cli("run", "--benchmark", "personamem", "--dataset", str(folder), "--system", "bm25",
               "--skip-probe", "--no-progress", "--out", str(out), "--answer-provider",
               "extractive", "--limit", "3")  # fmt: skip
    assert done.exit_code == 0, done.output
    own = tmp_path / "own.jsonl"
    own.write_bytes((out / "predictions.jsonl").read_bytes())
    score = ["score", "--benchmark", "personamem", "--dataset", str(folder), "--out", str(out)]
    assert cli(*score[:1], str(own), *score[1:]).exit_code == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["run"]["signature"] and summary["answers"]["questions"] == 3
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"question_id": "q1", "prediction": "(a)"}) + "\n")
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    refused = cli(*score[:1], str(other), *score[1:])
    assert refused.exit_code == 2
    [line] = refused.stderr.strip().splitlines()
    assert "--replace" in line and str(other) in line
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before
    replaced = cli(*score[:1], str(other), *score[1:], "--replace")
    assert replaced.exit_code == 0, replaced.output
    assert not (out / "run.json").exists() and not (out / "predictions.jsonl").exists()
    assert "run" not in json.loads((out / "summary.json").read_text())


@contextmanager
def serving(root: Path) -> Iterator[str]:
    """`root` over a local HTTP server, its URL."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *args: None  # type: ignore[attr-defined]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@real
def test_fetch_with_a_url_checks_each_file_against_its_pin(tmp_path: Path) -> None:
    served = tmp_path / "served"
    shutil.copytree(REAL_32K, served / "good")
    write_folder(served / "bad")  # the same names, other bytes
    dest, wrong = tmp_path / "pm" / "32k", tmp_path / "wrong" / "32k"
    with serving(served) as url:
        done = cli("dataset", "fetch", "personamem", "--url", url + "good", "--dest", str(dest))
        refused = cli("dataset", "fetch", "personamem", "--url", url + "bad", "--dest", str(wrong))
    assert done.exit_code == 0, done.output
    assert sorted(p.name for p in dest.iterdir()) == ["documents.json.gz", "queries.json.gz"]
    assert BENCH.data_version(BENCH.load(dest)) == "personamem-32k-derived"
    assert refused.exit_code == 2, refused.output
    line = " ".join(refused.stderr.split())  # one error, wrapped at the runner's 80 columns
    assert line.count("error:") == 1 and "Traceback" not in line
    assert "expected 26b7eaa63a55" in line  # documents.json.gz: the first checked
    assert not wrong.exists() and not list(wrong.parent.iterdir())
