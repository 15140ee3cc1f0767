"""What a report opens with: a title naming the system and benchmark, a banner when the
numbers come from a sample, this system's headline (its declared metrics with intervals,
evidence recall, cost, latency), every metric with its intervals, then a table of contents."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from locoscore.generic.folder_analysis import Analysis
from locoscore.generic.metric_stats import MetricStats
from locoscore.generic.metric_tables import ci_text, seconds
from locoscore.llm.endpoint import through_sentence
from locoscore.report.document import Banner, Block, Contents, Heading, Paragraph, Table
from locoscore.report.numbers import DASH, fmt
from locoscore.results.layout import SCORES, SUMMARY

HEADLINE = "Headline"
CONTENTS = "Contents"


def _run(a: Analysis) -> dict[str, Any] | None:
    run = a.results.summary.get("run")
    return run if isinstance(run, dict) else None


def report_title(a: Analysis) -> str:
    """ "bm25 + gpt-4o-mini on BENCHMARK" for a run; else the predictions file's name."""
    run = _run(a)
    if run is not None:
        system = (run.get("system") or {}).get("name") or "?"
        answer = run.get("answer") or {}
        if (run.get("system") or {}).get("answers_itself"):
            answerer = "its own answers"
        else:
            answerer = answer.get("model") or answer.get("provider") or "?"
        return f"{system} + {answerer} on {a.parts.benchmark}"
    source = (a.results.summary.get("input") or {}).get("path")
    name = Path(source).name if source else a.results.path.name
    return f"{name} on {a.parts.benchmark}"


def _sample_sentence(sample: dict[str, Any], what: str) -> str:
    return (
        f"{what} a sample of {sample.get('size', 0):,} of {sample.get('population', 0):,} "
        f"questions ({sample.get('signature')}), not the full benchmark"
    )


def subset_banner(a: Analysis) -> list[Block]:
    parts = []
    if (rows := a.rows_sample) is not None:
        parts.append(_sample_sentence(rows, "Every number in this report comes from"))
    if (judged := a.judge_sample) is not None:
        parts.append(_sample_sentence(judged, "J comes from"))
    if not parts:
        return []
    return [
        Banner(
            "Subset: "
            + "; ".join(parts)
            + ". A smoke test: do not publish these numbers beside full-benchmark results."
        )
    ]


def _scored(a: Analysis, ms: MetricStats) -> list[str]:
    d = ms.metric.decimals
    scope = a.parts.folder.groups.scope(ms.overall_includes_excluded)
    subset = a.sample_for(ms.metric)
    n = f"{ms.overall.n}" + ("" if subset is None else f" (sample of {subset['population']:,})")
    return [f"{ms.metric.label}, {scope}", fmt(ms.overall.mean, d), ci_text(ms.overall, d), n]


def _cost(a: Analysis, run: dict[str, Any] | None) -> list[str] | None:
    parts: list[tuple[str, float | None]] = []
    if run is not None:
        ingestion = ((run.get("ingestion") or {}).get("totals") or {}).get("cost_usd")
        parts.append(("ingestion", ingestion))
        parts.append(("answering", (run.get("answer_calls") or {}).get("cost_usd")))
    if a.judge is not None:
        parts.append(("judge", (a.judge.config.get("usage") or {}).get("estimated_cost_usd")))
    if not parts:
        return None
    known = [v for _, v in parts if v is not None]
    if not known and run is None:
        return None  # a judge that recorded no price: nothing to say
    total = f"${sum(known):.4f}" if known else DASH
    detail = ", ".join(f"{name} {DASH if v is None else f'${v:.4f}'}" for name, v in parts)
    return ["Cost (estimated)", total, detail, ""]


def _latency(a: Analysis) -> list[list[str]]:
    rows = []
    for key, label in (("search_latency_s", "search"), ("total_latency_s", "total")):
        lat = a.latency.get(key)
        if lat is not None:
            p95 = f"p95 {seconds(lat.p95)}"
            rows.append([f"Latency, {label} (p50)", seconds(lat.p50), p95, str(lat.count)])
    return rows


def _recall(run: dict[str, Any] | None) -> list[str] | None:
    if run is None:
        return None
    overall = ((run.get("measures") or {}).get("evidence_recall") or {}).get("overall") or {}
    k = run.get("top_k") or "all"  # none: the whole conversation, or a reference system
    mean = overall.get("mean")
    value = DASH if mean is None else f"{100 * mean:.1f} %"
    return [f"Evidence recall@{k}", value, "share of evidence turns placed in the prompt",
            str(overall.get("n", 0))]  # fmt: skip


