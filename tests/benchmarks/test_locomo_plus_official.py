"""LoCoMo-Plus `--protocol official`: the official placement, gap reading, answer prompt,
binary judge, reply reading and aggregation, checked against rules worked out by hand from
the official code's behaviour. The official prompt texts are never in this repository: a
local copy of the repository's layout holds test-written stand-in files, and the profile
must reproduce *their* text (byte for byte, after the official formatting)."""

from __future__ import annotations

import itertools
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import plus_recorder
import pytest
from locomo_plus_helpers import LOCOMO, NINE, PLUS, need_real_data
from typer.testing import CliRunner

from locoscore.benchmarks import get_benchmark
from locoscore.cli import app
from locoscore.testing.fake_provider import FakeConfig, FakeProvider

BENCH = get_benchmark("locomo-plus")

# Stand-ins for the official files (written here, not the official texts): the same names,
# shapes and placeholders as the repository's utils.py and prompt.py.
UTILS = """CONV_START_PROMPT = (
    "Stand-in opening: {} talks with {}. "
    "Dates head each session.\\n\\n"
)
INSTRUCTION_COGNITIVE = (
    "Stand-in instruction: reply to the last line, "
    "showing you remember.\\n\\n"
)
"""
PROMPTS = '''PROMPT_TEMPLATES = {
    "temporal": """unused {gold} {pred} {evidence}""",
    "Cognitive": """
Stand-in judge: does the reply use the memory?
Memory:
{evidence}
Reply:
{pred}
Answer {{"label": "correct"|"wrong", "reason": "<why>"}}
""",
}
'''
OPENING = "Stand-in opening: {} talks with {}. Dates head each session.\n\n"
INSTRUCTION = "Stand-in instruction: reply to the last line, showing you remember.\n\n"
JUDGE = (
    "\nStand-in judge: does the reply use the memory?\nMemory:\n{evidence}\nReply:\n{pred}\n"
    'Answer {{"label": "correct"|"wrong", "reason": "<why>"}}\n'
)


def write_repository(root: Path, indices: tuple[int, ...] | None = None) -> Path:
    """A local copy in the official repository's layout: data/ (the real files, or a cut)
    and the two prompt files (stand-ins)."""
    need_real_data()
    (root / "data").mkdir(parents=True)
    if indices is None:
        shutil.copyfile(PLUS, root / "data" / "locomo_plus.json")
    else:
        items = json.loads(PLUS.read_text(encoding="utf-8"))
        chosen = [items[i] for i in indices]
        (root / "data" / "locomo_plus.json").write_text(json.dumps(chosen), encoding="utf-8")
    shutil.copyfile(LOCOMO, root / "data" / "locomo10.json")
    code = root / "evaluation_framework" / "task_eval"
    code.mkdir(parents=True)
    (code / "utils.py").write_text(UTILS, encoding="utf-8")
    (code / "prompt.py").write_text(PROMPTS, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_repository(tmp_path_factory.mktemp("Locomo-Plus"))


# -- the official rules, worked out by hand from the official code's behaviour ----------
_COUNT_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                "eleven", "twelve")  # fmt: skip


