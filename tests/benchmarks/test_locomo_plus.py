"""LoCoMo-Plus: the stitching checked on the real file (every cue once, in its own dated
session at the stated gap before the trigger; placed as the official input; the cues with a
literal backslash-n split into both speakers' turns; short_gap the cue's adjacency to the
trigger), the gap reader, and the judge's aggregates against hand counts with the fake
provider (real local HTTP), failed calls counted apart."""

from __future__ import annotations

import hashlib
import http.server
import json
import os
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from locomo_plus_helpers import LOCOMO, PLUS, level_verdict, need_real_data, write_cut
from typer.testing import CliRunner

from locoscore.benchmarks import get_benchmark
from locoscore.benchmarks.locomo_plus.data import PlusData, parse_gap
from locoscore.cli import app
from locoscore.testing.fake_provider import FakeConfig, FakeProvider

BENCH = get_benchmark("locomo-plus")


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> PlusData:
    need_real_data()
    folder = tmp_path_factory.mktemp("plus")
    (folder / "locomo_plus.json").symlink_to(PLUS)
    (folder / "locomo10.json").symlink_to(LOCOMO)
    data: PlusData = BENCH.load(folder)
    return data


@pytest.mark.parametrize(
    ("text", "days", "vague"),
    [
        ("two months later", 60, False),
        ("about six weeks later", 42, False),
        ("a year after", 365, False),
        ("around one week after the birth", 7, False),
        ("two months after the challenge ended", 60, False),
        ("several months later", 90, True),
        ("a few weeks later", 21, True),
        ("a couple of months later", 60, True),
    ],
)
def test_time_gaps_read_into_days(text: str, days: int, vague: bool) -> None:
    gap = parse_gap(text)
    assert gap is not None and (gap.days, gap.vague) == (days, vague)


def test_unreadable_gaps_are_refused() -> None:
    assert parse_gap("later on") is None and parse_gap("zero weeks later") is None


def test_every_cue_is_once_in_its_own_dated_session_at_the_gap_before_the_trigger(
    real: PlusData,
) -> None:
    conversations = BENCH.conversations(real)
    questions = BENCH.questions(real, conversations)
    assert len(conversations) == len(questions) == 401
    assert len({c.conversation_id for c in conversations}) == 401
    bases = {s.sample_id: sum(len(x.turns) for x in s.sessions) for s in real.locomo.samples}
    for item, conversation, question in zip(real.items, conversations, questions, strict=True):
        assert question.conversation_id == conversation.conversation_id == question.question_id
        cue = [(line.text) for line in item.cue]
        texts = [t.text for s in conversation.sessions for t in s.turns]
        assert all(texts.count(line) == 1 for line in cue)  # each cue line exactly once
        [session] = [s for s in conversation.sessions if [t.text for t in s.turns] == cue]
        assert question.evidence == tuple(t.dia_id for t in session.turns)
        trigger = datetime.fromisoformat(question.date_iso or "")
        at = datetime.fromisoformat(session.date_iso or "")
        assert trigger - at == timedelta(days=item.gap.days) > timedelta(0)
        assert session.date_raw and session.date_raw.endswith(str(at.year))
        # every LoCoMo turn kept, sessions renumbered in date order, ids name no cue
        assert conversation.turn_count == bases[question.record_ids["locomo_conversation"]] + len(
            cue
        )
        dates = [s.date_iso or "" for s in conversation.sessions]
        assert dates == sorted(dates) and max(dates) < (question.date_iso or "")
        assert [s.index for s in conversation.sessions] == list(
            range(1, len(conversation.sessions) + 1)
        )
        for s in conversation.sessions:
            assert [t.dia_id for t in s.turns] == [
                f"D{s.index}:{j}" for j in range(1, len(s.turns) + 1)
            ]
        assert question.text.split(": ", 1)[1] == item.trigger.text
        assert question.text.split(": ")[0] in conversation.speakers


def test_short_gap_is_the_cue_session_adjacent_to_the_trigger(real: PlusData) -> None:
    """Computed on the stitched data: the cue is the last session (nothing between it and
    the trigger). 18 items, all of one-week gaps; the 15 vague gaps ("several months")
    are placed 21 to 90 days back and are not short."""
    conversations = BENCH.conversations(real)
    questions = BENCH.questions(real, conversations)
    adjacent = [
        q.question_id
        for c, q in zip(conversations, questions, strict=True)
        if q.evidence[0].startswith(f"D{len(c.sessions)}:")
    ]
    flagged = [q.question_id for q in questions if q.record_ids["short_gap"]]
    assert flagged == adjacent and len(adjacent) == 18
    assert {real.items[int(q[3:])].gap.days for q in adjacent} == {7}
    vague = Counter(i.gap.text for i in real.items if i.gap.vague)
    assert vague == {
        "several months later": 11,
        "several years later": 1,
        "several weeks later": 1,
        "a few weeks later": 1,
        "a couple of months later": 1,
    }
    assert not any(questions[i.index].record_ids["short_gap"] for i in real.items if i.gap.vague)
    assert BENCH.describe_data(real)["short_gap"] == 18


