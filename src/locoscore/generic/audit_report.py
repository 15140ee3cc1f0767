"""A judge audit's outputs: audit.json, audit.md and audit.html (self-contained, escaped),
from the pass over the benchmark's probe sets and its declared parts (`AuditParts`).

Everything is computed before anything is written; each file is replaced atomically.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from locoscore._io import dumps_json, write_text_atomic
from locoscore._version import __version__
from locoscore.data.sample import QuestionSample, with_sample
from locoscore.generic.audit_stats import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    AuditParts,
    ProbeSet,
    placement,
    placement_sentence,
    rows_by_key,
    set_statistics,
    summary_line,
)
from locoscore.generic.judged_records import calls_and_usage
from locoscore.judge.engine import PassResult
from locoscore.judge.settings import ResolvedJudge
from locoscore.llm.endpoint import Served, served_note, through_sentence
from locoscore.report.document import (
    Banner,
    Block,
    Heading,
    Notes,
    Paragraph,
    Preformatted,
    Table,
)
from locoscore.report.html import render_html
from locoscore.report.markdown import render_markdown
from locoscore.report.spend import judge_calls_line
from locoscore.results.layout import AUDIT_HTML, AUDIT_JSON, AUDIT_MD

SCHEMA_VERSION = 1
DASH = "–"
FAKE_LIMIT = "Run against locoscore's fake provider: the numbers say nothing about a real model."


def _judge_section(
    judge: ResolvedJudge, served: Served, sample: QuestionSample | None
) -> dict[str, Any]:
    described = judge.describe(served)
    signature = with_sample(described["signature"], sample)
    return {**described, "signature": signature, "max_tokens": judge.settings.max_tokens}


def acceptance_rule(protocol: str, threshold: float) -> dict[str, Any]:
    if protocol == "binary":
        return {"accepted_when": "label CORRECT (score 100)", "threshold": None}
    return {"accepted_when": f"score >= {threshold:g}", "threshold": threshold}


def audit_document(
    sets: Sequence[ProbeSet],
    result: PassResult,
    dataset: dict[str, Any],
    threshold: float,
    parts: AuditParts,
    sample: QuestionSample | None = None,
) -> dict[str, Any]:
    """The content of audit.json; `dataset`: the data file's path and sha256; with a
    `sample` (--limit), its rates are a subset's."""
    assert result.run is not None
    judge = result.judge
    by_key = rows_by_key(result.run.rows, judge.settings.runs)
    stats_sets = [set_statistics(s, by_key, judge, threshold, parts) for s in sets]
    line = summary_line(stats_sets)
    if sample is not None:
        line += f" (on {sample.describe()}, not the full set)"
    document: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "built_by": f"locoscore {__version__}",
        "summary_line": line,
        "sample": None if sample is None else sample.to_json(),
        "judge": _judge_section(judge, result.run.served, sample),
        "acceptance_rule": acceptance_rule(judge.protocol, threshold),
        "scale": "acceptance in % of answers (per question: share of its successful runs)",
        "intervals": {
            "level": 0.95,
            "method": "percentile bootstrap of the mean over questions",
            "resamples": BOOTSTRAP_RESAMPLES,
            "seed": BOOTSTRAP_SEED,
            "run_level": "mean and sample std (n-1) of each repeat index's acceptance",
        },
        "dataset": dataset,
        "probe_sets": stats_sets,
        "placement": placement(stats_sets),
        **calls_and_usage(result.run.stats),
    }
    if document["usage"]["estimated_cost_usd"] is None:  # n/a with its reason, never $0
        document["usage"]["cost_unknown_reason"] = result.run.cost_unknown_reason or "no price"
    mismatch = served_note(judge.model, result.run.served, judge.endpoint, "judge")
    document["warnings"] = [mismatch] if mismatch else []
    if result.run.stop_reason:
        document["stopped"] = result.run.stop_reason
    return document


def _pct(value: float | None, std: float | None = None) -> str:
    if value is None:
        return DASH
    return f"{value:.1f}" + ("" if std is None else f" ± {std:.1f}")


