"""What a job's calls cost, in words: the whole job across its attempts, this attempt's share,
what the cache served. One phrasing for the terminal and the reports."""

from __future__ import annotations

from typing import Any

from locoscore.llm.endpoint import through_sentence


def _cost(value: Any) -> str:
    return "n/a" if value is None else f"${float(value):.2f}"


# A dry run's cost for a model without a price: n/a, as in every summary (never $0).
NO_PRICE = "n/a (no price for this model)"


def attempts_phrase(calls: dict[str, Any]) -> str:
    """' (2 now, 10 by 1 earlier attempt)', or '' when this was the only attempt."""
    earlier = calls.get("earlier_attempts") or {}
    attempts = int(earlier.get("attempts") or 0)
    if not attempts:
        return ""
    now = (calls.get("this_attempt") or {}).get("requests", 0)
    plural = "s" if attempts > 1 else ""
    return f" ({now:,} now, {earlier.get('requests', 0):,} by {attempts} earlier attempt{plural})"


def _usage_source(usage: dict[str, Any]) -> str:
    """' (usage: counted locally)' for a server that reported no usage (llama.cpp)."""
    return f" (usage: {usage['source']})" if usage.get("source") else ""


def retries_phrase(retries: dict[str, int] | None) -> str:
    """' (12 sent again: timeout 12)': failed attempts retried, by kind; '' for none."""
    if not retries:
        return ""
    kinds = ", ".join(f"{kind} {n:,}" for kind, n in sorted(retries.items(), key=lambda i: -i[1]))
    return f" ({sum(retries.values()):,} sent again: {kinds})"


def concurrency_phrase(concurrency: dict[str, Any]) -> str:
    """'2 at the start (server slots: 1 (llama.cpp) + 1 queued), 2 at the end, 2 in flight
    at most': the calls in flight as they went, and why they started there."""
    return (
        f"{concurrency['initial']} at the start ({concurrency['source']}), "
        f"{concurrency['final']} at the end, {concurrency['peak_in_flight']} in flight at most"
    )


def judge_calls_line(calls: dict[str, Any], usage: dict[str, Any], label: str = "calls") -> str:
    """calls: 6 made (0 now, 6 by 1 earlier attempt), 6 cached, 0 failed; tokens …; cost …"""
    made = int(calls.get("made", 0))
    judgments = int(calls.get("judgments", made))
    what = f"{made:,} made" if judgments == made else f"{made:,} requests made"
    what += retries_phrase(calls.get("retries"))
    more = "" if judgments == made else f" for {judgments:,} judgments"
    return (
        f"{label}: {what}{attempts_phrase(calls)}{more}, {calls.get('cached', 0):,} cached, "
        f"{calls.get('failed', 0):,} failed; tokens {usage.get('input_tokens', 0):,} in / "
        f"{usage.get('output_tokens', 0):,} out{_usage_source(usage)}; "
        f"cost {_cost(usage.get('estimated_cost_usd'))}"
    )


def answer_calls_phrase(calls: dict[str, Any]) -> str:
    """'211 calls made (12 sent again: timeout 12), 0 from the cache or saved state'"""
    return (
        f"{calls.get('made', 0):,} calls made{retries_phrase(calls.get('retries'))}"
        f"{attempts_phrase(calls)}, "
        f"{calls.get('cached', 0):,} from the cache or saved state"
    )


def judge_section_lines(section: dict[str, Any]) -> list[str]:
    """The lines every benchmark's judge prints: the signature (served model and `fake`
    included), where the verdicts came from, and the calls and cost of every attempt."""
    lines = [f"judge: {section['signature']}"]
    served = section.get("served") or {}
    through = through_sentence("judged", section.get("endpoint"), bool(served.get("fake")))
    if through is not None:
        lines.append(through)
    lines += section.get("warnings") or []
    if "calls" in section and "usage" in section:
        lines.append(judge_calls_line(section["calls"], section["usage"]))
    return lines
