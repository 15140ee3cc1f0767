"""`locoscore report`: the four files, their tables, labels and statistics."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from report_helpers import add_judge, base_rows, write_folder
from typer.testing import CliRunner

from locoscore._io import sha256_file
from locoscore.benchmarks.locomo import LOCOMO
from locoscore.benchmarks.locomo.comparison import (
    format_f1_comparison_table,
    format_judge_comparison_table,
    format_latency_comparison_table,
)
from locoscore.benchmarks.locomo.metrics import F1_MEM0
from locoscore.benchmarks.locomo.report_parts import analyse, build_reports, load_results
from locoscore.cli import app
from locoscore.generic.report_sections import format_full_report

REPO = Path(__file__).resolve().parents[2]
runner = CliRunner()


def _table_lines(markdown: str, first_header: str) -> list[str]:
    lines = markdown.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {first_header}"))
    out = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        out.append(line)
    return out


def _cells(line: str) -> list[str]:
    return [c.strip().strip("*") for c in line.strip("|").split(" | ")]


def test_report_after_score_on_the_example_writes_all_four_files(tmp_path: Path) -> None:
    out = tmp_path / "example"
    scored = runner.invoke(
        app, ["score", str(REPO / "examples" / "predictions.jsonl"), "--out", str(out)]
    )
    assert scored.exit_code == 0, scored.output
    result = runner.invoke(app, ["report", str(out)])
    assert result.exit_code == 0, result.output
    for name in ("report.md", "report.html", "scores.csv", "summary.json"):
        assert (out / name).stat().st_size > 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["lexical"]  # score's sections are kept
    report = summary["report"]["metrics"]["f1_locomo"]
    mean = summary["lexical"]["locomo"]["metrics"]["f1"]["overall"]["mean"]
    assert report["overall"]["mean"] == pytest.approx(100 * mean)
    rows = list(csv.DictReader((out / "scores.csv").open()))
    assert len(rows) == summary["input"]["records"]


def test_locomo_f1_table_has_locomo_order_adversarial_and_published_rows(tmp_path: Path) -> None:
    analysis = analyse(load_results(write_folder(tmp_path / "r", base_rows())))
    lines = _table_lines(format_f1_comparison_table(analysis), "System")
    assert _cells(lines[0]) == [
        "System",
        "single-hop",
        "multi-hop",
        "temporal",
        "open-domain",
        "adversarial",
        "overall (incl. adversarial)",
        "Source",
    ]
    # base_rows: f1_locomo = (k % 5) / 4 over k = 0..19; single-hop k = 0,1,2,10,11,12
    # -> (0 + .25 + .5 + 0 + .25 + .5) / 6 = 25.0; overall = 2 * (0+.25+.5+.75+1) * 2 / 20 = 50.0
    ours = _cells(lines[2])
    assert ours[0] == "This run" and ours[1] == "25.0" and ours[6] == "50.0"
    systems = [_cells(line)[0] for line in lines[3:]]
    assert "gpt-4-turbo-128K (full context)" in systems and "Mem0" not in systems
    gpt4 = _cells(lines[3 + systems.index("gpt-4-turbo-128K (full context)")])
    assert gpt4[1:7] == ["72.3", "51.5", "51.4", "38.5", "15.7", "51.6"]


def test_mem0_protocol_tables_drop_adversarial_and_list_mem0_paper_rows(tmp_path: Path) -> None:
    analysis = analyse(load_results(write_folder(tmp_path / "r", base_rows())))
    lines = _table_lines(format_f1_comparison_table(analysis, F1_MEM0), "System")
    assert _cells(lines[0])[1:6] == [
        "single-hop",
        "multi-hop",
        "temporal",
        "open-domain",
        "overall (excl. adversarial)",
    ]
    mem0 = next(_cells(line) for line in lines if line.startswith("| Mem0 |"))
    # by id: single-hop is id 4 (47.65), multi-hop id 1 (38.72) -- not the paper's titles
    assert mem0[1:5] == ["47.65", "38.72", "48.93", "28.64"]


def test_binary_judge_is_compared_with_mem0_paper_j_with_run_std(tmp_path: Path) -> None:
    rows = base_rows()
    judge = add_judge(rows, "binary")
    analysis = analyse(load_results(write_folder(tmp_path / "r", rows, judge)))
    text = format_judge_comparison_table(analysis)
    lines = _table_lines(text, "System")
    ours = _cells(lines[2])
    # per-question J: pattern 0 -> 100, 1 -> 0, 2 -> 66.67, 3 -> 100, four of each -> 66.67;
    # runs: run 0 = 75, run 1 = 33.33 (12 answered), run 2 = 75 -> std 24.06
    assert ours[-2] == "66.67 ± 24.06"
    assert any(line.startswith("| Zep |") for line in lines)
    assert "scales differ" not in text


def test_rubric_judge_says_the_scales_differ_and_keeps_paper_rows_apart(tmp_path: Path) -> None:
    rows = base_rows()
    judge = add_judge(rows, "rubric", scores=lambda k: [60.0 + k % 7, 70.0, None])
    analysis = analyse(load_results(write_folder(tmp_path / "r", rows, judge)))
    text = format_judge_comparison_table(analysis)
    assert "The scales differ" in text
    first_table = _table_lines(text, "System")
    assert len(first_table) == 3  # header, rule, this run only
    assert "| Mem0 |" in text  # shown as context in a separate table


def test_paper_columns_option_adds_the_papers_titles_and_the_explanation(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "r", base_rows())
    build_reports(folder, LOCOMO, paper_columns=True)
    text = (folder / "report.md").read_text()
    assert '"Single Hop" (id 1)' in text and "mem0ai/mem0#2609" in text
    build_reports(folder, LOCOMO)
    assert '"Single Hop" (id 1)' not in (folder / "report.md").read_text()


def test_latency_table_reports_this_runs_percentiles_next_to_mem0s(tmp_path: Path) -> None:
    analysis = analyse(load_results(write_folder(tmp_path / "r", base_rows())))
    lines = _table_lines(format_latency_comparison_table(analysis), "System")
    ours = _cells(lines[2])
    # search latency 0.10 .. 0.29 in steps of 0.01: p50 = 0.195 s; tokens mean = 1095
    assert ours[1] == "195 ms" and ours[5] == "1095"
    # under a second in ms, else seconds
    assert any(
        line.startswith("| Mem0 | 148 ms | 200 ms | 708 ms | 1.44 s | 1764") for line in lines
    )


def test_judge_statistics_in_summary_json_match_the_hand_counts(tmp_path: Path) -> None:
    rows = base_rows()
    folder = write_folder(tmp_path / "r", rows, add_judge(rows, "binary"))
    build_reports(folder, LOCOMO)
    judge = json.loads((folder / "summary.json").read_text())["report"]["judge"]
    assert judge["per_run_means"] == pytest.approx([75.0, 100 / 3, 75.0])
    assert judge["unanimity"] == pytest.approx(12 / 16)  # patterns 0, 1, 3 unanimous
    assert (judge["runs_failed"], judge["runs_attempted"]) == (4, 48)
    assert judge["agreement"]["name"] == "Fleiss' kappa"


def test_report_lists_bottom_and_top_questions_and_every_signature(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "r", base_rows())
    build_reports(folder, LOCOMO)
    text = (folder / "report.md").read_text()
    assert "### Lowest scores" in text and "### Highest scores" in text
    for proto in ("locomo", "mem0", "spec"):
        assert f"{proto}: proto:{proto}|version:0.1.0" in text
    assert "sha256 " + "0" * 64 in text and "sha256 " + "1" * 64 in text


def test_scores_csv_has_one_row_per_question_with_runs_as_json(tmp_path: Path) -> None:
    rows = base_rows()
    folder = write_folder(tmp_path / "r", rows, add_judge(rows, "binary"))
    build_reports(folder, LOCOMO)
    table = list(csv.DictReader((folder / "scores.csv").open()))
    assert len(table) == 20
    assert list(table[0])[:3] == ["sample_id", "qa_index", "category"]
    assert json.loads(table[3]["j_scores"]) == [100.0, None, 100.0]
    assert table[8]["j_mean"] == ""  # adversarial: not judged


def test_rebuilding_is_idempotent(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "r", base_rows())
    build_reports(folder, LOCOMO)
    first = {p: (folder / p).read_text() for p in ("report.md", "report.html", "summary.json")}
    build_reports(folder, LOCOMO)
    assert first == {p: (folder / p).read_text() for p in first}


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda d: (d / "summary.json").unlink(), "summary.json"),
        (lambda d: (d / "scores.jsonl").write_text("{not json\n"), "line 1"),
        (
            lambda d: (d / "scores.jsonl").write_text('{"sample_id": "a", "qa_index": 0}\n'),
            "field 'category'",
        ),
        (
            lambda d: (d / "scores.jsonl").write_text(
                '{"sample_id": "a", "qa_index": 0, "category": 9}\n'
            ),
            "field 'category'",
        ),
        (
            lambda d: (d / "scores.jsonl").write_text(
                '{"sample_id": "a", "qa_index": 0, "category": 1, "f1_locomo": NaN}\n'
            ),
            "field 'f1_locomo'",
        ),
        (
            lambda d: (d / "scores.jsonl").write_text(
                '{"sample_id": "a", "qa_index": 0, "category": 1, "j_scores": [1, "x"]}\n'
            ),
            "field 'j_scores'",
        ),
        (lambda d: (d / "summary.json").write_text("[]"), "summary.json"),
    ],
)
def test_bad_results_folder_is_one_line_exit_2_and_writes_nothing(
    tmp_path: Path, mutate: object, expected: str
) -> None:
    folder = write_folder(tmp_path / "r", base_rows())
    mutate(folder)  # type: ignore[operator]
    result = runner.invoke(app, ["report", str(folder)])
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and expected in lines[0] and "Traceback" not in result.output
    assert not (folder / "report.md").exists()


def test_statistics_name_the_scores_they_came_from_and_a_rescore_refreshes_them(
    tmp_path: Path,
) -> None:
    out = tmp_path / "example"
    example = str(REPO / "examples" / "predictions.jsonl")
    assert runner.invoke(app, ["score", example, "--out", str(out)]).exit_code == 0
    assert runner.invoke(app, ["report", str(out)]).exit_code == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["report"]["computed_from"]["scores_sha256"] == sha256_file(out / "scores.jsonl")
    assert (
        runner.invoke(app, ["score", example, "--out", str(out), "--protocols", "spec"]).exit_code
        == 0
    )
    refreshed = json.loads((out / "summary.json").read_text())["report"]
    assert refreshed["computed_from"]["scores_sha256"] == sha256_file(out / "scores.jsonl")
    assert refreshed != summary["report"]


def test_report_means_equal_the_scorers_summary_for_every_protocol_and_category(
    tmp_path: Path,
) -> None:
    out = tmp_path / "example"
    example = str(REPO / "examples" / "predictions.jsonl")
    assert runner.invoke(app, ["score", example, "--out", str(out)]).exit_code == 0
    analysis = analyse(load_results(out))
    lexical = analysis.results.summary["lexical"]
    checked = 0
    for ms in analysis.metrics:
        proto, metric = ms.metric.protocol, ms.metric.column.split("_")[0]
        scorer = lexical[proto]["metrics"][metric]
        assert ms.overall.mean == pytest.approx(100 * scorer["overall"]["mean"])
        assert ms.overall.n == scorer["overall"]["count"]
        for cid, cell in ms.by_category.items():
            assert cell.mean == pytest.approx(100 * scorer["by_category"][str(cid)]["mean"])
            checked += 1
    assert checked == 5 + 4 + 4 + 5  # locomo, mem0 f1, mem0 bleu1, spec


def test_a_run_without_adversarial_questions_is_warned_off_the_locomo_overall(
    tmp_path: Path,
) -> None:
    rows = [r for r in base_rows() if r["category"] != 5]
    analysis = analyse(load_results(write_folder(tmp_path / "r", rows)))
    table = format_f1_comparison_table(analysis)
    assert "This run has no adversarial questions" in table
    headline = _table_lines(format_full_report(analysis), "Metric")
    assert _cells(headline[2])[:2] == [
        "F1 (official LoCoMo)",
        "incl. adversarial (none in this run)",
    ]
    assert _cells(headline[3])[:2] == ["F1 (Mem0 protocol)", "excl. adversarial"]
    with_adv = analyse(load_results(write_folder(tmp_path / "s", base_rows())))
    assert "no adversarial questions" not in format_f1_comparison_table(with_adv)


def _judge_adversarial_too(rows: list[dict[str, object]]) -> dict[str, object]:
    judge = add_judge(rows, "binary")
    for row in rows:
        if row["category"] == 5:  # every adversarial question judged correct 3 times of 3
            row.update(j_mean=100.0, j_std=0.0, j_runs=3, j_scores=[100.0] * 3, j_failures=0)
    judge["include_adversarial"] = True
    return judge


def test_binary_j_with_adversarial_judged_faces_mem0_j_without_it(tmp_path: Path) -> None:
    rows = base_rows()
    folder = write_folder(tmp_path / "r", rows, _judge_adversarial_too(rows))
    analysis = analyse(load_results(folder))
    j = analysis.metric("j_mean")
    assert j is not None and j.overall.n == 20  # the folder's own J covers adversarial
    assert j.overall.mean == pytest.approx((16 * 200 / 3 + 4 * 100) / 20)
    text = format_judge_comparison_table(analysis)
    lines = _table_lines(text, "System")
    headers = _cells(lines[0])
    assert "adversarial" not in headers and headers[-2] == "overall (excl. adversarial)"
    # the same 16 questions (and run-level std) as without adversarial judging
    assert _cells(lines[2])[-2] == "66.67 ± 24.06"
    assert "left out of this table" in text


def test_binary_j_from_another_judge_model_says_the_judges_differ(tmp_path: Path) -> None:
    rows = base_rows()
    judge = add_judge(rows, "binary")
    same = format_judge_comparison_table(
        analyse(load_results(write_folder(tmp_path / "a", rows, judge)))
    )
    assert "different judge" not in same
    judge["model"] = "claude-sonnet-4-6"
    other = format_judge_comparison_table(
        analyse(load_results(write_folder(tmp_path / "b", rows, judge)))
    )
    assert "different judge: this run's verdicts come from claude-sonnet-4-6" in other
    assert "| Mem0 |" in other  # still the same protocol, so still compared


def _example_ids(text: str, title: str) -> list[str]:
    section = text.split(f"### {title}")[1].split("\n### ")[0].split("\n## ")[0]
    return [_cells(line)[0] for line in section.splitlines() if line.startswith("| conv-")]


def test_lowest_scores_come_one_per_category_not_in_dataset_order(tmp_path: Path) -> None:
    rows = base_rows(1)
    for row in rows:
        row["f1_locomo"] = 0.0  # every question ties: dataset order would pick 4, 4, 4, 1, 1
    forward = write_folder(tmp_path / "a", rows)
    backward = write_folder(tmp_path / "b", rows[::-1])
    build_reports(forward, LOCOMO)
    build_reports(backward, LOCOMO)
    text = (forward / "report.md").read_text()
    ids = _example_ids(text, "Lowest scores")
    categories = sorted(int(r["category"]) for r in rows if f"conv-1#{r['qa_index']}" in ids)
    assert categories == [1, 2, 3, 4, 5]
    assert ids == _example_ids((backward / "report.md").read_text(), "Lowest scores")


def test_the_largest_f1_j_disagreements_spread_across_categories(tmp_path: Path) -> None:
    rows = base_rows()
    folder = write_folder(tmp_path / "r", rows, add_judge(rows, "binary"))
    build_reports(folder, LOCOMO)
    ids = _example_ids((folder / "report.md").read_text(), "Where official F1 and J disagree")
    # |100 F1 - J| by hand: k0 and k15 100 (single-hop, temporal), k11 and k13 75 (single-hop,
    # multi-hop), k16 75 (temporal, second of its category), k7 and k17 50 (open-domain).
    # One per category first: k0, k13, k15, one open-domain; then single-hop's next, k11.
    assert set(ids[:4]) == {"conv-1#0", "conv-2#5", "conv-2#3", "conv-2#1"}
    assert ids[4] in ("conv-1#7", "conv-2#7") and "conv-2#6" not in ids


def test_lowest_scores_with_the_evidence_retrieved_read_a_run_folders_predictions(
    tmp_path: Path,
) -> None:
    rows = base_rows(1)
    folder = write_folder(tmp_path / "r", rows)
    summary = json.loads((folder / "summary.json").read_text())
    summary["run"] = {"system": {"name": "bm25"}, "answer": {"model": "m"}, "top_k": 10}
    (folder / "summary.json").write_text(json.dumps(summary))
    recall = {0: 1.0, 1: 0.5, 5: 1.0}  # k1 and k5 have F1 25 and 0
    lines = [
        json.dumps({"sample_id": "conv-1", "qa_index": i, "evidence_recall": recall.get(i)})
        for i in range(10)
    ]
    (folder / "predictions.jsonl").write_text("\n".join(lines) + "\n")
    build_reports(folder, LOCOMO)
    text = (folder / "report.md").read_text()
    ids = _example_ids(text, "Lowest scores although the evidence")
    # F1 0 with all evidence: conv-1#0 and conv-1#5 (tie, by hash); then F1 25 with half
    assert set(ids[:2]) == {"conv-1#0", "conv-1#5"} and ids[2:] == ["conv-1#1"]
    assert "| Evidence retrieved |" in text and "| 50 % |" in text
