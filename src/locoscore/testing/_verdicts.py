"""What the fake provider answers: the default verdict rule, and the verdict dressed as
schema-shaped JSON, plain JSON, prose or a truncated reply. Shared by both wire formats."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from locoscore._io import sha256_text

CORRECT = "CORRECT"
WRONG = "WRONG"
# A score at or above this is labelled CORRECT.
CORRECT_THRESHOLD = 70

# Faults answered with an HTTP error status instead of a reply.
HTTP_FAULTS = frozenset({"429", "500", "503", "529", "quota"})
# Faults answered with HTTP 200 and a reply whose content is unusable.
CONTENT_FAULTS = frozenset({"bad_json", "empty", "refusal", "truncation"})
# Faults of the connection itself.
CONNECTION_FAULTS = frozenset({"timeout", "drop"})
# Only a batch entry can expire.
BATCH_ONLY_FAULTS = frozenset({"expired"})
FAULT_TYPES = HTTP_FAULTS | CONTENT_FAULTS | CONNECTION_FAULTS | BATCH_ONLY_FAULTS
# What a live (not batched) call can be given.
LIVE_FAULTS = FAULT_TYPES - BATCH_ONLY_FAULTS


def content_fault(fault: str | None) -> str | None:
    """The fault the reply's content shows (None: no fault, or one of status or connection)."""
    return fault if fault in CONTENT_FAULTS else None


_LABEL_NAMES = {"label", "verdict", "grade", "judgment", "judgement", "decision", "result"}
_CORRECT_WORDS = {"correct", "yes", "true", "pass", "right", "acceptable", "good"}
_WRONG_WORDS = {"wrong", "incorrect", "no", "false", "fail", "unacceptable", "bad"}


@dataclass(frozen=True)
class Verdict:
    """One judge verdict: a 0-100 score and its CORRECT/WRONG label."""

    score: int
    label: str

    @property
    def explanation(self) -> str:
        if self.label == CORRECT:
            return "The candidate agrees with the gold answer on the key facts."
        return "The candidate misses or contradicts the key facts of the gold answer."


# The judge's fence around a candidate answer carries a fresh random token per call.
_FENCE_TOKEN = re.compile(r"(</?candidate)-[0-9a-f]+>")


def default_score(text: str) -> int:
    """The default rule: 40 + sha256(text) mod 61, so equal prompts get equal scores. The
    fence token is left out (`<candidate-…>` read as `<candidate>`): the same answer judged
    again gets the same score, as a deterministic judge would give it."""
    text = _FENCE_TOKEN.sub(r"\1>", text)
    digest = sha256_text(text)
    return 40 + int(digest, 16) % 61


# The parts of a locoscore judge prompt the reference-recall rule reads.
_CANDIDATE = re.compile(r"<candidate-([0-9a-f]+)>\n(.*)\n</candidate-\1>", re.DOTALL)
_REFERENCE = re.compile(r"Reference answer:\n(.*?)\n\n", re.DOTALL)
_WORD = re.compile(r"\w+")


def answer_words(text: str) -> set[str]:
    """The lowercase words (`\\w+` runs) of an answer, as the reference-recall rule sees them."""
    return set(_WORD.findall(text.lower()))


def recall_score(reference: str, candidate: str) -> int:
    """floor(100 x the share of the reference's words found in the candidate); 0 when the
    reference has no words."""
    wanted = answer_words(reference)
    if not wanted:
        return 0
    return 100 * len(wanted & answer_words(candidate)) // len(wanted)


def reference_recall_score(prompt: str) -> int:
    """A deterministic verdict rule for probe answers: `recall_score` of the reference and the
    candidate found in a locoscore-shaped prompt ("Reference answer:" section, fenced
    candidate), so a test can compute every verdict itself: the gold as the answer scores
    100, a vague answer that names none of the gold's words 0. Prompts of another shape
    fall back to `default_score`."""
    reference = _REFERENCE.search(prompt)
    candidate = _CANDIDATE.search(prompt)
    if reference is None or candidate is None:
        return default_score(prompt)
    return recall_score(reference.group(1), candidate.group(2))


def _reference_and_candidate(prompt: str) -> tuple[str, str] | None:
    reference = _REFERENCE.search(prompt)
    candidate = _CANDIDATE.search(prompt)
    if reference is None or candidate is None:
        return None
    return reference.group(1), candidate.group(2)


def _words_line(text: str) -> str:
    """The answer's lowercase words joined by one space: case, punctuation and spacing apart."""
    return " ".join(_WORD.findall(text.lower()))


def reference_contains_score(prompt: str) -> int:
    """A lenient judge's rule: 100 when the reference's words appear, in order and together,
    anywhere in the candidate (a long reply around the gold passes), else 0. Prompts of
    another shape fall back to `default_score`."""
    found = _reference_and_candidate(prompt)
    if found is None:
        return default_score(prompt)
    wanted, said = _words_line(found[0]), _words_line(found[1])
    return 100 if wanted and f" {wanted} " in f" {said} " else 0


def reference_exact_score(prompt: str) -> int:
    """A strict judge's rule: 100 only when the candidate is the reference itself (words
    compared as `reference_contains_score` does, so case and punctuation aside), else 0."""
    found = _reference_and_candidate(prompt)
    if found is None:
        return default_score(prompt)
    wanted = _words_line(found[0])
    return 100 if wanted and wanted == _words_line(found[1]) else 0


VERDICT_RULES = {
    "hash": default_score,
    "reference-recall": reference_recall_score,
    "reference-contains": reference_contains_score,
    "reference-exact": reference_exact_score,
}