def _ci(cell: dict[str, Any]) -> str:
    ci = cell.get("ci95") or {}
    if ci.get("low") is None:
        return DASH
    return f"[{ci['low']:.1f}, {ci['high']:.1f}]"


def _recorded(section: dict[str, Any], cid: str | None = None) -> str:
    recorded = section.get("recorded")
    if not recorded:
        return DASH
    cell = recorded["overall"] if cid is None else recorded["by_category"].get(cid)
    return DASH if not cell else _pct(cell.get("mean"), cell.get("std"))


def _reference(section: dict[str, Any], cid: str | None = None) -> str:
    reference = section.get("reference")
    if not reference:
        return DASH
    value = reference["overall"] if cid is None else reference["by_category"].get(cid)
    return _pct(value)


def _should(section: dict[str, Any]) -> str:
    return {"accept": "accept", "reject": "reject"}.get(section["expect"], "(your system)")


def overview_table(
    sets: Sequence[dict[str, Any]], parts: AuditParts, sample: dict[str, Any] | None = None
) -> Table:
    rows = []
    for s in sets:
        cell = s["acceptance"]["overall"]
        run = cell["run_level"]
        error = s.get("false_reject_rate", s.get("false_accept_rate"))
        label = {"accept": "false reject", "reject": "false accept"}.get(s["expect"] or "")
        rows.append(
            [
                s["name"],
                _should(s),
                str(cell["n"]),
                _pct(cell["rate"]),
                _ci(cell),
                _pct(run["mean"], run["std"]),
                DASH if label is None else f"{label} {_pct(error)}",
                _recorded(s),
                _reference(s),
            ]
        )
    headers = [
        "Probe set",
        "Should",
        "n",
        "Accepted %",
        "95 % CI (questions)",
        "Run-level ± (judge noise)",
        "Error rate %",
        "Recorded in the file %",
        "Published reference %" + ("" if sample is None else " (full set)"),
    ]
    caption = parts.reference_caption
    if sample is not None:
        caption += (
            f" Every rate of this audit (recorded ones included) is on the sample of "
            f"{sample['size']:,} questions; the published reference is over the whole probe set."
        )
    return Table(
        headers,
        rows,
        numeric=(False, False, True, True, False, True, False, True, True),
        caption=caption,
        subset="" if sample is None else str(sample["signature"]),
    )


def category_table(
    sets: Sequence[dict[str, Any]], parts: AuditParts, sample: dict[str, Any] | None = None
) -> Table:
    rows = []
    for s in sets:
        cells: list[str] = []
        for cid in parts.probed:
            cell = s["acceptance"]["by_category"].get(str(cid))
            cells.append(DASH if cell is None else f"{_pct(cell['rate'])} {_ci(cell)}")
        overall = s["acceptance"]["overall"]
        rows.append([s["name"], *cells, f"{_pct(overall['rate'])} {_ci(overall)}"])
        if s.get("reference"):
            refs = [_reference(s, str(cid)) for cid in parts.probed]
            label = "published reference" + ("" if sample is None else ", full set")
            rows.append([f"{s['name']} ({label})", *refs, _reference(s)])
    headers = ["Probe set", *(parts.groups.names[c] for c in parts.probed), "overall"]
    return Table(
        headers,
        rows,
        numeric=(False, *(True for _ in range(len(parts.probed) + 1))),
        subset="" if sample is None else str(sample["signature"]),
    )


def distribution_table(sets: Sequence[dict[str, Any]]) -> Table:
    bins = next(s["scores"]["histogram"]["bins"] for s in sets if s.get("scores"))
    rows = []
    for s in sets:
        scores = s.get("scores")
        if not scores:
            continue
        deciles = ", ".join(
            DASH if d is None else f"{d:g}" for d in scores["question_mean_deciles"]
        )
        rows.append(
            [
                s["name"],
                _pct(scores["mean_score"]),
                *(str(c) for c in scores["histogram"]["counts"]),
                deciles,
            ]
        )
    headers = ["Probe set", "mean score", *bins, "deciles of per-question mean"]
    return Table(headers, rows, numeric=(False, *(True for _ in range(11)), False))


