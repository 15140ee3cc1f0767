"""Prediction readers: six file formats in, `PredictionRecord`s out.

The format is detected from the file's shape, or forced with `fmt`:

- `native`: JSONL or a JSON list of records (`question`, `ground_truth`,
  `predicted_answer`, `category`, ...);
- `locomo`: a locomo10.json-shaped list of samples whose QA items carry `<key>_prediction`;
- `mem0`: `{"<conversation index>": [items]}` from the Mem0 harness;
- `zep`: `{"locomo_experiment_user_<i>": [items]}` from zep-papers;
- `memos`: `{"detailed_results": {...}, "metadata": {...}}` from MemOS / EverMemOS /
  OmniMemEval (questions named by `question_id`, recorded `llm_judgments` kept);
- `prototype`: `{"results": [records]}` with the native field names.

A plain JSON list of records is read as `native`; `prototype` is detected only from its
`results` wrapper (the records themselves are read the same way).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from locoscore.benchmarks.locomo.data.models import PredictionRecord
from locoscore.benchmarks.locomo.data.readers._load import LoadedFile, load_file
from locoscore.benchmarks.locomo.data.readers.locomo import read_locomo
from locoscore.benchmarks.locomo.data.readers.mem0 import read_mem0
from locoscore.benchmarks.locomo.data.readers.memos import looks_like_memos, read_memos
from locoscore.benchmarks.locomo.data.readers.native import read_native, read_prototype
from locoscore.benchmarks.locomo.data.readers.zep import USER_KEY, read_zep
from locoscore.errors import InputError

FORMATS = ("native", "locomo", "mem0", "zep", "memos", "prototype")

__all__ = ["FORMATS", "ReadResult", "detect_format", "read_predictions"]


@dataclass
class ReadResult:
    path: Path
    format: str
    sha256: str
    records: list[PredictionRecord]
    prediction_key: str | None = None  # locomo format: the `<key>_prediction` read
    # what the source harness recorded about its run (memos format: judge model, runs)
    metadata: dict[str, Any] = field(default_factory=dict)


def detect_format(path: Path, raw: object) -> str:
    """The format a parsed file is in, from its top-level shape; InputError when unclear."""
    hint = f"; pass --format (one of {', '.join(FORMATS)})"
    if isinstance(raw, list):
        if not raw:
            raise InputError("no records (an empty list)", file=str(path))
        first = raw[0]
        if isinstance(first, dict) and "qa" in first and "sample_id" in first:
            return "locomo"
        if isinstance(first, dict):
            return "native"
        raise InputError(
            f"expected a JSON object, got {type(first).__name__}{hint}", file=str(path), record=0
        )
    if isinstance(raw, dict):
        if not raw:
            raise InputError("no records (an empty object)", file=str(path))
        if isinstance(raw.get("results"), list):
            return "prototype"
        if looks_like_memos(raw):
            return "memos"
        keys = list(raw)
        if all(USER_KEY.fullmatch(key) for key in keys):
            return "zep"
        if all(key.isascii() and key.isdigit() for key in keys):
            return "mem0"
        shown = ", ".join(repr(k) for k in keys[:3])
        raise InputError(
            f"cannot tell the format from the keys ({shown}, ...){hint}", file=str(path)
        )
    raise InputError(f"the top level is not a list or an object{hint}", file=str(path))


def _read(loaded: LoadedFile, fmt: str, prediction_key: str | None) -> ReadResult:
    key = None
    metadata: dict[str, Any] = {}
    if fmt == "locomo":
        records, key = read_locomo(loaded, prediction_key)
    elif prediction_key is not None:
        raise InputError(
            f"--prediction-key applies to the locomo format only (this file is {fmt})",
            file=loaded.file,
            field="--prediction-key",
        )
    elif fmt == "native":
        records = read_native(loaded)
    elif fmt == "prototype":
        records = read_prototype(loaded)
    elif fmt == "mem0":
        records = read_mem0(loaded)
    elif fmt == "memos":
        records, metadata = read_memos(loaded)
    else:
        records = read_zep(loaded)
    if not records:
        raise InputError("no prediction records in the file", file=loaded.file)
    return ReadResult(loaded.path, fmt, loaded.sha256, records, key, metadata)


def read_predictions(
    path: Path, fmt: str | None = None, *, prediction_key: str | None = None
) -> ReadResult:
    """Read a predictions file (format auto-detected unless `fmt` is given)."""
    path = Path(path)
    if fmt is not None and fmt not in FORMATS:
        raise InputError(
            f"unknown format {fmt!r} (known: {', '.join(FORMATS)})",
            file=str(path),
            field="--format",
        )
    loaded = load_file(path)
    return _read(loaded, fmt or detect_format(path, loaded.raw), prediction_key)
