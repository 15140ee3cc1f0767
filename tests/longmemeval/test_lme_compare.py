"""`compare` on LongMemEval folders: hand-computed differences; refused when not comparable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from locoscore.benchmarks.longmemeval.report import compare_folders
from locoscore.errors import InputError

TYPES = {
    "q1": "multi-session",
    "q2": "multi-session",
    "q3": "temporal-reasoning",
    "q4_abs": "temporal-reasoning",
}


def _folder(
    path: Path, scores: dict[str, float | None], signature: str = "judge:binary|x", sha: str = "ab"
) -> Path:
    path.mkdir()
    judge = {"signature": signature, "dataset": {"sha256": sha}}
    (path / "summary.json").write_text(json.dumps({"benchmark": "longmemeval", "judge": judge}))
    rows = [
        {"question_id": q, "question_type": TYPES[q], "abstention": q.endswith("_abs"),
         "submitted": j is not None, "j": j}
        for q, j in scores.items()
    ]  # fmt: skip
    (path / "scores.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_differences_by_hand(tmp_path: Path) -> None:
    a = _folder(tmp_path / "a", {"q1": 1.0, "q2": 0.0, "q3": 1.0, "q4_abs": None})
    b = _folder(tmp_path / "b", {"q1": 1.0, "q2": 1.0, "q3": 0.0, "q4_abs": 0.5})
    groups = compare_folders(a, b, tmp_path / "c")["groups"]
    # A: 1, 0, 1, missing (0) -> 50; B: 1, 1, 0, 0.5 -> 62.5
    assert (groups["overall"]["a"], groups["overall"]["b"]) == (50.0, 62.5)
    assert groups["overall"]["difference"] == 12.5
    assert (groups["multi-session"]["a"], groups["multi-session"]["b"]) == (50.0, 100.0)
    assert groups["abstention"] == {**groups["abstention"], "count": 1, "a": 0.0, "b": 50.0}
    # majority verdicts: only A right on q3; only B right on q2 and q4_abs (0.5 counts as
    # right): McNemar on 1 vs 2 discordant pairs, p = 2 * (1 + 3) / 8 = 1
    assert groups["overall"]["mcnemar_p"] == 1.0
    assert "| overall | 4 | 50.0 | 62.5 |" in (tmp_path / "c" / "compare.md").read_text()


def test_both_folders_are_named_in_every_output(tmp_path: Path) -> None:
    a = _folder(tmp_path / "run-a", dict.fromkeys(TYPES, 1.0))
    b = _folder(tmp_path / "run-b", dict.fromkeys(TYPES, 0.0))
    result = compare_folders(a, b, tmp_path / "c")
    assert result["folders"] == {"A": str(a), "B": str(b)}
    for name in ("compare.md", "compare.html"):
        text = (tmp_path / "c" / name).read_text()
        assert f"A = {a}" in text and f"B = {b}" in text


def test_other_judges_or_questions_are_refused(tmp_path: Path) -> None:
    a = _folder(tmp_path / "a", dict.fromkeys(TYPES, 1.0))
    b = _folder(tmp_path / "b", dict.fromkeys(TYPES, 1.0), signature="judge:binary|y")
    with pytest.raises(InputError, match="judged differently"):
        compare_folders(a, b, tmp_path / "c")
    c = _folder(tmp_path / "c2", {"q1": 1.0})
    with pytest.raises(InputError, match="different questions"):
        compare_folders(a, c, tmp_path / "c")
    d = _folder(tmp_path / "d", dict.fromkeys(TYPES, 1.0), sha="cd")
    with pytest.raises(InputError, match="another data file"):
        compare_folders(a, d, tmp_path / "c")
    assert not (tmp_path / "c").exists()


def test_a_folder_judged_before_the_served_model_was_recorded_still_compares(
    tmp_path: Path,
) -> None:
    judge = "judge:binary|prompt:p|provider:anthropic|model:claude-sonnet-4-6|temp:0|runs:1"
    served = judge.replace("|model:claude-sonnet-4-6", "|model:claude-sonnet-4-6|served:m|fake")
    old = _folder(tmp_path / "old", dict.fromkeys(TYPES, 1.0), signature=judge)
    new = _folder(tmp_path / "new", dict.fromkeys(TYPES, 1.0), signature=served)
    assert compare_folders(old, new, tmp_path / "c")["groups"]["overall"]["difference"] == 0.0
    # both recorded, and served by different models: not the same judge
    other = served.replace("served:m", "served:n")
    newer = _folder(tmp_path / "newer", dict.fromkeys(TYPES, 1.0), signature=other)
    with pytest.raises(InputError, match="judged differently"):
        compare_folders(new, newer, tmp_path / "c2")
