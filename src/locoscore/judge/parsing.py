"""Turning a judge reply into a score, and spotting predictions not worth a call.

Order of trust: the structured field the provider filled (JSON schema output or a forced
tool call), then JSON found in free text, then the verdict field at the head of JSON cut
short (a reply truncated at max_tokens after its verdict: every schema puts it first), then
a number (rubric) or a label (binary) in the text, the label the reply opens with first;
otherwise the run is unscored (-1) with the reason. Unscored is never "wrong".
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

UNSCORED = -1.0

_JSON_OBJECT = re.compile(r"\{[^{}]*\}", re.DOTALL)
_SCORE_NEAR_WORD = re.compile(r"score\W{0,5}(\d{1,3}(?:\.\d+)?)", re.IGNORECASE)
_FIRST_NUMBER = re.compile(r"(?<![\d.])(\d{1,3}(?:\.\d+)?)(?![\d.])")
_TRAILING_NUMBER = re.compile(r"[\d.]+\s*$")
# The verdict field of JSON cut short: a label closed by its quote, or a score followed by
# a comma or a closing brace (so "8" of a cut "85" is never read).
_LABEL_FIELD = re.compile(r'"(?:label|verdict)"\s*:\s*"\s*(CORRECT|WRONG)\s*"', re.IGNORECASE)
_SCORE_FIELD = re.compile(r'"score"\s*:\s*"?(\d{1,3}(?:\.\d+)?)"?\s*[,}]')
_LEADING_LABEL = re.compile(
    r"^\W*(?:(?:label|verdict)\W+)?(CORRECT|WRONG|INCORRECT)\b(?!\s*(?:or|/|and)\b)", re.I
)
_CORRECT = re.compile(r"\bCORRECT\b")
_WRONG = re.compile(r"\b(?:WRONG|INCORRECT)\b")

# A prediction that carries no answer at all is graded 0 without asking a model: such
# non-answers (":" or "Thought process:") are known to fool reference-based judges.
_PREAMBLE_ONLY = re.compile(
    r"^(?:thought process|thoughts?|reasoning|let'?s think(?: step by step)?|answer|"
    r"final answer|solution|response|explanation|analysis)\s*[:.\-]*$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class ParsedVerdict:
    score: float  # 0-100, or -1 when unscored
    explanation: str
    method: str  # structured | json_text | json_prefix | text_number | text_label | none
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.score >= 0


def trivial_prediction_reason(prediction: str) -> str | None:
    """Why a prediction is graded 0 without a call, or None when it deserves a judge."""
    text = prediction.strip()
    if not text:
        return "empty prediction"
    if not any(ch.isalnum() for ch in text):
        return "prediction has no letters or digits"
    if _PREAMBLE_ONLY.match(text):
        return "prediction is a preamble without an answer"
    return None


def _score_from_mapping(protocol: str, data: dict[str, Any]) -> tuple[float, str] | None:
    explanation = str(data.get("explanation", "") or "")
    if protocol == "binary":
        label = data.get("label", data.get("verdict"))
        if isinstance(label, str) and label.strip().upper() in ("CORRECT", "WRONG"):
            return (100.0 if label.strip().upper() == "CORRECT" else 0.0), explanation
        return None
    value = data.get("score")
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if isinstance(value, int | float) and 0 <= value <= 100:
        return float(value), explanation
    return None


def parse_verdict(
    protocol: str,
    structured: Any,
    text: str,
    *,
    truncated: bool = False,
    scale: tuple[float, ...] = (),
) -> ParsedVerdict:
    """Score from a reply: structured field first, then the text fallbacks, else -1.
    In a reply cut at max_tokens a number at the very end may be cut too ('{"score": 8'
    of 85), so it is not read. With `scale` (the only rubric scores the prompt asks for), a
    score off it is unparsed: 0.5 on a "100, 50 or 0" scale is no verdict, not 0.5 %."""
    verdict = _parse(protocol, structured, text, truncated=truncated)
    if protocol == "binary" or not scale or not verdict.ok or verdict.score in scale:
        return verdict
    asked = ", ".join(f"{v:g}" for v in sorted(scale, reverse=True))
    return ParsedVerdict(
        UNSCORED, "", "none", f"score {verdict.score:g} is off the asked scale ({asked})"
    )


def _parse(protocol: str, structured: Any, text: str, *, truncated: bool) -> ParsedVerdict:
    if isinstance(structured, dict):
        found = _score_from_mapping(protocol, structured)
        if found is not None:
            return ParsedVerdict(found[0], found[1], "structured")
    text = text or ""
    if truncated:
        text = _TRAILING_NUMBER.sub("", text)
    stripped = text.strip()
    candidates = [stripped] if stripped.startswith("{") else []
    candidates += _JSON_OBJECT.findall(text)
    for chunk in candidates:
        try:
            data = json.loads(chunk)
        except ValueError:
            continue
        if isinstance(data, dict):
            found = _score_from_mapping(protocol, data)
            if found is not None:
                return ParsedVerdict(found[0], found[1], "json_text")
    head = (_LABEL_FIELD if protocol == "binary" else _SCORE_FIELD).search(text)
    if head is not None:
        value = head.group(1).upper()
        score = (100.0 if value == "CORRECT" else 0.0) if protocol == "binary" else float(value)
        if 0 <= score <= 100:
            return ParsedVerdict(score, stripped[:500], "json_prefix")
    if protocol == "binary":
        leading = _LEADING_LABEL.match(text)
        if leading is not None:  # the verdict first, as asked: later words are reasons
            correct = leading.group(1).upper() == "CORRECT"
            return ParsedVerdict(100.0 if correct else 0.0, stripped[:500], "text_label")
        has_correct = bool(_CORRECT.search(text))
        has_wrong = bool(_WRONG.search(text))
        if has_correct != has_wrong:
            return ParsedVerdict(100.0 if has_correct else 0.0, stripped[:500], "text_label")
        reason = "both labels in the reply" if has_correct else "no CORRECT/WRONG label"
        return ParsedVerdict(UNSCORED, "", "none", f"unparseable reply: {reason}")
    match = _SCORE_NEAR_WORD.search(text) or _FIRST_NUMBER.search(text)
    if match is not None:
        value = float(match.group(1))
        if 0 <= value <= 100:
            return ParsedVerdict(value, stripped[:500], "text_number")
    if not stripped:
        return ParsedVerdict(UNSCORED, "", "none", "empty reply")
    return ParsedVerdict(UNSCORED, "", "none", "unparseable reply: no score 0-100 found")
