"""Gold errata through the commands, on real data: the verified-gold view of real peer files
has the hand-checked question counts, and a bad errata list stops a command before it writes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from locoscore.cli import app

runner = CliRunner()

# Non-adversarial questions per category, and those whose gold the errata call wrong
# (errata README: multi-hop 28, temporal 26, open-domain 9, single-hop 36; 99 in all).
QUESTIONS = {"1": 282, "2": 321, "3": 96, "4": 841}
GOLD_WRONG = {"1": 28, "2": 26, "3": 9, "4": 36}


def _score(peer: Path, dataset: Path, out: Path, *extra: str) -> Path:
    args = ["score", str(peer), "--dataset", str(dataset), "--out", str(out), *extra]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return out


def _summary(folder: Path) -> dict[str, Any]:
    summary: dict[str, Any] = json.loads((folder / "summary.json").read_text())
    return summary


@pytest.fixture(scope="module")
def zep_dir(
    tmp_path_factory: pytest.TempPathFactory, peers_dir: Path, locomo_path: Path, errata_path: Path
) -> Path:
    out = tmp_path_factory.mktemp("zep")
    return _score(
        peers_dir / "zep_locomo_grades.json", locomo_path, out, "--errata", str(errata_path)
    )


def test_zep_verified_gold_view_has_1441_questions_with_hand_checked_counts(
    zep_dir: Path,
) -> None:
    report = _summary(zep_dir)["report"]
    view = report["verified_gold"]
    assert (view["questions"], view["excluded"]) == (1441, 99)
    assert view["excluded_by_category"] == GOLD_WRONG
    expected = {c: QUESTIONS[c] - GOLD_WRONG[c] for c in QUESTIONS}  # 254 295 87 805
    assert expected == {"1": 254, "2": 295, "3": 87, "4": 805}
    for column in ("f1_locomo", "f1_mem0", "bleu1_mem0", "f1_spec"):
        verified = view["metrics"][column]
        everything = report["metrics"][column]
        assert verified["overall"]["n"] == 1441 and everything["overall"]["n"] == 1540
        assert {c: cell["n"] for c, cell in verified["by_category"].items()} == expected
        assert {c: cell["n"] for c, cell in everything["by_category"].items()} == QUESTIONS
        boot = verified["overall"]["ci95_bootstrap"]
        assert boot["low"] < verified["overall"]["mean"] < boot["high"]


def test_zep_ceiling_and_errata_record(zep_dir: Path, errata_path: Path) -> None:
    summary = _summary(zep_dir)
    ceiling = summary["report"]["verified_gold"]["ceiling"]
    for c, n in QUESTIONS.items():
        assert ceiling["by_category"][c]["ceiling"] == pytest.approx(100 * (1 - GOLD_WRONG[c] / n))
    assert ceiling["overall_no_adversarial"]["ceiling"] == pytest.approx(100 * 1441 / 1540)
    errata = summary["errata"]
    assert errata["sha256"] == summary["report"]["verified_gold"]["errata_sha256"]
    assert errata["sha256"] == "f298ef46263fada20688a1d672be37d4f488c6da3b19343eea55ae5c1b5fe55e"
    assert (errata["entries"], errata["score_changing"], len(errata["flagged"])) == (156, 99, 156)
    md = (zep_dir / "report.md").read_text()
    assert "| multi-hop (1) | 282 | 28 | 25 | 90.1 |" in md


def test_memobase_through_the_environment_variable_gets_the_same_view(
    tmp_path: Path,
    peers_dir: Path,
    locomo_path: Path,
    errata_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LOCOSCORE_ERRATA", str(errata_path))
    out = _score(peers_dir / "memobase_eval_0710_3000.json", locomo_path, tmp_path / "m")
    f1 = _summary(out)["report"]["verified_gold"]["metrics"]["f1_mem0"]
    assert f1["overall"]["n"] == 1441
    assert {c: cell["n"] for c, cell in f1["by_category"].items()} == {
        "1": 254,
        "2": 295,
        "3": 87,
        "4": 805,
    }


def test_report_applies_errata_to_a_folder_scored_without_them(
    tmp_path: Path, peers_dir: Path, locomo_path: Path, errata_path: Path
) -> None:
    out = _score(peers_dir / "zep_locomo_grades.json", locomo_path, tmp_path / "z")
    assert "verified_gold" not in _summary(out)["report"]
    # no --dataset: the dataset recorded in summary.json maps the list
    result = runner.invoke(app, ["report", str(out), "--errata", str(errata_path)])
    assert result.exit_code == 0, result.output
    assert _summary(out)["report"]["verified_gold"]["questions"] == 1441


def test_compare_verified_gold_pairs_the_1441_questions_whose_gold_stands(
    zep_dir: Path, tmp_path: Path, peers_dir: Path, locomo_path: Path, errata_path: Path
) -> None:
    memobase = _score(peers_dir / "memobase_eval_0710_3000.json", locomo_path, tmp_path / "m")
    out = tmp_path / "cmp"
    result = runner.invoke(
        app,
        ["compare", str(zep_dir), str(memobase), "--errata", str(errata_path), "--out", str(out)],
    )
    assert result.exit_code == 0, result.output
    md = (out / "compare.md").read_text()
    assert "Of the 1540 shared questions, 99 have a gold answer" in md
    assert "| **overall (excl. adversarial)** | **1441** |" in md
    # Zep answers in sentences, Memobase in a few words: the judge-confound warning
    assert "mean answer lengths differ by more than 2x" in md


def _bad_lists(errata_path: Path) -> dict[str, tuple[str, str]]:
    """name: (file text, the end of the one error line)."""
    entries = json.loads(errata_path.read_text())
    unmapped = [dict(e) for e in entries]
    unmapped[5]["question_id"] = "locomo_12_qa3"
    mismatched = [dict(e) for e in entries]
    mismatched[7]["question"] = "What is the capital of France?"
    return {
        "not-json": ("[{", ": not valid JSON"),
        "wrong-shape": (
            json.dumps({"errors": entries}),
            ": expected a JSON list of errata entries",
        ),
        "id-does-not-map": (
            json.dumps(unmapped),
            ", record 5, field 'question_id': locomo_12_qa3 names no question of the dataset "
            "(10 samples)",
        ),
        "text-mismatch": (
            json.dumps(mismatched),
            ", record 7, field 'question': " + entries[7]["question_id"],
        ),
    }


@pytest.mark.parametrize("case", ["not-json", "wrong-shape", "id-does-not-map", "text-mismatch"])
def test_a_bad_errata_list_stops_score_with_one_line_and_writes_nothing(
    case: str, tmp_path: Path, peers_dir: Path, locomo_path: Path, errata_path: Path
) -> None:
    text, expected = _bad_lists(errata_path)[case]
    bad = tmp_path / "errors.json"
    bad.write_text(text)
    out = tmp_path / "out"
    args = ["score", str(peers_dir / "memobase_eval_0710_3000.json"), "--dataset", str(locomo_path)]
    result = runner.invoke(app, [*args, "--errata", str(bad), "--out", str(out)])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {bad}")
    assert expected in lines[0]
    assert not out.exists()


def test_a_bad_errata_list_leaves_an_existing_folder_untouched(
    zep_dir: Path, tmp_path: Path, locomo_path: Path
) -> None:
    before = {p.name: p.read_bytes() for p in zep_dir.iterdir()}
    bad = tmp_path / "errors.json"
    bad.write_text('{"not": "a list"}')
    result = runner.invoke(
        app, ["report", str(zep_dir), "--errata", str(bad), "--dataset", str(locomo_path)]
    )
    assert result.exit_code == 2
    assert {p.name: p.read_bytes() for p in zep_dir.iterdir()} == before
