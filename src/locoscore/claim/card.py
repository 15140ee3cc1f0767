"""The claim card of a results folder: summary.json's `claim` section, computed from what the
folder holds (docs/reference/claim-card.md documents every field).

Where the issue was silent, the card takes a reviewer's side: a figure it cannot establish
is `null` with the reason, never a guess that flatters the result.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from locoscore.claim.parts import Folder, question_id, read_folder, section
from locoscore.claim.reference import blind_floors, reference_section
from locoscore.claim.selection import judged_questions
from locoscore.data.selection import folder_selection

if TYPE_CHECKING:
    from locoscore.claim.benchmark import ClaimedBenchmark

CARD_VERSION = 1
FAMILY_RULE = (
    "the model name's last path segment, lowercased, cut at its first character that is "
    "not a letter (claude-sonnet-4-6 -> claude, gpt-4o -> gpt, Qwen/Qwen2.5-7B -> qwen); "
    "OpenAI's o-series (o1, o3, o4-mini) and chatgpt count as gpt"
)
_FAMILY_ALIASES = {"o": "gpt", "chatgpt": "gpt", "meta": "llama"}


def model_family(model: str | None) -> str | None:
    """The family of a model name (`FAMILY_RULE`); None for no model."""
    if not model:
        return None
    name = model.strip().lower().rsplit("/", 1)[-1]
    match = re.match(r"[a-z]+", name)
    if match is None:
        return name or None
    return _FAMILY_ALIASES.get(match.group(0), match.group(0))


def _bare(model: str | None) -> str | None:
    return None if not model else model.strip().lower().rsplit("/", 1)[-1]


@lru_cache(maxsize=8)
def _question_total(
    bench: ClaimedBenchmark, path: str, sha256: str, include_excluded: bool
) -> int | None:
    """The questions of the data file the folder names, when it is at hand unchanged: the
    recorded file, else the benchmark's default data (inline data is recorded under its
    module's path), whichever has the recorded sha256."""
    for given in (path, None) if Path(path).is_file() else (None,):
        try:
            data = bench.load(given)
        except Exception:  # a file that no longer loads: the total is unknown, not an error
            continue
        if getattr(data, "sha256", None) == sha256:
            return bench.question_total(data, include_excluded=include_excluded)
    return None


def _benchmark(folder: Folder, bench: ClaimedBenchmark) -> dict[str, Any]:
    data = folder.data()
    sha = data.get("sha256")
    known = bench.known_file(sha) if isinstance(sha, str) else None
    return {
        "name": bench.name,
        "data_file": data.get("path") or data.get("file"),
        "sha256": sha,
        "version": known.version if known else data.get("version"),
        "released": known is not None,
        # a benchmark's non-default profile (`run --protocol`), as its data block names it
        **({"protocol": data["protocol"]} if isinstance(data.get("protocol"), str) else {}),
        # a benchmark scored without a judge (multiple choice) is never "not judged"
        "takes_judge": "judge" in bench.commands,
    }


def _questions(
    folder: Folder, bench: ClaimedBenchmark, headline: tuple[str, dict[str, float]] | None
) -> dict[str, Any]:
    ids, records = judged_questions(folder)
    answered = (
        sum(1 for r in records if r.get("error") is None and r.get("submitted", True))
        if records is not None
        else len(ids)
    )
    sample = folder.sample()
    data = folder.data()
    total: int | None = None
    if sample is not None:
        total = int(sample["population"])
    elif data.get("sha256") and (data.get("path") or data.get("file")):
        include = section(folder.run, "include_adversarial") is not False
        path = str(data.get("path") or data.get("file"))
        total = _question_total(bench, path, str(data["sha256"]), include)
    subset = None if total is None else len(ids) < total
    # how the folder says which part of the benchmark it holds: the sample it was drawn as
    # (`--limit`), else the conversations a run was given (run.json lists them); a file of
    # answers scored or judged as it is says nothing of the rest
    chosen = section(folder.run, "conversations")
    selected_by = (
        "sample"
        if sample is not None
        else "conversations"
        if isinstance(chosen, list) and chosen
        else None
    )
    return {
        "in_folder": len(ids),
        "answered": answered,
        "in_benchmark": total,
        "subset": subset,
        "sample": None if sample is None else sample.get("signature"),
        "selected_by": selected_by,
        "conversations": len(chosen) if isinstance(chosen, list) else None,
        "size_stated": selected_by is not None or subset is False,
        "denominator": None if headline is None else len(headline[1]),
    }


def _panel_models(summary: dict[str, Any]) -> list[str]:
    """A panel folder's judge models (its `panel` section): each of them is a judge of the
    answers, so one of them being the answer model is enough to say so."""
    judges = section(summary, "panel", "judges")
    if not isinstance(judges, dict):
        return []
    return [str(j["model"]) for j in judges.values() if isinstance(j, dict) and j.get("model")]


def _served(section_: Any) -> list[str]:
    models = section_.get("models") if isinstance(section_, dict) else None
    return [str(m) for m in models if m] if isinstance(models, list) else []


