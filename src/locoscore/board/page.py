"""The board as report blocks (board.md, board.html) and as data (board.json)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from locoscore._version import __version__
from locoscore.board.entries import Entry, row_facts
from locoscore.board.gates import gate_names
from locoscore.board.groups import Group, Row, differing_aspects
from locoscore.board.identity import FULL_SET
from locoscore.report import charts
from locoscore.report.document import Banner, Block, Figure, Heading, Notes, Paragraph, Table
from locoscore.report.numbers import DASH, fmt, format_p
from locoscore.results.board_row import BoardCell, MetricColumn
from locoscore.stats import ALPHA

BOARD_SCHEMA_VERSION = 1
CHART_ROWS = 5  # rows drawn in a group's per-category chart
METHOD = (
    "Rows are ranked only within a comparable group: the same benchmark and data file, the "
    "same questions (full set or the same sample; all questions or a view of them such as "
    "the verified-gold questions), the same lexical protocols and, for J, the same judge "
    "signature. A group's headline is its benchmark's own (named in the group's title): J "
    "when it is judged, else its official metric; intervals are 95 % intervals over "
    "questions, as in each folder's report. 'vs leader' is the row minus the group's leader "
    "on the questions both answered, with the Wilcoxon signed-rank p of `locoscore compare`, "
    "Holm-adjusted across the group's rows; a row the test cannot tell from the leader at "
    f"{ALPHA:.0%} shares rank 1 with it (shown as =1), and equal headline means share a rank. "
    "Every score is shown 0-100 (a 0-1 metric x100). Every row passes `locoscore verify`'s "
    "gates at their defaults, or is marked ✗ with the gates it fails (FAIL ...), not ranked "
    "and never the leader. Reference systems are lines, not ranked: the retrieval ceiling "
    "(`gold-evidence`) above the ranked rows, the floor (`no-memory`) below."
)


def _cell_text(metric: MetricColumn, cell: BoardCell | None) -> str:
    if cell is None or cell.mean is None:
        return DASH
    d, low, high = metric.decimals, cell.low, cell.high
    interval = f" [{low:.{d}f}, {high:.{d}f}]" if low is not None and high is not None else ""
    return f"{cell.mean:.{d}f}{interval}"


def _overall(entry: Entry, metric: MetricColumn) -> BoardCell | None:
    found = entry.metric(metric)
    return None if found is None else found.overall


NOT_JUDGED = "not judged"
NO_JUDGE = "no judge"  # a benchmark scored without one (PersonaMem's letters)


def counted(n: int, noun: str) -> str:
    """`1 row`, `2 rows`: a count with its noun in the right number."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _rank(row: Row, group: Group | None = None) -> str:
    if row.reference is not None:
        return row.reference  # a floor or ceiling line, not ranked
    if row.failed_gates:
        return "✗"  # fails a claim gate: not ranked
    if group is not None and group.headline is None:
        return DASH  # no metric to rank by
    return f"={row.rank}" if row.tied else str(row.rank)


def _versus_text(group: Group, row: Row) -> str:
    if row.reference is not None:
        return f"reference: the {row.reference}, not ranked"
    if row.failed_gates:
        return f"not ranked: {gate_names(row.failed_gates)}"
    if row.versus is None:
        return "leader" if row is group.leader else "no shared questions"
    v, d = row.versus, group.headline.decimals if group.headline else 1
    verdict = "worse" if v.difference < 0 else "better"  # paired, so it can differ in sign
    verdict = "indistinguishable" if v.indistinguishable else verdict
    verdict = "order flips under another judge: neither is better" if row.flips else verdict
    interval = f"[{v.ci_low:+.{d}f}, {v.ci_high:+.{d}f}]"
    return f"{v.difference:+.{d}f} {interval}, p {format_p(v.p_holm)} ({verdict})"


def _seconds(pair: dict[str, Any]) -> str:
    p50, p95 = pair.get("p50"), pair.get("p95")
    if p50 is None or p95 is None:
        return DASH
    if p95 < 1:
        return f"{p50 * 1000:.1f} / {p95 * 1000:.1f} ms"
    return f"{p50:.2f} / {p95:.2f} s"


def _usd(value: float | None) -> str:
    """n/a: not priced (the folder's run.json says why)."""
    return "n/a" if value is None else f"${value:.2f}"


def _signature_text(signature: dict[str, Any]) -> list[str]:
    if "imported" in signature:
        source = signature["imported"]  # the file's format; a judged answers file names none
        return [f"imported ({source})" if source else "imported", DASH, DASH]
    budget = signature.get("budget")
    return [
        str(signature.get("answer") or DASH),
        str(signature.get("top_k") if signature.get("top_k") is not None else DASH),
        "none" if budget is None else str(budget),
    ]


def group_metrics(group: Group) -> list[MetricColumn]:
    """The headline first, then every other metric the group's rows have, in the order
    their benchmark gives them."""
    present = list(dict.fromkeys(m for r in group.rows for m in r.entry.metric_list()))
    order = {m: i for i, m in enumerate(present)}
    return sorted(present, key=lambda m: (m != group.headline, order[m]))


