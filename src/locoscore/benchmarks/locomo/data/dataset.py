"""Load `locomo10.json`: from a path, `$LOCOSCORE_DATASET`, or the user cache (`dataset fetch`).

The checksum is verified on every load; a different file is loaded with a warning naming
both hashes, because users legitimately score patched copies (e.g. gold fixes).
"""

from __future__ import annotations

import json
import warnings
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from locoscore._io import sha256_file
from locoscore.benchmarks.locomo.categories import CATEGORY_NAMES
from locoscore.benchmarks.locomo.data.models import QAItem, Sample, Session, Turn
from locoscore.data.user_cache import download_verified, resolve_input_path, user_cache_file
from locoscore.errors import DatasetError

LOCOMO_URL = "https://raw.githubusercontent.com/snap-research/locomo/main/data/locomo10.json"
LOCOMO_SHA256 = "79fa87e90f04081343b8c8debecb80a9a6842b76a7aa537dc9fdf651ea698ff4"
DATASET_ENV = "LOCOSCORE_DATASET"


class ChecksumWarning(UserWarning):
    """The dataset file is not the released `locomo10.json`."""


def cached_dataset_path() -> Path:
    return user_cache_file("locomo10.json")


@dataclass
class Dataset:
    samples: list[Sample]
    path: Path
    sha256: str
    items: dict[tuple[str, int], QAItem] = field(init=False)

    def __post_init__(self) -> None:
        self.items = {(qa.sample_id, qa.qa_index): qa for s in self.samples for qa in s.qa}

    @property
    def checksum_ok(self) -> bool:
        return self.sha256 == LOCOMO_SHA256

    @cached_property
    def sample_ids(self) -> list[str]:
        return [s.sample_id for s in self.samples]

    def category_counts(self) -> dict[int, int]:
        counts = Counter(qa.category for qa in self.items.values())
        return {cid: counts.get(cid, 0) for cid in CATEGORY_NAMES}

    def all_questions(self) -> list[QAItem]:
        return [qa for s in self.samples for qa in s.qa]


def resolve_dataset_path(path: str | Path | None) -> Path | None:
    """Explicit path, else `$LOCOSCORE_DATASET`, else the fetched cache copy, else None."""
    return resolve_input_path(path, DATASET_ENV, cached_dataset_path())


ModelT = TypeVar("ModelT", bound=BaseModel)


def _validate(model: type[ModelT], data: Any, file: str, record: str) -> ModelT:
    """`model` from `data`; a failure names the record and the first offending field."""
    if not isinstance(data, dict):
        raise DatasetError("expected an object", file=file, record=record)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join(str(part) for part in error["loc"]) or None
        raise DatasetError(error["msg"], file=file, record=record, field=field) from None


def _parse_sample(raw: Any, index: int, file: str) -> Sample:
    if not isinstance(raw, dict):
        raise DatasetError("expected an object", file=file, record=index)
    for key in ("sample_id", "conversation", "qa"):
        if key not in raw:
            raise DatasetError("missing", file=file, record=index, field=key)
    sample_id = str(raw["sample_id"])
    conv = raw["conversation"]
    if not isinstance(conv, dict):
        raise DatasetError("expected an object", file=file, record=sample_id, field="conversation")
    if not isinstance(raw["qa"], list):
        raise DatasetError("expected a list", file=file, record=sample_id, field="qa")
    for speaker in ("speaker_a", "speaker_b"):
        if not isinstance(conv.get(speaker), str):
            raise DatasetError(
                "missing or not a string", file=file, record=sample_id, field=speaker
            )
    # Count sessions from `session_N` keys: conv-26 has date keys for sessions without turns.
    numbers = sorted(
        int(k.split("_")[1])
        for k in conv
        if k.startswith("session_") and k.count("_") == 1 and k.split("_")[1].isdigit()
    )
    sessions = []
    for n in numbers:
        turns = conv[f"session_{n}"]
        if not isinstance(turns, list):
            raise DatasetError(
                "expected a list of turns", file=file, record=sample_id, field=f"session_{n}"
            )
        date_time = conv.get(f"session_{n}_date_time")
        if date_time is not None and not isinstance(date_time, str):
            raise DatasetError(
                "expected a string", file=file, record=sample_id, field=f"session_{n}_date_time"
            )
        sessions.append(
            Session(
                index=n,
                date_time=date_time,
                turns=[
                    _validate(Turn, turn, file, f"{sample_id} session_{n}[{j}]")
                    for j, turn in enumerate(turns)
                ],
            )
        )
    qa = []
    for i, item in enumerate(raw["qa"]):
        record = f"{sample_id} qa[{i}]"
        if not isinstance(item, dict):
            raise DatasetError("expected an object", file=file, record=record)
        qa.append(_validate(QAItem, {**item, "sample_id": sample_id, "qa_index": i}, file, record))
    return Sample(
        sample_id=sample_id,
        speaker_a=conv["speaker_a"],
        speaker_b=conv["speaker_b"],
        sessions=sessions,
        qa=qa,
    )


def load_dataset(path: str | Path | None = None) -> Dataset:
    """Load and validate the dataset; warn (naming both hashes) if it is not the release."""
    resolved = resolve_dataset_path(path)
    if resolved is None:
        raise DatasetError(
            "no dataset: pass --dataset PATH, set $LOCOSCORE_DATASET, "
            "or run `locoscore dataset fetch`"
        )
    if not resolved.is_file():
        raise DatasetError("dataset file not found", file=str(resolved))
    try:
        raw = json.loads(resolved.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DatasetError(f"not valid JSON ({exc})", file=str(resolved)) from None
    except RecursionError:
        raise DatasetError("JSON nested too deeply to read", file=str(resolved)) from None
    if not isinstance(raw, list):
        raise DatasetError("expected a JSON list of samples", file=str(resolved))
    # Parsed before the checksum warning: a malformed file gets one error line, not two.
    samples = [_parse_sample(item, i, str(resolved)) for i, item in enumerate(raw)]
    digest = sha256_file(resolved)
    if digest != LOCOMO_SHA256:
        warnings.warn(
            f"{resolved}: sha256 {digest} differs from the released locomo10.json "
            f"({LOCOMO_SHA256}); scores may not be comparable",
            ChecksumWarning,
            stacklevel=2,
        )
    return Dataset(samples=samples, path=resolved, sha256=digest)


def fetch_dataset(url: str = LOCOMO_URL, dest: Path | None = None, timeout: float = 60.0) -> Path:
    """Download the dataset into the user cache, verify the sha256, write atomically."""
    return download_verified(
        url,
        LOCOMO_SHA256,
        dest or cached_dataset_path(),
        manual_option="--dataset PATH",
        error=DatasetError,
        timeout=timeout,
    )
