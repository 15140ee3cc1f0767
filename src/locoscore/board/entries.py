"""One board entry per results folder and view: its numbers, identity and the facts a row shows.

The numbers are the folder's report statistics, computed by the code that writes
summary.json's `report` section (`report.build.statistics_section`), so a board row always
equals the folder's own report. A folder whose summary.json records gold errata also gives a
second entry, on the questions whose gold stands (the verified-gold view). A folder whose
benchmark reads it for the board (`Benchmark.board_row`) gives one entry
with that benchmark's own metrics and intervals, as its summary.json records them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from locoscore.benchmarks import get_benchmark, recorded_benchmark
from locoscore.board.identity import (
    ALL_QUESTIONS,
    SHA_SHOWN,
    Identity,
    identity_of,
    own_identity,
)
from locoscore.errors import InputError
from locoscore.report import analysis as an
from locoscore.report.build import statistics_section
from locoscore.report.load import Results, load_results
from locoscore.report.metrics import METRICS, Metric
from locoscore.report.recorded_judge import recorded_judge
from locoscore.results.board_row import BoardCell, BoardRow, read_summary
from locoscore.results.layout import SUMMARY


@dataclass(frozen=True)
class Entry:
    folder: str  # the results folder, as given on the command line (or found under it)
    results: Results
    identity: Identity
    metrics: dict[str, Any]  # the `report.metrics` schema of summary.json for this view
    statistics: dict[str, Any]  # the whole `report` section (latency, judge, lengths)
    keep: Callable[[dict[str, Any]], bool] | None  # the view's question filter
    own: BoardRow | None = None  # the row its benchmark read (then `results.rows` is empty)

    @property
    def summary(self) -> dict[str, Any]:
        return self.results.summary

    def metric_list(self) -> list[Metric]:
        """The metrics the row has: its benchmark's (headline first), else METRICS order."""
        if self.own is not None:
            return [own_metric(m.key, m.label) for m in self.own.metrics]
        return [m for m in METRICS if m.column in self.metrics]

    def headline(self) -> Metric | None:
        """The benchmark's own headline; else J when judged, else the first lexical metric
        the folder has (METRICS order)."""
        present = self.metric_list()
        if self.own is not None:
            return present[0] if present else None
        judged = [m for m in present if m.is_judge]
        ranked = judged or present
        return ranked[0] if ranked else None

    def mean(self, metric: Metric) -> float | None:
        cell = (self.metrics.get(metric.column) or {}).get("overall") or {}
        value = cell.get("mean")
        return float(value) if isinstance(value, int | float) else None


def own_metric(key: str, label: str) -> Metric:
    """A benchmark's own metric as the page's tables and charts take it (0-100)."""
    return Metric(key, label, "judge", 1.0, False, None, decimals=2)


def _cell_json(c: BoardCell) -> dict[str, Any]:
    interval = None if c.low is None or c.high is None else {"low": c.low, "high": c.high}
    return {"mean": c.mean, "ci95": interval, "n": c.n}


def _own_entry(folder: Path, given_as: str, benchmark: str, row: BoardRow) -> Entry:
    summary = read_summary(folder)
    measures = _get(summary, "run", "measures") or {}
    latency = dict(_get(measures, "latency") or {})
    latency["context_tokens"] = _get(measures, "context_tokens")
    statistics = {
        "latency": latency,
        "judge": {"run_level_std": row.judge_run_std},
        "answer_length": {"overall": _get(measures, "answer_words", "overall")},
    }
    metrics = {
        m.key: {
            "overall": _cell_json(m.overall),
            "by_category": {t: _cell_json(c) for t, c in m.by_type.items()},
        }
        for m in row.metrics
    }
    results = Results(folder, [], summary)
    identity = own_identity(benchmark, summary, row)
    return Entry(given_as, results, identity, metrics, statistics, None, row)