def _unjudged_table(group: Group, facts: list[dict[str, Any]]) -> Table:
    """A group with no metric (runs not judged yet): who answered what, J not judged."""
    headers = ["Rank", "System", "Folder", "Answer model", "top-k", "Budget", "J", "Answered"]
    rows = [
        [_rank(row, group), f["system"], row.entry.folder, *_signature_text(f["signature"]),
         NOT_JUDGED, f"{DASH if f['answered'] is None else f['answered']} of {f['questions']}"]
        for row, f in zip(group.rows, facts, strict=True)
    ]  # fmt: skip
    numeric = (True, False, False, False, True, False, False, True)
    return Table(headers, rows, numeric=numeric, subset=_subset(group))


def _scores_table(group: Group, facts: list[dict[str, Any]]) -> Table:
    metrics = group_metrics(group)
    if not metrics:
        return _unjudged_table(group, facts)
    headers = ["Rank", "System", "Folder", "Answer model", "top-k", "Budget"]
    headers += [metrics[0].label + " [95 % CI]", "vs leader [95 % CI], Holm p"]
    judge_columns = group.identity.takes_judge
    headers += [m.label for m in metrics[1:]]
    headers += ["J run-to-run ±", "Recorded J"] if judge_columns else []
    rows = []
    for row, f in zip(group.rows, facts, strict=True):
        cells = [_rank(row, group), f["system"], row.entry.folder]
        cells += _signature_text(f["signature"])
        cells += [_cell_text(metrics[0], _overall(row.entry, metrics[0]))]
        cells += [_versus_text(group, row)]
        cells += [_cell_text(m, _overall(row.entry, m)) for m in metrics[1:]]
        if judge_columns:
            cells += [fmt(f["judge_run_std"], 2), fmt(f["recorded_j"], 2)]
        rows.append(cells)
    numeric: tuple[bool, ...] = (True, False, False, False, True, False, True, False)
    numeric += (*(True for _ in metrics[1:]), *((True, True) if judge_columns else ()))
    highlight = frozenset(
        i for i, r in enumerate(group.rows) if r.rank == 1 and r.reference is None
    )
    return Table(headers, rows, highlight, numeric, subset=_subset(group))


def _costs_table(group: Group, facts: list[dict[str, Any]]) -> Table:
    headers = [
        "Rank", "System", "Folder", "Evidence recall %", "Context tokens", "Search p50 / p95",
        "Total p50 / p95", "Answer words", "Ingestion cost", "Answer cost", "Judge cost",
        "Questions", "Answered", "Failed",
    ]  # fmt: skip
    rows = []
    for row, f in zip(group.rows, facts, strict=True):
        recall = f["evidence_recall"]
        rows.append(
            [
                _rank(row, group),
                f["system"],
                row.entry.folder,
                fmt(None if recall is None else recall * 100, 1),
                fmt(f["context_tokens"], 0),
                _seconds(f["search_latency_s"]),
                _seconds(f["total_latency_s"]),
                fmt(f["answer_words"], 1),
                _usd(f["ingestion_cost_usd"]),
                _usd(f["answer_cost_usd"]),
                _usd(f["judge_cost_usd"])
                if f["judged"]
                else (NOT_JUDGED if f["takes_judge"] else NO_JUDGE),
                str(f["questions"]),
                DASH if f["answered"] is None else str(f["answered"]),
                DASH if f["failed"] is None else str(f["failed"]),
            ]
        )
    numeric = (True, False, False, *(True for _ in headers[3:]))
    return Table(headers, rows, numeric=numeric, subset=_subset(group))


def _label(row: Row, facts: dict[str, Any]) -> str:
    """A chart's name for a row: rank, system and the folder's last part (systems repeat)."""
    return f"{_rank(row)} {facts['system']} ({Path(row.entry.folder).name})"


def _subset(group: Group) -> str:
    """The sample a group's numbers come from ("" for the full question set)."""
    sample = group.identity.sample
    return "" if sample == FULL_SET else sample


def _category_chart(group: Group, facts: list[dict[str, Any]]) -> Figure | None:
    metric = group.headline
    if metric is None:
        return None
    top = list(zip(group.rows, facts, strict=True))[:CHART_ROWS]
    by_type = [found.by_type if (found := r.entry.metric(metric)) else {} for r, _ in top]
    keys = list(dict.fromkeys(k for types in by_type for k in types))
    if not keys:
        return None
    series = []
    for (row, f), types in zip(top, by_type, strict=True):
        cells = [types.get(k) or BoardCell(None) for k in keys]
        series.append(
            charts.BarSeries(
                _label(row, f),
                [c.mean for c in cells],
                [c.low for c in cells],
                [c.high for c in cells],
            )
        )
    # the benchmark's own word for its question groups (category, type, ability)
    word = top[0][0].entry.row.type_word
    title = f"{group.name}: {metric.label} by {word} (top {len(top)}, 95 % CI)"
    svg = charts.grouped_bar_chart(title, keys, series, metric.label, y_max=100)
    return Figure(f"board-group{group.number}-categories", title, svg)