def verdict_from(value: int | str) -> Verdict:
    """Turn a scripted or callable verdict (0-100 or "CORRECT"/"WRONG") into a Verdict."""
    if isinstance(value, bool):
        raise ValueError(f"verdict must be an int 0-100 or CORRECT/WRONG, got {value!r}")
    if isinstance(value, int):
        if not 0 <= value <= 100:
            raise ValueError(f"scripted score {value} is outside 0-100")
        return Verdict(value, CORRECT if value >= CORRECT_THRESHOLD else WRONG)
    label = str(value).strip().upper()
    if label == CORRECT:
        return Verdict(100, CORRECT)
    if label == WRONG:
        return Verdict(0, WRONG)
    raise ValueError(f"verdict must be an int 0-100 or CORRECT/WRONG, got {value!r}")


def content_text(content: Any) -> str:
    """The text of a message's content: a string, or the text parts of a block list."""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        parts = [
            str(block.get("text", ""))
            for block in content
            if isinstance(block, Mapping) and block.get("type") in ("text", "input_text")
        ]
        return "\n".join(parts)
    return ""


def user_text(messages: Any) -> str:
    """The text of the last user message: what the default verdict rule hashes."""
    if not isinstance(messages, Sequence):
        return ""
    for message in reversed(messages):
        if isinstance(message, Mapping) and message.get("role") == "user":
            return content_text(message.get("content"))
    return ""


def all_text(messages: Any, system: Any = None) -> str:
    """Every text part of a request, for the input-token estimate."""
    texts = [content_text(system)] if system is not None else []
    if isinstance(messages, Sequence):
        texts += [content_text(m.get("content")) for m in messages if isinstance(m, Mapping)]
    return "\n".join(texts)


def estimate_tokens(text: str) -> int:
    """About four characters a token, at least one."""
    return max(1, len(text) // 4)


def looks_binary(prompt: str) -> bool:
    """A prompt that asks for a CORRECT/WRONG label rather than a score."""
    return CORRECT in prompt and WRONG in prompt


def plain_json(verdict: Verdict, prompt: str) -> str:
    """The reply to a prompt that asked for JSON in prose, not through a schema or tool."""
    if looks_binary(prompt):
        return json.dumps({"label": verdict.label, "explanation": verdict.explanation})
    return json.dumps({"score": verdict.score, "explanation": verdict.explanation})


def prose(verdict: Verdict) -> str:
    """The bad_json fault: no JSON at all, but a score and a label a fallback can find."""
    return (
        f"Weighing the candidate against the gold answer: {verdict.explanation} "
        f"Score: {verdict.score}. Verdict: {verdict.label}."
    )


def truncate(text: str) -> str:
    """The truncation fault: the reply cut off half-way, so JSON in it no longer parses."""
    return text[: max(1, len(text) // 2)]


def fill_schema(schema: Any, verdict: Verdict) -> Any:
    """A value satisfying a JSON schema that carries the verdict: numbers get the score,
    label-like strings and enums the label, other strings the explanation."""
    defs: dict[str, Any] = {}
    if isinstance(schema, Mapping):
        defs = {**schema.get("definitions", {}), **schema.get("$defs", {})}
    return _fill(schema, verdict, defs, name="", depth=0)


def _fill(schema: Any, verdict: Verdict, defs: dict[str, Any], name: str, depth: int) -> Any:
    if not isinstance(schema, Mapping) or depth > 20:
        return verdict.explanation
    if "$ref" in schema:
        target = defs.get(str(schema["$ref"]).rsplit("/", 1)[-1], {})
        return _fill(target, verdict, defs, name, depth + 1)
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return _pick_enum(schema["enum"], verdict)
    for key in ("anyOf", "oneOf", "allOf"):
        options = [s for s in schema.get(key, []) if isinstance(s, Mapping)]
        usable = [s for s in options if s.get("type") != "null"]
        if usable:
            return _fill(usable[0], verdict, defs, name, depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        return {k: _fill(v, verdict, defs, k, depth + 1) for k, v in properties.items()}
    if kind == "array":
        return [_fill(schema.get("items", {}), verdict, defs, name, depth + 1)]
    if kind in ("integer", "number"):
        value = _scaled_score(schema, verdict.score)
        return round(value) if kind == "integer" else float(value)
    if kind == "boolean":
        return verdict.label == CORRECT
    if kind == "null":
        return None
    if name.lower() in _LABEL_NAMES:
        return verdict.label
    return verdict.explanation


def _scaled_score(schema: Mapping[str, Any], score: int) -> float:
    """The 0-100 score, mapped onto a narrower declared range (a 1-5 or 0-10 scale)."""
    low = schema.get("minimum", 0)
    high = schema.get("maximum", 100)
    if not isinstance(low, int | float) or not isinstance(high, int | float) or high <= low:
        return float(score)
    if high < 100:
        return low + (high - low) * score / 100
    return float(min(max(score, low), high))


def _pick_enum(options: list[Any], verdict: Verdict) -> Any:
    strings = [o for o in options if isinstance(o, str)]
    if strings:
        wanted = _CORRECT_WORDS if verdict.label == CORRECT else _WRONG_WORDS
        for option in strings:
            if option.strip().lower() in wanted:
                return option
        return strings[0] if verdict.label == CORRECT else strings[-1]
    numbers = [o for o in options if isinstance(o, int | float) and not isinstance(o, bool)]
    if numbers:
        return min(numbers, key=lambda n: abs(n - verdict.score))
    return options[0]
