"""The report's run section, for folders written by `locoscore run`: how the predictions
were produced (signature, system, budgets, answer step), evidence recall by category, F1 by
whether the evidence was retrieved (`ReportParts.evidence`), and what ingestion and answering
cost. (Answer length,
shown for every folder, has its own section.)"""

from __future__ import annotations

from typing import Any

from locoscore.generic.folder_analysis import Analysis
from locoscore.generic.folder_parts import Groups
from locoscore.llm.endpoint import through_sentence
from locoscore.report.document import Block, Heading, Notes, Paragraph, Preformatted, Table
from locoscore.report.numbers import fmt
from locoscore.report.spend import answer_calls_phrase, attempts_phrase

_BUCKETS = {
    "all": "all evidence turns retrieved",
    "some": "some retrieved",
    "none": "none retrieved",
    "unknown": "unknown (no evidence listed, or the system gives no turn ids)",
}


def _groups(groups: Groups) -> list[tuple[str, str]]:
    return [(str(c), groups.names[c]) for c in groups.order] + [("overall", "overall")]


def _cost(value: Any) -> str:
    return "n/a" if value is None else f"${value:.4f}"


def _setup_blocks(run: dict[str, Any]) -> list[Block]:
    system = run.get("system") or {}
    answer = run.get("answer") or {}
    budget = (
        "not applicable (the whole conversation is in the prompt)"
        if system.get("ignores_budget")
        else f"not applicable (a reference system, the {system['reference']})"
        if system.get("reference")
        else f"top-k {run.get('top_k')}, context budget "
        + (
            f"{run['context_budget']} tokens ({run.get('tokenizer')})"
            if run.get("context_budget")
            else "none"
        )
    )
    if system.get("answers_itself"):
        answerer = "the system's own answer endpoint (not locoscore's answer step)"
    elif answer.get("provider") == "extractive":
        answerer = "extractive: the top retrieved item's text, no model"
    else:
        served = (answer.get("served") or {}).get("models") or []
        answerer = (
            f"{answer.get('provider')} / {answer.get('model')}"
            + (f" (the server said it served {', '.join(served)})" if served else "")
            + f", prompt {answer.get('prompt_name')}"
            f" (hash {answer.get('prompt_hash')}), {answer.get('sampling')}"
        )
        through = through_sentence(
            "answered", answer.get("endpoint"), bool((answer.get("served") or {}).get("fake"))
        )
        if through is not None:
            answerer += f"; {through}"
    notes = [
        f"System: {system.get('name')} with options {system.get('options') or 'default'}.",
        f"Retrieval budget: {budget}.",
        f"Answer step: {answerer}.",
        f"Dataset: {(run.get('dataset') or {}).get('version')} "
        f"(sha256 {(run.get('dataset') or {}).get('sha256')}); "
        f"{run.get('questions')} questions from {len(run.get('conversations') or [])} "
        "conversation(s).",
    ]
    measures = run.get("measures") or {}
    if measures.get("failed"):
        notes.append(
            f"{measures['failed']} question(s) failed and are scored as empty answers; "
            "rerun the same command to retry them."
        )
    notes.append(_probe_note(run.get("probe")))
    notes.extend(f"Warning: {w}" for w in run.get("warnings") or [])
    return [
        Heading("How these predictions were produced (locoscore run)"),
        Preformatted([str(run.get("signature"))]),
        Notes(notes),
    ]


def _probe_note(probe: Any) -> str:
    if not isinstance(probe, dict):
        return "Integration probe: skipped (--skip-probe)."
    if probe.get("skipped"):
        return f"Integration probe: not run; {probe['skipped']}."
    checks = probe.get("checks") or []
    searchable = probe.get("time_to_searchable_s")
    when = (
        "" if searchable is None else f"; a just-added fact was searchable after {searchable:.3f} s"
    )
    status = "passed" if probe.get("ok") else f"failed ({', '.join(probe.get('failed') or [])})"
    return f"Integration probe ({len(checks)} checks on a synthetic pair): {status}{when}."


def _by_category_table(
    groups: Groups, values: dict[str, Any], label: str, decimals: int, scale: float
) -> Table:
    rows = []
    for key, name in _groups(groups):
        cell = values.get(key) or {}
        mean, median = cell.get("mean"), cell.get("median")
        rows.append(
            [
                name,
                str(cell.get("n", 0)),
                fmt(None if mean is None else mean * scale, decimals),
                fmt(None if median is None else median * scale, decimals),
            ]
        )
    return Table(["Category", "n", f"{label} (mean)", f"{label} (median)"], rows,
                 numeric=(False, True, True, True))  # fmt: skip


