"""`locoscore board`: runs grouped by what makes them comparable, ranked only within a group,
numbers equal to each folder's summary.json, each row tested against its group's leader."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import SAMPLE_SIGNATURE
from typer.testing import CliRunner

from locoscore import stats
from locoscore.benchmarks.locomo.metrics import F1_LOCOMO, J
from locoscore.benchmarks.locomo.parts import PARTS
from locoscore.benchmarks.locomo.report_parts import load_results
from locoscore.cli import app
from locoscore.generic.paired_folders import compare_results

LEXICAL_FULL = {"bm25-extractive", "full-context", "bm25-k10", "bm25-k3",
                "bm25-extractive-errata", "bm25-k3-errata"}  # fmt: skip


def _summary(folder: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((folder / "summary.json").read_text())
    return loaded


@pytest.fixture(scope="module")
def board(folders: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The board of the parent folder of every run (the folders are found under it)."""
    out = tmp_path_factory.mktemp("board-out")
    parent = folders["bm25-extractive"].parent
    result = CliRunner().invoke(app, ["board", str(parent), "--out", str(out), "--title", "T"])
    assert result.exit_code == 0, result.output
    loaded: dict[str, Any] = json.loads((out / "board.json").read_text())
    loaded["_out"] = out
    return loaded


def _names(group: dict[str, Any]) -> list[str]:
    return [Path(row["folder"]).name for row in group["rows"]]


def _by_members(board: dict[str, Any]) -> dict[frozenset[str], dict[str, Any]]:
    return {frozenset(_names(g)): g for g in board["groups"]}


def test_runs_fall_into_the_groups_that_make_their_numbers_comparable(
    board: dict[str, Any], folders: dict[str, Path]
) -> None:
    groups = _by_members(board)
    assert set(groups) == {
        frozenset(LEXICAL_FULL),
        frozenset({"bm25-k10-binary", "bm25-k3-binary"}),  # the same binary judge
        frozenset({"full-context-rubric"}),  # another judge protocol
        frozenset({"bm25-k10-sample"}),  # 40 sampled questions
        frozenset({"bm25-extractive-errata", "bm25-k3-errata"}),  # the verified-gold view
    }
    assert len(board["folders"]) == len(folders)
    lexical = groups[frozenset(LEXICAL_FULL)]
    assert lexical["headline"] == "f1_locomo" and lexical["identity"]["judge_signature"] is None
    assert lexical["identity"]["benchmark"] == "locomo"
    assert lexical["identity"]["sample"] == "full" and lexical["identity"]["questions"] == 105
    binary = groups[frozenset({"bm25-k10-binary", "bm25-k3-binary"})]
    assert binary["headline"] == "j_mean"
    assert binary["identity"]["judge_signature"].startswith("judge:binary|")
    sample = groups[frozenset({"bm25-k10-sample"})]["identity"]
    assert sample["sample"] == SAMPLE_SIGNATURE and sample["questions"] == 40
    run = _summary(folders["bm25-k10-sample"])["run"]
    assert run["sample"]["signature"] == SAMPLE_SIGNATURE  # as `run --limit 40` records it
    verified = groups[frozenset({"bm25-extractive-errata", "bm25-k3-errata"})]["identity"]
    assert verified["view"].startswith("verified gold (errata ")
    assert 0 < verified["questions"] < 105
    assert set(board["groups_differ_in"]) == {"question set", "questions", "judge"}


def test_rows_are_ranked_by_the_headline_and_ties_share_a_rank(board: dict[str, Any]) -> None:
    for group in board["groups"]:
        means = [row["metrics"][group["headline"]]["overall"]["mean"] for row in group["rows"]]
        assert means == sorted(means, reverse=True)
        first = group["rows"][0]
        assert first["rank"] == 1 and first["versus_leader"] is None
        for row in group["rows"][1:]:
            vs = row["versus_leader"]
            if vs["indistinguishable"]:
                assert row["rank"] == 1 and row["tied"] and first["tied"]
            else:
                assert vs["holm_p"] < 0.05 and row["rank"] > 1
    # a copy of a folder (errata recorded beside it) has the same scores: a tie, p = 1
    lexical = _by_members(board)[frozenset(LEXICAL_FULL)]
    rows = {Path(r["folder"]).name: r for r in lexical["rows"]}
    a, b = rows["bm25-k3"], rows["bm25-k3-errata"]
    assert a["rank"] == b["rank"] and a["tied"] and b["tied"]
    copy = a if a["versus_leader"] is not None else b
    if copy["versus_leader"] is not None and copy["rank"] != 1:
        assert copy["versus_leader"]["difference"] == 0.0


def test_every_number_is_the_folders_own_summary(
    board: dict[str, Any], folders: dict[str, Path]
) -> None:
    for group in board["groups"]:
        verified = group["identity"]["view"] != "all questions"
        for row in group["rows"]:
            report = _summary(Path(row["folder"]))["report"]
            expected = report["verified_gold"]["metrics"] if verified else report["metrics"]
            assert row["metrics"] == expected, row["folder"]
            assert row["search_latency_s"]["p95"] == report["latency"]["search_latency_s"]["p95"]
            assert row["answer_words"] == report["answer_length"]["overall"]["mean"]
            run = _summary(Path(row["folder"]))["run"]
            assert row["evidence_recall"] == run["measures"]["evidence_recall"]["overall"]["mean"]
            assert row["system"] == run["system"]["name"]
    judged = next(g for g in board["groups"] if g["headline"] == "j_mean")
    for row in judged["rows"]:
        report = _summary(Path(row["folder"]))["report"]
        assert row["judge_run_std"] == report["judge"]["run_level_std"]


