"""A LongMemEval folder's report (report.md and a self-contained report.html, from the same
blocks) and the comparison of two folders.

The headline comes first: the title names the system and the benchmark, then the judge's
accuracy with a missing answer counted as wrong, the official "over submitted answers"
figure and the count of missing beside it; the per-type tables, retrieval and the data
follow. Published numbers are listed with their reader, judge and file, never ranked
against this run.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from locoscore._io import read_jsonl
from locoscore.benchmarks.longmemeval.baselines import BASELINES
from locoscore.benchmarks.longmemeval.data import QUESTION_TYPES
from locoscore.errors import InputError
from locoscore.generic.paired_compare import paired_rows, write_comparison
from locoscore.llm.endpoint import without_served
from locoscore.report.document import Banner, Block, Heading, Notes, Paragraph, Preformatted, Table
from locoscore.report.files import write_report_files
from locoscore.report.spend import judge_calls_line
from locoscore.results.folder import answered_by
from locoscore.results.layout import RUN_JSON, SCORES, SUMMARY

AGGREGATES = ("task_averaged", "overall", "abstention")


def _read(directory: Path, name: str) -> dict[str, Any]:
    path = directory / name
    if not path.is_file():
        return {}
    try:
        loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read ({exc})", file=str(path)) from None
    return loaded


def _pct(cell: dict[str, Any] | None) -> str:
    if not cell or cell.get("accuracy") is None:
        return "–"
    ci = cell.get("ci95")
    return f"{cell['accuracy']:.1f}" + (f" [{ci[0]:.1f}, {ci[1]:.1f}]" if ci else "")


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def _title(run: dict[str, Any]) -> str:
    return f"{answered_by(run, 'predictions')} on LongMemEval"


def _subset(judge: dict[str, Any]) -> str:
    sample = judge.get("sample")
    return str(sample.get("signature")) if isinstance(sample, dict) else ""


def _headline(judge: dict[str, Any]) -> list[Block]:
    strict, official = judge["missing_counts_as_wrong"], judge["over_submitted"]
    out: list[Block] = []
    if isinstance(sample := judge.get("sample"), dict):
        out.append(
            Banner(
                f"J comes from a sample of {sample.get('size', 0):,} of "
                f"{sample.get('population', 0):,} questions ({sample.get('signature')}), "
                "not the full benchmark."
            )
        )
    out.append(
        Notes(
            [
                f"J overall, missing = wrong: {_pct(strict['overall'])} {_over(judge)}",
                f"task-averaged: {_pct(strict['task_averaged'])}; abstention: "
                f"{_pct(strict['abstention'])}",
                f"over submitted answers (the official figure): {_pct(official['overall'])}",
                f"{judge['submitted']} of {judge['questions']} questions submitted, "
                f"{judge['missing']} missing (counted as wrong)"
                + (f", {judge['unjudged']} with no judge verdict" if judge.get("unjudged") else ""),
            ]
        )
    )
    if isinstance(judge.get("calls"), dict) and isinstance(judge.get("usage"), dict):
        out.append(Paragraph(judge_calls_line(judge["calls"], judge["usage"], "judge calls")))
    return [*out, Preformatted([str(judge["signature"])]), Paragraph(f"Rules: {judge['rules']}.")]


def _over(judge: dict[str, Any]) -> str:
    """The count the headline is over: a question whose every judge run failed is not in
    it, and the line says so rather than claim every question."""
    questions, unjudged = int(judge["questions"]), int(judge.get("unjudged") or 0)
    if not unjudged:
        return f"over {questions} questions"
    scored = questions - unjudged
    return f"over {scored} of {questions} questions ({unjudged} without a judge verdict)"


def _judge_blocks(judge: dict[str, Any], title: str, subset: str = "") -> list[Block]:
    strict, official = judge["missing_counts_as_wrong"], judge["over_submitted"]
    rows = [
        [t, str(strict["by_type"][t]["count"]), _pct(strict["by_type"][t]),
         _pct(official["by_type"][t])]
        for t in QUESTION_TYPES
    ]  # fmt: skip
    for name in AGGREGATES:
        rows.append([name.replace("_", "-"), str(strict[name].get("count", "")),
                     _pct(strict[name]), _pct(official[name])])  # fmt: skip
    headers = ["", "n", "J, missing = wrong (95 % CI)", "J over submitted (official)"]
    aggregates = frozenset(range(len(QUESTION_TYPES), len(rows)))
    return [
        Heading(title),
        Paragraph(
            f"{judge['submitted']} of {judge['questions']} questions submitted, "
            f"{judge['missing']} missing (counted as wrong in the first column)."
        ),
        Table(headers, rows, highlight=aggregates, numeric=(False, True, True, True),
              subset=subset),
    ]  # fmt: skip


def _retrieval_blocks(retrieval: dict[str, Any]) -> list[Block]:
    skipped = retrieval["skipped"]
    out: list[Block] = [
        Heading("Retrieval (official definitions)"),
        Paragraph(
            f"{retrieval['scored']} questions scored; skipped: {skipped['abstention']} "
            f"abstention, {skipped['no_gold']} without a user-side evidence turn, "
            f"{skipped['unattributed']} whose items name no turn."
        ),
    ]
    overall = retrieval.get("overall")
    if overall:
        rows = []
        for level in ("session", "turn"):
            for k in retrieval["ks"]:
                rows.append([level, str(k), *(
                    f"{overall[level][f'{m}@{k}']:.3f}"
                    for m in ("recall_any", "recall_all", "ndcg_any")
                )])  # fmt: skip
        headers = ["level", "k", "recall_any", "recall_all", "ndcg_any"]
        out.append(Table(headers, rows, numeric=(False, True, True, True, True)))
    return out


def _baseline_blocks() -> list[Block]:
    rows = [
        [b.system, f"{b.overall:.1f}", b.reader, b.judge, b.file, b.provenance, b.source]
        for b in BASELINES
    ]
    return [
        Heading("Published numbers (not comparable, not ranked)"),
        Paragraph(
            "Each row has its own reader, judge, prompt and file; none is comparable with this "
            "run, or with another row, unless all of those match."
        ),
        Table(
            ["System", "J", "Reader", "Judge", "File", "Provenance", "Source"],
            rows,
            numeric=(False, True, False, False, False, False, False),
            own_numbers=False,
        ),
    ]


def blocks(summary: dict[str, Any], run: dict[str, Any]) -> list[Block]:
    """Title, headline, then the detail: per-type J, recorded J, retrieval, data, published."""
    judge = summary.get("judge")
    from locoscore.claim.render import card_blocks

    out: list[Block] = [Heading(_title(run or summary.get("run") or {}), 1)]
    out += card_blocks(summary.get("claim"))
    if judge:
        out += _headline(judge)
    else:
        out.append(
            Paragraph("Not judged yet: run `locoscore judge --benchmark longmemeval` on it.")
        )
    if run:
        out += [Heading("Run"), Preformatted([str(run["signature"])])]
    data = run.get("dataset") or (judge or {}).get("dataset") or {}
    if data:
        out += [
            Heading("Data"),
            Paragraph(f"{data.get('file')} (sha256 {data.get('sha256')}, {data.get('version')})"),
        ]
    if judge:
        out += _judge_blocks(judge, "Judge accuracy (J)", _subset(judge))
        if recorded := judge.get("recorded_judge"):
            title = f"Recorded J (official evaluator: {', '.join(recorded['models'])})"
            out += _judge_blocks(recorded, title)
    if summary.get("retrieval"):
        out += _retrieval_blocks(summary["retrieval"])
    return out + _baseline_blocks()


def write_report(directory: Path) -> list[Path]:
    summary = _read(directory, SUMMARY)
    if not summary:
        raise InputError(f"no {SUMMARY}: run `locoscore run` or `judge` first", file=str(directory))
    run = _read(directory, RUN_JSON)
    document = blocks(summary, run)
    title = _title(run or summary.get("run") or {})
    return write_report_files(directory, document, title)


def _scores(directory: Path) -> dict[str, dict[str, Any]]:
    path = directory / SCORES
    if not path.is_file():
        raise InputError(f"no {SCORES}: judge the folder first", file=str(directory))
    return {row["question_id"]: row for row in read_jsonl(path)}


def _same_judge(a: str, b: str) -> bool:
    """Equal signatures; or equal but for what the calls told (`served:`, `fake`) where one
    folder was judged before the judge recorded it (an older folder)."""
    if a == b:
        return True
    older = a == without_served(a) or b == without_served(b)
    return older and without_served(a) == without_served(b)


def compare_folders(dir_a: Path, dir_b: Path, out: Path) -> dict[str, Any]:
    """B - A per type and overall (missing = wrong), on the same file and the same judge."""
    sa, sb = _read(dir_a, SUMMARY), _read(dir_b, SUMMARY)
    ja, jb = sa.get("judge") or {}, sb.get("judge") or {}
    if not _same_judge(str(ja.get("signature")), str(jb.get("signature"))):
        raise InputError(
            f"judged differently ({ja.get('signature')} vs {jb.get('signature')}): not comparable",
            file=str(dir_b),
        )
    qa, qb = _scores(dir_a), _scores(dir_b)
    if set(qa) != set(qb):
        raise InputError("the folders hold different questions (another file?)", file=str(dir_b))
    data_a = (ja.get("dataset") or {}).get("sha256")
    data_b = (jb.get("dataset") or {}).get("sha256")
    if data_a and data_b and data_a != data_b:
        raise InputError(f"another data file (sha256 {data_b} vs {data_a})", file=str(dir_b))
    groups: dict[str, list[str]] = {"overall": list(qa)}
    for t in QUESTION_TYPES:
        groups[t] = [q for q, row in qa.items() if row["question_type"] == t]
    groups["abstention"] = [q for q, row in qa.items() if row["abstention"]]
    rows = paired_rows(
        groups, lambda q: float(qa[q]["j"] or 0.0), lambda q: float(qb[q]["j"] or 0.0), "mcnemar"
    )
    folders = {"A": str(dir_a), "B": str(dir_b)}
    result = {
        "benchmark": "longmemeval",
        "folders": folders,
        "judge": ja.get("signature"),
        "groups": rows,
    }
    method = (
        "J with a missing answer counted as wrong, x100; B - A with its 95 % paired "
        "bootstrap interval; McNemar's exact test on the majority verdicts."
    )
    judged = f"judge: {ja.get('signature')}"
    write_comparison(out, result, "B - A on LongMemEval", [judged], method, "mcnemar")
    return result
