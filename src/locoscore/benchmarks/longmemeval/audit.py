"""`locoscore audit --benchmark longmemeval`: the judge measured on answers whose verdict is
known, built from the dataset itself and judged exactly as `judge` would (same rules, cache,
runs).

- `gold`: the gold answer as the response (an `_abs` question's gold says why it cannot be
  answered): should be accepted;
- `abstain`: "I don't know" for every answerable question: should be rejected;
- `wrong`: a plausible wrong answer of the type: an integer gold shifted by 3 (beyond the
  temporal off-by-one tolerance), else the gold of the next question of the same type; for
  an `_abs` question, a confident answer (the gold of an answerable question of its type):
  should be rejected.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from locoscore._io import write_json_atomic, write_text_atomic
from locoscore.benchmarks.longmemeval import judging
from locoscore.benchmarks.longmemeval.data import QUESTION_TYPES, LongMemEvalData, QuestionMeta
from locoscore.data.sample import SampleSpec, with_sample
from locoscore.judge.engine import PassResult, run_pass
from locoscore.judge.items import JudgeItem
from locoscore.judge.settings import JudgeSettings
from locoscore.results.layout import AUDIT_JSON, AUDIT_MD, JUDGE_CACHE

if TYPE_CHECKING:
    from locoscore.benchmarks.longmemeval.judge_pass import Sampler

ABSTAIN = "I don't know: that was never mentioned in our conversations."
EXPECTED = {"gold": True, "abstain": False, "wrong": False}


def _wrong(meta: QuestionMeta, others: list[QuestionMeta]) -> str | None:
    if isinstance(meta.answer, int) and not meta.abstention:
        return str(meta.answer + 3)
    pool = [o for o in others if not o.abstention and o.question_id != meta.question_id]
    pool = [o for o in pool if str(o.answer).strip().lower() != str(meta.answer).strip().lower()]
    if not pool:
        return None
    after = [o for o in pool if o.position > meta.position]
    return str((after or pool)[0].answer)


def probe_sets(data: LongMemEvalData) -> dict[str, dict[str, str]]:
    """{set name: {question id: the response to judge}}."""
    by_type: dict[str, list[QuestionMeta]] = defaultdict(list)
    for meta in data.questions:
        by_type[meta.question_type].append(meta)
    sets: dict[str, dict[str, str]] = {"gold": {}, "abstain": {}, "wrong": {}}
    for meta in data.questions:
        sets["gold"][meta.question_id] = str(meta.answer)
        if not meta.abstention:
            sets["abstain"][meta.question_id] = ABSTAIN
        wrong = _wrong(meta, by_type[meta.question_type])
        if wrong is not None:
            sets["wrong"][meta.question_id] = wrong
    return sets


async def audit_longmemeval(
    data: LongMemEvalData,
    settings: JudgeSettings,
    out: Path,
    *,
    type_templates: dict[str, Path] | None = None,
    dry_run: bool = False,
    batch: bool = False,
    user_cache: bool = False,
    sample: SampleSpec | None = None,
    sampler: Sampler,
    **pass_options: Any,
) -> tuple[PassResult, dict[str, Any] | None]:
    from locoscore.benchmarks.longmemeval.judge_pass import draw_sample, lme_settings

    settings = lme_settings(settings, type_templates or {})
    sets = probe_sets(data)
    drawn = draw_sample(data, sample, sampler)  # one sample of the questions cuts every set
    if drawn is not None:
        sets = {name: {q: a for q, a in s.items() if q in drawn.ids} for name, s in sets.items()}
    records: list[JudgeItem] = []
    owner: dict[str, tuple[str, QuestionMeta]] = {}
    metas = {m.question_id: m for m in data.questions}
    for name, answers in sets.items():
        for item in judging.judge_items(data, answers):
            # one item per (set, question): the set is part of the identity
            question_id = f"{name}:{item.question_id}"
            item = dataclasses.replace(
                item, key=f"{question_id}#{item.index}", question_id=question_id
            )
            owner[item.key] = (name, metas[item.source])
            records.append(item)
    if not dry_run:
        out.mkdir(parents=True, exist_ok=True)
    result = await run_pass(
        records,
        settings,
        out / JUDGE_CACHE,
        batch=batch,
        dry_run=dry_run,
        user_cache=user_cache,
        **pass_options,  # the progress sink, --batch-poll, --batch-wait
    )
    if dry_run or result.run is None or result.run.pending_batch is not None:
        return result, None
    votes: dict[str, list[bool]] = defaultdict(list)
    for row in result.run.rows:
        if row.score is not None:
            votes[row.key].append(row.score >= 50.0)
    judge = result.judge.describe()
    judge["signature"] = with_sample(judge["signature"], drawn)
    document: dict[str, Any] = {
        "judge": judge,
        "sample": None if drawn is None else drawn.to_json(),
        "sets": {},
    }
    for name in sets:
        cells: dict[str, list[float]] = defaultdict(list)
        for key, (set_name, meta) in owner.items():
            if set_name != name or not votes.get(key):
                continue
            share = sum(votes[key]) / len(votes[key])
            cells[meta.question_type].append(share)
            cells["overall"].append(share)
            if meta.abstention:
                cells["abstention"].append(share)
        document["sets"][name] = {
            "expected": "accepted" if EXPECTED[name] else "rejected",
            "accepted": {
                k: {"count": len(v), "rate": round(100 * sum(v) / len(v), 4)}
                for k, v in cells.items()
                if v
            },
        }
    write_json_atomic(out / AUDIT_JSON, document)
    write_text_atomic(out / AUDIT_MD, _markdown(document))
    return result, document


def _markdown(document: dict[str, Any]) -> str:
    columns = [*QUESTION_TYPES, "abstention", "overall"]
    lines = [
        "# Judge audit on LongMemEval",
        "",
        f"Judge: `{document['judge']['signature']}`",
        "",
        *(
            [f"**Subset ({sample['signature']}): not the full benchmark.**", ""]
            if (sample := document.get("sample"))
            else []
        ),
        "Share of responses the judge accepted (%), per probe set:",
        "",
        "| set | should be | " + " | ".join(columns) + " |",
        "|" + "---|" * (len(columns) + 2),
    ]
    for name, block in document["sets"].items():
        cells = [
            f"{block['accepted'][c]['rate']:.1f}" if c in block["accepted"] else "–"
            for c in columns
        ]
        lines.append(f"| {name} | {block['expected']} | " + " | ".join(cells) + " |")
    return "\n".join([*lines, ""])


__all__ = ["audit_longmemeval", "probe_sets"]
