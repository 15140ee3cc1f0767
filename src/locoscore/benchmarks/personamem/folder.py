"""A PersonaMem results folder as the commands show it: `score` of an answers file and the
report (accuracy beside the floors and its margin over the best one). Everything is read
from summary.json and scores.jsonl as `scoring` and `generic.floors` wrote them; the board
row is the generic one (accuracy, then the margin over the best floor)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from locoscore._io import sha256_file
from locoscore.errors import InputError
from locoscore.report.files import write_report_files
from locoscore.report.numbers import mean_ci
from locoscore.results.board_row import read_summary
from locoscore.results.folder import answered_by
from locoscore.results.layout import SCORES, SUMMARY

if TYPE_CHECKING:
    from locoscore.benchmarks.calls import ScoreCall, Terminal
    from locoscore.benchmarks.personamem.data import PersonaMemData
    from locoscore.benchmarks.personamem.protocol import Protocol

# Writes scores.jsonl and summary.json (floors included) of scored rows and the answers
# section, and returns the summary: the chosen profile's, passed in by the benchmark.
WriteScores = Callable[[list[dict[str, Any]], dict[str, Any]], dict[str, Any]]


def refuse_score_options(call: ScoreCall) -> None:
    """The `score` options PersonaMem has no use for (checked before any file is read)."""
    for given, option in ((call.errata, "--errata"), (call.fmt, "--format")):
        if given:
            raise InputError(f"personamem takes no {option}", field=option)


def score_answers(
    data: PersonaMemData, protocol: Protocol, write: WriteScores, call: ScoreCall, t: Terminal
) -> bool:
    """`locoscore score ANSWERS --benchmark personamem`: one JSONL line per question with
    `question_id` and the reply (`prediction`, or --prediction-key), into --out; `data` and
    `protocol` are the chosen profile's."""
    from locoscore.benchmarks.personamem.scoring import items_by_id, read_answers, score_rows
    from locoscore.results.identity import answers_identity

    records = read_answers(call.predictions)
    key = call.prediction_key or "prediction"
    rows = score_rows(records, items_by_id(data), protocol, call.predictions, key)
    pairs = [(str(r.get("question_id")), str(r.get(key))) for _, r in records if not r.get("error")]
    ours = answers_identity(str(call.predictions), pairs, file_sha256=sha256_file(call.predictions))
    # the folder guard first: another run's folder is refused (or, --replace, emptied)
    t.claim(call.out, ours, replace=call.replace)
    kept = _claim(call.out, ours, call.replace)
    scored = {"path": str(call.predictions), "sha256": ours.file_sha256, **ours.to_json()}
    summary = write(rows, {**kept, "scored": scored})
    for line in summary_lines(summary):
        t.out.print(line, highlight=False, soft_wrap=True)
    t.out.print(f"wrote {call.out}/{SCORES}, {SUMMARY}", highlight=False)
    return False


def _claim(out: Path, ours: Any, replace: bool) -> dict[str, Any]:
    """The run section to keep (scoring a run's own answers into its folder), after
    refusing a folder that holds the scores of other answers (unless --replace)."""
    if out.exists() and not out.is_dir():
        raise InputError("exists and is not a folder", file=str(out), field="--out")
    if not (out / SUMMARY).is_file():
        return {}
    summary = read_summary(out)
    earlier = summary.get("scored")
    if isinstance(earlier, dict) and earlier.get("fingerprint") != ours.fingerprint:
        if not replace:
            raise InputError(
                f"holds the scores of other answers ({earlier.get('path')}): add --replace, "
                "or choose another --out",
                file=str(out),
            )
        return {}
    return {"run": summary["run"]} if isinstance(summary.get("run"), dict) else {}


def summary_lines(summary: dict[str, Any]) -> list[str]:
    """What `score` prints: the headline, the protocol, the floors and the margin."""
    floors = summary.get("floors") or {}
    lines = headline_lines(summary)
    for floor in floors.get("blind") or []:
        lines.append(f"  floor {floor['name']}: {mean_ci(_overall(floor))} ({_right(floor)} right)")
    if floors.get("margin"):
        lines.append(f"margin over {floors['margin']['over']}: {_signed(floors['margin'])}")
    return lines


