"""What makes two results folders' numbers comparable, read from their summary.json.

A number is comparable with another only on the same benchmark and data file, the same
questions (the full set or the same sample; all questions or the verified-gold view), the same
lexical protocols and, for J, the same judge. Each is read generically: from a `benchmark` or
`sample` record when summary.json has one, else from the `bench:` / `sample:` part of any of
its signatures; a folder that names neither is the full question set of the benchmark that
read it (the registry's choice for a folder that records no benchmark).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from locoscore._io import sha256_text
from locoscore.results.board_row import SHA_SHOWN, BoardRow

NO_JUDGE_ASPECT = "none (scored without a judge)"

FULL_SET = "full"
# values of a `sample:` part that mean no sampling at all
_NO_SAMPLE = {"", "none", "full", "all"}


@dataclass(frozen=True)
class Identity:
    """Everything a board row's numbers depend on besides the system itself."""

    benchmark: str
    dataset_sha256: str | None  # first SHA_SHOWN hex digits; None when nothing recorded it
    sample: str  # FULL_SET, or the sample's own description
    view: str  # ALL_QUESTIONS, or the verified-gold view and its errata
    questions: int
    questions_sha256: str  # of the sorted question keys the numbers are computed on
    lexical: tuple[tuple[str, str], ...]  # (protocol, signature), sorted by protocol
    judge: str | None  # the judge as rows group by it (`judge_key`); None when not judged
    # False for a benchmark scored without a judge (its commands take no `judge`): its
    # board says so instead of "not judged" and shows no judge columns
    takes_judge: bool = True
    # the judge's whole signature (its `served:` part too), shown, not compared
    judge_signature: str | None = field(default=None, compare=False)

    def aspects(self) -> dict[str, str]:
        """The comparable-group key, one readable value per aspect (names as the page shows)."""
        lexical = "; ".join(f"{name}: {sig}" for name, sig in self.lexical) or "none"
        return {
            "benchmark": self.benchmark,
            "data file": f"sha256 {self.dataset_sha256}…" if self.dataset_sha256 else "unknown",
            "question set": f"{self.sample}, {self.view}",
            "questions": f"{self.questions} (keys sha256 {self.questions_sha256[:SHA_SHOWN]}…)",
            "lexical protocols": lexical,
            "judge": self.judge or ("not judged" if self.takes_judge else NO_JUDGE_ASPECT),
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "benchmark": self.benchmark,
            "dataset_sha256_prefix": self.dataset_sha256,
            "sample": self.sample,
            "view": self.view,
            "questions": self.questions,
            "questions_sha256": self.questions_sha256,
            "lexical_signatures": dict(self.lexical),
            "judge_signature": self.judge_signature or self.judge,
        }


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def signatures(summary: dict[str, Any]) -> list[str]:
    """Every signature the folder records: run, lexical protocols, judge, benchmark, sample."""
    found = [
        _dict(summary.get("run")).get("signature"),
        _dict(summary.get("judge")).get("signature"),
    ]
    found += [_dict(section).get("signature") for section in _dict(summary.get("lexical")).values()]
    found += [_dict(summary.get(k)).get("signature") for k in ("benchmark", "sample")]
    return [s for s in found if isinstance(s, str)]


def signature_part(summary: dict[str, Any], name: str) -> str | None:
    """The value of the first `name:` part in any of the folder's signatures."""
    for signature in signatures(summary):
        for part in signature.split("|"):
            key, _, value = part.partition(":")
            if key == name:
                return value
    return None


def recorded_name(summary: dict[str, Any], default: str) -> str:
    """The benchmark's name as summary.json records it (top level, its run or judge
    section), else the `bench:` signature part's name, else `default` (the benchmark that
    read the folder)."""
    for section in (summary, _dict(summary.get("run")), _dict(summary.get("judge"))):
        record = section.get("benchmark")
        if isinstance(record, str) and record:
            return record
        for key in ("name", "id", "benchmark"):
            if isinstance(_dict(record).get(key), str):
                return str(_dict(record)[key])
    part = signature_part(summary, "bench")
    return part.split("@")[0] if part else default


def _dataset_sha(summary: dict[str, Any]) -> str | None:
    """The data file's sha256: the folder's, its run's, or the one its judge recorded (a
    judged answers file has no run section; its judge read the data file all the same)."""
    candidates = [
        _dict(summary.get("dataset")).get("sha256"),
        _dict(_dict(summary.get("run")).get("dataset")).get("sha256"),
        _dict(_dict(summary.get("judge")).get("dataset")).get("sha256"),
        _dict(summary.get("benchmark")).get("sha256"),
        _dict(_dict(summary.get("benchmark")).get("dataset")).get("sha256"),
    ]
    for part_name in ("bench", "data"):
        part = signature_part(summary, part_name)
        if part and "@" in part:
            candidates.append(part.rsplit("@", 1)[1])
    found = next((c for c in candidates if isinstance(c, str) and c), None)
    return found[:SHA_SHOWN].lower() if found else None


def _sample_text(value: str) -> str:
    return value if value.startswith("sample:") else f"sample:{value}"


def _sample(summary: dict[str, Any]) -> str:
    """The run's sample (`run.sample`, a top-level `sample`, or the judge's own), else the
    `sample:` part of a signature, else FULL_SET."""
    records = (
        summary.get("sample"),
        _dict(summary.get("run")).get("sample"),
        _dict(summary.get("judge")).get("sample"),
    )
    for record in records:
        if isinstance(record, str) and record.strip().lower() not in _NO_SAMPLE:
            return _sample_text(record)
        if isinstance(record, dict) and record:
            described = record.get("signature") or record.get("description")
            if isinstance(described, str) and described:
                return _sample_text(described)
            return "sample " + json.dumps(record, sort_keys=True, separators=(",", ":"))
    part = signature_part(summary, "sample")
    if part is not None and part.strip().lower() not in _NO_SAMPLE:
        return _sample_text(part)
    return FULL_SET


def judge_key(signature: str | None) -> str | None:
    """The judge as rows group by it: its signature without what its server said it served
    (`served:` and `fake`). A judge that made no call (every verdict cached, or graded
    without a call) has no such part, and is still the same judge."""
    if signature is None:
        return None
    parts = signature.split("|")
    return "|".join(p for p in parts if not p.startswith("served:") and p != "fake")


def identity_of(
    benchmark: str, summary: dict[str, Any], row: BoardRow, takes_judge: bool = True
) -> Identity:
    """The identity of a row's numbers: the questions they are over (by id), the view, its
    lexical protocols' and judge's signatures, and the folder's data file and sample."""
    keys = "\n".join(sorted(row.question_ids))
    return Identity(
        benchmark=recorded_name(summary, benchmark),
        dataset_sha256=_dataset_sha(summary),
        sample=_sample(summary),
        view=row.view,
        questions=len(row.question_ids),
        questions_sha256=sha256_text(keys),
        lexical=row.lexical,
        judge=judge_key(row.judge_signature),
        takes_judge=takes_judge,
        judge_signature=row.judge_signature,
    )