def hand_gap_days(text: str) -> int:
    """The first word that is a count (digits, one..twelve, a, an) directly followed by a
    week, month or year word gives count x 7 / 30 / 365 days; no such pair gives 0."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    for count, unit in itertools.pairwise(words):
        if count.isdigit():
            n = int(count)
        elif count in _COUNT_WORDS:
            n = _COUNT_WORDS.index(count) + 1
        elif count in ("a", "an"):
            n = 1
        else:
            continue
        for name, days in (("week", 7), ("month", 30), ("year", 365)):
            if unit in (name, name + "s"):
                return n * days
    return 0


def hand_lines(text: str) -> list[tuple[str, str]]:
    """The official reading of a dialogue: lines at real newlines, kept when they open with
    A: or B:, the text after it stripped."""
    kept = []
    for line in text.split("\n"):
        line = line.strip()
        if line.startswith(("A:", "B:")):
            kept.append((line[0], line[2:].strip()))
    return kept


def test_gap_days_equal_the_official_rule_on_all_401(repository: Path) -> None:
    raw = json.loads(PLUS.read_text(encoding="utf-8"))
    official = BENCH.for_protocol("official")
    data = official.load(repository)
    questions = official.questions(data, official.conversations(data))
    days = [q.record_ids["gap_days"] for q in questions]
    assert days == [hand_gap_days(entry["time_gap"]) for entry in raw]
    assert sum(d == 0 for d in days) == 15  # "several months later" and the like
    # the cue sits after every LoCoMo session dated at or before trigger - gap: adjacent to
    # the trigger for the 15 zero-day gaps and the 18 one-week gaps
    assert sum(q.record_ids["short_gap"] for q in questions) == 33
    assert {d for d, q in zip(days, questions, strict=True) if q.record_ids["short_gap"]} == {0, 7}


def test_a_recording_system_sees_the_official_placement_on_all_401(
    repository: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item i in conversation i % 10, A's lines by speaker_a (B's by speaker_b), the cue
    read the official way (the 31 backslash-n cues stay one A turn), no date anywhere."""
    monkeypatch.chdir(Path(plus_recorder.__file__).parent)
    plus_recorder.SEEN.clear()
    out = tmp_path / "run"
    result = CliRunner().invoke(
        app,
        ["run", "--benchmark", "locomo-plus", "--protocol", "official", "--dataset",
         str(repository), "--system", "python:plus_recorder:Recorder", "--answer-provider",
         "extractive", "--out", str(out), "--skip-probe", "--no-progress"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    raw = json.loads(PLUS.read_text(encoding="utf-8"))
    locomo = json.loads(LOCOMO.read_text(encoding="utf-8"))
    assert len(plus_recorder.SEEN) == 401
    placed = literal = 0
    for i, entry in enumerate(raw):
        sessions = plus_recorder.SEEN[f"lp-{i:03d}"]
        conv = locomo[i % 10]["conversation"]
        a, b = conv["speaker_a"], conv["speaker_b"]
        cue = [({"A": a, "B": b}[r], t) for r, t in hand_lines(entry["cue_dialogue"])]
        turns = [(t.speaker, t.text) for s in sessions for t in s.turns]
        base = [
            (t["speaker"], t["text"].strip())
            for k in sorted((k for k in conv if re.fullmatch(r"session_\d+", k)),
                            key=lambda k: int(k.split("_")[1]))
            for t in conv[k]
        ]  # fmt: skip
        [at] = [j for j, s in enumerate(sessions) if [(t.speaker, t.text) for t in s.turns] == cue]
        before = sum(len(s.turns) for s in sessions[:at])
        assert turns == base[:before] + cue + base[before:]  # conversation i % 10, whole
        placed += cue[0][0] == a
        literal += "\\n" in entry["cue_dialogue"] and len(cue) == 1
        assert all(s.date_raw is None and s.date_iso is None for s in sessions)
        assert all(t.caption is None for s in sessions for t in s.turns)
    assert placed == 401 and literal == 31
    run = json.loads((out / "run.json").read_text())
    assert "|protocol:official@" in run["signature"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["claim"]["benchmark"]["protocol"] == "official"


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    with FakeProvider(FakeConfig(latency_s=0.0, timeout_s=5.0)) as provider:
        yield provider


def test_the_answer_prompt_is_the_official_input(
    fake: FakeProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opening (names "A" and "B", as the official code passes them), the Cognitive
    instruction, the conversation undated, the trigger as the last line; temperature 0.3,
    1,024 tokens."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-plus-official-0123456789")
    fake.config.answer = lambda prompt: "I remember."
    repository = write_repository(tmp_path / "Locomo-Plus", (0, 1, 6))
    out = tmp_path / "run"
    result = CliRunner().invoke(
        app,
        ["run", "--benchmark", "locomo-plus", "--protocol", "official", "--dataset",
         str(repository), "--system", "full-context", "--answer-provider", "openai",
         "--answer-base-url", fake.openai_url, "--out", str(out), "--skip-probe",
         "--no-progress", "--concurrency", "1"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    bodies = [r["body"] for r in fake.requests_log if r["path"].endswith("/chat/completions")]
    assert len(bodies) == 3
    raw = json.loads(PLUS.read_text(encoding="utf-8"))
    locomo = json.loads(LOCOMO.read_text(encoding="utf-8"))
    dates = [v for c in locomo for k, v in c["conversation"].items() if "date_time" in k]
    for body in bodies:
        # OpenAI's client sends the limit as max_completion_tokens (the official, max_tokens)
        assert (body["temperature"], body["max_completion_tokens"]) == (0.3, 1024)
        [message] = body["messages"]
        prompt = message["content"]
        assert prompt.startswith(OPENING.format("A", "B") + INSTRUCTION)
        assert not any(date in prompt for date in dates)  # no session is dated
    for position, index in enumerate((0, 1, 6)):
        conv = locomo[position % 10]["conversation"]
        [trigger] = hand_lines(raw[index]["trigger_query"])
        last = f'{conv["speaker_a"]} said, "{trigger[1]}"'
        assert sum(b["messages"][0]["content"].endswith("\n" + last) for b in bodies) == 1


# -- the judge ------------------------------------------------------------------------------
# The nine items of the cut (lp-000..008: causal 0-2, state 3-4, goal 5-6, value 7-8), the
# judge's reply to each, and the official reading of it. lp-000's call fails (HTTP 500).
REPLIES = {
    "alpha": None,  # the call fails: counted 0
    "bravo": '{"label": "wrong", "reason": "no link"}',  # 0
    "charlie": "The prediction is incorrect.",  # 1: "incorrect" holds "correct"
    "delta": '{"reason": "half there", "label": "partial"}',  # 0.5 (JSON, any order)
    "echo": "I cannot tell.",  # 0: no label at all
    "foxtrot": '```json\n{"label": "Correct", "reason": "uses it"}\n```',  # 1
    "golf": "WRONG",  # 0
    "hotel": '{"label": "correct", "reason": "yes"}',  # 1
    "india": '{"label": "correct", "reason": "it\'s linked"}',  # 1
}
WORDS = list(REPLIES)


def judge_reply(prompt: str) -> str:
    word = next(w for w in WORDS if f"reply {w}" in prompt)
    return REPLIES[word] or ""


def test_the_official_judge_prompt_reading_and_aggregation(
    fake: FakeProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Headline = the official aggregation over every record: 0+0+1 | .5+0 | 1+0 | 1+1 =
    4.5 of 9 = 0.5 (50.0); per relation causal 1/3, state .25, goal .5, value 1."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-plus-official-0123456789")
    fake.config.scores = ["500"]  # the first call (lp-000 at concurrency 1) fails
    fake.config.answer = judge_reply
    repository = write_repository(tmp_path / "Locomo-Plus", NINE)
    answers = tmp_path / "answers.jsonl"
    answers.write_text(
        "".join(
            json.dumps({"question_id": f"lp-{i:03d}", "prediction": f"my reply {w}"}) + "\n"
            for i, w in enumerate(WORDS)
        )
    )
    out = tmp_path / "judged"
    result = CliRunner().invoke(
        app,
        ["judge", str(answers), "--benchmark", "locomo-plus", "--protocol", "official",
         "--provider", "openai", "--base-url", fake.openai_url, "--dataset", str(repository),
         "--out", str(out), "--no-progress", "--concurrency", "1", "--max-attempts", "1",
         "--max-unscored", "0.2"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    section = json.loads((out / "summary.json").read_text())["judge"]
    assert section["protocol"] == "official" and section["runs"] == 1
    assert "|reader:locomo-plus-official|" in section["signature"]
    assert section["overall"]["mean"] == pytest.approx(50.0) and section["overall"]["count"] == 9
    assert (section["scored"], section["unscored"]) == (9, 0)  # the failed call is a 0
    assert "J over 9 questions" in " ".join(result.output.split())
    official = section["official"]
    assert (official["total_score"], official["total_samples"], official["overall_avg"]) == (
        4.5,
        9,
        0.5,
    )
    assert official["by_category"] == {"Cognitive": {"score": 4.5, "count": 9, "avg": 0.5}}
    assert {k: v["avg"] for k, v in official["by_relation"].items()} == {
        "causal": 0.3333, "state": 0.25, "goal": 0.5, "value": 1.0,
    }  # fmt: skip
    assert (
        official["incorrect_read_as_correct"],
        official["read_as_partial"],
        official["failed_calls_counted_0"],
    ) == (1, 1, 1)
    rows = [json.loads(x) for x in (out / "scores.jsonl").read_text().splitlines()]
    assert [r["j"] for r in rows] == [0.0, 0.0, 1.0, 0.5, 0.0, 1.0, 0.0, 1.0, 1.0]
    # each request: the stand-in template formatted as the official code formats it, the
    # opening prepended, one call of gpt-4o-mini at temperature 0, 512 tokens, free text
    raw = json.loads(PLUS.read_text(encoding="utf-8"))
    locomo = json.loads(LOCOMO.read_text(encoding="utf-8"))
    bodies = [r["body"] for r in fake.requests_log if r["path"].endswith("/chat/completions")]
    assert len(bodies) == 9
    for position, index in enumerate(NINE):
        conv = locomo[position % 10]["conversation"]
        names = {"A": conv["speaker_a"], "B": conv["speaker_b"]}
        evidence = "\n".join(
            f"{names[r]}：{t}" for r, t in hand_lines(raw[index]["cue_dialogue"]) if t
        )
        pred = f"my reply {WORDS[position]}"
        expected = (
            OPENING.format("A", "B") + JUDGE.format(gold="", pred=pred, evidence=evidence).strip()
        )
        [body] = [b for b in bodies if pred in b["messages"][0]["content"]]
        assert body["messages"] == [{"role": "user", "content": expected}]
        limit = body["max_completion_tokens"]
        assert (body["model"], body["temperature"], limit) == ("gpt-4o-mini", 0, 512)
        assert "response_format" not in body and body.get("n", 1) == 1
        assert '"label": "correct"|"wrong"' in expected  # the two levels asked
    assert "replies with 'incorrect' read as correct: 1" in " ".join(result.output.split())
    reported = CliRunner().invoke(app, ["report", str(out)])
    assert reported.exit_code == 0, reported.output
    report = " ".join((out / "report.md").read_text().split())
    assert "replies containing 'incorrect' read as correct: 1" in report
    assert "judged by the official protocol" in report.lower()
    card = json.loads((out / "summary.json").read_text())["claim"]
    assert card["judge"]["protocol"] == "official"


def test_the_panel_official_variant_judges_with_the_official_prompt(
    fake: FakeProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-plus-official-0123456789")
    fake.config.answer = judge_reply  # the official judge's free-text replies
    fake.config.verdict = lambda prompt: 100  # locoscore's judge (structured output)
    repository = write_repository(tmp_path / "Locomo-Plus", NINE[1:3])
    answers = tmp_path / "answers.jsonl"
    answers.write_text(
        "".join(
            json.dumps({"question_id": f"lp-{i:03d}", "prediction": f"my reply {w}"}) + "\n"
            for i, w in enumerate(("hotel", "charlie"))
        )
    )
    panel = tmp_path / "panel.toml"
    panel.write_text(
        f'[[judge]]\nname = "paper"\nprovider = "openai"\nbase_url = "{fake.openai_url}"\n'
        'template = "official"\nruns = 1\nprotocol = "binary"\n\n'
        f'[[judge]]\nname = "ours"\nprovider = "openai"\nbase_url = "{fake.openai_url}"\n'
        "runs = 1\n"
    )
    result = CliRunner().invoke(
        app,
        ["judge", str(answers), "--benchmark", "locomo-plus", "--dataset", str(repository),
         "--panel", str(panel), "--out", str(tmp_path / "out"), "--no-progress"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    judged = tmp_path / "out" / "judges" / "paper"
    section = json.loads((judged / "summary.json").read_text())["judge"]
    assert section["official"]["overall_avg"] == 1.0  # both read as correct
    assert section["official"]["incorrect_read_as_correct"] == 1
    prompts = [
        r["body"]["messages"][0]["content"]
        for r in fake.requests_log
        if r["path"].endswith("/chat/completions")
    ]
    paper = [p for p in prompts if "Stand-in judge" in p]
    assert len(paper) == 2 and all(p.startswith(OPENING.format("A", "B")) for p in paper)
    assert len(prompts) == 4  # the other judge: locoscore's own prompt


def test_without_the_official_files_the_profile_says_how_to_fetch_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    need_real_data()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # nothing fetched
    data = tmp_path / "data"
    data.mkdir()
    shutil.copyfile(PLUS, data / "locomo_plus.json")
    shutil.copyfile(LOCOMO, data / "locomo10.json")
    result = CliRunner().invoke(
        app,
        ["run", "--benchmark", "locomo-plus", "--protocol", "official", "--dataset",
         str(data), "--system", "full-context", "--answer-provider", "extractive",
         "--out", str(tmp_path / "run"), "--skip-probe", "--no-progress"],
    )  # fmt: skip
    assert result.exit_code == 2
    assert "locoscore dataset fetch locomo-plus-official" in " ".join(result.output.split())
    assert not (tmp_path / "run").exists()


def test_a_copy_without_the_official_names_is_refused_naming_the_file(tmp_path: Path) -> None:
    repository = write_repository(tmp_path / "Locomo-Plus", (0,))
    prompt = repository / "evaluation_framework" / "task_eval" / "prompt.py"
    prompt.write_text('PROMPT_TEMPLATES = {"temporal": "x"}\n')
    with pytest.raises(Exception, match="no 'Cognitive' entry") as caught:
        BENCH.for_protocol("official").load(repository)
    assert str(prompt) in str(caught.value)


def test_the_reader_reads_as_the_official_code(tmp_path: Path) -> None:
    from locoscore.benchmarks.locomo_plus.official_judge import read_official_reply

    cases: list[tuple[Any, float]] = [
        ('{"label": "correct", "reason": "x"}', 100.0),
        ('{"reason": "x", "label": "wrong"}', 0.0),  # not label-then-reason: read as JSON
        ("Incorrect: it ignores the cue.", 100.0),  # the quirk
        ("The answer is wrong, not correct.", 100.0),  # "correct" is looked for first
        ("partially right", 50.0),
        ('{"label": "correct", "reason": 5}', 100.0),  # a bad reason: the words decide
        ('{"label": "maybe", "reason": "x"}', 0.0),  # a label off the scale
        ("", 0.0),
    ]
    assert [read_official_reply(None, text).score for text, _ in cases] == [s for _, s in cases]
    assert read_official_reply(None, "Incorrect.").method == "official:incorrect-as-correct"
    assert read_official_reply(None, "correct, not incorrect").method == "official:words"


def test_a_fetched_copy_is_checked_by_its_pinned_sha256(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In the user cache (where `dataset fetch locomo-plus-official` puts them) the files
    must be the pinned ones: stand-ins there are refused, naming the file."""
    from locoscore.benchmarks.locomo_plus.official_prompts import PINNED, UTILS

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    cached = write_repository(tmp_path / "cache" / "locoscore" / "locomo-plus-059f4e3", (0,))
    data = tmp_path / "data"
    data.mkdir()
    shutil.copyfile(cached / "data" / "locomo_plus.json", data / "locomo_plus.json")
    shutil.copyfile(LOCOMO, data / "locomo10.json")
    with pytest.raises(Exception, match=f"expected {PINNED[UTILS]}") as caught:
        BENCH.for_protocol("official").load(data)
    assert str(cached / UTILS) in str(caught.value)


def test_fetch_saves_nothing_when_a_file_is_not_the_pinned_one(tmp_path: Path) -> None:
    """`dataset fetch locomo-plus-official` from a server holding stand-ins: exit 2, the
    sha256 named, no file written."""
    import http.server
    import threading

    served = write_repository(tmp_path / "served", (0,))

    class Repository(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = (served / self.path.lstrip("/")).read_bytes()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Repository)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    dest = tmp_path / "dest"
    try:
        result = CliRunner().invoke(
            app,
            ["dataset", "fetch", "locomo-plus-official", "--url",
             f"http://127.0.0.1:{server.server_port}", "--dest", str(dest)],
        )  # fmt: skip
    finally:
        server.shutdown()
    assert result.exit_code == 2 and "sha256" in result.output
    assert not dest.exists() or not any(p.is_file() for p in dest.rglob("*"))


def test_a_benchmark_without_run_profiles_refuses_protocol_in_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        ["run", "--benchmark", "locomo", "--protocol", "official", "--system", "bm25",
         "--answer-provider", "extractive", "--out", str(tmp_path / "run")],
    )  # fmt: skip
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "takes no run protocol 'official'" in " ".join(result.output.split())
    assert not (tmp_path / "run").exists()