def _embedding_tokens(totals: dict[str, Any]) -> str:
    tokens = int(totals.get("embedding_tokens") or 0)
    return f" + {tokens:,} embedding" if tokens else ""


def _concurrency_text(concurrency: Any) -> str:
    if not isinstance(concurrency, dict):
        return ""
    return (
        f"; {concurrency.get('initial')} in flight at the start ({concurrency.get('source')}),"
        f" {concurrency.get('peak_in_flight')} at most"
    )


def _cache_tokens(calls: dict[str, Any]) -> str:
    """The input tokens the provider's prompt cache served or stored (priced apart)."""
    read, written = calls.get("cache_read_tokens") or 0, calls.get("cache_write_tokens") or 0
    if not (read or written):
        return ""
    uncached = calls.get("uncached_input_tokens", 0)
    return f" (in: {uncached:,} uncached, {read:,} cache read, {written:,} cache write)"


def _cost_blocks(run: dict[str, Any]) -> list[Block]:
    totals = (run.get("ingestion") or {}).get("totals") or {}
    per_conv = totals.get("wall_s_per_conversation") or {}
    calls = run.get("answer_calls") or {}
    tokens = (run.get("measures") or {}).get("answer_tokens") or {}
    rows = [
        [
            "ingestion (the memory system)",
            f"{totals.get('wall_s', 0):.2f} s total, {fmt(per_conv.get('p50'), 2)} s p50 and "
            f"{fmt(per_conv.get('max'), 2)} s max per conversation",
            f"{totals.get('input_tokens', 0):,} / {totals.get('output_tokens', 0):,}"
            + _embedding_tokens(totals),
            str(totals.get("calls", 0)),
            _cost(totals.get("cost_usd")),
        ],
        [
            "answering (locoscore's answer step)",
            answer_calls_phrase(calls) + _concurrency_text(calls.get("concurrency")),
            f"{tokens.get('input', 0):,} / {tokens.get('output', 0):,}"
            + (" (usage: counted locally)" if calls.get("usage") == "counted locally" else "")
            + _cache_tokens(calls),
            str(calls.get("made", 0)),
            _cost(calls.get("cost_usd")),
        ],
    ]
    ingested = (run.get("ingestion") or {}).get("all_attempts") or {}
    if (ingested.get("earlier_attempts") or {}).get("attempts"):
        # Interrupted ingestions are redone: what they spent is paid all the same.
        rows.insert(
            1,
            [
                "ingestion, every attempt",
                f"{ingested.get('sessions', 0):,} sessions added{attempts_phrase(ingested)}",
                f"{ingested.get('input_tokens', 0):,} / {ingested.get('output_tokens', 0):,}",
                str(ingested.get("requests", 0)),
                _cost(ingested.get("cost_usd")),
            ],
        )
    return [
        Heading("What producing the predictions cost", 3),
        Table(
            ["Phase", "Time", "Tokens in / out", "Calls", "Cost (est.)"],
            rows,
            numeric=(False, False, True, True, True),
        ),
    ]


def run_blocks(a: Analysis) -> list[Block]:
    run = a.results.summary.get("run")
    if not isinstance(run, dict):
        return []
    measures = run.get("measures") or {}
    evidence = a.parts.evidence
    blocks = _setup_blocks(run)
    k = run.get("top_k") or "all"  # none: the whole conversation, or a reference system
    blocks += [
        Heading(f"Evidence recall@{k} by category", 3),
        Paragraph(evidence.described),
        _by_category_table(
            a.parts.folder.groups, measures.get("evidence_recall") or {}, "recall %", 1, 100.0
        ),
    ]
    by_evidence = measures.get("f1_by_evidence") or {}
    rows = [
        [label, str((by_evidence.get(key) or {}).get("n", 0)),
         fmt((by_evidence.get(key) or {}).get(evidence.metric.column), 1)]
        for key, label in _BUCKETS.items()
    ]  # fmt: skip
    blocks += [
        Heading(evidence.heading, 3),
        Table(
            ["Evidence in the prompt", "n", evidence.metric.label],
            rows,
            numeric=(False, True, True),
        ),
        *_cost_blocks(run),
    ]
    return blocks
