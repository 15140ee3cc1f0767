"""LoCoMo's parts for the shared report (`generic.report_parts`): its words, its scores.csv
columns, the published-baselines section, the error analysis' tables, the run section's
evidence, and the verified-gold view; and the report built, analysed or loaded with them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from locoscore.benchmarks.locomo import baselines
from locoscore.benchmarks.locomo.comparison import (
    comparable_j_stats,
    comparison_figure,
    f1_comparison_blocks,
    judge_comparison_blocks,
    latency_comparison_table,
    paper_columns_table,
)
from locoscore.benchmarks.locomo.data.errata import ERRATA_TYPES
from locoscore.benchmarks.locomo.metrics import BLEU1_MEM0, F1_LOCOMO, F1_MEM0, J
from locoscore.benchmarks.locomo.parts import PARTS
from locoscore.claim.benchmark import ClaimedBenchmark
from locoscore.generic.audit_view import audit_blocks
from locoscore.generic.errata_view import errata_view_parts
from locoscore.generic.folder_analysis import Analysis
from locoscore.generic.folder_analysis import analyse as analyse_folder
from locoscore.generic.recorded_judge import recorded_judge_blocks
from locoscore.generic.report_build import BuiltReports
from locoscore.generic.report_build import build_reports as build_folder_reports
from locoscore.generic.report_opening import failed_answers_line
from locoscore.generic.report_parts import EvidenceParts, ExampleParts, ReportParts
from locoscore.generic.scored_folder import Results
from locoscore.generic.scored_folder import load_results as load_folder
from locoscore.report.document import Block, Heading, Notes, Paragraph

# scores.csv: these first (those the rows have), then every other field sorted
CSV_LEADING_COLUMNS = (
    "sample_id",
    "qa_index",
    "category",
    "category_name",
    "question",
    "answer",
    "prediction",
    "f1_locomo",
    "f1_mem0",
    "bleu1_mem0",
    "f1_spec",
    "j_mean",
    "j_std",
    "j_runs",
    "j_failures",
    "j_protocol",
    "j_scores",
    "search_latency_s",
    "total_latency_s",
    "context_tokens",
)
LEXICAL_CAPTION = (
    "overall: each protocol's own convention (locomo, spec include adversarial; mem0 excludes it)"
)


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
        blocks += comparison_figure(ms, sample=a.sample_for(metric))
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
        blocks += comparison_figure(ms, protocol, a.sample_for(J))
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


REPORT = ReportParts(
    folder=PARTS,
    benchmark="LoCoMo",
    headline=(F1_LOCOMO.column, J.column),
    shown_scales="F1 and BLEU-1 are shown x100; J is 0-100.",
    unit_field="sample_id",
    unit_word="conversation",
    cluster_unit="conversation (sample_id)",
    intervals_caption="Bootstrap: 2,000 resamples of whole questions, seed 0. Clustered: CR1 "
    "standard error over conversations with a t interval (wide with 10 conversations).",
    includes_key="overall_includes_adversarial",
    csv_columns=CSV_LEADING_COLUMNS,
    latency_fields=("search_latency_s", "total_latency_s", "context_tokens"),
    comparison=comparison_blocks,
    examples=ExampleParts(
        F1_LOCOMO,
        "F1",
        (F1_LOCOMO.column, J.column),
        (
            ("lowest", "Lowest scores", "ties: the question with more evidence retrieved first"),
            (
                "disagreements",
                "Where official F1 and J disagree most",
                "largest |F1 x100 - J|: a right answer in other words, or a judge fooled by "
                "overlap",
            ),
            (
                "missed_with_evidence",
                "Lowest scores although the evidence was retrieved",
                "the answer step, not retrieval, lost these",
            ),
            ("highest", "Highest scores", "ties: the question with more evidence retrieved first"),
        ),
    ),
    evidence=EvidenceParts(
        "The share of each question's LoCoMo evidence turns (qa.evidence) among the items "
        "placed in the answer prompt, averaged over questions with evidence.",
        F1_LOCOMO,
        "Official F1 by whether the evidence was retrieved",
    ),
    view=errata_view_parts(ERRATA_TYPES),
)


def load_results(directory: Path) -> Results:
    """DIR/scores.jsonl and DIR/summary.json; bad input raises InputError naming the spot."""
    return load_folder(directory, PARTS)


def analyse(results: Results) -> Analysis:
    return analyse_folder(results, REPORT)


def build_reports(
    directory: Path,
    bench: ClaimedBenchmark,
    paper_columns: bool = False,
    svg_dir: Path | None = None,
    errata: Any | None = None,
    compare_anyway: bool = False,
) -> BuiltReports:
    """Every report file of a LoCoMo folder rebuilt (`generic.report_build`); `errata`
    (re)records the gold errata in summary.json, else those recorded earlier stand."""
    recorded = None if errata is None else {"errata": errata.summary_section()}
    return build_folder_reports(
        directory, bench, REPORT, paper_columns, svg_dir, recorded, compare_anyway
    )
