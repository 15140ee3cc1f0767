"""The BEAM report: the headline (both overalls with intervals), the ten abilities, evidence
recall, answer length, cost, the data's anomalies and the published numbers as cited, each
labelled with its scoring variant (they are not comparable with one another, nor with
this run unless the variant matches)."""

from __future__ import annotations

from typing import Any

from locoscore.benchmarks.beam.baselines import PUBLISHED, SIZES
from locoscore.benchmarks.beam.data import ABILITIES
from locoscore.llm.endpoint import through_sentence
from locoscore.report.document import Banner, Block, Heading, Notes, Paragraph, Preformatted, Table
from locoscore.report.files import report_texts
from locoscore.results.folder import answered_by

ABILITY_NAMES = {
    a: a.replace("_", " ").replace("multi session", "multi-session") for a in ABILITIES
}


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}"


def _ci(pair: list[float] | None) -> str:
    """A normal interval clipped to the score's range [0, 1] (small n can overshoot it)."""
    if not pair:
        return ""
    low, high = max(0.0, pair[0]), min(1.0, pair[1])
    return f"[{100 * low:.1f}, {100 * high:.1f}]"


def _count(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {n}" for k, n in value.items()) or "0"
    return str(value)


def _title(summary: dict[str, Any]) -> str:
    return f"{answered_by(summary.get('run'), 'predictions')} on BEAM {summary['data']['size']}"


def _seconds(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"{1000 * value:.0f} ms" if value < 1 else f"{value:.2f} s"


def _run_costs(run: dict[str, Any]) -> list[Block]:
    """Latency (p50/p95), context tokens and the answer step's calls and cost."""
    measures = run.get("measures") or {}
    latency = measures.get("latency") or {}
    rows = []
    for name in ("search_latency_s", "answer_latency_s", "total_latency_s"):
        stats = latency.get(name)
        if stats:
            label = name.removesuffix("_s").replace("_", " ")
            rows.append(
                [label, str(stats["count"]), _seconds(stats["p50"]), _seconds(stats["p95"])]
            )
    tokens = measures.get("context_tokens")
    if tokens:
        rows.append(
            ["context tokens", str(tokens["count"]), f"{tokens['p50']:.0f}", f"{tokens['p95']:.0f}"]
        )
    calls = run.get("answer_calls") or {}
    cost = calls.get("cost_usd")
    return [
        Table(["measure", "n", "p50", "p95"], rows, numeric=(False, True, True, True)),
        Paragraph(
            f"Answer calls: {calls.get('made', 0)} made, {calls.get('cached', 0)} cached; "
            f"cost {'n/a' if cost is None else f'${cost:.2f}'}."
        ),
    ]


def blocks(summary: dict[str, Any]) -> list[Block]:
    judge = summary.get("judge")
    run = summary.get("run") or {}
    data = summary["data"]
    from locoscore.claim.render import card_blocks

    out: list[Block] = [Heading(_title(summary), 1), *card_blocks(summary.get("claim"))]
    if judge is None:
        out.append(
            Paragraph("Not judged yet: run `locoscore judge --benchmark beam` on this folder.")
        )
    else:
        headline = [
            f"Mean of the ten abilities: {_pct(judge['mean_of_abilities'])} "
            f"(the paper's overall), question-weighted: {_pct(judge['question_weighted'])} "
            f"{_ci(judge.get('question_weighted_ci95'))} {_over(judge)}",
            f"{judge['missing']} question(s) without an answer count as 0; "
            f"{judge['unscored']} left unscored by failed judge calls",
            f"judge noise: run-level std {_pct(judge.get('run_std'))} over {judge['runs']} runs",
        ]
        cost = judge.get("cost_usd")
        calls = judge["calls"]
        headline.append(
            f"judge calls: {calls['made']} made, {calls['cached']} cached, {calls['failed']} "
            f"failed; cost {'n/a' if cost is None else f'${cost:.2f}'}"
        )
        if isinstance(sample := judge.get("sample"), dict):
            out.append(
                Banner(
                    f"Scores come from a sample of {sample['size']:,} of "
                    f"{sample['population']:,} questions ({sample['signature']}), not the "
                    "full benchmark."
                )
            )
        judged = through_sentence(
            "judged", judge.get("endpoint"), bool((judge.get("served") or {}).get("fake"))
        )
        answer: dict[str, Any] = run.get("answer") or {}
        answered = through_sentence(
            "answered", answer.get("endpoint"), bool((answer.get("served") or {}).get("fake"))
        )
        headline += [line for line in (answered, judged) if line]
        headline += list(judge.get("warnings") or [])
        out += [Notes(headline), Preformatted([judge["signature"]])]
        if judge["protocol"] == "beam-official":
            out.append(
                Paragraph(
                    "Scored as the official code does (each 0.5 truncated to 0, the question "
                    "withheld from the judge): for comparison with the paper only."
                )
            )
        table_rows = []
        for ability in ABILITIES:
            entry = judge["per_ability"].get(ability)
            if entry is None:
                table_rows.append([ABILITY_NAMES[ability], "0", "n/a", ""])
                continue
            table_rows.append(
                [ABILITY_NAMES[ability], str(entry["n"]), _pct(entry["mean"]), _ci(entry["ci95"])]
            )
        out += [
            Heading("Abilities"),
            Table(
                ["ability", "n", "score", "95% CI"],
                table_rows,
                numeric=(False, True, True, False),
                caption="Event ordering: Kendall τ-b normalised to (τ + 1) / 2.",
                subset=str((judge.get("sample") or {}).get("signature") or ""),
            ),
            Paragraph(
                "Event ordering, matched-item F1 (beside τ, as the official code computes it): "
                f"{_pct(judge.get('event_ordering_matched_f1'))}"
            ),
        ]
    recall = summary.get("evidence_recall")
    if recall:
        ks = sorted(recall, key=lambda k: int(k.lstrip("@")))
        rows_ = [
            [ABILITY_NAMES[a], *(_pct(recall[k]["per_ability"].get(a)) for k in ks)]
            for a in ABILITIES
        ]
        rows_.append(["overall", *(_pct(recall[k]["overall"]) for k in ks)])
        out += [
            Heading("Evidence recall on source_chat_ids"),
            Table(["ability", *(f"recall{k}" for k in ks)], rows_),
        ]
    words = (summary.get("answer_words") or {}).get("mean")
    if run:
        out += [
            Heading("Run"),
            Preformatted([str(run.get("signature", ""))]),
            Paragraph(f"Mean answer length: {'n/a' if words is None else f'{words:.1f} words'}."),
            *_run_costs(run),
        ]
    out += [
        Heading("Data"),
        Paragraph(
            f"{data['path']} ({data['size']}; {data['conversations']} conversations, "
            f"{data['questions']} questions; {data['conversation_file']}); "
            f"sha256 {data['sha256'][:12]}. The default answer prompt gives the reader the "
            "current date (the last session's anchor), which the official baselines omit."
        ),
        Notes([f"{k.replace('_', ' ')}: {_count(v)}" for k, v in data["anomalies"].items()]),
        Heading("Published numbers (as cited; each under its own scoring variant)"),
        Table(
            ["system", "scoring", "source", "100K", "500K", "1M", "10M"],
            [
                [row.system, row.scoring, row.source, *(_pct(row.by_size.get(s)) for s in SIZES)]
                for row in PUBLISHED
            ],
            caption="Not ranked against this run: the scoring variants differ.",
        ),
    ]
    return out


def report_files(summary: dict[str, Any]) -> dict[str, str]:
    return report_texts(blocks(summary), _title(summary))


def _over(judge: dict[str, Any]) -> str:
    """The count the headline is over: a question left unscored by failed judge calls is
    not in it, and the line says so rather than claim every question."""
    questions, unscored = int(judge["questions"]), int(judge.get("unscored") or 0)
    if not unscored:
        return f"over {questions} questions"
    return f"over {questions - unscored} of {questions} questions ({unscored} without a verdict)"