def headline_lines(summary: dict[str, Any]) -> list[str]:
    """The accuracy over its denominator, then the protocol that made it."""
    answers, metric = summary["answers"], summary["metric"]
    scoring = summary.get("scoring") or {}
    counted = answers.get("counted", answers["questions"])
    failed = f"{answers['failed']} failed" + (
        ": left out;" if counted < answers["questions"] else ","
    )
    over = (
        f"{counted} of {answers['questions']} questions"
        if counted < answers["questions"]
        else f"{answers['questions']} questions"
    )
    lines = [
        f"{metric.get('label') or 'accuracy'} {mean_ci(metric['overall'])} over {over} "
        f"({failed} {answers['unparsable']} unparsable: counted wrong)"
    ]
    if scoring.get("protocol"):
        lines.append(
            f"protocol {scoring['protocol']}: options {scoring['option_order']}, "
            f"parser {scoring['parser']}, failed answers {scoring['failed_answers']}"
        )
    return lines


def _overall(floor: dict[str, Any]) -> dict[str, Any]:
    return {"mean": floor.get("score"), "ci95": floor.get("ci95")}


def _right(floor: dict[str, Any]) -> str:
    return f"{floor.get('total', 0):g}/{floor.get('n')}"


def _signed(block: dict[str, Any]) -> str:
    low, high = block["ci95"]
    return f"{block['mean']:+.1f} [{low:+.1f}, {high:+.1f}]"


def write_report(directory: Path, description: str) -> list[Path]:
    from locoscore.report.document import Banner, Block, Heading, Notes, Paragraph, Table
    from locoscore.report.floors import floors_blocks

    summary = read_summary(directory)
    metric = summary.get("metric")
    if not isinstance(metric, dict) or not isinstance(summary.get("answers"), dict):
        raise InputError(
            "not a scored PersonaMem folder (no metric or answers)", file=str(directory / SUMMARY)
        )
    run = summary.get("run") or {}
    title = f"{answered_by(run, 'answers')} on {description}"
    from locoscore.claim.render import card_blocks

    blocks: list[Block] = [Heading(title, 1), *card_blocks(summary.get("claim"))]
    if run.get("sample"):
        blocks.append(Banner(f"Subset ({run['sample']['signature']}): not the full benchmark."))
    if ((run.get("answer") or {}).get("served") or {}).get("fake"):
        blocks.append(Banner("Answered by locoscore's fake provider, not a real model."))
    blocks += [Paragraph(line) for line in headline_lines(summary)]
    # the generic floors block (margin, each floor overall); per type they sit in the table
    # below, beside the accuracy of each type
    blocks += floors_blocks(summary, per_type=False)
    floors = (summary.get("floors") or {}).get("blind") or []
    names = [f["name"] for f in floors]
    rows = [
        [name, str(block["count"]), mean_ci(block)]
        + [_mean((f.get("by_type") or {}).get(name)) for f in floors]
        for name, block in (metric.get("by_type") or {}).items()
        if block.get("count")
    ]
    blocks += [
        Heading("By question type"),
        Table(["type", "n", "accuracy", *names], rows, numeric=(False, *[True] * (2 + len(names)))),
    ]
    data = run.get("dataset") or summary.get("data") or {}
    notes = [f"signature: {run['signature']}"] if run.get("signature") else []
    if (summary.get("scoring") or {}).get("signature"):
        notes.append(f"scoring signature: {summary['scoring']['signature']}")
    if summary.get("scored"):
        notes.append(f"answers: {summary['scored']['path']} (sha256 {summary['scored']['sha256']})")
    notes.append(f"data: {data.get('path')} (sha256 {data.get('sha256')}, {data.get('version')})")
    blocks += [Heading("Provenance"), Notes(notes)]
    return write_report_files(directory, blocks, title)


def _mean(block: dict[str, Any] | None) -> str:
    return "–" if not block or block.get("mean") is None else f"{block['mean']:.1f}"