def _examples_blocks(sets: Sequence[dict[str, Any]], parts: AuditParts) -> list[Block]:
    blocks: list[Block] = []
    for s in sets:
        if not s["examples"]:
            continue
        what = "Gold answers rejected" if s["expect"] == "accept" else "Wrong answers accepted"
        rows = [
            [
                e["question_id"],
                parts.groups.names[e["category"]],
                e["question"],
                str(e["gold"]),
                e["answer"],
                f"{100 * e['accepted_share']:.0f} %",
            ]
            for e in s["examples"]
        ]
        headers = ["Question id", "Category", "Question", "Gold", "Answer judged", "Accepted"]
        blocks += [
            Heading(f"{what}: {s['name']}", 3),
            Table(headers, rows, numeric=(False,) * 5 + (True,)),
        ]
    return blocks


def audit_blocks(document: dict[str, Any], parts: AuditParts) -> list[Block]:
    sets = document["probe_sets"]
    judge = document["judge"]
    rule = document["acceptance_rule"]["accepted_when"].replace(">=", "≥")
    fake = bool((judge.get("served") or {}).get("fake"))
    through = through_sentence("Judged", judge.get("endpoint"), fake)
    sample = document.get("sample")
    banner: list[Block] = []
    if sample:
        banner.append(
            Banner(
                f"Subset: every rate below comes from a sample of {sample['size']:,} of "
                f"{sample['population']:,} questions ({sample['signature']}), the same "
                "questions in every probe set: a smoke test of the judge, not its audit."
            )
        )
    blocks: list[Block] = [
        Heading("Judge audit: how lenient is this judge?", 1),
        *banner,
        Paragraph(document["summary_line"] + "."),
        *([Paragraph(through + ".")] if through else []),
        *(Paragraph(f"Warning: {w}.") for w in document.get("warnings") or []),
        Paragraph(
            f"Judge: {judge['protocol']} protocol, {judge['provider']} {judge['model']}, "
            f"temperature {judge['temperature']}, {judge['runs']} run(s) per answer, prompt "
            f"{judge['prompt_name']} ({judge['prompt_hash']}). An answer counts as accepted "
            f"when {rule}. 95 % intervals: percentile bootstrap over questions (2,000 "
            "resamples, seed 0); run-level ±: sample std across repeat indices."
        ),
        Paragraph(judge_calls_line(document["calls"], document["usage"], "Calls") + "."),
        Heading("Acceptance per probe set"),
        overview_table(sets, parts, sample),
        *(
            [Paragraph(placement_sentence(document["placement"]))]
            if document.get("placement")
            else []
        ),
        Heading("Per category (accepted % [95 % CI])"),
        category_table(sets, parts, sample),
    ]
    if any(s.get("scores") for s in sets):
        blocks += [
            Heading("Rubric score distribution (every run, 10-point bins)"),
            distribution_table(sets),
        ]
    if document.get("stopped"):
        blocks.append(Paragraph(f"Stopped early: {document['stopped']}; rerun to complete."))
    examples = _examples_blocks(sets, parts)
    if examples:
        blocks += [Heading("Where the judge went wrong (first few)"), *examples]
    blocks += [
        Heading("What this audit measures, and what it cannot"),
        Notes([*parts.limits, *([FAKE_LIMIT] if fake else [])]),
        Heading("Judge signature"),
        Preformatted([judge["signature"]]),
    ]
    return blocks


def write_audit(out_dir: Path, document: dict[str, Any], parts: AuditParts) -> list[Path]:
    blocks = audit_blocks(document, parts)
    texts = {
        out_dir / AUDIT_JSON: dumps_json(document),
        out_dir / AUDIT_MD: render_markdown(blocks),
        out_dir / AUDIT_HTML: render_html(blocks, parts.title),
    }
    for path, text in texts.items():
        write_text_atomic(path, text)
    return list(texts)