def test_each_row_is_the_paired_test_against_the_leader_holm_adjusted(
    board: dict[str, Any],
) -> None:
    for group in board["groups"]:
        if len(group["rows"]) < 2:
            continue
        metric = {"f1_locomo": F1_LOCOMO, "j_mean": J}[group["headline"]]
        verified = group["identity"]["view"] != "all questions"
        leader = load_results(Path(group["rows"][0]["folder"]))
        raw = []
        for row in group["rows"][1:]:
            other = load_results(Path(row["folder"]))
            if verified:
                from locoscore.benchmarks.locomo.data.errata import ERRATA_TYPES
                from locoscore.benchmarks.locomo.report_parts import REPORT
                from locoscore.generic.errata_view import verified_gold_view

                view = verified_gold_view(leader, REPORT, ERRATA_TYPES)
                assert view is not None
                comparison = compare_results(PARTS, leader, other, view.errata.view()).subset
                assert comparison is not None
                metrics = comparison.metrics
            else:
                metrics = compare_results(PARTS, leader, other).metrics
            cell = next(m for m in metrics if m.metric == metric).overall
            vs = row["versus_leader"]
            assert (vs["n"], vs["difference"], vs["wilcoxon_p"]) == (
                cell.n,
                cell.difference,
                cell.wilcoxon.p_value,
            )
            raw.append(cell.wilcoxon.p_value)
        holm = [row["versus_leader"]["holm_p"] for row in group["rows"][1:]]
        assert holm == stats.holm_adjust(raw)


def test_holm_adjustment_by_hand() -> None:
    # sorted 0.01, 0.03, 0.04: x3 = 0.03, x2 = 0.06, x1 = 0.04 -> running max 0.06
    assert stats.holm_adjust([0.04, 0.01, 0.03]) == pytest.approx([0.06, 0.03, 0.06])
    assert stats.holm_adjust([0.5, 0.9]) == [1.0, 1.0]
    assert stats.holm_adjust([0.2]) == [0.2]


def test_a_sampled_group_is_marked_as_a_subset_on_the_page(board: dict[str, Any]) -> None:
    md = (board["_out"] / "board.md").read_text()
    sampled = next(g for g in board["groups"] if g["identity"]["sample"] != "full")
    section = md.split(f"## Group {sampled['group']}: ")[1].split("\n## ")[0]
    assert f"is a sample of the questions ({SAMPLE_SIGNATURE})" in section
    assert section.count(f"Subset ({SAMPLE_SIGNATURE}): not the full benchmark.") == 2
    full = next(g for g in board["groups"] if g["identity"]["sample"] == "full")
    assert "Subset (" not in md.split(f"## Group {full['group']}: ")[1].split("\n## ")[0]


def test_incomparable_rows_never_share_a_table(board: dict[str, Any]) -> None:
    identities = [json.dumps(g["identity"], sort_keys=True) for g in board["groups"]]
    assert len(set(identities)) == len(identities)
    md = (board["_out"] / "board.md").read_text()
    sections = re.split(r"^## Group (\d+): .*$", md, flags=re.M)
    tables = {int(sections[i]): sections[i + 1] for i in range(1, len(sections), 2)}
    assert set(tables) == {g["group"] for g in board["groups"]}
    for group in board["groups"]:
        text = tables[group["group"]]
        scores = text.split("### Scores")[1].split("### Cost and speed")[0]
        lines = [line for line in scores.splitlines() if line.startswith("|")][2:]
        shown = {line.split("|")[3].strip(" *") for line in lines}  # the Folder column
        assert shown == {row["folder"] for row in group["rows"]}


def test_a_folder_of_another_benchmark_or_without_any_marks_is_grouped_generically(
    folders: dict[str, Path], tmp_path: Path
) -> None:
    import shutil

    other = tmp_path / "lme"
    shutil.copytree(folders["bm25-k10"], other)
    summary = _summary(other)
    summary["benchmark"] = {"name": "longmemeval-s", "sha256": "ab" * 32}
    summary["dataset"]["sha256"] = summary["run"]["dataset"]["sha256"] = "ab" * 32
    summary["run"]["signature"] = summary["run"]["signature"].replace(
        "|data:", "|bench:longmemeval-s@abababababab|data:"
    )
    (other / "summary.json").write_text(json.dumps(summary))
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app, ["board", str(folders["bm25-k10"]), str(other), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    board = json.loads((out / "board.json").read_text())
    assert [g["identity"]["benchmark"] for g in board["groups"]] == ["locomo", "longmemeval-s"]
    assert board["groups"][1]["identity"]["dataset_sha256_prefix"] == "abababababab"
    assert {"benchmark", "data file"} <= set(board["groups_differ_in"])
    assert board["folders"] == [str(folders["bm25-k10"]), str(other)]
