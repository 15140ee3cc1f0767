"""The gates of `locoscore verify` (and of the board's gate column): each a pass, a fail or
not applicable, with one line stating its figure and threshold; and the warnings, printed
but never failing.

Gates (thresholds are `verify` options):
- retrieval: nothing stored (a run whose system reports 0 items), or nothing retrieved for
  >= `empty_share` of the questions searched;
- failures: failed questions (answer errors, context overflows, questions the judge left
  without a verdict) above `failed_share`;
- subset: a folder holding fewer questions than its benchmark that records neither the sample
  it was drawn as nor the conversations its run was given (a subset presented without its
  size: e.g. a file of answers to part of the benchmark, scored as it is);
- floor: with a floor, the result not significantly above it (paired test, `alpha`);
- consistent: the folder's parts disagree.
Warnings: the judge is the answer model (same model or family); the judge's leniency was not
audited; the result is not above one of the benchmark's blind floors; the system can return
the whole haystack (not a memory test).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Status = Literal["pass", "fail", "n/a"]

DEFAULT_EMPTY_SHARE = 0.5
DEFAULT_FAILED_SHARE = 0.02
DEFAULT_ALPHA = 0.05


@dataclass(frozen=True)
class Thresholds:
    empty_share: float = DEFAULT_EMPTY_SHARE
    failed_share: float = DEFAULT_FAILED_SHARE
    alpha: float = DEFAULT_ALPHA


@dataclass(frozen=True)
class Gate:
    name: str
    status: Status
    line: str

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "status": self.status, "line": self.line}


def _pct(share: float) -> str:
    return f"{100 * share:.1f} %"


def _retrieval(card: dict[str, Any], t: Thresholds) -> Gate:
    r = card["retrieval"]
    if r["items_stored"] == 0:
        return Gate(
            "retrieval",
            "fail",
            f"nothing stored: the system holds 0 items over {r['haystacks']} haystacks "
            "(threshold: at least 1 item)",
        )
    if not r["recorded"]:
        return Gate("retrieval", "n/a", "retrieval: not recorded (no run of a memory system)")
    share = r["nothing_retrieved_share"]
    figure = (
        f"nothing retrieved for {r['nothing_retrieved']} of {r['questions_searched']} "
        f"questions ({_pct(share)}), threshold {_pct(t.empty_share)}"
    )
    if share >= t.empty_share:
        return Gate("retrieval", "fail", f"empty retrieval: {figure}")
    return Gate("retrieval", "pass", f"retrieval: {figure}")


def _failures(card: dict[str, Any], t: Thresholds) -> Gate:
    f = card["failures"]
    if f["share"] is None:
        return Gate("failures", "n/a", "failed questions: no question in the folder")
    kinds = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in f["by_kind"].items() if n)
    figure = (
        f"{f['failed']} of {f['of']} questions failed ({_pct(f['share'])}"
        + (f": {kinds}" if kinds else "")
        + f"), threshold {_pct(t.failed_share)}"
    )
    if f["share"] > t.failed_share:
        return Gate("failures", "fail", f"failed questions above threshold: {figure}")
    return Gate("failures", "pass", f"failed questions: {figure}")


def _subset(card: dict[str, Any]) -> Gate:
    q = card["questions"]
    if q["subset"] is None:
        if q["size_stated"]:
            return Gate("subset", "pass", "subset: size stated")
        return Gate("subset", "n/a", "subset: the benchmark's question total is unknown")
    if not q["subset"]:
        return Gate("subset", "pass", f"questions: all {q['in_benchmark']:,} of the benchmark")
    of = f"{q['in_folder']:,} of {q['in_benchmark']:,} questions"
    if q["size_stated"]:
        how = q["sample"] or f"the run's {q['conversations']} conversation(s)"
        return Gate("subset", "pass", f"subset stated with its size: {of} ({how})")
    return Gate(
        "subset",
        "fail",
        f"subset without its size: {of}, and the folder records neither a sample nor the "
        "run's conversations (threshold: a subset states its size)",
    )


def _floor(card: dict[str, Any], t: Thresholds) -> Gate:
    f = card["floor"]
    if f is None:
        return Gate("floor", "n/a", "floor: none given")
    figure = (
        f"{f['difference']:+.2f} points over the floor {f['score']:.2f}"
        f"{' (' + f['system'] + ')' if f.get('system') else ''}, 95 % CI "
        f"[{f['ci95'][0]:+.2f}, {f['ci95'][1]:+.2f}], p = {f['p']:.3g} on {f['n']} questions, "
        f"alpha {t.alpha:g}"
    )
    if f["difference"] > 0 and f["p"] < t.alpha:
        return Gate("floor", "pass", f"above the floor: {figure}")
    return Gate("floor", "fail", f"not significantly above the floor: {figure}")


def evaluate(
    card: dict[str, Any], problems: list[str], thresholds: Thresholds | None = None
) -> list[Gate]:
    """Every gate of the card, in a fixed order; `problems` are the folder's disagreeing
    parts (`parts.disagreements`)."""
    t = thresholds or Thresholds()
    consistent = (
        Gate("consistent", "fail", "folder parts disagree: " + "; ".join(problems))
        if problems
        else Gate("consistent", "pass", "folder parts agree")
    )
    return [_retrieval(card, t), _failures(card, t), _subset(card), _floor(card, t), consistent]


def warnings_of(card: dict[str, Any]) -> list[str]:
    """What a reader must know that does not fail the folder."""
    out = []
    m, judge = card["models"], card["judge"]
    if m["same_model"]:
        out.append(f"judge = answerer: {m['judge']} judged its own answers (same model)")
    elif m["same_family"]:
        out.append(f"judge and answerer of one family: {m['judge']} judged {m['answer']}'s answers")
    if judge is not None and not judge["audited"]:
        audit = judge["audit"]
        out.append(
            "judge not audited: its leniency was measured for another judge configuration"
            if audit
            else "judge not audited: no `locoscore audit` of this judge in the folder"
        )
    for blind in card["blind_floors"]:
        if blind["result_above"] is False:
            out.append(
                f"not above the blind floor {blind['name']} ({blind['score']:.2f}, computed "
                "without a model)"
            )
    r = card["retrieval"]
    if r["not_a_memory_test"]:
        why = (
            "the system returns everything by design"
            if r["returns_everything_by_design"]
            else f"top-k {r['top_k']} reaches the whole haystack in {r['haystacks_within_top_k']} "
            f"of {r['haystacks']} haystacks ({r['haystack_unit']})"
        )
        out.append(f"not a memory test: {why}")
    return out


def failed(gates: list[Gate]) -> list[Gate]:
    return [g for g in gates if g.status == "fail"]
