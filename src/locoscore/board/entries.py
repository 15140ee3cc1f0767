"""One board entry per results folder and view: its numbers, identity and the facts a row shows.

The numbers are the rows the folder's benchmark reads for the board (`Benchmark.board_rows`):
one per view of its questions (all of them, and any subset its own report gives, such as
the questions whose gold stands), with its own metrics and intervals. The board reads
nothing of a benchmark besides those rows and the folder's summary.json.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from locoscore.benchmarks import get_benchmark, recorded_benchmark
from locoscore.board.identity import Identity, identity_of
from locoscore.results.board_row import (
    BoardCell,
    BoardMetric,
    BoardRow,
    MetricColumn,
    RowFigures,
    dig,
    read_summary,
)


@dataclass(frozen=True)
class Entry:
    folder: str  # the results folder, as given on the command line (or found under it)
    summary: dict[str, Any]
    identity: Identity
    row: BoardRow
    figures: RowFigures

    @property
    def reference(self) -> str | None:
        """A reference system's role ("floor": `no-memory`, "retrieval ceiling":
        `gold-evidence`), as its run records it; None for a system under test."""
        role = dig(self.summary, "run", "system", "reference")
        return role if isinstance(role, str) and role else None

    def metric_list(self) -> list[MetricColumn]:
        """The metrics the row has, its headline first."""
        return [m.column for m in self.row.metrics]

    def headline(self) -> MetricColumn | None:
        headline = self.row.headline
        return None if headline is None else headline.column

    def metric(self, column: MetricColumn) -> BoardMetric | None:
        return next((m for m in self.row.metrics if m.key == column.key), None)

    def mean(self, column: MetricColumn) -> float | None:
        metric = self.metric(column)
        value = None if metric is None else metric.overall.mean
        return float(value) if isinstance(value, int | float) else None

    @property
    def metrics(self) -> dict[str, Any]:
        """The row's metrics as board.json shows them: as the folder's report records them,
        else `{key: {overall, by_category}}` built from the row."""
        if self.row.recorded_metrics is not None:
            return self.row.recorded_metrics
        return {
            m.key: {
                "overall": _cell_json(m.overall),
                "by_category": {t: _cell_json(c) for t, c in m.by_type.items()},
            }
            for m in self.row.metrics
        }


def _cell_json(c: BoardCell) -> dict[str, Any]:
    interval = None if c.low is None or c.high is None else {"low": c.low, "high": c.high}
    return {"mean": c.mean, "ci95": interval, "n": c.n}


def measured_figures(summary: dict[str, Any]) -> RowFigures:
    """The speed and length figures a run recorded in summary.json (`run.measures`)."""
    measures = dig(summary, "run", "measures") or {}
    latency = dig(measures, "latency") or {}
    return RowFigures(
        dig(measures, "context_tokens", "mean"),
        (dig(latency, "search_latency_s", "p50"), dig(latency, "search_latency_s", "p95")),
        (dig(latency, "total_latency_s", "p50"), dig(latency, "total_latency_s", "p95")),
        dig(measures, "answer_words", "overall", "mean"),
    )


def system_name(summary: dict[str, Any]) -> str:
    name = dig(summary, "run", "system", "name")
    if isinstance(name, str):
        return name
    source = dig(summary, "input", "path")
    fmt = dig(summary, "input", "format") or "predictions"
    return f"{fmt}: {Path(source).name}" if isinstance(source, str) else str(fmt)


def system_signature(summary: dict[str, Any]) -> dict[str, Any]:
    """Answer model, top-k and context budget of a `locoscore run` folder (imported files
    name only their format)."""
    run = dig(summary, "run")
    if not isinstance(run, dict):
        return {"imported": dig(summary, "input", "format")}
    answer = dig(run, "answer") or {}
    return {
        "answer": answer.get("model") or answer.get("provider"),
        "top_k": run.get("top_k"),
        "budget": run.get("context_budget"),
        "options": dig(run, "system", "options"),
    }


def _cost(summary: dict[str, Any], *path: str) -> float | None:
    """A recorded cost; 0 where the stage made no priced call at all."""
    section = dig(summary, *path)
    if not isinstance(section, dict):
        return None
    cost = section.get("cost_usd")
    usage = section.get("usage")
    if cost is None and isinstance(usage, dict):  # a judge section: cost under `usage`
        cost = usage.get("estimated_cost_usd")
    if isinstance(cost, int | float):
        return float(cost)
    calls = section.get("calls", section.get("made"))
    return 0.0 if calls == 0 else None


def _pair(values: tuple[float | None, float | None]) -> dict[str, float | None]:
    return dict(zip(("p50", "p95"), values, strict=True))


def row_facts(entry: Entry) -> dict[str, Any]:
    """Everything a row shows beside its metrics, as plain JSON values (None = not recorded)."""
    s, row, figures = entry.summary, entry.row, entry.figures
    measures = dig(s, "run", "measures") or {}
    return {
        "system": system_name(s),
        "signature": system_signature(s),
        "run_signature": dig(s, "run", "signature"),
        "judge_run_std": row.judge_run_std,
        "recorded_j": row.recorded_j,
        "evidence_recall": dig(measures, "evidence_recall", "overall", "mean"),
        "context_tokens": figures.context_tokens,
        "search_latency_s": _pair(figures.search_latency_s),
        "total_latency_s": _pair(figures.total_latency_s),
        "answer_words": figures.answer_words,
        "ingestion_cost_usd": _cost(s, "run", "ingestion", "totals"),
        "answer_cost_usd": _cost(s, "run", "answer_calls"),
        "judged": isinstance(s.get("judge"), dict),
        "takes_judge": entry.identity.takes_judge,
        "judge_cost_usd": _cost(s, "judge"),
        "questions": entry.identity.questions,
        "answered": row.answered,
        "failed": row.failed,
    }


def folder_entries(folder: Path, given_as: str) -> list[Entry]:
    """The entries of one results folder, one per row its benchmark reads (the registry
    names the benchmark a folder records, or the default for one that records none). Bad
    input raises InputError naming the file."""
    benchmark = get_benchmark(recorded_benchmark(folder))
    rows = benchmark.board_rows(folder)
    summary = read_summary(folder)
    return [
        Entry(
            given_as,
            summary,
            identity_of(benchmark.name, summary, row, "judge" in benchmark.commands),
            row,
            row.figures or measured_figures(summary),
        )
        for row in rows
    ]