def test_placement_follows_the_official_input(real: PlusData) -> None:
    """Item i in LoCoMo conversation i % 10; its A (the trigger's speaker) is speaker_a."""
    conversations = BENCH.conversations(real)
    questions = BENCH.questions(real, conversations)
    samples = real.locomo.samples
    for i, (c, q) in enumerate(zip(conversations, questions, strict=True)):
        sample = samples[i % 10]
        assert q.record_ids["locomo_conversation"] == sample.sample_id
        assert q.text.startswith(f"{sample.speaker_a}: ")
        assert c.speakers == (sample.speaker_a, sample.speaker_b)


def test_cues_with_a_literal_backslash_n_are_split_into_both_speakers_turns(
    real: PlusData,
) -> None:
    """31 cues hold the two characters backslash-n between A's and B's lines: each becomes
    two turns, A's by speaker_a and B's by speaker_b, no "B:" left in a text."""
    raw = json.loads(PLUS.read_text(encoding="utf-8"))
    literal = [i for i, entry in enumerate(raw) if "\\n" in entry["cue_dialogue"]]
    assert len(literal) == 31
    conversations = BENCH.conversations(real)
    questions = BENCH.questions(real, conversations)
    for i in literal:
        sample = real.locomo.samples[i % 10]
        parts = raw[i]["cue_dialogue"].split("\\n")
        [cue] = [
            s for s in conversations[i].sessions if s.turns[0].dia_id == questions[i].evidence[0]
        ]
        assert [t.speaker for t in cue.turns] == [sample.speaker_a, sample.speaker_b]
        assert [t.text for t in cue.turns] == [p.strip()[2:].strip() for p in parts]
        assert parts[1].startswith("B:") and not any("\\n" in t.text for t in cue.turns)
        assert questions[i].gold == (
            f"{sample.speaker_a}: {cue.turns[0].text}\n{sample.speaker_b}: {cue.turns[1].text}"
        )


# -- the judge, against the fake provider ------------------------------------------------
# The nine items of `write_cut` (ids lp-000..lp-008) and the level each reply earns.
LEVELS = ("FULL", "FULL", "HALF", "HALF", "none", "FULL", "none", "FULL", "HALF")


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    with FakeProvider(FakeConfig(latency_s=0.0, timeout_s=5.0, verdict=level_verdict)) as p:
        yield p


def _judge(tmp: Path, fake: FakeProvider, *extra: str) -> tuple[Any, dict[str, Any]]:
    data = write_cut(tmp / "data")
    answers = tmp / "answers.jsonl"
    answers.write_text(
        "".join(
            json.dumps({"question_id": f"lp-{i:03d}", "prediction": f"my reply {level}"}) + "\n"
            for i, level in enumerate(LEVELS)
        )
    )
    out = tmp / "out"
    result = CliRunner().invoke(
        app,
        ["judge", str(answers), "--benchmark", "locomo-plus", "--dataset", str(data),
         "--out", str(out), "--base-url", fake.url, "--no-progress", "--concurrency", "1",
         *extra],
    )  # fmt: skip
    summary = json.loads((out / "summary.json").read_text()) if out.is_dir() else {}
    return result, summary.get("judge", {})


def test_judge_aggregates_equal_hand_counts(
    fake: FakeProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Levels 1 1 .5 | .5 0 | 1 0 | 1 .5 (causal | state | goal | value); short-gap items
    (the cue adjacent to the trigger: one-week gaps) lp-001, 004. Overall 5.5/9; strict
    (the other seven) 4.5/7; short 1/2; each the mean over two runs."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-plus-0123456789")
    seen: list[str] = []

    def verdict(prompt: str) -> int:
        seen.append(prompt)
        return level_verdict(prompt)

    fake.config.verdict = verdict
    result, section = _judge(tmp_path, fake, "--runs", "2")
    assert result.exit_code == 0, result.output
    assert section["overall"]["mean"] == pytest.approx(100 * 5.5 / 9, abs=1e-3)
    by_type = {k: v["mean"] for k, v in section["by_type"].items()}
    assert by_type == pytest.approx({"causal": 250 / 3, "state": 25.0, "goal": 50.0, "value": 75.0})
    strict = section["strict"]
    assert (strict["overall"]["count"], strict["left_out"]) == (7, 2)
    assert strict["overall"]["mean"] == pytest.approx(100 * 4.5 / 7, abs=1e-3)
    assert {k: v["mean"] for k, v in strict["by_type"].items()} == {
        "causal": 75.0, "state": 50.0, "goal": 50.0, "value": 75.0,
    }  # fmt: skip
    assert (section["short_gap"]["mean"], section["short_gap"]["count"]) == (50.0, 2)
    assert section["calls"]["made"] == 18 and section["runs"] == 2
    assert "J strict (without the 2 short-gap items) 64.3" in result.output
    # the judge sees the trigger, the cue and the reply (the official one never sees the
    # trigger) and is asked for three levels
    data = BENCH.load(tmp_path / "data")
    question = BENCH.questions(data, BENCH.conversations(data))[3]
    prompt = next(p for p in seen if question.text in p)
    assert str(question.gold) in prompt and "my reply HALF" in prompt
    assert '"score": 100, 50 or 0' in prompt
    rows = [json.loads(x) for x in (tmp_path / "out" / "scores.jsonl").read_text().splitlines()]
    assert [r["j"] for r in rows] == [1.0, 1.0, 0.5, 0.5, 0.0, 1.0, 0.0, 1.0, 0.5]
    assert [r["short_gap"] for r in rows] == [0, 1, 0, 0, 1, 0, 0, 0, 0]


