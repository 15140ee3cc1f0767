"""`locoscore reprice`: a results folder's costs recomputed from its recorded token counts and
a price table, when prices change. Only cost fields (and the name of the price table that
priced them) are rewritten; every verdict, answer, score and signature stays byte-identical.

Priced: the answer calls (run.json and summary.json's `run` section, per attempt and in
total, prompt-cache reads and writes at their own prices) and a judge pass (summary.json's
`judge`). Not priced: what a memory system reported spending on its own ingestion (its
calls, models and prices are the system's), which is left as recorded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from locoscore._io import read_json_object, write_json_atomic
from locoscore.errors import InputError
from locoscore.llm.cost import PriceTable
from locoscore.llm.endpoint import model_matches
from locoscore.results.layout import RUN_JSON, SUMMARY

ATTEMPT_PARTS = ("this_attempt", "earlier_attempts")


def _read(path: Path) -> dict[str, Any] | None:
    if not path.exists():
        return None
    return read_json_object(path, "cannot read: {}")


def _tokens(part: Any, file: Path, where: str) -> tuple[int, int, int, int]:
    """(input, output, cache read, cache write) of a recorded section, or why not."""
    if not isinstance(part, dict):
        raise InputError(f"{where} is missing: cannot price", file=str(file), field=where)
    counts = []
    for name in ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"):
        value = part.get(name, 0 if name.startswith("cache") else None)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise InputError(
                f"{where} records no token counts ({name}): cannot price it",
                file=str(file),
                field=f"{where}.{name}",
            )
        counts.append(value)
    return counts[0], counts[1], counts[2], counts[3]


def _served_other(model: str, described: dict[str, Any]) -> bool:
    served = (described.get("served") or {}).get("models") or []
    return any(not model_matches(model, s) for s in served)


def _cost(prices: PriceTable, model: str, counts: tuple[int, int, int, int], batch: bool) -> Any:
    return prices.cost(
        model, counts[0], counts[1], batch=batch, cache_read=counts[2], cache_write=counts[3]
    )


def _rounded(cost: float | None, digits: int) -> float | None:
    return None if cost is None else round(cost, digits)


def reprice_answer_calls(
    calls: dict[str, Any], answer: dict[str, Any], prices: PriceTable, file: Path, where: str
) -> None:
    """`calls` (an `answer_calls` section) repriced in place."""
    model = answer.get("model")
    if not model:  # extractive, or a system that answers itself: no answer call to price
        return
    other = _served_other(model, answer)
    totals = [0, 0, 0, 0]
    for name in ATTEMPT_PARTS:
        part = calls.get(name)
        counts = _tokens(part, file, f"{where}.{name}")
        assert isinstance(part, dict)
        totals = [a + b for a, b in zip(totals, counts, strict=True)]
        part["cost_usd"] = None if other else _rounded(_cost(prices, model, counts, False), 6)
    total = (
        None if other else _cost(prices, model, (totals[0], totals[1], totals[2], totals[3]), False)
    )
    calls["cost_usd"] = _rounded(total, 6)
    calls.pop("cost_unknown_reason", None)
    if total is None:
        calls["cost_unknown_reason"] = prices.unknown_reason(model, _served(answer)) or "no price"
    calls["price_table"] = prices.source


def _served(described: dict[str, Any]) -> Any:
    from locoscore.llm.endpoint import Served

    served = described.get("served") or {}
    return Served.of((m, bool(served.get("fake"))) for m in served.get("models") or [])


def reprice_judge(section: dict[str, Any], prices: PriceTable, file: Path) -> None:
    """A judge pass's `usage` and per-attempt `calls` costs, repriced in place. A pass run
    through a batch API records `"batch": true` and is priced at the batch discount."""
    model = section.get("model")
    if not model:
        raise InputError("judge section names no model: cannot price", file=str(file))
    batch = bool(section.get("batch"))
    other = _served_other(model, section)
    usage = section.get("usage")
    counts = _tokens(usage, file, "judge.usage")
    assert isinstance(usage, dict)
    cost = None if other else _cost(prices, model, counts, batch)
    usage["estimated_cost_usd"] = _rounded(cost, 4)
    usage.pop("cost_unknown_reason", None)
    if cost is None:
        usage["cost_unknown_reason"] = prices.unknown_reason(model, _served(section)) or "no price"
    usage["price_table"] = prices.source
    calls = section.get("calls")
    if isinstance(calls, dict):
        for name in ATTEMPT_PARTS:
            if isinstance(calls.get(name), dict):
                part_counts = _tokens(calls[name], file, f"judge.calls.{name}")
                part_cost = None if other else _cost(prices, model, part_counts, batch)
                calls[name]["cost_usd"] = _rounded(part_cost, 6)


def reprice_folder(directory: Path, prices: PriceTable) -> list[str]:
    """Every priced section of the folder rewritten (all checked before anything is);
    one line per section repriced."""
    run_path, summary_path = directory / RUN_JSON, directory / SUMMARY
    run_doc, summary = _read(run_path), _read(summary_path)
    done: list[str] = []
    if run_doc is not None:
        calls, answer = run_doc.get("answer_calls"), run_doc.get("answer")
        if not isinstance(calls, dict) or not isinstance(answer, dict):
            raise InputError("no answer_calls section: cannot price", file=str(run_path))
        reprice_answer_calls(calls, answer, prices, run_path, "answer_calls")
        done.append(f"answer calls: {_usd(calls.get('cost_usd'))}")
    if summary is not None:
        run_section = summary.get("run")
        if isinstance(run_section, dict) and isinstance(run_section.get("answer_calls"), dict):
            reprice_answer_calls(
                run_section["answer_calls"],
                run_section.get("answer") or {},
                prices,
                summary_path,
                "run.answer_calls",
            )
        judge = summary.get("judge")
        if isinstance(judge, dict) and "usage" in judge:
            reprice_judge(judge, prices, summary_path)
            done.append(f"judge: {_usd(judge['usage']['estimated_cost_usd'])}")
    if not done:
        raise InputError(
            "nothing to price: no run.json answer calls and no judge usage in summary.json",
            file=str(directory),
        )
    done += _origins(prices, run_doc, summary)
    if run_doc is not None:
        write_json_atomic(run_path, run_doc)
    if summary is not None:
        write_json_atomic(summary_path, summary)
    return done


def _origins(
    prices: PriceTable, run_doc: dict[str, Any] | None, summary: dict[str, Any] | None
) -> list[str]:
    """With a --prices file, which of the folder's models it did not price: those priced from
    the built-in table, and those with no price at all (said, never filled in silently)."""
    if prices.source == "built-in":
        return []
    models = [
        m
        for m in (
            (run_doc or {}).get("answer", {}).get("model") if run_doc else None,
            ((summary or {}).get("run") or {}).get("answer", {}).get("model") if summary else None,
            ((summary or {}).get("judge") or {}).get("model") if summary else None,
        )
        if isinstance(m, str) and m
    ]
    models = list(dict.fromkeys(models))
    builtin = [m for m in models if prices.origin(m) == "built-in"]
    unpriced = [m for m in models if prices.origin(m) is None]
    out = []
    if builtin:
        out.append(
            f"not in the --prices file, priced from the built-in table: {', '.join(builtin)}"
        )
    if unpriced:
        out.append(f"no price in the --prices file or the built-in table: {', '.join(unpriced)}")
    return out


def _usd(cost: Any) -> str:
    return "n/a" if cost is None else f"${cost:.4f}"
