"""Known errors in LoCoMo's gold answers: the audited list of dial481/locomo-audit.

Each entry names a question as `locomo_<i>_qa<j>` (sample `i` of locomo10.json in file order,
`j` an index into that sample's full `qa` list) and an error type. Five types change what a
correct answer is, so those questions leave the verified-gold view; WRONG_CITATION only cites
the wrong evidence turns and the gold stands. Every entry is mapped to (`sample_id`,
`qa_index`) and cross-checked against the dataset (question, category, gold): a list that
does not describe this dataset is refused rather than silently misapplied.
"""

from __future__ import annotations

import json
import os
import re
import warnings
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from locoscore._io import sha256_file
from locoscore.benchmarks.locomo.data.dataset import Dataset, load_dataset
from locoscore.data.user_cache import download_verified, resolve_input_path, user_cache_file
from locoscore.errors import InputError
from locoscore.generic.gold_errata import ErrataFlags, ErrataTypes, agreed_errata
from locoscore.generic.scored_folder import Results

ERRATA_COMMIT = "ded8d0f08903d72b5a5eeda4fee5ced76126e7bc"
ERRATA_URL = f"https://raw.githubusercontent.com/dial481/locomo-audit/{ERRATA_COMMIT}/errors.json"
ERRATA_SHA256 = "f298ef46263fada20688a1d672be37d4f488c6da3b19343eea55ae5c1b5fe55e"
ERRATA_SOURCE = "dial481/locomo-audit errors.json (commit ded8d0f)"
ERRATA_ENV = "LOCOSCORE_ERRATA"

# Errors that change what a correct answer is: the question leaves the verified-gold view.
SCORE_CHANGING = ("HALLUCINATION", "TEMPORAL_ERROR", "ATTRIBUTION_ERROR", "AMBIGUOUS", "INCOMPLETE")
# The gold stands; only the cited evidence turns are wrong.
CITATION_ONLY = ("WRONG_CITATION",)
ERROR_TYPES = SCORE_CHANGING + CITATION_ONLY
# for the shared verified-gold view (`generic.gold_errata`, `generic.errata_view`)
ERRATA_TYPES = ErrataTypes(SCORE_CHANGING, CITATION_ONLY, "overall_no_adversarial")

_QUESTION_ID = re.compile(r"locomo_(\d+)_qa(\d+)")


class ErrataChecksumWarning(UserWarning):
    """The errata file is not the pinned audited list."""


def cached_errata_path() -> Path:
    return user_cache_file("locomo-audit-errors.json")


def resolve_errata_path(path: str | Path | None) -> Path | None:
    """Explicit path, else `$LOCOSCORE_ERRATA`, else the fetched cache copy, else None."""
    return resolve_input_path(path, ERRATA_ENV, cached_errata_path())


def fetch_errata(url: str = ERRATA_URL, dest: Path | None = None, timeout: float = 60.0) -> Path:
    """Download the audited list into the user cache (beside the dataset), verified."""
    return download_verified(
        url,
        ERRATA_SHA256,
        dest or cached_errata_path(),
        manual_option="--errata PATH",
        timeout=timeout,
    )


@dataclass(frozen=True)
class Erratum:
    question_id: str
    sample_id: str
    qa_index: int
    category: int
    error_type: str

    @property
    def key(self) -> str:
        """The question's identity in a results folder (`row_key`)."""
        return f"{self.sample_id}#{self.qa_index}"

    @property
    def score_changing(self) -> bool:
        return self.error_type in SCORE_CHANGING


@dataclass(frozen=True)
class Errata:
    path: Path
    sha256: str
    entries: list[Erratum]

    @property
    def checksum_ok(self) -> bool:
        return self.sha256 == ERRATA_SHA256

    def flagged(self) -> dict[str, str]:
        """Error type by question key, for every entry."""
        return {e.key: e.error_type for e in self.entries}

    def flags(self) -> ErrataFlags:
        """The list's flags, as summary.json records them (`summary_section`)."""
        flagged, ok = self.flagged(), self.checksum_ok
        return ErrataFlags(ERRATA_SOURCE, str(self.path), self.sha256, ok, flagged, ERRATA_TYPES)

    def summary_section(self) -> dict[str, Any]:
        """The `errata` section of summary.json: enough to rebuild the view without the file."""
        types = Counter(e.error_type for e in self.entries)
        return {
            "source": ERRATA_SOURCE,
            "path": str(self.path),
            "sha256": self.sha256,
            "checksum_ok": self.checksum_ok,
            "entries": len(self.entries),
            "score_changing": sum(1 for e in self.entries if e.score_changing),
            "by_error_type": {t: types[t] for t in ERROR_TYPES if types[t]},
            "flagged": self.flagged(),
        }


def _text(entry: dict[str, Any], name: str, file: str, index: int) -> str:
    value = entry.get(name)
    if name not in entry:
        raise InputError("missing", file=file, record=index, field=name)
    if not isinstance(value, str):
        raise InputError(f"expected a string, got {value!r}", file=file, record=index, field=name)
    return value


