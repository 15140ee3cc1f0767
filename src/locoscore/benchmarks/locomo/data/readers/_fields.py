"""Field checks shared by every reader: each failure names file, record and field."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Literal

from locoscore.benchmarks.locomo.categories import ADVERSARIAL, parse_category
from locoscore.benchmarks.locomo.data.models import PredictionRecord
from locoscore.errors import InputError

GoldField = Literal["answer", "adversarial_answer"]


@dataclass(frozen=True)
class Where:
    """Where a record sits in its file: `record` is "line N" (JSONL) or a position label."""

    file: str
    record: str | int

    @property
    def source(self) -> str:
        """The label stored on `PredictionRecord.source`."""
        if isinstance(self.record, int):
            return f"record {self.record}"
        return self.record

    def error(self, message: str, field: str | None = None) -> InputError:
        return InputError(message, file=self.file, record=self.record, field=field)


def require_object(item: object, where: Where) -> Mapping[str, Any]:
    if not isinstance(item, dict):
        raise where.error(f"expected a JSON object, got {_kind(item)}")
    return item


def first_present(item: Mapping[str, Any], names: tuple[str, ...]) -> tuple[str, Any] | None:
    """The first of `names` that is a key of `item`, with its value."""
    for name in names:
        if name in item:
            return name, item[name]
    return None


def _missing(names: tuple[str, ...], where: Where) -> InputError:
    also = f" (also accepted: {', '.join(names[1:])})" if len(names) > 1 else ""
    return where.error(f"missing{also}", field=names[0])


def require_text(
    item: Mapping[str, Any], names: tuple[str, ...], where: Where, *, allow_empty: bool
) -> str:
    """A required string field under any of its accepted names."""
    found = first_present(item, names)
    if found is None:
        raise _missing(names, where)
    name, value = found
    if not isinstance(value, str):
        raise where.error(f"must be a string, got {_kind(value)}", field=name)
    if not allow_empty and not value.strip():
        raise where.error("is empty", field=name)
    return check_utf8(value, name, where)


def check_utf8(value: str, name: str, where: Where) -> str:
    """`value`, if it can be written as UTF-8: JSON's `\\ud800`-style escapes can decode to
    unpaired surrogates, which would only fail later, when the outputs are written."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise where.error(
            f"contains an unpaired surrogate ({value[exc.start]!r} at character {exc.start})",
            field=name,
        ) from None
    return value


def read_category(item: Mapping[str, Any], name: str, where: Where) -> int:
    if name not in item:
        raise _missing((name,), where)
    try:
        return parse_category(item[name])
    except ValueError as exc:
        raise where.error(str(exc), field=name) from None


def _check_gold(value: object, name: str, where: Where) -> str | int:
    # Ints are kept as given: six released LoCoMo answers are ints and are scored as str().
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise where.error(f"gold must be a string or an integer, got {_kind(value)}", field=name)
    return check_utf8(value, name, where) if isinstance(value, str) else value


def read_gold(
    item: Mapping[str, Any], names: tuple[str, ...], where: Where, category: int
) -> tuple[str | int, GoldField]:
    """The gold answer; category-5 items without one fall back to `adversarial_answer`.

    Mem0-style harnesses write `answer: ""` for category-5 items (`val.get("answer", "")`)
    next to the `adversarial_answer`: an empty answer counts as absent there."""
    found = first_present(item, names)
    adversarial = item.get("adversarial_answer") if category == ADVERSARIAL else None
    empty_beside_adversarial = found is not None and found[1] == "" and adversarial is not None
    if found is not None and found[1] is not None and not empty_beside_adversarial:
        return _check_gold(found[1], found[0], where), "answer"
    if adversarial is not None:
        return _check_gold(item["adversarial_answer"], "adversarial_answer", where), (
            "adversarial_answer"
        )
    if found is not None:
        raise where.error("is null", field=found[0])
    raise _missing(names, where)


@dataclass(frozen=True)
class QAFields:
    """The four fields every format's item carries, under that format's names (named as
    `PredictionRecord` names them)."""

    question: str
    category: int
    answer: str | int
    gold_field: GoldField
    prediction: str

    def record(self, where: Where, **more: Any) -> PredictionRecord:
        """The record of these fields and the format's own (`more`: identity, timings,
        `recorded`)."""
        return PredictionRecord(**asdict(self), source=where.source, **more)


def read_qa(
    item: Mapping[str, Any],
    where: Where,
    *,
    question: tuple[str, ...] = ("question",),
    gold: tuple[str, ...],
    prediction: tuple[str, ...],
) -> QAFields:
    """Question, category, gold and prediction, checked in that order (the first failure is
    the one reported)."""
    text = require_text(item, question, where, allow_empty=False)
    category = read_category(item, "category", where)
    answer, gold_field = read_gold(item, gold, where, category)
    predicted = require_text(item, prediction, where, allow_empty=True)
    return QAFields(text, category, answer, gold_field, predicted)


def finite_number(value: object, name: str, where: Where) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise where.error(f"must be a number, got {_kind(value)}", field=name)
    if not math.isfinite(value):
        raise where.error(f"must be a finite number, got {value!r}", field=name)
    return float(value)


def optional_seconds(
    item: Mapping[str, Any], name: str, where: Where, scale: float = 1.0
) -> float | None:
    """A non-negative duration (null or absent -> None), multiplied by `scale` into seconds."""
    value = item.get(name)
    if value is None:
        return None
    seconds = finite_number(value, name, where)
    if seconds < 0:
        raise where.error(f"latency must not be negative, got {value!r}", field=name)
    return seconds * scale


def latency_seconds(item: Mapping[str, Any], stem: str, where: Where) -> float | None:
    """`<stem>_s` in seconds or `<stem>_ms` in milliseconds; giving both is ambiguous."""
    seconds_name, millis_name = f"{stem}_s", f"{stem}_ms"
    if item.get(seconds_name) is not None and item.get(millis_name) is not None:
        raise where.error(
            f"give either {seconds_name} or {millis_name}, not both", field=millis_name
        )
    if item.get(millis_name) is not None:
        return optional_seconds(item, millis_name, where, scale=0.001)
    return optional_seconds(item, seconds_name, where)


def optional_count(item: Mapping[str, Any], name: str, where: Where) -> int | None:
    """A non-negative integer (integral floats accepted); null or absent -> None."""
    value = item.get(name)
    if value is None:
        return None
    number = finite_number(value, name, where)
    if not number.is_integer() or number < 0:
        raise where.error(f"must be a non-negative integer, got {value!r}", field=name)
    return int(number)


def optional_id(item: Mapping[str, Any], name: str, where: Where) -> str | None:
    value = item.get(name)
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise where.error(f"must be a non-empty string, got {_kind(value)}", field=name)
    return check_utf8(value, name, where)


def recorded_number(value: object, name: str, where: Where) -> float | int | bool:
    """A score another harness recorded; kept as given (bools and ints stay)."""
    if isinstance(value, bool):
        return value
    finite_number(value, name, where)
    assert isinstance(value, int | float)
    return value


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return f"string {value[:40]!r}"
    return f"{type(value).__name__} {value!r}"
