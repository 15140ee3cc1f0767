"""The full report as blocks: comparisons, breakdown with intervals, judge, latency, errors."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from locoscore.benchmarks.locomo import baselines
from locoscore.benchmarks.locomo.categories import CATEGORY_NAMES, GROUPS
from locoscore.benchmarks.locomo.report import figures
from locoscore.benchmarks.locomo.report.analysis import Analysis
from locoscore.benchmarks.locomo.report.audit_view import audit_blocks
from locoscore.benchmarks.locomo.report.headline import (
    CONTENTS,
    contents,
    failed_answers_line,
    opening_blocks,
)
from locoscore.benchmarks.locomo.report.metrics import BLEU1_MEM0, F1_LOCOMO, F1_MEM0, J
from locoscore.benchmarks.locomo.report.recorded_judge import recorded_judge_blocks
from locoscore.benchmarks.locomo.report.run_section import run_blocks
from locoscore.benchmarks.locomo.report.tables import (
    DASH,
    comparable_j_stats,
    f1_comparison_blocks,
    fmt,
    judge_comparison_blocks,
    latency_comparison_table,
    paper_columns_table,
)
from locoscore.benchmarks.locomo.report.verified_sections import verified_gold_blocks
from locoscore.generic.metric_tables import breakdown_table, seconds
from locoscore.llm.endpoint import through_sentence
from locoscore.report.document import Block, Heading, Notes, Paragraph, Preformatted, Table
from locoscore.report.markdown import render_markdown
from locoscore.report.spend import judge_calls_line

TEXT_LIMIT = 160


def _clip(text: Any) -> str:
    value = "" if text is None else str(text)
    return value if len(value) <= TEXT_LIMIT else value[: TEXT_LIMIT - 1] + "…"


def _count(value: Any) -> Any:
    """A join count, written either as a number or as {"count": n, "examples": [...]}."""
    return value.get("count") if isinstance(value, dict) else value


def comparison_blocks(
    a: Analysis, paper_columns: bool, compare_anyway: bool = False
) -> list[Block]:
    if not compare_anyway and failed_answers_line(a) is not None:
        return [
            Heading("Published baselines"),
            Paragraph(
                "Not compared: answers of this run failed (see the headline); a published "
                "figure beside a score that counts failures as empty answers would mislead."
            ),
        ]
    blocks: list[Block] = [Heading("F1 and BLEU-1 against published baselines")]
    titles = {
        F1_LOCOMO.column: "Official LoCoMo F1 vs the LoCoMo paper",
        F1_MEM0.column: "Mem0-protocol F1 vs the Mem0 paper",
        BLEU1_MEM0.column: "Mem0-protocol BLEU-1 vs the Mem0 paper",
    }
    for metric in (F1_LOCOMO, F1_MEM0, BLEU1_MEM0):
        ms = a.metric(metric.column)
        if ms is None:
            continue
        blocks.append(Heading(titles[metric.column], 3))
        blocks += f1_comparison_blocks(a, metric)
        blocks += figures.comparison_figure(ms, sample=a.sample_for(metric))
        if paper_columns and metric.baseline_protocol != baselines.PROTOCOL_LOCOMO_F1:
            assert metric.baseline_protocol is not None
            blocks.append(paper_columns_table(metric.baseline_protocol))
    if a.metric(F1_LOCOMO.column) is not None:
        blocks.append(
            Notes(
                [
                    "† The LoCoMo paper's Human overall cannot be rebuilt from its own columns.",
                    "Figures cited elsewhere for the LoCoMo paper, as cited, unverified: "
                    + "; ".join(f.text for f in baselines.UNVERIFIED_CITATIONS)
                    + ".",
                ]
            )
        )
    blocks.append(Heading("LLM judge (J) against published baselines"))
    blocks += judge_comparison_blocks(a)
    blocks += recorded_judge_blocks(a)
    blocks += audit_blocks(a)
    if (ms := comparable_j_stats(a) or a.metric(J.column)) is not None:
        protocol = a.judge.protocol if a.judge else None
        blocks += figures.comparison_figure(ms, protocol, a.sample_for(J))
    if paper_columns:
        blocks.append(paper_columns_table(baselines.PROTOCOL_MEM0_J))
    blocks.append(
        Notes(
            [
                "A-Mem* is the Mem0 authors' re-run of A-Mem, not A-Mem's own result.",
                baselines.LETTA_FOOTNOTE.text,
            ]
        )
    )
    blocks += [
        Heading("Latency and context tokens against published baselines"),
        latency_comparison_table(a),
        Paragraph(
            "Published: Mem0 paper Table 2, seconds per query (p50/p95) and retrieved "
            "context tokens per query. Different hardware and models: orders of magnitude "
            "compare, decimals do not."
        ),
    ]
    return blocks


def breakdown_blocks(a: Analysis) -> list[Block]:
    if not a.metrics:
        return []
    return [
        Heading("Per-category breakdown (this run)"),
        breakdown_table(a.metrics, a.results.rows, GROUPS),
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
        [f"{CATEGORY_NAMES[cid]} ({cid})", str(s.n), fmt(s.mean, 1), fmt(s.median, 1)]
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
    has_j = a.metric(J.column) is not None
    has_recall = any(r.get("evidence_recall") is not None for r in rows)
    flags = a.verified.errata if a.verified is not None else None
    headers = ["Question id", "Category", "Question", "Gold", "Prediction", "F1"]
    headers += ["J"] if has_j else []
    headers += ["Evidence retrieved"] if has_recall else []
    headers += ["Gold error (errata)"] if flags is not None else []
    out = []
    for r in rows:
        f1 = r.get(F1_LOCOMO.column)
        cells = [
            f"{r['sample_id']}#{r['qa_index']}",
            CATEGORY_NAMES[r["category"]],
            _clip(r.get("question")),
            _clip(r.get("answer")),
            _clip(r.get("prediction")),
            DASH if f1 is None else fmt(100 * f1, 1),
        ]
        if has_j:
            cells.append(fmt(r.get("j_mean"), 1))
        if has_recall:
            recall = r.get("evidence_recall")
            cells.append(DASH if recall is None else f"{100 * recall:.0f} %")
        if flags is not None:
            cells.append(flags.error_type(r) or "")
        out.append(cells)
    numeric = (False, False, False, False, False, True, *((True,) if has_j else ()))
    numeric += (True,) if has_recall else ()
    numeric += (False,) if flags is not None else ()
    caption = ""
    if flags is not None:
        caption = (
            "Gold error: the errata's type for a flagged question. All but WRONG_CITATION "
            "mean the gold answer itself is wrong or ambiguous (left out of the verified-gold "
            "view)."
        )
    return Table(headers, out, numeric=numeric, caption=caption)


_EXAMPLE_SECTIONS = (
    ("lowest", "Lowest scores", "ties: the question with more evidence retrieved first"),
    (
        "disagreements",
        "Where official F1 and J disagree most",
        "largest |F1 x100 - J|: a right answer in other words, or a judge fooled by overlap",
    ),
    (
        "missed_with_evidence",
        "Lowest scores although the evidence was retrieved",
        "the answer step, not retrieval, lost these",
    ),
    ("highest", "Highest scores", "ties: the question with more evidence retrieved first"),
)


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
    for name, title, why in _EXAMPLE_SECTIONS:
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
    out: list[Block] = []
    for block in blocks:
        if isinstance(block, Table) and block.own_numbers and not block.subset:
            shows_j = any(h == "J" or h.startswith(J.label) for h in block.headers)
            if not only_j or shows_j:
                block = replace(block, subset=marker)
        out.append(block)
    return out


def full_report_blocks(
    a: Analysis, paper_columns: bool = False, compare_anyway: bool = False
) -> list[Block]:
    """The headline first, then a table of contents, then baselines and the detail."""
    detail = [
        *comparison_blocks(a, paper_columns, compare_anyway),
        *breakdown_blocks(a),
        *judge_blocks(a),
        *run_blocks(a),
        *latency_blocks(a),
        *answer_length_blocks(a),
        *verified_gold_blocks(a),
        *error_blocks(a),
        *provenance_blocks(a),
    ]
    opening = opening_blocks(a)
    blocks = [*opening, Heading(CONTENTS), contents(detail), *detail]
    return _mark_subset(blocks, a)


def format_full_report(a: Analysis, paper_columns: bool = False) -> str:
    """The whole report as markdown (what `locoscore report` writes to report.md)."""
    return render_markdown(full_report_blocks(a, paper_columns))