def _map_entry(entry: Any, index: int, file: str, dataset: Dataset) -> Erratum:
    if not isinstance(entry, dict):
        raise InputError("expected an object", file=file, record=index)
    question_id = _text(entry, "question_id", file, index)
    match = _QUESTION_ID.fullmatch(question_id)
    if match is None:
        raise InputError(
            f"{question_id!r} is not locomo_<sample>_qa<index>",
            file=file,
            record=index,
            field="question_id",
        )
    sample_no, qa_no = int(match[1]), int(match[2])
    if sample_no >= len(dataset.samples) or qa_no >= len(dataset.samples[sample_no].qa):
        raise InputError(
            f"{question_id} names no question of the dataset ({len(dataset.samples)} samples)",
            file=file,
            record=index,
            field="question_id",
        )
    qa = dataset.samples[sample_no].qa[qa_no]
    where = f"{question_id} = {qa.sample_id} qa[{qa.qa_index}]"
    question = _text(entry, "question", file, index)
    if question != qa.question:
        raise InputError(
            f"{where} asks {qa.question!r} in the dataset, not {question!r}",
            file=file,
            record=index,
            field="question",
        )
    if "golden_answer" in entry and str(entry["golden_answer"]) != qa.gold_text:
        raise InputError(
            f"{where} has gold {qa.gold_text!r} in the dataset, not {entry['golden_answer']!r}",
            file=file,
            record=index,
            field="golden_answer",
        )
    if "category" not in entry:
        raise InputError("missing", file=file, record=index, field="category")
    category = entry["category"]
    if category != qa.category or isinstance(category, bool):
        raise InputError(
            f"{where} is category {qa.category} in the dataset, not {category!r}",
            file=file,
            record=index,
            field="category",
        )
    error_type = _text(entry, "error_type", file, index)
    if error_type not in ERROR_TYPES:
        raise InputError(
            f"unknown error type {error_type!r} (known: {', '.join(ERROR_TYPES)})",
            file=file,
            record=index,
            field="error_type",
        )
    return Erratum(question_id, qa.sample_id, qa.qa_index, qa.category, error_type)


def load_errata(path: str | Path, dataset: Dataset) -> Errata:
    """Read an errata list and map every entry onto `dataset`; InputError on any mismatch."""
    path = Path(path)
    file = str(path)
    if not path.is_file():
        raise InputError("errata file not found", file=file)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"not valid JSON ({exc})", file=file) from None
    except RecursionError:
        raise InputError("JSON nested too deeply to read", file=file) from None
    if not isinstance(raw, list):
        raise InputError("expected a JSON list of errata entries", file=file)
    entries: list[Erratum] = []
    first_index: dict[str, int] = {}
    for index, item in enumerate(raw):
        erratum = _map_entry(item, index, file, dataset)
        if erratum.key in first_index:
            raise InputError(
                f"{erratum.question_id} is listed twice (also entry {first_index[erratum.key]})",
                file=file,
                record=index,
                field="question_id",
            )
        first_index[erratum.key] = index
        entries.append(erratum)
    digest = sha256_file(path)
    if digest != ERRATA_SHA256:
        warnings.warn(
            f"{path}: sha256 {digest} differs from the audited list ({ERRATA_SHA256}); "
            "the verified-gold view follows this file",
            ErrataChecksumWarning,
            stacklevel=2,
        )
    return Errata(path, digest, entries)


def errata_for(path: str | Path | None, dataset: Dataset | Path | None) -> Errata | None:
    """The errata a command should apply: `--errata`, `$LOCOSCORE_ERRATA` or the fetched copy.

    Mapping the list needs the dataset (a path is loaded only when there is a list to map).
    An explicitly given list without one is an error; the cached copy without one is skipped
    with a warning (scoring without a dataset still works).
    """
    explicit = path is not None or bool(os.environ.get(ERRATA_ENV))
    resolved = resolve_errata_path(path)
    if resolved is None:
        return None
    if dataset is None:
        if explicit:
            raise InputError(
                "the errata list needs the dataset to map its question ids: pass --dataset "
                "PATH, set $LOCOSCORE_DATASET or run `locoscore dataset fetch`",
                file=str(resolved),
            )
        warnings.warn(
            f"errata in {resolved} not applied: no dataset to map them onto", stacklevel=2
        )
        return None
    return load_errata(resolved, dataset if isinstance(dataset, Dataset) else load_dataset(dataset))


def comparison_errata(errata: Errata | None, *folders: Results) -> ErrataFlags:
    """The errata for `compare --verified-gold`: the list given (or fetched), else the one
    the folders recorded when they were scored (`generic.gold_errata.agreed_errata`)."""
    return agreed_errata(None if errata is None else errata.flags(), folders, ERRATA_TYPES)