def headline_table(a: Analysis) -> Table:
    """This system's result in a few lines."""
    run = _run(a)
    rows = [_scored(a, ms) for c in a.parts.headline if (ms := a.metric(c)) is not None]
    for extra in (_recall(run), _cost(a, run)):
        if extra is not None:
            rows.append(extra)
    rows += _latency(a)
    table = Table(
        ["Measure", "Value", "95 % CI (questions, bootstrap) / detail", "n"],
        rows,
        numeric=(False, True, False, True),
    )
    sample = a.rows_sample or a.judge_sample
    return table if sample is None else replace(table, subset=str(sample.get("signature")))


def metrics_table(a: Analysis) -> Table:
    """Every metric with both intervals."""
    rows = []
    groups = a.parts.folder.groups
    for ms in a.metrics:
        d = ms.metric.decimals
        scope = groups.scope(ms.overall_includes_excluded)
        if ms.overall_includes_excluded and not any(k in ms.by_category for k in groups.excluded):
            scope += " (none in this run)"
        label = ms.metric.label + (" (sample)" if a.sample_for(ms.metric) else "")
        rows.append(
            [
                label,
                scope,
                str(ms.overall.n),
                fmt(ms.overall.mean, d),
                ci_text(ms.overall, d),
                ci_text(ms.overall, d, clustered=True),
            ]
        )
    return Table(
        [
            "Metric",
            "Questions",
            "n",
            "Score",
            "95 % CI (questions, bootstrap)",
            "95 % CI (conversations, clustered)",
        ],
        rows,
        numeric=(False, False, True, True, False, False),
        caption=a.parts.intervals_caption,
    )


def failed_answers_line(a: Analysis) -> str | None:
    """The headline's warning for a run whose answers failed, with the kinds."""
    run = a.results.summary.get("run")
    measures = (run.get("measures") or {}) if isinstance(run, dict) else {}
    failed = int(measures.get("failed") or 0)
    if not failed:
        return None
    kinds = measures.get("failed_by_kind") or {}
    why = ", ".join(f"{kind} {n}" for kind, n in kinds.items())
    return (
        f"{failed} of {measures.get('questions', '?')} answers failed"
        f"{f' ({why})' if why else ''}: they are scored as empty answers, and the rows stay "
        "out of the published-baseline comparisons (`locoscore report "
        "--compare-baselines-anyway` shows them)."
    )


def endpoint_blocks(summary: dict[str, Any]) -> list[Block]:
    """Where the answers and the verdicts came from, when not the provider's own API: a
    banner when it was locoscore's fake provider."""
    run_answer = (summary.get("run") or {}).get("answer") or {}
    judge = summary.get("judge") or {}
    blocks: list[Block] = []
    for verb, part in (("Answered", run_answer), ("Judged", judge)):
        fake = bool((part.get("served") or {}).get("fake"))
        through = through_sentence(verb, part.get("endpoint"), fake)
        if through is not None and fake:
            blocks.append(Banner(f"{through}: these numbers say nothing about a real model."))
        elif through is not None:
            blocks.append(Paragraph(through + "."))
    return blocks


def opening_blocks(a: Analysis) -> list[Block]:
    """Title, subset banner, headline and the full metric table (the contents follow)."""
    s = a.results.summary
    units = len({str(r[a.parts.unit_field]) for r in a.results.rows})
    return [
        Heading(report_title(a), 1),
        *subset_banner(a),
        *endpoint_blocks(s),
        Heading(HEADLINE),
        *([Paragraph(line)] if (line := failed_answers_line(a)) is not None else []),
        headline_table(a),
        metrics_table(a),
        Paragraph(
            f"{len(a.results.rows)} questions from {units} "
            f"{a.parts.unit_word}{'s' if units != 1 else ''}, scored by "
            f"locoscore {s.get('locoscore_version', '?')}. Rebuilt from {SCORES} and "
            f"{SUMMARY} with no API call. {a.parts.shown_scales}"
        ),
    ]


def contents(blocks: list[Block]) -> Contents:
    """Every section heading of `blocks` (level 2), in order."""
    return Contents(tuple(b.text for b in blocks if isinstance(b, Heading) and b.level == 2))
