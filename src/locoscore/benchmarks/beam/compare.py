"""Two BEAM folders compared: B - A per ability and over all questions, paired by question.

Only folders judged the same way (the judge signature) on the same data file and the same
questions compare. A question without an answer scores 0, as in the folder's own
question-weighted figure. Each row: both means (x100), the mean paired difference with its
95 % percentile-bootstrap interval over questions, and the two-sided Wilcoxon signed-rank p
(BEAM's scores are graded, not right/wrong, so McNemar does not apply). The output names
both folders: A and B mean nothing without them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from locoscore._io import read_jsonl
from locoscore.benchmarks.beam.data import ABILITIES
from locoscore.benchmarks.beam.report import ABILITY_NAMES
from locoscore.errors import InputError
from locoscore.generic.paired_compare import paired_rows, write_comparison
from locoscore.results.layout import SCORES, SUMMARY

METHOD = (
    "Scores x100 (a question without an answer scores 0). B - A is the mean paired "
    "difference over the questions of the row, with its 95 % percentile-bootstrap interval; "
    "p is the two-sided Wilcoxon signed-rank test on those differences."
)


def _summary(directory: Path) -> dict[str, Any]:
    path = directory / SUMMARY
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError("missing: judge the folder first", file=str(path)) from None
    except ValueError as exc:
        raise InputError(f"not valid JSON ({exc})", file=str(path)) from None
    if not isinstance(loaded, dict) or not isinstance(loaded.get("judge"), dict):
        raise InputError("no judge section: judge the folder first", file=str(path), field="judge")
    return loaded


def _scores(directory: Path) -> dict[str, dict[str, Any]]:
    path = directory / SCORES
    if not path.is_file():
        raise InputError("missing: judge the folder first", file=str(path))
    return {str(row["question_id"]): row for row in read_jsonl(path)}


def _score(row: dict[str, Any]) -> float:
    value = row.get("beam_score")
    return 0.0 if row.get("beam_missing") or not isinstance(value, int | float) else float(value)


def _data_sha(summary: dict[str, Any]) -> str | None:
    data = summary.get("data")
    sha = data.get("sha256") if isinstance(data, dict) else None
    return sha if isinstance(sha, str) else None


def compare_folders(dir_a: Path, dir_b: Path, out: Path) -> dict[str, Any]:
    sa, sb = _summary(dir_a), _summary(dir_b)
    ja, jb = sa["judge"], sb["judge"]
    if ja.get("signature") != jb.get("signature"):
        raise InputError(
            f"judged differently ({ja.get('signature')} vs {jb.get('signature')}): not comparable",
            file=str(dir_b),
        )
    data_a, data_b = _data_sha(sa), _data_sha(sb)
    if data_a and data_b and data_a != data_b:
        raise InputError(f"another data file (sha256 {data_b} vs {data_a})", file=str(dir_b))
    qa, qb = _scores(dir_a), _scores(dir_b)
    if set(qa) != set(qb):
        raise InputError("the folders hold different questions (another sample?)", file=str(dir_b))
    groups: dict[str, list[str]] = {"overall": sorted(qa)}
    for ability in ABILITIES:
        groups[ability] = sorted(q for q, row in qa.items() if row.get("ability") == ability)
    rows = paired_rows(groups, lambda q: _score(qa[q]), lambda q: _score(qb[q]), "wilcoxon")
    folders = {"A": str(dir_a), "B": str(dir_b)}
    result = {"benchmark": "beam", "folders": folders, "judge": ja.get("signature"), "groups": rows}
    notes = [f"judge: {ja.get('signature')}"]
    write_comparison(out, result, "B - A on BEAM", notes, METHOD, "wilcoxon", ABILITY_NAMES)
    return result
