"""The gates of `locoscore verify` (and of the board's gate column): each a pass, a fail or
not applicable, with one line stating its figure and threshold; and the warnings, printed
but never failing.

Gates (thresholds are `verify` options; docs/explanation/gates.md says what each re-derives
and what it cannot catch):
- retrieval: nothing stored (a run whose system reports 0 items), or nothing retrieved for
  more than `empty_share` of the questions searched; not applicable to a system that answers
  itself and reports no items;
- failures: failed questions (answer errors, context overflows, questions the judge left
  without a verdict) above `failed_share`;
- subset: a folder holding fewer questions than its benchmark that records neither the sample
  it was drawn as nor the conversations its run was given (a subset presented without its
  size: e.g. a file of answers to part of the benchmark, scored as it is);
- floor: with a floor, the result not significantly above it (paired test, `alpha`);
- consistent: the folder's parts disagree, or a number of summary.json or scores.jsonl is not
  its recomputation from the records and the data file (`claim.rederive`);
- scored: the folder has no headline (answered, not judged);
- question set: the data file the folder's numbers are over is not at hand (fails closed:
  nothing can be re-derived, and the subset not told);
- memory system: the run is of `gold-evidence`, a reference ceiling;
- real models: locoscore's fake provider answered or judged (`--allow-fake` lets it pass);
- judge independent: the judge is the answer model (`--allow-self-judge` lets it pass).
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
class Permissions:
    """What `verify` was told to let pass (`--allow-fake`, `--allow-self-judge`)."""

    fake: bool = False
    self_judge: bool = False


@dataclass(frozen=True)
class Gate:
    name: str
    status: Status
    line: str

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "status": self.status, "line": self.line}


def _pct(share: float) -> str:
    return f"{100 * share:.1f} %"


def _against(
    name: str, share: float, threshold: float, figure: str, over: str, within: str
) -> Gate:
    """A share against its threshold: above it fails (`over: figure`), else it passes."""
    if share > threshold:
        return Gate(name, "fail", f"{over}: {figure}")
    return Gate(name, "pass", f"{within}: {figure}")


def _unless_allowed(name: str, line: str, allowed: bool, option: str, why: str) -> Gate:
    """A finding `option` lets the user accept: it passes saying so, else it fails naming
    the option."""
    if allowed:
        return Gate(name, "pass", f"{line} (allowed by {option})")
    return Gate(name, "fail", f"{line} ({option} {why})")


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
    if not r.get("reported", True):
        return Gate(
            "retrieval",
            "n/a",
            "retrieval: not reported by the system (it answers itself and names no items)",
        )
    share = r["nothing_retrieved_share"]
    figure = (
        f"nothing retrieved for {r['nothing_retrieved']} of {r['questions_searched']} "
        f"questions ({_pct(share)}), threshold {_pct(t.empty_share)}"
    )
    return _against("retrieval", share, t.empty_share, figure, "empty retrieval", "retrieval")


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
    over = "failed questions above threshold"
    return _against("failures", f["share"], t.failed_share, figure, over, "failed questions")


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


def _test_name(reference: dict[str, Any]) -> str:
    """'Wilcoxon signed-rank, exact over 5 non-zero differences' (the test that ran)."""
    name = str(reference.get("test") or "paired test").removeprefix("paired ")
    return f"{name.removesuffix(', two-sided')} over {reference.get('test_n')} non-zero differences"


def _floor(card: dict[str, Any], t: Thresholds) -> Gate:
    f = card["floor"]
    if f is None:
        return Gate("floor", "n/a", "floor: none given")
    figure = (
        f"{f['difference']:+.2f} points over the floor {f['score']:.2f}"
        f"{' (' + f['system'] + ')' if f.get('system') else ''}, 95 % CI "
        f"[{f['ci95'][0]:+.2f}, {f['ci95'][1]:+.2f}], p = {f['p']:.3g} on {f['n']} questions "
        f"({_test_name(f)}), alpha {t.alpha:g}"
    )
    if f["difference"] > 0 and f["p"] < t.alpha:
        return Gate("floor", "pass", f"above the floor: {figure}")
    return Gate("floor", "fail", f"not significantly above the floor: {figure}")


def _consistent(card: dict[str, Any], problems: list[str]) -> Gate:
    derivation = card.get("derivation")
    if problems:
        return Gate("consistent", "fail", "folder parts disagree: " + "; ".join(problems))
    if derivation is None:  # the card summary.json records: `verify` re-derives
        return Gate("consistent", "pass", "folder parts agree (numbers re-derived by `verify`)")
    if derivation.get("problem"):
        return Gate("consistent", "fail", f"folder parts not re-derived: {derivation['problem']}")
    if derivation.get("data"):
        return Gate("consistent", "n/a", "folder parts: not re-derived without the data file")
    left = derivation.get("not_rederived") or []
    rest = f" (not re-derived: {'; '.join(left)})" if left else ""
    return Gate(
        "consistent", "pass", f"folder parts agree: every number re-derived from the records{rest}"
    )


def _scored(card: dict[str, Any]) -> Gate:
    s = card["score"]
    if s is None or s.get("mean") is None:
        how = "judge it first (`locoscore judge`)" if card["benchmark"].get("takes_judge") else ""
        return Gate(
            "scored", "fail", "not scored: the folder has no headline" + (f"; {how}" if how else "")
        )
    return Gate("scored", "pass", f"scored: {s['label']} over {s['n']} questions")


def _question_set(card: dict[str, Any]) -> Gate:
    derivation = card.get("derivation")
    if derivation is None:
        return Gate("question set", "n/a", "question set: checked by `verify`")
    if derivation.get("data"):
        return Gate("question set", "fail", str(derivation["data"]))
    sha = str(card["benchmark"].get("sha256"))[:12]
    return Gate("question set", "pass", f"question set: data file sha256 {sha} at hand")


def _memory_system(card: dict[str, Any]) -> Gate:
    system = card.get("system") or {}
    name, role = system.get("name"), system.get("role")
    if name == "gold-evidence":
        return Gate(
            "memory system",
            "fail",
            "gold-evidence is a reference ceiling, not a memory system: it is handed the "
            "gold evidence (use it as --ceiling)",
        )
    if role:
        return Gate("memory system", "n/a", f"{name}: {role}")
    return Gate("memory system", "pass", f"system: {name or 'not recorded (answers imported)'}")


def _real_models(card: dict[str, Any], allowed: Permissions) -> Gate:
    fake = card["models"].get("fake") or {}
    steps = [step for step in ("answer", "judge") if fake.get(step)]
    if not steps:
        return Gate("real models", "pass", "no step answered or judged by the fake provider")
    what = " and ".join({"answer": "answered", "judge": "judged"}[s] for s in steps)
    line = f"{what} by locoscore's fake provider, not a real model"
    return _unless_allowed("real models", line, allowed.fake, "--allow-fake", "for a test folder")


def _judge_independent(card: dict[str, Any], allowed: Permissions) -> Gate:
    m = card["models"]
    if card["judge"] is None:
        return Gate("judge independent", "n/a", "judge: not judged")
    if m["same_model"] is None:
        return Gate(
            "judge independent", "n/a", "judge vs answerer: the answer model is not recorded"
        )
    if not m["same_model"]:
        return Gate("judge independent", "pass", f"judge {m['judge']} is not the answer model")
    line = f"the judge {m['judge']} is the answer model {m['answer']}: it judged its own answers"
    option, why = "--allow-self-judge", "to accept it"
    return _unless_allowed("judge independent", line, allowed.self_judge, option, why)


def evaluate(
    card: dict[str, Any],
    problems: list[str],
    thresholds: Thresholds | None = None,
    permissions: Permissions | None = None,
) -> list[Gate]:
    """Every gate of the card, in a fixed order; `problems` are the folder's disagreeing
    parts (`parts.disagreements`, `rederive.differences`)."""
    t = thresholds or Thresholds()
    allowed = permissions or Permissions()
    return [
        _retrieval(card, t),
        _failures(card, t),
        _subset(card),
        _floor(card, t),
        _consistent(card, problems),
        _scored(card),
        _question_set(card),
        _memory_system(card),
        _real_models(card, allowed),
        _judge_independent(card, allowed),
    ]


def warnings_of(card: dict[str, Any]) -> list[str]:
    """What a reader must know that does not fail the folder."""
    out = []
    m, judge = card["models"], card["judge"]
    if m["same_model"]:
        allowed = (
            " (allowed by --allow-self-judge)"
            if (card.get("allowed") or {}).get("self_judge")
            else ""
        )
        out.append(f"judge = answerer: {m['judge']} judged its own answers (same model){allowed}")
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