def _judge_records(folder: Folder) -> tuple[list[str], bool]:
    """The models the judge's own records say served its verdicts (judgments.jsonl's
    `served_model`), and whether any verdict came from the fake provider: what an edit of
    summary.json's judge section cannot hide."""
    rows = folder.judgments or []
    served = sorted({str(r["served_model"]) for r in rows if r.get("served_model")})
    return served, any(r.get("fake") is True for r in rows)


def _models(folder: Folder) -> dict[str, Any]:
    answer = section(folder.run, "answer") or {}
    answers_itself = bool(section(folder.run, "system", "answers_itself"))
    answer_model = answer.get("model") if isinstance(answer, dict) else None
    answer_served = _served(section(answer, "served"))
    judge = folder.judge or {}
    served, judged_by_fake = _judge_records(folder)
    # a panel folder has no judge section of its own: each of its judges judged the answers
    panel = [] if judge.get("model") or served else _panel_models(folder.summary)
    judge_model = (
        ", ".join(served)
        if served
        else judge.get("model") or (", ".join(dict.fromkeys(panel)) if panel else None)
    )
    answering = {_bare(m) for m in (answer_model, *answer_served) if m}
    judging = {
        _bare(m) for m in (judge.get("model"), *served, *_served(judge.get("served")), *panel)
    }
    judging.discard(None)
    same_model = None if not answering or not judging else bool(answering & judging)
    fa = {model_family(m) for m in answering}
    fj = {model_family(m) for m in judging}
    fake_answer = bool(section(answer, "served", "fake"))
    fake_judge = judged_by_fake or bool(section(judge, "served", "fake"))
    return {
        "answer": answer_model,
        "answer_provider": answer.get("provider") if isinstance(answer, dict) else None,
        "answer_served": answer_served,
        "answered_by_system": answers_itself,
        "judge": judge_model,
        "judge_served": served,
        "same_model": same_model,
        "same_family": None if not fa or not fj else bool(fa & fj),
        "family_rule": FAMILY_RULE,
        "fake": {"answer": fake_answer, "judge": fake_judge},
    }


# What a reference system is for: named on the card, never a result of its own.
REFERENCE_ROLES = {
    "no-memory": "reference floor: answers without any memory",
    "gold-evidence": "reference ceiling: not a memory system, it is handed the gold evidence",
}


def _system(folder: Folder) -> dict[str, Any]:
    """The system the run records (run.json `system.name`, not the folder's name) and its
    role when it is a reference system."""
    name = section(folder.run, "system", "name")
    name = name if isinstance(name, str) else None
    return {"name": name, "role": REFERENCE_ROLES.get(name) if name else None}


def _audit(folder: Folder) -> dict[str, Any] | None:
    from locoscore.data.sample import without_sample

    doc = folder.audit
    if doc is None:
        return None
    signature = section(doc, "judge", "signature") or doc.get("signature")
    ours = (folder.judge or {}).get("signature")
    result = doc.get("summary_line")
    return {
        "signature": signature,
        "same_judge": isinstance(signature, str)
        and isinstance(ours, str)
        and without_sample(signature) == without_sample(ours),
        "result": result if isinstance(result, str) else "recorded in audit.json (see audit.md)",
    }


def _judge(folder: Folder) -> dict[str, Any] | None:
    judge = folder.judge
    if judge is None:
        return None
    audit = _audit(folder)
    return {
        "signature": judge.get("signature"),
        "protocol": judge.get("protocol"),
        "prompt": judge.get("prompt_name"),
        "prompt_hash": judge.get("prompt_hash"),
        "audited": bool(audit and audit["same_judge"]),
        "audit": audit,
    }


# The errors `judge.parsing.parse_verdict` gives a reply it finds no verdict in.
_UNPARSED = ("unparseable reply", "empty reply")


def _unscored(folder: Folder, bench: ClaimedBenchmark) -> tuple[int, int]:
    """(questions the judge left without a verdict, of them: unparsable replies)."""
    if folder.judge is None:
        return 0, 0
    unscored = bench.unscored_questions(folder.path) or 0
    verdicts: dict[str, list[str | None]] = {}
    for row in folder.judgments or []:
        verdicts.setdefault(str(row.get("key")), []).append(row.get("error"))
    # a question none of whose judge runs gave a verdict, a reply not parsed among them
    unparsable = sum(
        1
        for errors in verdicts.values()
        if errors
        and all(e is not None for e in errors)
        and any(str(e).startswith(_UNPARSED) for e in errors)
    )
    return unscored, min(unparsable, unscored)


def _failures(folder: Folder, bench: ClaimedBenchmark) -> dict[str, Any]:
    records = folder.predictions or []
    overflow = sum(1 for r in records if str(r.get("error") or "").startswith("context_overflow"))
    errors = sum(1 for r in records if r.get("error") is not None) - overflow
    unscored, unparsable = _unscored(folder, bench)
    # answers the benchmark itself could not read (a multiple-choice reply naming no single
    # option): its scoring marks the row `unparsable`; each is a failure, scored wrong
    unread = sum(1 for r in folder.scores or [] if r.get("unparsable") is True)
    failed = errors + overflow + unscored + unread
    questions = len(folder.question_ids())
    return {
        "failed": failed,
        "of": questions,
        "share": None if not questions else failed / questions,
        "by_kind": {
            "errors": errors + unscored - unparsable,
            "context_overflow": overflow,
            "unparsable": unparsable + unread,
        },
    }


