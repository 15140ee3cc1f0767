"""A results folder's numbers recomputed, never read back: the data file found by its
sha256, the folder re-derived with its benchmark's own scoring (`Benchmark.rederive`) into
a scratch folder, and the first number of summary.json or scores.jsonl that differs from
its recomputation.

The data file is the one the folder records (path, sha256), else `verify --dataset`, else
the benchmark's default data, whichever has the recorded sha256. A folder that records no
sha256 takes `--dataset` as given (answers scored without a data file: the file decides
what they are a part of). Without a file, nothing is re-derived: `verify` fails closed.
"""

from __future__ import annotations

import math
import shutil
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from locoscore.errors import InputError
from locoscore.results.layout import PREDICTIONS, SCORES, SUMMARY

if TYPE_CHECKING:
    from locoscore.claim.benchmark import ClaimedBenchmark
    from locoscore.claim.parts import Folder

NO_DATA = "cannot check the question set: pass --dataset"
# Numbers equal to this relative precision are equal (JSON round trips, rounding to 4 places
# of the judge section's means).
_TOLERANCE = 1e-6


@dataclass
class Found:
    """The data file of a folder, or why there is none."""

    data: Any | None
    problem: str | None = None


def _load(bench: ClaimedBenchmark, path: Path | None) -> Any | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return bench.load(path)
    except Exception:  # a file that does not load is not the folder's file
        return None


def find_data(folder: Folder, bench: ClaimedBenchmark, given: Path | None) -> Found:
    """The folder's data file (module docstring); a `--dataset` of another sha256 than the
    recorded one is bad input."""
    recorded = folder.data()
    sha = recorded.get("sha256")
    if given is not None:
        data = bench.load(given)  # a file that does not load: bad input, named by the loader
        if isinstance(sha, str) and data.sha256 != sha:
            raise InputError(
                f"sha256 {data.sha256[:12]}, the folder's data file is {sha[:12]}",
                file=str(given),
                field="--dataset",
            )
        return Found(data)
    if not isinstance(sha, str):
        return Found(None, f"the folder records no data file: {NO_DATA}")
    path = recorded.get("path") or recorded.get("file")
    tried = [Path(str(path))] if path and Path(str(path)).exists() else []
    for candidate in (*tried, None):
        data = _load(bench, candidate)
        if data is not None and getattr(data, "sha256", None) == sha:
            return Found(data)
    return Found(None, f"no file of sha256 {sha[:12]} at hand ({path or 'no path'}): {NO_DATA}")


@dataclass
class Rederived:
    """The scratch folder the numbers were recomputed into, and what could not be."""

    path: Path | None
    problem: str | None = None  # nothing re-derived, and why
    not_rederived: list[str] = field(default_factory=list)


def rederive(folder: Folder, bench: ClaimedBenchmark, data: Any, scratch: Path) -> Rederived:
    """The folder recomputed into `scratch` (an empty folder) by its benchmark."""
    if not (folder.path / PREDICTIONS).is_file() and not (folder.path / SCORES).is_file():
        return Rederived(None, f"nothing to re-derive: no {PREDICTIONS} or {SCORES}")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            left = bench.rederive(folder.path, data, scratch)
    except InputError as exc:
        return Rederived(None, f"the folder's answers do not score: {exc}")
    except (KeyError, TypeError, ValueError) as exc:  # records its scoring cannot read
        return Rederived(None, f"the folder's records do not score ({type(exc).__name__}: {exc})")
    # the records the recomputation does not write (the judge's audit, a benchmark's own
    # answer files), as they stand: read by the card, never compared
    for path in folder.path.iterdir():
        if path.is_file() and path.suffix != ".sqlite" and not (scratch / path.name).exists():
            shutil.copyfile(path, scratch / path.name)
    return Rederived(scratch, None, left)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _same(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=_TOLERANCE, abs_tol=_TOLERANCE)


def _show(value: Any) -> str:
    return "absent" if value is _ABSENT else repr(value)


_ABSENT = object()


def first_difference(theirs: Any, ours: Any, where: str) -> str | None:
    """The first number the folder states (`theirs`) that is not its recomputation
    (`ours`), as `where.path: stated X, recomputed Y`; keys only the folder holds, and
    text, are not numbers of the recomputation."""
    if isinstance(ours, dict):
        if not isinstance(theirs, dict):
            if theirs is _ABSENT or theirs is None:  # no number stated
                return None
            return f"{where}: stated {_show(theirs)}, recomputed an object"
        for key, value in ours.items():
            found = first_difference(theirs.get(key, _ABSENT), value, f"{where}.{key}")
            if found is not None:
                return found
        return None
    if isinstance(ours, list) and any(_number(v) or isinstance(v, dict | list) for v in ours):
        if theirs is _ABSENT:
            return None
        if not isinstance(theirs, list) or len(theirs) != len(ours):
            return f"{where}: stated {_show(theirs)}, recomputed {ours!r}"
        for i, (t, o) in enumerate(zip(theirs, ours, strict=True)):
            found = first_difference(t, o, f"{where}[{i}]")
            if found is not None:
                return found
        return None
    if _number(ours) or (ours is None and _number(theirs)):
        if theirs is _ABSENT:
            return None
        if ours is None or not _number(theirs) or not _same(float(theirs), float(ours)):
            return f"{where}: stated {_show(theirs)}, recomputed {ours!r}"
    return None


def _rows(path: Path) -> list[dict[str, Any]]:
    from locoscore._io import read_jsonl

    return read_jsonl(path) if path.is_file() else []


def differences(folder: Folder, rederived: Path) -> list[str]:
    """Where the folder's summary.json and scores.jsonl differ from their recomputation: the
    first differing number of each file, and a question one holds and the other not."""
    from locoscore.claim.parts import question_id
    from locoscore.results.folder import load_summary

    out = []
    # the run section is run.json's record of the run (checked against it by `parts`)
    ours = {k: v for k, v in load_summary(rederived).items() if k not in ("claim", "run")}
    found = first_difference(folder.summary, ours, SUMMARY)
    if found is not None:
        out.append(found)
    if folder.scores is None:
        return out
    stated = {question_id(r): r for r in folder.scores}
    recomputed = {question_id(r): r for r in _rows(rederived / SCORES)}
    for qid, row in recomputed.items():
        if qid not in stated:
            out.append(f"{SCORES} holds no row of {qid}, which the answers score")
            break
        found = first_difference(stated[qid], row, f"{SCORES} {qid}")
        if found is not None:
            out.append(found)
            break
    extra = sorted(set(stated) - set(recomputed))
    if extra:
        out.append(f"{SCORES} scores {len(extra)} question(s) the answers do not (e.g. {extra[0]})")
    return out
