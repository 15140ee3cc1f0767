"""LoCoMo-Plus's official judge, re-implemented from the behaviour of the official
`llm_as_judge.py`: the prompt, the reply reader, the settings and the aggregation.

- prompt: the official Cognitive template (read from the repository's `prompt.py`,
  `official_prompts`) formatted with the cue as evidence and the reply as prediction
  (the trigger is not shown), the whole stripped and prefixed by the conversation line
  (names "A" and "B"), as the official call sends every prompt; the reply is not fenced;
- two levels asked for (correct, wrong); one call of gpt-4o-mini at temperature 0 with 512
  tokens, no structured output;
- the reader (`read_official_reply`): a `"label": ..., "reason": ...` object found in the
  reply, else the reply as JSON, else the words: "correct" anywhere (so "incorrect" too),
  else "wrong", else "partial". correct 1, partial 0.5, wrong or anything else 0. A reply
  read as correct only through "incorrect" is marked (method `official:incorrect-as-
  correct`) and counted in the section;
- aggregation: the mean over every record, a judge call that failed counted 0 (the official
  code judges its error text), per category: every LoCoMo-Plus item is the official
  category "Cognitive" (the relation types are locoscore's breakdown of it).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from locoscore._io import read_jsonl, write_json_atomic, write_jsonl_atomic
from locoscore.benchmarks.locomo_plus.official import escaped
from locoscore.benchmarks.locomo_plus.official_prompts import COGNITIVE, OfficialPrompts
from locoscore.data.conversation import Question
from locoscore.errors import InputError
from locoscore.judge.parsing import ParsedVerdict
from locoscore.judge.prompts import PromptTemplate, ReplyReader
from locoscore.results.folder import load_summary
from locoscore.results.layout import JUDGMENTS, SCORES, SUMMARY

OFFICIAL_MODEL = "gpt-4o-mini"
OFFICIAL_TEMPERATURE = 0.0
OFFICIAL_MAX_TOKENS = 512
OFFICIAL_RUNS = 1
LEVELS = {"correct": 100.0, "partial": 50.0, "wrong": 0.0}
QUIRK = "official:incorrect-as-correct"
PROMPT_NAME = "official-locomo-plus-judge"

# A label then a reason inside one brace-free object, quoted either way (the official
# code's first try, read as it reads it).
_LABEL_AND_REASON = re.compile(
    r"\{[^{}]*\"label\"\s*:\s*[\"']([^\"']+)[\"'][^{}]*\"reason\"\s*:\s*[\"']([^\"']*)[\"']",
    re.DOTALL,
)


def _from_words(raw: str, label: str) -> tuple[str, str]:
    """The official fallback: the first word found of correct, wrong, partial (a substring
    test: "incorrect" holds "correct"); none found keeps `label`."""
    low = raw.lower()
    if "correct" in low:
        quirk = "incorrect" in low and "correct" not in low.replace("incorrect", "")
        return "correct", QUIRK if quirk else "official:words"
    if "wrong" in low:
        return "wrong", "official:words"
    if "partial" in low:
        return "partial", "official:words"
    return label, "official:none"


def read_official_reply(structured: Any, text: str) -> ParsedVerdict:
    """A judge reply read as the official code reads it: always a verdict (1, 0.5 or 0)."""
    raw = (text or (json.dumps(structured) if isinstance(structured, dict) else "")).strip()
    label, method = "", "official:none"
    found = _LABEL_AND_REASON.search(raw)
    if found is not None:
        label, method = found.group(1).strip(), "official:label-and-reason"
    else:
        try:
            data = json.loads(raw)
            label = (data.get("label") or "").strip()  # a non-dict or non-string: the words
            (data.get("reason") or "").strip()  # ditto for the reason, label kept
            method = "official:json"
        except Exception:  # the official code falls back on any error
            label, method = _from_words(raw, label)
    score = LEVELS.get(label.strip().lower(), 0.0)
    return ParsedVerdict(score, raw[:200], method)


READER = ReplyReader("locomo-plus-official", read_official_reply)


def judge_template(prompts: OfficialPrompts, protocol: str) -> PromptTemplate:
    """The official judge prompt as a locoscore template: the repository's Cognitive
    template formatted as the official code formats it, with locoscore's placeholders
    where the evidence ({gold}: the official evidence text) and the prediction go."""
    marks = {"evidence": "\x02evidence\x03", "pred": "\x02pred\x03"}
    formatted = prompts.judge.format(gold="", **marks).strip()
    text = escaped(prompts.conv_start.format("A", "B") + formatted)
    text = text.replace(marks["evidence"], "{gold}").replace(marks["pred"], "{prediction_raw}")
    return PromptTemplate(
        protocol,  # type: ignore[arg-type]
        text,
        name=f"{PROMPT_NAME}@{prompts.version}",
        reader=READER,
    )


def is_official(template: PromptTemplate | None) -> bool:
    return template is not None and template.name.startswith(PROMPT_NAME)


def marker(protocol: str) -> PromptTemplate:
    """The panel's `official` variant before the data is read: the judge pass puts the
    repository's template in its place (`official_settings`)."""
    return PromptTemplate(protocol, "{question}{gold}{prediction}", name=PROMPT_NAME)  # type: ignore[arg-type]


