"""A LongMemEval folder's report (report.md) and the comparison of two folders.

The headline is the judge's accuracy with a missing answer counted as wrong; the official
"over submitted answers" figure and the count of missing stand beside it. Published numbers
are listed with their reader, judge and file, never ranked against this run.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from locoscore._io import read_jsonl, write_json_atomic, write_text_atomic
from locoscore.benchmarks.longmemeval.baselines import BASELINES
from locoscore.benchmarks.longmemeval.data import QUESTION_TYPES
from locoscore.errors import InputError
from locoscore.stats import bootstrap_mean_ci, mcnemar_exact

REPORT = "report.md"


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


def _judge_lines(judge: dict[str, Any], title: str) -> list[str]:
    strict, official = judge["missing_counts_as_wrong"], judge["over_submitted"]
    rows = [
        [t, str(strict["by_type"][t]["count"]), _pct(strict["by_type"][t]),
         _pct(official["by_type"][t])]
        for t in QUESTION_TYPES
    ]  # fmt: skip
    for name in ("task_averaged", "overall", "abstention"):
        rows.append([f"**{name.replace('_', '-')}**", str(strict[name].get("count", "")),
                     _pct(strict[name]), _pct(official[name])])  # fmt: skip
    headers = ["", "n", "J, missing = wrong (95 % CI)", "J over submitted (official)"]
    return [
        f"## {title}",
        "",
        f"{judge['submitted']} of {judge['questions']} questions submitted, "
        f"**{judge['missing']} missing** (counted as wrong in the first column)"
        + (f", {judge['unjudged']} with no judge verdict" if judge.get("unjudged") else "")
        + ".",
        "",
        *_table(headers, rows),
        "",
    ]


def _retrieval_lines(retrieval: dict[str, Any]) -> list[str]:
    lines = ["## Retrieval (official definitions)", ""]
    skipped = retrieval["skipped"]
    lines.append(
        f"{retrieval['scored']} questions scored; skipped: {skipped['abstention']} abstention, "
        f"{skipped['no_gold']} without a user-side evidence turn, {skipped['unattributed']} "
        "whose items name no turn."
    )
    overall = retrieval.get("overall")
    if overall:
        rows = []
        for level in ("session", "turn"):
            for k in retrieval["ks"]:
                rows.append([level, str(k), *(
                    f"{overall[level][f'{m}@{k}']:.3f}"
                    for m in ("recall_any", "recall_all", "ndcg_any")
                )])  # fmt: skip
        lines += ["", *_table(["level", "k", "recall_any", "recall_all", "ndcg_any"], rows)]
    return [*lines, ""]


def _baseline_lines() -> list[str]:
    rows = [
        [b.system, f"{b.overall:.1f}", b.reader, b.judge, b.file, b.provenance, b.source]
        for b in BASELINES
    ]
    return [
        "## Published numbers (not comparable, not ranked)",
        "",
        "Each row has its own reader, judge, prompt and file; none is comparable with this "
        "run, or with another row, unless all of those match.",
        "",
        *_table(["System", "J", "Reader", "Judge", "File", "Provenance", "Source"], rows),
        "",
    ]


def write_report(directory: Path) -> list[Path]:
    summary = _read(directory, "summary.json")
    if not summary:
        raise InputError(
            "no summary.json: run `locoscore run` or `judge` first", file=str(directory)
        )
    run = _read(directory, "run.json")
    lines = ["# LongMemEval results", ""]
    data = run.get("dataset") or (summary.get("judge") or {}).get("dataset") or {}
    if run:
        lines += [f"Run: `{run['signature']}`", ""]
    if data:
        lines += [
            f"Data: {data.get('file')} (sha256 {data.get('sha256')}, {data.get('version')})",
            "",
        ]
    judge = summary.get("judge")
    if judge:
        lines += [f"Judge: `{judge['signature']}` ({judge['rules']})", ""]
        lines += _judge_lines(judge, "Judge accuracy (J)")
        if judge.get("recorded_judge"):
            recorded = judge["recorded_judge"]
            lines += _judge_lines(
                recorded, f"Recorded J (official evaluator: {', '.join(recorded['models'])})"
            )
    if summary.get("retrieval"):
        lines += _retrieval_lines(summary["retrieval"])
    lines += _baseline_lines()
    path = directory / REPORT
    write_text_atomic(path, "\n".join(lines))
    return [path]


def _scores(directory: Path) -> dict[str, dict[str, Any]]:
    path = directory / "scores.jsonl"
    if not path.is_file():
        raise InputError("no scores.jsonl: judge the folder first", file=str(directory))
    return {row["question_id"]: row for row in read_jsonl(path)}


def compare_folders(dir_a: Path, dir_b: Path, out: Path) -> dict[str, Any]:
    """B - A per type and overall (missing = wrong), on the same file and the same judge."""
    sa, sb = _read(dir_a, "summary.json"), _read(dir_b, "summary.json")
    ja, jb = sa.get("judge") or {}, sb.get("judge") or {}
    if ja.get("signature") != jb.get("signature"):
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
    rows: dict[str, dict[str, Any]] = {}
    for name, ids in groups.items():
        if not ids:
            continue
        a = [float(qa[q]["j"] or 0.0) for q in ids]
        b = [float(qb[q]["j"] or 0.0) for q in ids]
        ci = bootstrap_mean_ci([y - x for x, y in zip(a, b, strict=True)])
        test = mcnemar_exact([x >= 0.5 for x in a], [y >= 0.5 for y in b])
        rows[name] = {
            "count": len(ids),
            "a": round(100 * sum(a) / len(a), 4),
            "b": round(100 * sum(b) / len(b), 4),
            "difference": round(100 * ci.estimate, 4),
            "ci95": [round(100 * ci.low, 4), round(100 * ci.high, 4)],
            "mcnemar_p": test.p_value,
        }
    result = {"benchmark": "longmemeval", "judge": ja.get("signature"), "groups": rows}
    out.mkdir(parents=True, exist_ok=True)
    table = _table(
        ["", "n", "A", "B", "B - A (95 % CI)", "McNemar p"],
        [
            [k, str(v["count"]), f"{v['a']:.1f}", f"{v['b']:.1f}",
             f"{v['difference']:+.1f} [{v['ci95'][0]:+.1f}, {v['ci95'][1]:+.1f}]",
             f"{v['mcnemar_p']:.3g}"]
            for k, v in rows.items()
        ],
    )  # fmt: skip
    write_json_atomic(out / "compare.json", result)
    write_text_atomic(out / "compare.md", "\n".join(["# B - A on LongMemEval", "", *table, ""]))
    return result