def test_failed_judge_calls_are_no_verdict_never_a_wrong_answer(
    fake: FakeProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first call (lp-000, FULL) is refused: 8 of 9 scored, 4.5/8 overall, strict over
    the six long-gap items left (3.5/6); past --max-unscored 10 % the command fails."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-plus-0123456789")
    fake.config.scores = ["refusal"]
    result, section = _judge(tmp_path, fake, "--runs", "1")
    assert result.exit_code == 1 and "above --max-unscored 10%" in result.output
    assert (section["questions"], section["scored"], section["unscored"]) == (9, 8, 1)
    assert section["overall"]["mean"] == pytest.approx(100 * 4.5 / 8)
    assert section["strict"]["overall"]["mean"] == pytest.approx(100 * 3.5 / 6, abs=1e-3)
    assert "over 8 of 9 questions" in " ".join(result.output.split())


def test_the_binary_protocol_is_refused_in_one_line(
    fake: FakeProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-plus-0123456789")
    result, _ = _judge(tmp_path, fake, "--protocol", "binary")
    assert result.exit_code == 2 and fake.requests == 0
    assert "three levels" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "out").exists()


# -- dataset fetch ------------------------------------------------------------------------
def _serve(body: bytes) -> tuple[http.server.ThreadingHTTPServer, str]:
    class Repository(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Repository)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}/data/locomo_plus.json"


@pytest.mark.parametrize("corrupt", [False, True])
def test_fetch_saves_the_pinned_file_only_when_its_sha256_matches(
    tmp_path: Path, corrupt: bool
) -> None:
    need_real_data()
    body = PLUS.read_bytes()
    server, url = _serve(body[:-1] + b" " if corrupt else body)
    dest = tmp_path / "cache" / "locomo_plus.json"
    try:
        result = CliRunner().invoke(
            app, ["dataset", "fetch", "locomo-plus", "--url", url, "--dest", str(dest)]
        )
    finally:
        server.shutdown()
    if corrupt:
        assert result.exit_code == 2 and "sha256" in result.output and not dest.exists()
    else:
        assert result.exit_code == 0, result.output
        assert dest.read_bytes() == body
    # the default source is the official repository at the commit the facts were read at
    known = BENCH.fetch_names["locomo-plus"]
    assert known.url == (
        "https://raw.githubusercontent.com/xjtuleeyf/Locomo-Plus/"
        "059f4e3d38f7f1f96765e8e2cb7de3097551bffb/data/locomo_plus.json"
    )
    assert known.sha256 == hashlib.sha256(body).hexdigest()


# -- bad input: one line, exit 2 ------------------------------------------------------------
def _cli_line(args: list[str], cache: Path) -> str:
    env = {k: v for k, v in os.environ.items() if k != "LOCOSCORE_DATASET"}
    env["XDG_CACHE_HOME"] = str(cache)  # an empty user cache: nothing fetched
    env["ANTHROPIC_API_KEY"] = "sk-ant-test-plus-0123456789"
    proc = subprocess.run(
        [sys.executable, "-m", "locoscore", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    [line] = proc.stderr.strip().splitlines()
    return line


def test_without_locomo10_the_one_line_says_where_it_is_looked_for(tmp_path: Path) -> None:
    need_real_data()
    (tmp_path / "plus").mkdir()
    (tmp_path / "plus" / "locomo_plus.json").write_bytes(PLUS.read_bytes())
    info = ["dataset", "info", "--benchmark", "locomo-plus"]
    line = _cli_line([*info, "--dataset", str(tmp_path / "plus")], tmp_path / "cache")
    assert "locomo10.json" in line and "$LOCOSCORE_DATASET" in line
    line = _cli_line(info, tmp_path / "cache")  # nothing given, nothing fetched
    assert "`locoscore dataset fetch locomo-plus`" in line


def test_an_answer_to_no_item_is_refused_naming_the_record(tmp_path: Path) -> None:
    data = write_cut(tmp_path / "data", (0, 101))
    answers = tmp_path / "answers.jsonl"
    answers.write_text('{"question_id": "lp-000", "prediction": "x"}\n'
                       '{"question_id": "lp-007", "prediction": "y"}\n')  # fmt: skip
    line = _cli_line(
        ["judge", str(answers), "--benchmark", "locomo-plus", "--dataset", str(data),
         "--out", str(tmp_path / "out"), "--base-url", "http://127.0.0.1:9"],
        tmp_path / "cache",
    )  # fmt: skip
    assert str(answers) in line and "lp-007" in line
    assert not (tmp_path / "out").exists()