def official_settings(settings: Any, prompts: OfficialPrompts, *, whole: bool) -> Any:
    """The settings with the official prompt and reader, no structured output (Anthropic
    takes only its own). `whole` (`--protocol official`): also the official run count,
    temperature and token limit; a panel's judge keeps its own."""
    if whole and settings.provider == "anthropic":
        raise InputError(
            f"the official judge is {OFFICIAL_MODEL} over OpenAI's API: add --provider openai "
            "(or openai-compatible with --model for a stand-in)",
            field="--protocol",
        )
    protocol = "binary" if whole else settings.protocol
    changes: dict[str, Any] = {"protocol": protocol, "template": judge_template(prompts, protocol)}
    if settings.provider != "anthropic":
        changes["response_format"] = "text"
    if whole:
        changes.update(
            runs=OFFICIAL_RUNS, temperature=OFFICIAL_TEMPERATURE, max_tokens=OFFICIAL_MAX_TOKENS
        )
    return dataclasses.replace(settings, **changes)


def official_block(
    rows: Sequence[dict[str, Any]], judgments: Sequence[dict[str, Any]], types: dict[str, str]
) -> tuple[dict[str, Any], dict[str, float]]:
    """The official aggregation of a judged folder: (the block, question -> score 0-1).
    A question's score is the mean of its runs, a failed run 0; a failed answer (never
    judged) is 0; the mean is over every record."""
    runs: dict[str, list[float]] = {}
    for row in judgments:
        runs.setdefault(str(row["key"]), []).append(float(row.get("score") or 0.0) / 100)
    scores = {
        str(r["question_id"]): (sum(v) / len(v) if (v := runs.get(str(r["question_id"]))) else 0.0)
        for r in rows
    }
    total = sum(scores.values())
    n = len(scores)

    def block(ids: list[str]) -> dict[str, Any]:
        got = sum(scores[q] for q in ids)
        return {"score": round(got, 2), "count": len(ids), "avg": round(got / len(ids), 4)}

    by_relation: dict[str, list[str]] = {}
    for qid in scores:
        by_relation.setdefault(types[qid], []).append(qid)
    methods = [str(r.get("method") or "") for r in judgments]
    summary = {
        "total_score": round(total, 2),
        "total_samples": n,
        "overall_avg": round(total / n, 4) if n else 0.0,
        "by_category": {COGNITIVE: block(list(scores))} if n else {},
        "by_relation": {t: block(ids) for t, ids in by_relation.items()},
        "incorrect_read_as_correct": methods.count(QUIRK),
        "read_as_partial": sum(1 for r in judgments if r.get("score") == 50.0),
        "failed_calls_counted_0": sum(1 for r in judgments if r.get("score") is None),
    }
    return summary, scores


def add_official(out: Path, section: dict[str, Any], questions: Sequence[Question]) -> None:
    """The section's headline made the official aggregation (J over every record, a failed
    judge call counted 0, so no question is left unscored), its `official` block (the
    official summary's figures and the quirk counts); scores.jsonl's `j` and summary.json
    rewritten with them."""
    from locoscore.generic.scoring import aggregate

    rows = read_jsonl(out / SCORES)
    judgments = read_jsonl(out / JUDGMENTS)
    types = {str(r["question_id"]): str(r["type"]) for r in rows}
    block, scores = official_block(rows, judgments, types)
    order = list(section["by_type"])
    section.update(aggregate(scores, types, order))
    section["protocol"] = "official"
    section["official"] = block
    # the official denominator: a question whose judge call failed is a 0, not left out
    # (the gate has already weighed the failures; `official` counts them)
    section.update(judged=len(scores), scored=len(scores), unscored=0)
    rewritten = [{**r, "j": round(scores[str(r["question_id"])], 6)} for r in rows]
    write_jsonl_atomic(out / SCORES, rewritten)
    summary = load_summary(out)
    summary["judge"] = section
    write_json_atomic(out / SUMMARY, summary)


def aggregation_lines(section: dict[str, Any]) -> list[str]:
    """What `judge` prints of the official block."""
    block = section.get("official")
    if not block:
        return []
    return [
        f"official aggregation: {block['overall_avg']:.4f} over {block['total_samples']} "
        f"records (score {block['total_score']}); replies with 'incorrect' read as correct: "
        f"{block['incorrect_read_as_correct']}; read as partial: {block['read_as_partial']}; "
        f"failed calls counted 0: {block['failed_calls_counted_0']}"
    ]
