"""LoCoMo-Plus's file (`locomo_plus.json`) read and checked, and its base conversations
(LoCoMo's `locomo10.json`, read through LoCoMo's own reader).

Each item is a relation type, a cue dialogue ("A: ...\\nB: ..."), a trigger ("A: ...") and a
free-text time gap ("two months later", "several months later"). The gap is read into days
here (`parse_gap`, locoscore's reading; the official one is `official.official_gap_days`).

31 of the 401 cue dialogues hold a literal backslash-n (two characters) between two
speakers' lines ("...since.<backslash-n>B: That upgrade..."): the cue is split there too,
so B's line is B's turn (the official reader leaves it inside A's). The item keeps its raw
texts for the official profile, which reads them as the official code does.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from locoscore._io import sha256_file
from locoscore.benchmarks.locomo.data.dataset import Dataset, load_dataset, resolve_dataset_path
from locoscore.errors import DatasetError

PLUS_FILE = "locomo_plus.json"
LOCOMO_FILE = "locomo10.json"
PLUS_SHA256 = "af2fc6e5e0e88735e28d8dd1ef474b718861a73beb21779809e3b9e1a4fe3d23"
PLUS_COMMIT = "059f4e3d38f7f1f96765e8e2cb7de3097551bffb"
PLUS_URL = f"https://raw.githubusercontent.com/xjtuleeyf/Locomo-Plus/{PLUS_COMMIT}/data/{PLUS_FILE}"
RELATIONS = ("causal", "state", "goal", "value")

# The time gap, read into days: a number (word or digits) or "a"/"an", a unit, then
# "later"/"after ...". Vague amounts get a documented stand-in ("several" and "a few": 3,
# "a couple of": 2); the official parser reads them as 0 days.
_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}  # fmt: skip
_VAGUE = {"several": 3, "a few": 3, "a couple of": 2}
_UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}
_GAP = re.compile(
    r"^(?:about|around|roughly|approximately|nearly|almost)?\s*"
    r"(?P<amount>several|a few|a couple of|\d+|[a-z]+)\s+"
    r"(?P<unit>day|week|month|year)s?\s+(?:later|after\b.*)$"
)
# A cue line ends at a newline, or at the two characters backslash-n (31 items hold them)
_CUE_BREAK = re.compile(r"\n|\\n")


@dataclass(frozen=True)
class Gap:
    text: str
    days: int
    vague: bool  # the amount is not a number ("several", "a few", "a couple of")


def parse_gap(text: str) -> Gap | None:
    """The gap in days, or None when the text is not a gap this reader knows."""
    match = _GAP.match(" ".join(text.lower().split()))
    if match is None:
        return None
    amount, unit = match.group("amount"), match.group("unit")
    if amount in _VAGUE:
        return Gap(text, _VAGUE[amount] * _UNIT_DAYS[unit], True)
    count = int(amount) if amount.isdigit() else _NUMBERS.get(amount)
    if not count:
        return None
    return Gap(text, count * _UNIT_DAYS[unit], False)


@dataclass(frozen=True)
class Line:
    role: str  # "A" or "B"
    text: str


@dataclass(frozen=True)
class PlusItem:
    index: int  # position in the file
    relation: str
    cue: tuple[Line, ...]  # split at newlines and at literal backslash-n
    trigger: Line
    gap: Gap
    cue_raw: str = ""  # the file's texts as written (what the official profile reads)
    trigger_raw: str = ""


@dataclass
class PlusData:
    """The loaded files. `path`/`sha256` are locomo_plus.json's (what signatures name)."""

    path: Path
    sha256: str
    items: list[PlusItem]
    locomo: Dataset
    stitched: dict[int, Any] = field(default_factory=dict)  # item index -> its conversation
    bases: dict[str, Any] = field(default_factory=dict)  # LoCoMo sample id -> its conversation
    # the official repository's root when --dataset named a local copy of it (its prompt
    # files are then read from there, `official.prompts`); None: a file or a plain folder
    repository: Path | None = None
    official: Any = None  # the official prompt texts, once read (`official.prompts_of`)
    official_stitched: dict[int, Any] = field(default_factory=dict)  # the official profile's