def _size(haystack: dict[str, Any]) -> tuple[Any, str]:
    if isinstance(haystack.get("items"), int):
        return haystack["items"], "items"
    return haystack.get("sessions"), "sessions"


def _retrieval(folder: Folder) -> dict[str, Any]:
    run, records = folder.run, folder.predictions or []
    searched = [r for r in records if r.get("error") is None and "retrieved" in r]
    empty = sum(1 for r in searched if not r["retrieved"])
    per = section(run, "ingestion", "per_conversation") or {}
    items = [m.get("items") for m in per.values() if isinstance(m, dict)]
    known = [int(i) for i in items if isinstance(i, int)]
    stored = sum(known) if items and len(known) == len(items) else None
    # a haystack's size: the items its system reports holding, else its sessions
    sizes = [_size(m) for m in per.values() if isinstance(m, dict)]
    top_k = section(run, "top_k")
    whole = [s for s, _ in sizes if isinstance(s, int) and isinstance(top_k, int) and top_k >= s]
    ignores = bool(section(run, "system", "ignores_budget"))
    share_whole = None if not sizes else len(whole) / len(sizes)
    units = sorted({u for _, u in sizes})
    # a system that answers itself may leave out its items (the HTTP contract makes them
    # optional): with no item retrieved and none stored, it did not report retrieval
    answers = bool(section(run, "system", "answers_itself"))
    anything = any(r["retrieved"] for r in searched) or bool(stored)
    return {
        "recorded": bool(searched),
        "reported": bool(searched) and (anything or not answers),
        "items_stored": stored,
        "items_reported_for": f"{len(known)} of {len(items)} haystacks" if items else None,
        "questions_searched": len(searched),
        "nothing_retrieved": empty,
        "nothing_retrieved_share": None if not searched else empty / len(searched),
        "top_k": top_k,
        "haystacks": len(sizes),
        "haystack_unit": "/".join(units) if units else None,
        "haystack_min": min((s for s, _ in sizes if isinstance(s, int)), default=None),
        "haystack_max": max((s for s, _ in sizes if isinstance(s, int)), default=None),
        "haystacks_within_top_k": len(whole),
        "not_a_memory_test": ignores or (share_whole is not None and share_whole >= 0.5),
        "returns_everything_by_design": ignores,
    }


def _headline(bench: ClaimedBenchmark, folder: Folder) -> tuple[str, dict[str, float]] | None:
    found = bench.headline_scores(folder.path)
    if found is None:
        return None
    label, scores = found
    return label, {str(k): float(v) for k, v in scores.items()}


def build_card(
    directory: Path,
    bench: ClaimedBenchmark,
    *,
    floor: Path | None = None,
    ceiling: Path | None = None,
    alpha: float = 0.05,
    folder: Folder | None = None,
    rederived: dict[Path, Path] | None = None,
) -> dict[str, Any]:
    """The card of `directory`; with `floor`/`ceiling` (a no-memory and a gold-evidence
    run of the same benchmark, data, questions, answer step and judge, else bad input
    naming the difference) the paired test against each, read from `rederived[folder]`
    (its recomputation) where given."""
    folder = folder or read_folder(directory)
    headline = _headline(bench, folder)
    score = None
    if headline is not None:
        label, per_question = headline
        values = list(per_question.values())
        score = {
            "label": label,
            "mean": sum(values) / len(values) if values else None,
            "n": len(values),
            "scale": "0-100",
        }
    card: dict[str, Any] = {
        "version": CARD_VERSION,
        "benchmark": _benchmark(folder, bench),
        "system": _system(folder),
        "questions": _questions(folder, bench, headline),
        "selection": folder_selection(directory),
        "score": score,
        "models": _models(folder),
        "judge": _judge(folder),
        "runs_per_question": (folder.judge or {}).get("runs"),
        "failures": _failures(folder, bench),
        "retrieval": _retrieval(folder),
        "floor": None,
        "ceiling": None,
        "position": None,
        "blind_floors": blind_floors(folder.summary, score),
        # the folder's margin over its best blind floor, as summary.json `floors` records it
        "blind_margin": section(folder.summary, "floors", "margin"),
        "errata_ceiling": bench.errata_ceiling(directory),
    }
    for role, other in (("floor", floor), ("ceiling", ceiling)):
        if other is not None:
            again = (rederived or {}).get(other)
            card[role] = reference_section(role, other, bench, card, folder, headline, alpha, again)
    f, c = card["floor"], card["ceiling"]
    if f and c and score and score["mean"] is not None:
        span = c["score"] - f["score"]
        card["position"] = None if span <= 0 else (score["mean"] - f["score"]) / span
    return card


__all__ = ["build_card", "model_family", "question_id"]
