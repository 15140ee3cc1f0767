"""Results folders written by older locoscore versions still open in `report`, `board` and
`compare`, with the numbers the same folders give in today's shape.

Each old folder is a folder made now (conftest) with the fields older writers did not
write taken out. The shapes were read off folders written by the old commits themselves
(`git archive <commit> src`, the same run and judge commands, key sets compared):
- LoCoMo before the benchmark registry (fd23e08): no `bench:` signature part and no
  `benchmark` field (32b0a43), no judge endpoint or served model and no `fake` or
  `served_model` in judgments (e43788b), no answer endpoint or served model in run.json
  (1c8d10f), no answers fingerprint in the judge input (ef8c2aa), no sample, attempts
  ledger, concurrency or context fit, and `answer.base_url_set` instead of the endpoint.
- LongMemEval and BEAM at 358a26b (before issue 19's shared judge pass): no attempts
  ledger, usage, scored/unscored or warnings in the judge section, no fingerprint or record
  count in the judge input (BEAM: no input path either), no prompt-cache token counts.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from locoscore.cli import app

LOCOMO_RUN = ["benchmark", "predictions", "sample", "context_fit", "answer.endpoint",
              "answer.served", "answer.server", "answer.context_window",
              "answer.context_window_source", "answer.prompt_cache",
              "answer_calls.this_attempt", "answer_calls.earlier_attempts",
              "answer_calls.concurrency", "answer_calls.retries", "answer_calls.price_table",
              "answer_calls.usage", "answer_calls.input_tokens", "answer_calls.output_tokens",
              "answer_calls.cache_read_tokens", "answer_calls.cache_write_tokens",
              "answer_calls.uncached_input_tokens", "ingestion.all_attempts",
              "measures.answer_queued_s", "measures.failed_by_kind"]  # fmt: skip
LOCOMO_JUDGE = ["endpoint", "served", "sample", "warnings", "concurrency", "input.fingerprint",
                "calls.this_attempt", "calls.earlier_attempts", "calls.judgments",
                "calls.retries", "usage.cost_unknown_reason"]  # fmt: skip
NEWER_RUN = ["answer.prompt_cache", "answer_calls.cache_read_tokens",
             "answer_calls.cache_write_tokens", "answer_calls.input_tokens",
             "answer_calls.output_tokens", "answer_calls.price_table", "answer_calls.retries",
             "answer_calls.uncached_input_tokens"]  # fmt: skip
NEWER_JUDGE = ["calls.this_attempt", "calls.earlier_attempts", "calls.judgments",
               "calls.retries", "calls.runs", "calls.skipped", "usage", "input.fingerprint",
               "input.records"]  # fmt: skip
BEAM_CACHE = ("cache_read", "cache_write", "uncached_input")
OLDER = {
    "locomo": (LOCOMO_RUN, LOCOMO_JUDGE),
    "longmemeval": (NEWER_RUN, [*NEWER_JUDGE, "scored", "unscored", "warnings"]),
    "beam": (
        [*NEWER_RUN, *(f"answer_calls.this_attempt.{t}_tokens" for t in BEAM_CACHE)],
        [*NEWER_JUDGE, "input.path", "calls.short_circuited"],
    ),
}


def _cli(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def _drop(record: dict[str, Any], dotted: str) -> None:
    *parents, last = dotted.split(".")
    for key in parents:
        record = record.get(key) or {}
    record.pop(last, None)


def _old_signature(signature: str) -> str:
    # the registry renamed data: to bench: (32b0a43); endpoint, served model, fake (e43788b)
    signature = signature.replace("|bench:", "|data:")
    return re.sub(r"\|(endpoint|served):[^|]*|\|fake(?=\|)", "", signature)


def _rewrite(path: Path, change: Any) -> None:
    if path.suffix == ".jsonl":
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        path.write_text("".join(json.dumps(change(r)) + "\n" for r in rows), encoding="utf-8")
    else:
        path.write_text(json.dumps(change(json.loads(path.read_text(encoding="utf-8")))))


def make_old(folder: Path, target: Path, benchmark: str) -> Path:
    shutil.copytree(
        folder, target, ignore=shutil.ignore_patterns("*.sqlite", "report.*", "manifest.json")
    )
    run_fields, judge_fields = OLDER[benchmark]

    def old_run(run: dict[str, Any]) -> dict[str, Any]:
        for field in run_fields:
            _drop(run, field)
        if benchmark == "locomo":
            run["signature"] = _old_signature(run["signature"])
            run["answer"]["base_url_set"] = False
        return run

    def old_summary(summary: dict[str, Any]) -> dict[str, Any]:
        if "run" in summary:
            old_run(summary["run"])
        judge = summary.get("judge")
        if judge:
            for field in judge_fields:
                _drop(judge, field)
            if benchmark == "locomo":
                judge["signature"] = _old_signature(judge["signature"])
        if benchmark == "locomo":
            summary.pop("benchmark", None)
            _drop(summary, "input.fingerprint")
        return summary

    def old_judgment(row: dict[str, Any]) -> dict[str, Any]:
        if benchmark == "locomo":
            row.pop("fake", None)
            row.pop("served_model", None)
        return row

    def old_prediction(row: dict[str, Any]) -> dict[str, Any]:
        for field in ("answer_tokens.cache_read", "answer_tokens.cache_write"):
            _drop(row, field)  # BEAM's prompt-cache counts came later
        return row

    _rewrite(target / "run.json", old_run)
    _rewrite(target / "summary.json", old_summary)
    if benchmark == "beam":
        _rewrite(target / "predictions.jsonl", old_prediction)
    if (target / "judgments.jsonl").exists():
        _rewrite(target / "judgments.jsonl", old_judgment)
    return target


def _rows(board: Path) -> dict[str, tuple[Any, ...]]:
    document = json.loads((board / "board.json").read_text(encoding="utf-8"))
    return {
        Path(r["folder"]).name: (
            g["identity"]["benchmark"],
            r["rank"],
            r["questions"],
            r["judged"],
            r["metrics"],
        )
        for g in document["groups"]
        for r in g["rows"]
    }


def _opened(pairs: dict[str, tuple[Path, ...]], out: Path) -> tuple[dict[str, Any], ...]:
    """report of each folder, one board of all, compare of each pair (its first two)."""
    folders = [f for pair in pairs.values() for f in pair]
    for folder in folders:
        _cli("report", str(folder))
        assert (folder / "report.html").stat().st_size > 0
    _cli("board", *map(str, folders), "--out", str(out / "board"))
    compared = {}
    for name, (a, b, *_) in pairs.items():
        _cli("compare", str(a), str(b), "--out", str(out / name))
        # LoCoMo writes no compare.json: its compare.md, with the folders' paths taken out
        page = out / name / ("compare.json" if name != "locomo" else "compare.md")
        text = page.read_text(encoding="utf-8").replace(str(a.parent), "DIR")
        compared[name] = json.loads(text)["groups"] if page.suffix == ".json" else text
    return _rows(out / "board"), compared


def test_old_folders_open_in_report_board_and_compare_with_todays_numbers(
    folders: dict[str, Path], made: dict[str, Path], tmp_path: Path
) -> None:
    today = {  # two judged folders of each benchmark and one not judged
        "locomo": (folders["bm25-k10-binary"], folders["bm25-k3-binary"], made["locomo"]),
        "longmemeval": (made["lme-k1"], made["lme-k20"], made["lme-unjudged"]),
        "beam": (made["beam-k1"], made["beam-k10"], made["beam-unjudged"]),
    }
    old = {
        bench: tuple(
            make_old(f, tmp_path / "old" / bench / f"{i}-{f.name}", bench)
            for i, f in enumerate(pair)
        )
        for bench, pair in today.items()
    }
    # what the old folders lack, as the old writers left it
    locomo = json.loads((old["locomo"][0] / "summary.json").read_text())
    assert "benchmark" not in locomo and "|bench:" not in locomo["run"]["signature"]
    assert "|data:locomo10@" in locomo["run"]["signature"]
    assert "served" not in locomo["judge"] and "|fake" not in locomo["judge"]["signature"]
    copies = {b: tuple(shutil.copytree(f, tmp_path / "now" / b / f"{i}-{f.name}",
                                       ignore=shutil.ignore_patterns("*.sqlite", "report.*"))
                       for i, f in enumerate(pair)) for b, pair in today.items()}  # fmt: skip
    old_rows, old_compared = _opened(old, tmp_path / "old-pages")
    now_rows, now_compared = _opened(copies, tmp_path / "now-pages")
    assert old_rows == now_rows  # the same benchmark and the same numbers for every folder
    assert (
        sorted(row[0] for row in old_rows.values())
        == ["beam"] * 3 + ["locomo"] * 3 + ["longmemeval"] * 3
    )
    assert old_compared == now_compared
    # the reports give the same numbers: every table row (the folders' paths taken out)
    for bench, pair in old.items():
        for a, b in zip(pair, copies[bench], strict=True):
            assert _table_rows(a) == _table_rows(b), (bench, a.name)


def _table_rows(folder: Path) -> list[str]:
    """The report's table rows, without the answer step's concurrency (not recorded before
    the adaptive limiter: an old report says nothing of it) and without the card's mark of
    the fake provider (an old folder recorded no served model, so its card cannot know)."""
    text = (folder / "report.md").read_text(encoding="utf-8").replace(str(folder.parent), "DIR")
    rows = [line for line in text.splitlines() if line.startswith("|")]
    rows = [re.sub(r" \(locoscore's fake provider, not a real model\)", "", row) for row in rows]
    return [re.sub(r"; \d+ in flight at the start [^|]*", " ", row) for row in rows]


def test_a_locomo_folder_from_before_the_judge_recorded_its_input_opens(
    folders: dict[str, Path], tmp_path: Path
) -> None:
    """Before 32b059f the judge section named no input file (and summary.json no `input`):
    report and board still read the folder, with today's J."""
    folder = make_old(folders["bm25-k10-binary"], tmp_path / "k10", "locomo")

    def without_input(summary: dict[str, Any]) -> dict[str, Any]:
        summary.pop("input", None)
        summary["judge"].pop("input")
        return summary

    _rewrite(folder / "summary.json", without_input)
    _cli("report", str(folder))
    _cli("board", str(folder), "--out", str(tmp_path / "board"))
    [(benchmark, _, questions, judged, metrics)] = _rows(tmp_path / "board").values()
    today = json.loads((folders["bm25-k10-binary"] / "summary.json").read_text())["judge"]
    assert (benchmark, questions, judged) == ("locomo", 105, True)
    assert round(metrics["j_mean"]["overall"]["mean"], 4) == today["overall"]["mean"]