def _lines(value: Any, where: tuple[str, str, str], *, one: bool) -> tuple[Line, ...]:
    file, record, name = where
    if not isinstance(value, str) or not value.strip():
        raise DatasetError("missing or empty", file=file, record=record, field=name)
    lines = []
    for raw in _CUE_BREAK.split(value.strip()):
        match = re.match(r"^([AB]):\s*(.+)$", raw.strip())
        if match is None:
            raise DatasetError(
                f"line {raw[:40]!r} does not start with 'A:' or 'B:'",
                file=file,
                record=record,
                field=name,
            )
        lines.append(Line(match.group(1), match.group(2).strip()))
    if one and (len(lines) != 1 or lines[0].role != "A"):
        raise DatasetError("expected one line spoken by A", file=file, record=record, field=name)
    return tuple(lines)


def parse_items(raw: Any, file: str) -> list[PlusItem]:
    """Every item of the file, checked: one line naming the record and field when not."""
    if not isinstance(raw, list) or not raw:
        raise DatasetError("expected a non-empty JSON list of items", file=file)
    items = []
    for index, entry in enumerate(raw):
        record = f"item {index}"
        if not isinstance(entry, dict):
            raise DatasetError("not a JSON object", file=file, record=record)
        relation = entry.get("relation_type")
        if relation not in RELATIONS:
            raise DatasetError(
                f"{relation!r} is not one of {', '.join(RELATIONS)}",
                file=file,
                record=record,
                field="relation_type",
            )
        cue = _lines(entry.get("cue_dialogue"), (file, record, "cue_dialogue"), one=False)
        trigger = _lines(entry.get("trigger_query"), (file, record, "trigger_query"), one=True)
        text = entry.get("time_gap")
        gap = parse_gap(text) if isinstance(text, str) else None
        if gap is None:
            raise DatasetError(
                f"{text!r} is not a time gap like 'two months later'",
                file=file,
                record=record,
                field="time_gap",
            )
        items.append(
            PlusItem(
                index,
                relation,
                cue,
                trigger[0],
                gap,
                entry["cue_dialogue"],
                entry["trigger_query"],
            )
        )
    return items


def _plus_path(path: Path) -> tuple[Path, Path | None]:
    """The data file, and the repository root when `path` is a copy of the official
    repository (its `data/` holds the file)."""
    if path.is_dir() and not (path / PLUS_FILE).is_file() and (path / "data" / PLUS_FILE).is_file():
        return path / "data" / PLUS_FILE, path
    plus = path / PLUS_FILE if path.is_dir() else path
    if not plus.is_file():
        raise DatasetError("LoCoMo-Plus file not found", file=str(plus))
    return plus, None


def load_plus(path: str | Path | None) -> PlusData:
    """`path`: locomo_plus.json, a folder holding it, or a copy of the official repository
    (its `data/` holds both files); None: the fetched copy. LoCoMo's
    locomo10.json is read from beside it when there, else as `--benchmark locomo` finds it
    ($LOCOSCORE_DATASET, else `locoscore dataset fetch`'s copy)."""
    from locoscore.data.user_cache import user_cache_file

    if path is None:
        path = user_cache_file(PLUS_FILE)
        if not path.is_file():
            raise DatasetError(
                "LoCoMo-Plus needs --dataset FILE (locomo_plus.json), or "
                "`locoscore dataset fetch locomo-plus` first"
            )
    plus, repository = _plus_path(Path(path))
    try:
        raw = json.loads(plus.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DatasetError(f"not valid JSON ({exc})", file=str(plus)) from None
    items = parse_items(raw, str(plus))
    beside = plus.parent / LOCOMO_FILE
    if not beside.is_file() and resolve_dataset_path(None) is None:
        raise DatasetError(
            f"LoCoMo-Plus stitches its items into LoCoMo's {LOCOMO_FILE}: put it beside "
            f"{plus}, set $LOCOSCORE_DATASET, or run `locoscore dataset fetch`"
        )
    locomo = load_dataset(beside if beside.is_file() else None)
    if len(locomo.samples) == 0:
        raise DatasetError("holds no conversation to stitch into", file=str(locomo.path))
    return PlusData(plus, sha256_file(plus), items, locomo, repository=repository)