def _get(data: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def system_name(summary: dict[str, Any]) -> str:
    name = _get(summary, "run", "system", "name")
    if isinstance(name, str):
        return name
    source = _get(summary, "input", "path")
    fmt = _get(summary, "input", "format") or "predictions"
    return f"{fmt}: {Path(source).name}" if isinstance(source, str) else str(fmt)


def system_signature(summary: dict[str, Any]) -> dict[str, Any]:
    """Answer model, top-k and context budget of a `locoscore run` folder (imported files
    name only their format)."""
    run = _get(summary, "run")
    if not isinstance(run, dict):
        return {"imported": _get(summary, "input", "format")}
    answer = _get(run, "answer") or {}
    return {
        "answer": answer.get("model") or answer.get("provider"),
        "top_k": run.get("top_k"),
        "budget": run.get("context_budget"),
        "options": _get(run, "system", "options"),
    }


def _cost(summary: dict[str, Any], *path: str) -> float | None:
    """A recorded cost; 0 where the stage made no priced call at all."""
    section = _get(summary, *path)
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


def row_facts(entry: Entry) -> dict[str, Any]:
    """Everything a row shows beside its metrics, as plain JSON values (None = not recorded)."""
    s, stats = entry.summary, entry.statistics
    latency = stats.get("latency") or {}
    measures = _get(s, "run", "measures") or {}
    recorded = recorded_judge(s)
    failed = measures.get("failed") if isinstance(measures, dict) else None
    if entry.own is not None:
        failed = entry.own.failed
    return {
        "system": system_name(s),
        "signature": system_signature(s),
        "run_signature": _get(s, "run", "signature"),
        "judge_run_std": _get(stats, "judge", "run_level_std"),
        "recorded_j": _get(recorded, "overall", "mean") if recorded else None,
        "evidence_recall": _get(measures, "evidence_recall", "overall", "mean"),
        "context_tokens": _get(latency, "context_tokens", "mean"),
        "search_latency_s": {q: _get(latency, "search_latency_s", q) for q in ("p50", "p95")},
        "total_latency_s": {q: _get(latency, "total_latency_s", q) for q in ("p50", "p95")},
        "answer_words": _get(stats, "answer_length", "overall", "mean"),
        "ingestion_cost_usd": _cost(s, "run", "ingestion", "totals"),
        "answer_cost_usd": _cost(s, "run", "answer_calls"),
        "judged": isinstance(s.get("judge"), dict),
        "judge_cost_usd": _cost(s, "judge"),
        "questions": entry.identity.questions,
        "answered": entry.own.answered
        if entry.own is not None
        else (entry.identity.questions - failed if isinstance(failed, int) else None),
        "failed": failed if isinstance(failed, int) else None,
    }


def _statistics(results: Results) -> tuple[an.Analysis, dict[str, Any]]:
    analysis = an.analyse(results)
    return analysis, statistics_section(analysis)


def folder_entries(folder: Path, given_as: str) -> list[Entry]:
    """The entries of one results folder: all questions, and the verified-gold view when its
    summary.json records gold errata; the one entry its benchmark reads, when it does. Bad
    input raises InputError naming the file."""
    benchmark = get_benchmark(recorded_benchmark(folder))
    own = benchmark.board_row(folder)
    if own is not None:
        return [_own_entry(folder, given_as, benchmark.name, own)]
    results = load_results(folder)
    if not isinstance(results.summary.get("lexical", {}), dict):
        raise InputError("expected an object", file=str(folder / SUMMARY), field="lexical")
    analysis, section = _statistics(results)
    entries = [
        Entry(
            given_as,
            results,
            identity_of(results, results.rows, ALL_QUESTIONS),
            section["metrics"],
            section,
            None,
        )
    ]
    view = analysis.verified
    if view is not None:
        flags = view.errata
        kept = [r for r in results.rows if flags.gold_stands(r)]
        name = f"verified gold (errata {flags.sha256[:SHA_SHOWN]})"
        entries.append(
            Entry(
                given_as,
                results,
                identity_of(results, kept, name),
                section["verified_gold"]["metrics"],
                section,
                flags.gold_stands,
            )
        )
    return entries
