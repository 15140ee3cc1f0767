"""A results folder of a benchmark scored by the generic machinery, as the commands show it:
its report (report.md and a self-contained report.html from the same blocks) and the paired
comparison of two folders (its board row: `generic.board_rows.board_row`). Everything is
read from summary.json and scores.jsonl, as `generic.scoring` and `generic.judging` wrote
them.

The headline is J when the folder is judged, else the declared metric; both are means over
every question the folder holds, shown 0-100 with a bootstrap 95 % interval.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from locoscore._io import read_jsonl
from locoscore.errors import InputError
from locoscore.generic.paired_compare import paired_rows, paired_test_for, write_comparison
from locoscore.report.files import write_report_files
from locoscore.results.board_row import read_summary
from locoscore.results.layout import SCORES


def headline(summary: dict[str, Any]) -> tuple[str, str, dict[str, Any]] | None:
    """(column in scores.jsonl, label, its summary block): J when judged, else the metric."""
    judge = summary.get("judge")
    if isinstance(judge, dict) and isinstance(judge.get("overall"), dict):
        return "j", f"J ({judge.get('protocol')})", judge
    return _metric(summary)


def _metric(summary: dict[str, Any]) -> tuple[str, str, dict[str, Any]] | None:
    metric = summary.get("metric")
    if isinstance(metric, dict) and isinstance(metric.get("overall"), dict):
        return "metric", str(metric.get("label") or metric.get("name")), metric
    return None


def shared_headline(a: dict[str, Any], b: dict[str, Any]) -> tuple[str, str] | None:
    """(column, label) two folders are compared on: J when both are judged, else the metric
    when both runs scored it (a judged run beside one not judged yet), else None."""
    ha, hb = headline(a), headline(b)
    if ha is not None and hb is not None and ha[0] == hb[0]:
        return ha[0], ha[1]
    ma, mb = _metric(a), _metric(b)
    return None if ma is None or mb is None else (ma[0], ma[1])


def _shown(block: dict[str, Any] | None) -> str:
    if not block or block.get("mean") is None:
        return "–"
    low, high = block["ci95"]
    return f"{block['mean']:.1f} [{low:.1f}, {high:.1f}]"


def _title(summary: dict[str, Any], description: str) -> str:
    run = summary.get("run") or {}
    system = (run.get("system") or {}).get("name") if isinstance(run, dict) else None
    model = ((run.get("answer") or {}).get("model")) if isinstance(run, dict) else None
    who = " + ".join(str(x) for x in (system, model) if x) or "answers"
    return f"{who} on {description}"


def write_report(directory: Path, description: str) -> list[Path]:
    from locoscore.claim.render import card_blocks
    from locoscore.report.document import Banner, Block, Heading, Notes, Paragraph, Table
    from locoscore.report.floors import floors_blocks

    summary = read_summary(directory)
    title = _title(summary, description)
    blocks: list[Block] = [Heading(title, 1), *card_blocks(summary.get("claim"))]
    judge, metric = summary.get("judge") or {}, summary.get("metric") or {}
    if judge.get("sample"):
        blocks.append(Banner(f"Subset ({judge['sample']['signature']}): not the full benchmark."))
    for verb, part in (("answered", (summary.get("run") or {}).get("answer")), ("judged", judge)):
        served = (part or {}).get("served") or {}
        if served.get("fake"):
            blocks.append(
                Banner(f"{verb.capitalize()} by locoscore's fake provider, not a real model.")
            )
    answers = summary.get("answers") or {}
    parts = []
    if metric:
        parts.append(f"{metric['label']}: {_shown(metric['overall'])}")
    if judge:
        parts.append(
            f"J: {_shown(judge['overall'])} over {judge['judged']} of "
            f"{judge['questions']} questions"
        )
    if answers:
        parts.append(f"{answers['answered']} of {answers['questions']} questions answered")
    blocks.append(Paragraph("; ".join(parts) or "Nothing scored yet."))
    names = list((metric or judge).get("by_type") or {})
    headers = ["type", "n"] + ([metric["label"]] if metric else []) + (["J"] if judge else [])
    rows = [
        [name, str((metric or judge)["by_type"][name]["count"])]
        + ([_shown(metric["by_type"].get(name))] if metric else [])
        + ([_shown(judge["by_type"].get(name))] if judge else [])
        for name in names
    ]
    blocks += [
        Heading("By question type"),
        Table(headers, rows, numeric=(False, *[True] * (len(headers) - 1))),
        *floors_blocks(summary),  # the benchmark's blind baselines, when it declares any
    ]
    signatures = [
        s for s in ((summary.get("run") or {}).get("signature"), judge.get("signature")) if s
    ]
    data = judge.get("dataset") or (summary.get("run") or {}).get("dataset") or {}
    notes = [f"signature: {s}" for s in signatures]
    if data:
        notes.append(
            f"data: {data.get('path')} (sha256 {data.get('sha256')}, {data.get('version')})"
        )
    blocks += [Heading("Provenance"), Notes(notes)]
    return write_report_files(directory, blocks, title)


def compare_folders(dir_a: Path, dir_b: Path, out: Path) -> dict[str, Any]:
    """B - A on the headline both folders share (J when both are judged the same way, else
    the metric), per type and overall, on the questions both hold: paired bootstrap 95 % CI
    of the difference and McNemar's exact test on score >= 0.5."""
    sa, sb = read_summary(dir_a), read_summary(dir_b)
    shared_on = shared_headline(sa, sb)
    if shared_on is None:
        raise InputError("the folders share no scored headline (J or the metric)", file=str(dir_b))
    column, label = shared_on
    if column == "j" and sa["judge"].get("signature") != sb["judge"].get("signature"):
        raise InputError(
            f"judged differently ({sa['judge'].get('signature')} vs "
            f"{sb['judge'].get('signature')}): not comparable",
            file=str(dir_b),
        )
    qa = {r["question_id"]: r for r in read_jsonl(dir_a / SCORES)}
    qb = {r["question_id"]: r for r in read_jsonl(dir_b / SCORES)}
    shared = [
        q for q in qa if q in qb and qa[q].get(column) is not None and qb[q].get(column) is not None
    ]
    if not shared:
        raise InputError("no question scored in both folders", file=str(dir_b))
    groups: dict[str, list[str]] = {"overall": shared}
    for q in shared:
        groups.setdefault(str(qa[q].get("type")), []).append(q)
    test = paired_test_for(float(r[q][column]) for q in shared for r in (qa, qb))
    rows = paired_rows(groups, lambda q: float(qa[q][column]), lambda q: float(qb[q][column]), test)
    result = {
        "benchmark": sa.get("benchmark"),
        "folders": {"A": str(dir_a), "B": str(dir_b)},
        "headline": label,
        "only_in_a": len(set(qa) - set(qb)),
        "only_in_b": len(set(qb) - set(qa)),
        "groups": rows,
    }
    tested = (
        "McNemar's exact test on right/wrong"
        if test == "mcnemar"
        else "the Wilcoxon signed-rank test on the paired scores (graded, not right/wrong)"
    )
    method = (
        f"{label} x100 on the {len(shared)} questions both folders scored; B - A with its "
        f"95 % paired bootstrap interval; {tested}."
    )
    write_comparison(out, result, f"B - A on {sa.get('benchmark')}: {label}", [], method, test)
    return result
