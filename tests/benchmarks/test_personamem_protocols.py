"""PersonaMem's two protocols on the same replies: the official parser reads as the official
`extract_answer` does (each reading worked out by hand from its rules, quirks included), and
locoscore's parser takes every unambiguous form and refuses the rest. The mixed-format reply
file in examples/ is scored both ways; the docs page's table of locoscore's readings is the
one the parser makes."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from personamem_helpers import REAL_32K, write_folder
from typer.testing import CliRunner

from locoscore.benchmarks.personamem.replies import read_official, read_reply
from locoscore.cli import app

REPO = Path(__file__).resolve().parents[2]
MIXED = REPO / "examples" / "personamem-mixed-replies.jsonl"
PAGE = REPO / "docs" / "benchmarks" / "personamem.md"
real = pytest.mark.skipif(not REAL_32K.is_dir(), reason="PersonaMem 32k not at ../shared")


def cli(*args: str) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return CliRunner().invoke(app, list(args))


@pytest.mark.parametrize(
    ("reply", "final", "whole"),
    [
        ("(c)", "c", "c"),
        ("Option A", "a", "a"),  # no (x): every standalone letter, lowercased
        ("The answer is b.", "b", "b"),
        ("I'd pick a because it fits.", "ad", "ad"),  # the "d" of I'd, the article "a"
        ("I would recommend a jazz night.", "a", "a"),  # the article alone: read as (a)
        ("(a) is tempting, but c fits better.", "a", "a"),  # an (x) hides every bare letter
        ("(a) or (C)", "ac", "ac"),
        ("Let me think. (a) seems off. <final_answer> (b)", "b", "ab"),
        ("<final_answer>b</final_answer>", "b", "b"),  # `_` is a word character
        ("I think (c) is close, but <final_answer> b", "b", "c"),
        ("(a) first <final_answer> (b) <final_answer> d", "d", "ab"),  # the last marker
        ("My answer: <FINAL_ANSWER> d", "d", "d"),  # the marker is case-sensitive: no part
        ("Vitamin D and C++ help.", "cd", "cd"),
        ("(e) is not an option; b is", "b", "b"),  # (e) is no letter of a-d
        ("", "", ""),
        ("None of these fit.", "", ""),
    ],
)
def test_the_official_parser_reads_the_final_part_then_the_whole_reply(
    reply: str, final: str, whole: str
) -> None:
    reading = read_official(reply)
    assert ("".join(sorted(reading.final)), "".join(sorted(reading.whole))) == (final, whole)


def test_the_official_parser_credits_a_reply_when_either_reading_is_the_gold_alone() -> None:
    # the final part names (c); the whole reply's (x) letters are {b}: right for b and c
    reading = read_official("I considered (b) carefully. <final_answer> c")
    assert (reading.right("b"), reading.right("c"), reading.right("a")) == (True, True, False)
    # neither reading is one letter: right for none
    assert not any(read_official("(a) or (b)").right(x) for x in "abcd")


SHOWN = ("Jazz now.", "Rock.", "Go hiking in the hills.", "Pop music.")
NO_OPTION = "refused: names no option"


@pytest.mark.parametrize(
    ("reply", "letter", "how"),
    [
        ("b", "b", "a letter alone"),
        ("(B)", "b", "a letter alone"),
        ("Option A", "a", "one letter, after a cue word"),
        ("The answer is (b)", "b", "one letter, in parentheses and after a cue word"),
        ("The answer is b.", "b", "one letter, after a cue word"),
        ("Answer: C. It respects your change of heart.", "c", "one letter, after a cue word"),
        ("B) Rock, since you left jazz.", "b", "one letter, a label opening the reply"),
        ("rock", "b", "the option's whole text"),
        ("<final_answer>d</final_answer>", "d", "after <final_answer>, a letter alone"),
        ("I think (c) is close, but <final_answer> b", "b", "after <final_answer>, a letter alone"),
        ("the answer is a reply about jazz", None, f"{NO_OPTION} (bare a in a sentence: words)"),
        ("I'd pick a because it fits.", None, f"{NO_OPTION} (bare a, d in a sentence: words)"),
        ("(a) or (c)", None, "refused: names 2 letters (a, c)"),
        ("Option b, or maybe option c", None, "refused: names 2 letters (b, c)"),
        ("", None, "refused: names no option"),
    ],
)  # fmt: skip
def test_locoscore_reads_every_unambiguous_form_and_refuses_the_rest(
    reply: str, letter: str | None, how: str
) -> None:
    reading = read_reply(reply, SHOWN)
    assert (reading.letter, reading.how) == (letter, how)


def _rows(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "scores.jsonl").read_text().splitlines()]


# The mixed-format file, as the official code reads it: (reply, after <final_answer>, whole
# reply, stored gold, right). Worked out by hand from the rules above; line 21 failed.
OFFICIAL_BY_HAND = [
    ("(c)", "c", "c", "c", 1),
    ("d", "d", "d", "d", 1),
    ("Option A", "a", "a", "a", 1),
    ("The answer is b.", "b", "b", "b", 1),
    ("The answer is (b)", "b", "b", "d", 0),
    ("I'd pick a because it fits your love of jazz.", "ad", "ad", "c", 0),
    ("I would recommend a jazz night.", "a", "a", "a", 1),  # the article, credited
    ("(a) or (c), both fit.", "ac", "ac", "a", 0),
    ("Let me think. (a) seems off. <final_answer> (b)", "b", "ab", "b", 1),
    ("<final_answer>b</final_answer>", "b", "b", "b", 1),
    ("", "", "", "a", 0),
    ("You might consider exploring different avenues", "", "", "b", 0),  # option (b)'s text
    ("**B**", "b", "b", "b", 1),
    ("Answer: C. This reply respects the change of heart you described.", "c", "c", "c", 1),
    ("B) I remember you enjoy creating digital music remixes.", "b", "b", "b", 1),
    ("(b)", "b", "b", "a", 0),  # (a) and (b) hold the same text: only the stored (a) counts
    ("None of these fit.", "", "", "a", 0),
    ("I think (c) is close, but <final_answer> b", "b", "c", "b", 1),
    ("Both (b) and (d) could work.", "bd", "bd", "b", 0),
    ("C", "c", "c", "c", 1),
]


@real
def test_official_on_the_mixed_file_equals_the_hand_table(tmp_path: Path) -> None:
    out = tmp_path / "official"
    done = cli("score", str(MIXED), "--benchmark", "personamem", "--dataset", str(REAL_32K),
               "--protocols", "official", "--out", str(out))  # fmt: skip
    assert done.exit_code == 0, done.output
    records = [json.loads(line) for line in MIXED.read_text().splitlines()]
    rows = _rows(out)
    assert len(records) == len(rows) == 21
    for record, row, hand in zip(records, rows, OFFICIAL_BY_HAND, strict=False):
        reply, final, whole, gold, right = hand
        assert record["prediction"].startswith(reply), (record, hand)
        assert row["read"] == (
            f"final part {{{', '.join(final)}}}; whole reply {{{', '.join(whole)}}}"
        ), (reply, row)
        assert (row["correct"], row["metric"]) == (gold, right), (reply, row)
    assert (rows[20]["answered"], rows[20]["metric"]) == (False, None)  # the failed line
    summary = json.loads((out / "summary.json").read_text())
    # 12 right of the 20 answered; the failed one left out, as the official code skips it
    assert summary["metric"]["overall"]["mean"] == 60.0
    assert summary["metric"]["label"] == "accuracy (official parse)"
    assert summary["answers"] == {
        "questions": 21, "answered": 20, "failed": 1, "unparsable": 6, "counted": 20,
    }  # fmt: skip
    assert summary["scoring"]["signature"].endswith(":stored|parse:official")
    assert summary["floors"]["blind"][0]["n"] == 20  # the floors over the same 20
    assert "accuracy (official parse) 60.0" in done.output
    assert "protocol official: options stored" in done.output
    # the page's official columns are the hand table
    for (*_, readings, verdict), (_, final, whole, gold, right) in zip(
        _docs_table(), OFFICIAL_BY_HAND, strict=False
    ):
        assert readings == f"{{{', '.join(final)}}}; {{{', '.join(whole)}}}"
        assert verdict == f"{'right' if right else 'wrong'} ({gold})"
    # the report's claim card names the protocol in its score's label
    assert cli("report", str(out)).exit_code == 0
    card = json.loads((out / "summary.json").read_text())["claim"]
    assert card["score"]["label"] == "accuracy (official parse)"
    assert "scoring signature: bench:personamem-32k-derived@" in (out / "report.md").read_text()


def _docs_table() -> list[list[str]]:
    """The page's table of the mixed file's readings: line, reply, locoscore reads, why,
    the official readings, the official verdict."""
    text = PAGE.read_text(encoding="utf-8")
    section = text.split("locoscore's parser on the mixed file", 1)[1].split("\n\n|", 1)[1]
    table = "|" + section.split("\n\n", 1)[0]
    rows = []
    for line in table.splitlines()[2:]:
        rows.append([c.strip() for c in line.strip("|").split("|")])
    return rows


@real
def test_locoscore_on_the_mixed_file_is_the_docs_table(tmp_path: Path) -> None:
    out = tmp_path / "locoscore"
    done = cli("score", str(MIXED), "--benchmark", "personamem", "--dataset", str(REAL_32K),
               "--out", str(out))  # fmt: skip
    assert done.exit_code == 0, done.output
    rows = _rows(out)
    # by hand: letters read on lines 1-5, 9, 10, 12-16, 18, 20; refused 6, 7, 8, 11, 17, 19
    read = [r["choice"] or "–" for r in rows[:20]]
    assert "".join(read) == "cdabb–––bb–bbcbb–b–c"
    assert [r["unparsable"] for r in rows].count(True) == 6
    assert rows[20]["read"] == "failed: scored 0" and rows[20]["metric"] == 0.0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["scoring"]["signature"].endswith(":shuffle0|parse:locoscore-v2")
    assert summary["answers"]["counted"] == 21  # a failed answer stays in the denominator
    table = _docs_table()
    assert len(table) == 21
    for n, (row, (line, _, reads, why, *_)) in enumerate(zip(rows, table, strict=True), 1):
        assert line == str(n)
        shown = "refused" if row["answered"] else "failed"
        assert reads == (f"({row['choice']})" if row["choice"] else shown), (n, row)
        assert why.replace("`", "") == row["read"].removeprefix(f"{shown}: "), (n, row)


def test_official_on_a_small_folder_and_a_protocol_refused(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "32k")
    # stored order; q6's gold (a) "Chess." is also under (c): only the stored (a) counts
    answers = [
        {"question_id": "q1", "prediction": "I'd say b"},  # {b, d}: wrong
        {"question_id": "q2", "prediction": "Take a pottery course."},  # {a}: right (gold a)
        {"question_id": "q3", "prediction": "<final_answer> c"},  # right
        {"question_id": "q5", "prediction": "", "error": "timeout"},  # left out
        {"question_id": "q6", "prediction": "(c)"},  # the doubled gold's other letter: wrong
    ]
    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps(a) + "\n" for a in answers))
    out = tmp_path / "official"
    done = cli("score", str(path), "--benchmark", "personamem", "--dataset", str(folder),
               "--protocols", "official", "--out", str(out))  # fmt: skip
    assert done.exit_code == 0, done.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["metric"]["overall"]["mean"] == 50.0  # 2 of the 4 answered
    assert [r["metric"] for r in _rows(out)] == [0.0, 1.0, 1.0, None, 0.0]
    # the first option as shown is the stored (a): right on q2 and q6
    first = {f["name"]: f for f in summary["floors"]["blind"]}["first-option"]
    assert first["total"] == 2 and "as stored" in first["description"]
    # the same answers under the default: another parse, never in the official rows' group
    default = tmp_path / "default"
    assert cli("score", str(path), "--benchmark", "personamem", "--dataset", str(folder),
               "--out", str(default)).exit_code == 0  # fmt: skip
    board = cli("board", str(out), str(default), "--out", str(tmp_path / "board"))
    assert board.exit_code == 0 and "Group 2: 1 row" in board.output, board.output
    refused = cli("score", str(path), "--benchmark", "personamem", "--dataset", str(folder),
                  "--protocols", "locomo", "--out", str(tmp_path / "x"))  # fmt: skip
    assert refused.exit_code == 2
    [line] = refused.stderr.strip().splitlines()
    assert "--protocols" in line and "locoscore, official" in line


def test_the_official_profile_shows_the_stored_order_and_asks_for_the_final_marker(
    tmp_path: Path,
) -> None:
    from locoscore.benchmarks import get_benchmark

    default = get_benchmark("personamem")
    official = default.for_protocol("official")
    assert default.for_protocol(None) is default and default.protocol.name == "locoscore"
    data = official.load(write_folder(tmp_path / "32k"))
    [q4] = [
        q for q in official.questions(data, official.conversations(data)) if q.question_id == "q4"
    ]
    # the options as the file stores them, the gold under its stored letter (c)
    assert q4.text.endswith("(a) Jazz now, since you\nleft rock behind\nlast year.\n(b) Rock.\n"
                            "(c) Jazz.\n(d) Pop music.")  # fmt: skip
    assert q4.gold == "(c) Jazz."
    assert official.signature_part(data).endswith(":stored")
    assert default.signature_part(data).endswith(":shuffle0")
    prompt = official.default_answer_prompt()
    assert (
        "<final_answer>(b)" in prompt.text
        and "<final_answer>" not in default.default_answer_prompt().text
    )
    assert prompt.name != default.default_answer_prompt().name
    assert official.run_protocols == ("official",)
