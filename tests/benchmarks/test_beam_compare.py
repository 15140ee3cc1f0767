"""`compare` on BEAM folders: hand-computed paired differences, both folders named, refused
when the folders are not comparable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from locoscore import stats
from locoscore.benchmarks.beam.compare import compare_folders
from locoscore.errors import InputError

ABILITY = {"q1": "abstention", "q2": "abstention", "q3": "summarization", "q4": "summarization"}


def _folder(
    path: Path, scores: dict[str, float | None], signature: str = "judge:beam|x", sha: str = "ab"
) -> Path:
    path.mkdir()
    summary = {"benchmark": "beam", "data": {"sha256": sha}, "judge": {"signature": signature}}
    (path / "summary.json").write_text(json.dumps(summary))
    rows = [
        {"question_id": q, "ability": ABILITY[q], "beam_score": s, "beam_missing": s is None}
        for q, s in scores.items()
    ]
    (path / "scores.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_differences_by_hand_and_both_folders_named(tmp_path: Path) -> None:
    a = _folder(tmp_path / "a", {"q1": 1.0, "q2": 0.5, "q3": 0.25, "q4": None})
    b = _folder(tmp_path / "b", {"q1": 0.5, "q2": 1.0, "q3": 0.75, "q4": 0.5})
    result = compare_folders(a, b, tmp_path / "c")
    groups = result["groups"]
    # A: 1, 0.5, 0.25, missing (0) -> 43.75; B: 0.5, 1, 0.75, 0.5 -> 68.75
    assert (groups["overall"]["a"], groups["overall"]["b"]) == (43.75, 68.75)
    assert groups["overall"]["difference"] == 25.0
    differences = [-0.5, 0.5, 0.5, 0.5]
    assert groups["overall"]["wilcoxon_p"] == stats.wilcoxon_signed_rank(differences).p_value
    assert (groups["abstention"]["a"], groups["abstention"]["b"]) == (75.0, 75.0)
    assert groups["summarization"] == {**groups["summarization"], "count": 2, "a": 12.5, "b": 62.5}
    assert set(groups) == {"overall", "abstention", "summarization"}  # no empty ability
    assert result["folders"] == {"A": str(a), "B": str(b)}
    for name in ("compare.md", "compare.html"):
        text = (tmp_path / "c" / name).read_text()
        assert f"A = {a}" in text and f"B = {b}" in text
    assert "| overall | 4 | 43.8 | 68.8 | +25.0 [" in (tmp_path / "c" / "compare.md").read_text()


def test_other_judges_data_or_questions_are_refused(tmp_path: Path) -> None:
    a = _folder(tmp_path / "a", dict.fromkeys(ABILITY, 1.0))
    b = _folder(tmp_path / "b", dict.fromkeys(ABILITY, 1.0), signature="judge:beam|y")
    with pytest.raises(InputError, match="judged differently"):
        compare_folders(a, b, tmp_path / "c")
    c = _folder(tmp_path / "c2", {"q1": 1.0})
    with pytest.raises(InputError, match="different questions"):
        compare_folders(a, c, tmp_path / "c")
    d = _folder(tmp_path / "d", dict.fromkeys(ABILITY, 1.0), sha="cd")
    with pytest.raises(InputError, match="another data file"):
        compare_folders(a, d, tmp_path / "c")
    (tmp_path / "e").mkdir()
    with pytest.raises(InputError, match="judge the folder first"):
        compare_folders(a, tmp_path / "e", tmp_path / "c")
    assert not (tmp_path / "c").exists()