def _cost_chart(group: Group, facts: list[dict[str, Any]]) -> Figure | None:
    metric = group.headline
    if metric is None:
        return None
    costs = [
        None if f["ingestion_cost_usd"] is None or f["answer_cost_usd"] is None
        else f["ingestion_cost_usd"] + f["answer_cost_usd"]
        for f in facts
    ]  # fmt: skip
    # all-zero costs (no priced call anywhere) would stack every dot at 0: use the proxy
    if all(c is not None for c in costs) and any(costs):
        xs, x_label = costs, "cost in USD (ingestion + answers)"
    else:
        xs = [f["context_tokens"] for f in facts]
        known = all(c is not None for c in costs)
        why = "no row made a priced call" if known else "a row's dollar cost is not recorded"
        x_label = f"context tokens per question ({why})"
    points = [
        charts.Point(_label(r, f), float(x), mean)
        for r, f, x in zip(group.rows, facts, xs, strict=True)
        if x is not None and (mean := r.entry.mean(metric)) is not None
    ]
    if not points:
        return None
    title = f"{group.name}: {metric.label} against cost"
    svg = charts.scatter_chart(title, points, x_label, metric.label, y_max=100)
    caption = "Dashed line: the frontier (no other row is both cheaper and better)."
    return Figure(f"board-group{group.number}-cost", title, svg, caption)


def group_title(group: Group) -> str:
    ident = group.identity
    parts = dict(part.partition(":")[::2] for part in (ident.judge or "").split("|"))
    scored = (
        f"judged {parts.get('judge', '?')} by {parts.get('model', '?')}"
        if ident.judge
        else "not judged"
        if ident.takes_judge
        else "scored without a judge"
    )
    ranked = f"ranked by {group.headline.label}" if group.headline else "not ranked"
    return f"{group.name}: {ident.benchmark}, {ident.sample}, {ident.view}; {scored}; {ranked}"


def board_blocks(title: str, groups: list[Group], folders: list[str]) -> list[Block]:
    rows = sum(len(g.rows) for g in groups)
    blocks: list[Block] = [
        Heading(title, 1),
        Paragraph(
            f"{counted(len(folders), 'results folder')}, {counted(rows, 'row')} in "
            f"{counted(len(groups), 'comparable group')}."
        ),
        Paragraph(METHOD),
    ]
    differ = differing_aspects(groups)
    if differ:
        blocks += [
            Heading("How the groups differ"),
            Paragraph(
                "Rows of different groups are never ranked against each other. The groups "
                "differ in: " + ", ".join(differ) + "."
            ),
            Table(
                ["Group", "Rows", *differ],
                [
                    [g.name, str(len(g.rows)), *(g.identity.aspects()[a] for a in differ)]
                    for g in groups
                ],
            ),
        ]
    for group in groups:
        facts = [row_facts(r.entry) for r in group.rows]
        blocks.append(Heading(group_title(group)))
        if subset := _subset(group):
            blocks.append(
                Banner(
                    f"{group.name} is a sample of the questions ({subset}): its numbers are a "
                    "smoke test, not the full benchmark, and are never ranked against it."
                )
            )
        blocks += [
            Notes([f"{name}: {value}" for name, value in group.identity.aspects().items()]),
            Heading("Scores", 3),
            _scores_table(group, facts),
            Heading("Cost and speed", 3),
            _costs_table(group, facts),
        ]
        blocks += [f for f in (_category_chart(group, facts), _cost_chart(group, facts)) if f]
    return blocks


def _row_json(group: Group, row: Row) -> dict[str, Any]:
    entry: Entry = row.entry
    v = row.versus
    return {
        "rank": row.rank,
        "tied": row.tied,
        "reference": row.reference,
        "gates": {"pass": not row.failed_gates, "failed": list(row.failed_gates)},
        "order_flips": row.flips,
        "folder": entry.folder,
        **row_facts(entry),
        "metrics": entry.metrics,
        "versus_leader": None
        if v is None
        else {
            "metric": group.headline.key if group.headline else None,
            "n": v.n,
            "difference": v.difference,
            "ci95_bootstrap": {"low": v.ci_low, "high": v.ci_high},
            "wilcoxon_p": v.p,
            "holm_p": v.p_holm,
            "indistinguishable": v.indistinguishable,
        },
    }


def board_json(title: str, groups: list[Group], folders: list[str]) -> dict[str, Any]:
    return {
        "board_schema_version": BOARD_SCHEMA_VERSION,
        "built_by": f"locoscore {__version__}",
        "title": title,
        "method": {
            "text": METHOD,
            "versus_leader": "paired Wilcoxon signed-rank on the questions both answered",
            "correction": "holm",
            "alpha": ALPHA,
            "scale": "every score 0-100 (a 0-1 metric x100)",
        },
        "folders": folders,
        "groups_differ_in": differing_aspects(groups),
        "groups": [
            {
                "group": g.number,
                "identity": g.identity.to_json(),
                "aspects": g.identity.aspects(),
                "headline": g.headline.key if g.headline else None,
                "rows": [_row_json(g, r) for r in g.rows],
            }
            for g in groups
        ],
    }
