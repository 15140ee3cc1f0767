"""The full report as blocks: the benchmark's comparisons (`ReportParts.comparison`),
breakdown with intervals, judge, run, latency, answer length, the declared view, errors and
provenance."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from locoscore.generic import report_figures as figures
from locoscore.generic.folder_analysis import Analysis
from locoscore.generic.metric_tables import breakdown_table, seconds
from locoscore.generic.report_opening import CONTENTS, contents, opening_blocks
from locoscore.generic.run_section import run_blocks
from locoscore.llm.endpoint import through_sentence
from locoscore.report.document import Block, Heading, Notes, Paragraph, Preformatted, Table
from locoscore.report.markdown import render_markdown
from locoscore.report.numbers import DASH, fmt
from locoscore.report.spend import judge_calls_line

TEXT_LIMIT = 160


def _clip(text: Any) -> str:
    value = "" if text is None else str(text)
    return value if len(value) <= TEXT_LIMIT else value[: TEXT_LIMIT - 1] + "…"


def _count(value: Any) -> Any:
    """A join count, written either as a number or as {"count": n, "examples": [...]}."""
    return value.get("count") if isinstance(value, dict) else value


def breakdown_blocks(a: Analysis) -> list[Block]:
    if not a.metrics:
        return []
    return [
        Heading("Per-category breakdown (this run)"),
        breakdown_table(a.metrics, a.results.rows, a.parts.folder.groups),
    ]


def judge_blocks(a: Analysis) -> list[Block]:
    j = a.judge
    if j is None:
        return []
    c = {k: ("n/a" if v is None else v) for k, v in j.config.items()}
    per_run = ", ".join(f"{m:.2f}" for m in j.run_level.per_run_means)
    items = [
        f"Protocol {c.get('protocol')}, provider {c.get('provider')}, model {c.get('model')}, "
        f"temperature {c.get('temperature')}, API version {c.get('api_version')}, "
        f"{c.get('runs')} runs per question, prompt hash {c.get('prompt_hash')}.",
        f"J of each run over all judged questions: {per_run or DASH}.",
        f"Run-level J: {fmt(j.run_level.mean, 2, j.run_level.std)} (mean ± std across runs).",
        "Pooled within-question std (per-question variances over runs, weighted by their "
        f"degrees of freedom): {fmt(j.pooled_within_std, 2)}.",
        "Unanimous questions (every successful run gave the same score): "
        + (DASH if j.unanimity is None else f"{100 * j.unanimity:.1f} %")
        + ".",
        f"{j.agreement_name} across runs: {fmt(j.agreement, 3)}.",
        f"Failed runs (dropped, not scored 0): {j.runs_failed} of {j.runs_attempted}.",
    ]
    served = j.config.get("served") or {}
    if served.get("models"):
        items.insert(1, f"The server said it served {', '.join(served['models'])}.")
    through = through_sentence("Judged", j.config.get("endpoint"), bool(served.get("fake")))
    if through is not None:
        items.insert(1, through + ".")
    calls = j.config.get("calls")
    if isinstance(calls, dict) and "made" in calls:
        usage = j.config.get("usage") or {}
        items.append(judge_calls_line(calls, usage, "Judge calls (every attempt)") + ".")
    items += [f"Warning: {w}." for w in j.config.get("warnings") or []]
    return [Heading("Judge runs and agreement"), Notes(items), *figures.j_distribution(a)]


def latency_blocks(a: Analysis) -> list[Block]:
    if not a.latency:
        return []
    names = {
        "search_latency_s": "search latency",
        "total_latency_s": "total latency",
        "context_tokens": "context tokens",
    }
    rows = []
    for key, lat in a.latency.items():
        show = (lambda v: fmt(v, 0)) if key == "context_tokens" else seconds
        values = (lat.mean, lat.p50, lat.p95, lat.p99, lat.max)
        rows.append([names[key], str(lat.count), *(show(v) for v in values)])
    table = Table(
        ["Measure", "n", "mean", "p50", "p95", "p99", "max"], rows, numeric=(False, *(True,) * 6)
    )
    return [Heading("Latency and token summary (this run)"), table, *figures.latency_cdf(a)]


def answer_length_blocks(a: Analysis) -> list[Block]:
    lengths = a.answer_lengths
    if lengths is None:
        return []
    rows = [
        [a.parts.folder.groups.label(cid), str(s.n), fmt(s.mean, 1), fmt(s.median, 1)]
        for cid, s in lengths.by_category.items()
    ]
    overall = lengths.overall
    rows.append(["overall", str(overall.n), fmt(overall.mean, 1), fmt(overall.median, 1)])
    return [
        Heading("Answer length (this run)"),
        Table(
            ["Category", "n", "mean words", "median words"],
            rows,
            frozenset({len(rows) - 1}),
            (False, True, True, True),
            "Words: whitespace-separated words of each prediction; overall over every "
            "question. Longer answers give a lenient judge more text in which to find the "
            "gold: read J next to answer length.",
        ),
    ]


def _example_table(rows: list[dict[str, Any]], a: Analysis) -> Table:
    parts, groups = a.parts, a.parts.folder.groups
    judge = parts.judge if parts.judge is not None and a.metric(parts.judge.column) else None
    has_recall = any(r.get("evidence_recall") is not None for r in rows)
    flags = a.view
    view = parts.view if flags is not None else None
    headers = ["Question id", "Category", "Question", "Gold", "Prediction"]
    headers += [parts.examples.score_header]
    headers += ["J"] if judge is not None else []
    headers += ["Evidence retrieved"] if has_recall else []
    headers += [view.flag_header] if view is not None else []
    out = []
    for r in rows:
        score = r.get(parts.examples.score.column)
        cells = [
            "#".join(str(r[name]) for name in parts.folder.id_fields),
            groups.names[r[groups.field]],
            _clip(r.get("question")),
            _clip(r.get("answer")),
            _clip(r.get("prediction")),
            DASH if score is None else fmt(100 * score, 1),
        ]
        if judge is not None:
            cells.append(fmt(r.get(judge.column), 1))
        if has_recall:
            recall = r.get("evidence_recall")
            cells.append(DASH if recall is None else f"{100 * recall:.0f} %")
        if flags is not None:
            cells.append(flags.flag(r) or "")
        out.append(cells)
    numeric = (False, False, False, False, False, True, *((True,) if judge is not None else ()))
    numeric += (True,) if has_recall else ()
    numeric += (False,) if view is not None else ()
    caption = "" if view is None else view.flag_caption
    return Table(headers, out, numeric=numeric, caption=caption)


def error_blocks(a: Analysis) -> list[Block]:
    if a.primary is None or not a.examples:
        return []
    blocks: list[Block] = [
        Heading("Error analysis"),
        Paragraph(
            f"Questions ranked by {a.primary.label} unless said otherwise; each table takes "
            "its questions in turn from every category, and breaks remaining ties by a hash "
            "of the question id (deterministic, not the dataset's order)."
        ),
    ]
    for name, title, why in a.parts.examples.sections:
        rows = a.examples.get(name)
        if rows:
            blocks += [Heading(f"{title} ({why})", 3), _example_table(rows, a)]
    return blocks


def provenance_blocks(a: Analysis) -> list[Block]:
    s = a.results.summary
    lines = [
        f"{name}: {proto.get('signature')}" for name, proto in (s.get("lexical") or {}).items()
    ]
    if a.judge is not None:
        lines.append(f"judge: {a.judge.config.get('signature')}")
    if (sample := a.rows_sample) is not None:
        lines.append(f"questions: {sample.get('signature')}")
    inp = s.get("input") or {}
    ds = s.get("dataset")
    join = s.get("join") or {}
    items = [
        f"Input {inp.get('path')} ({inp.get('format')}, {inp.get('records')} records), "
        f"sha256 {inp.get('sha256')}."
    ]
    if ds:
        state = "matches the release" if ds.get("checksum_ok") else "DIFFERS from the release"
        items.append(f"Dataset {ds.get('path')}, sha256 {ds.get('sha256')} ({state}).")
    else:
        items.append("No dataset given: predictions were scored against their own gold.")
    if join:
        problems = [
            f"{_count(value)} {name.replace('_', ' ')}"
            for name, value in join.items()
            if name not in ("matched", "examples")
        ]
        items.append(f"Join to the dataset: {join.get('matched')} matched; {', '.join(problems)}.")
    return [
        Heading("Protocol signatures"),
        Preformatted(lines or ["(none recorded)"]),
        Heading("Inputs and checksums"),
        Notes(items),
    ]


def _mark_subset(blocks: list[Block], a: Analysis) -> list[Block]:
    """Every table holding this folder's numbers names the sample they come from: all of
    them when the folder's questions are a sample, those showing J when only J is."""
    sample = a.rows_sample
    only_j = sample is None
    sample = sample or a.judge_sample
    if sample is None:
        return blocks
    marker = str(sample.get("signature"))
    judge = a.parts.judge.label if a.parts.judge is not None else None
    out: list[Block] = []
    for block in blocks:
        if isinstance(block, Table) and block.own_numbers and not block.subset:
            shows_j = any(h == "J" or (judge and h.startswith(judge)) for h in block.headers)
            if not only_j or shows_j:
                block = replace(block, subset=marker)
        out.append(block)
    return out


def full_report_blocks(
    a: Analysis, paper_columns: bool = False, compare_anyway: bool = False
) -> list[Block]:
    """The headline first, then a table of contents, then baselines and the detail."""
    detail = [
        *a.parts.comparison(a, paper_columns, compare_anyway),
        *breakdown_blocks(a),
        *judge_blocks(a),
        *run_blocks(a),
        *latency_blocks(a),
        *answer_length_blocks(a),
        *(a.parts.view.blocks(a) if a.parts.view is not None else []),
        *error_blocks(a),
        *provenance_blocks(a),
    ]
    opening = opening_blocks(a)
    blocks = [*opening, Heading(CONTENTS), contents(detail), *detail]
    return _mark_subset(blocks, a)


def format_full_report(a: Analysis, paper_columns: bool = False) -> str:
    """The whole report as markdown (what `locoscore report` writes to report.md)."""
    return render_markdown(full_report_blocks(a, paper_columns))
