"""`locoscore judge` on LoCoMo: the judge pass over the prediction records joined to the
dataset, the folder's reports rebuilt with the new J, and LoCoMo's judge table."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from locoscore.results.layout import JUDGMENTS, REPORT_FILES, RUN_JSON, SCORES, SUMMARY

if TYPE_CHECKING:
    from locoscore.benchmarks.base import Benchmark
    from locoscore.benchmarks.commands import JudgeCall, Terminal
    from locoscore.judge.settings import JudgeSettings


def judge_command(bench: Benchmark, call: JudgeCall, t: Terminal) -> bool:
    # imported here, not at the top: `locoscore --help` stays free of NumPy and NLTK
    from locoscore.benchmarks.commands import failed, pass_results_in
    from locoscore.benchmarks.locomo.categories import GROUPS
    from locoscore.benchmarks.locomo.data.errata import errata_for
    from locoscore.benchmarks.locomo.data.load import load_predictions
    from locoscore.benchmarks.locomo.judge.api import judge_pass, judge_sample
    from locoscore.benchmarks.locomo.judge.shard import records_shard_sample
    from locoscore.benchmarks.locomo.report.build import build_reports
    from locoscore.benchmarks.locomo.report.terminal import verified_gold_line
    from locoscore.generic.judge_terminal import print_judge_section
    from locoscore.judge.folder import unscored_problem

    console, out, request = t.out, call.out, call.request
    loaded = load_predictions(
        call.predictions,
        call.fmt,
        prediction_key=call.prediction_key,
        dataset=call.dataset,
        strict=call.strict,
    )
    sample = (
        None
        if request is None
        else judge_sample(loaded.records, request, call.include_adversarial, bench)
    )
    if call.shard is not None:  # after the sample: its shard I
        sample = records_shard_sample(
            bench,
            loaded.dataset or _split_data(bench, call.predictions),
            loaded.records,
            call.include_adversarial,
            sample,
            call.shard,
        )
    if sample is not None:
        console.print(
            f"smoke test: judging {sample.describe()} ({sample.signature}); J is a subset",
            highlight=False,
        )
    gold_errata = errata_for(call.errata, loaded.dataset)  # a bad list fails before any call
    _warn_if_self_judging(call.settings, call.run_answers)
    t.claim(out, loaded.identity(), replace=call.replace, dry_run=call.dry_run)
    bar = t.progress(call.progress and not call.dry_run, "judging", "judgments")
    result = t.run_pass(
        judge_pass(
            loaded.records,
            call.settings,
            out,
            batch=call.batch,
            dry_run=call.dry_run,
            progress=bar,
            poll_interval_s=call.batch_poll,
            max_wait_s=call.batch_wait,
            input_info=loaded.provenance()["input"],
            user_cache=call.user_cache,
            sample=sample,
        ),
        bar,
    )
    if not pass_results_in(t, result, user_cache=call.user_cache):
        if call.dry_run:
            t.estimate(result, call.batch, sample)
        return False
    assert result.run is not None and result.summary is not None
    print_judge_section(console, result.summary, GROUPS)
    for warning in result.summary.get("warnings") or []:
        warnings.warn(warning, stacklevel=1)
    short = result.summary["questions_under_min_runs"]
    if short:
        warnings.warn(
            f"{short} question(s) have fewer than {min(5, call.runs)} successful judge runs; "
            f"rerun the same command to retry the failed calls",
            stacklevel=1,
        )
    # keep the folder's reports in step with the new J (no API call)
    built = build_reports(out, errata=gold_errata)
    if (line := verified_gold_line(built.analysis)) is not None:
        console.print(line, highlight=False)
    console.print(
        f"wrote {out}/{', '.join((JUDGMENTS, SCORES, SUMMARY, *REPORT_FILES))}",
        highlight=False,
    )
    if result.run.stop_reason:
        return failed(t, f"stopped early: {result.run.stop_reason}")
    return failed(t, unscored_problem(result.run.rows, call.max_unscored))


def _split_data(bench: Benchmark, predictions: Path) -> Any:
    """The data file a shard is split by (conversation sizes) when none was given or found:
    the one the predictions' run read (run.json beside them)."""
    from locoscore.errors import InputError
    from locoscore.results.folder import read_run_dataset

    recorded = read_run_dataset(predictions)
    if recorded is None:
        raise InputError(
            "a shard is split by whole conversations, by their sizes in the data file: give "
            "--dataset (no run.json beside the predictions names one that exists)",
            field="--shard",
        )
    path, sha = recorded
    data = bench.load(path)
    if sha is not None and data.sha256 != sha:
        raise InputError(
            f"is not the file the run read (sha256 {data.sha256[:12]}, the run's {sha[:12]}): "
            "give --dataset",
            file=str(path),
            field="--shard",
        )
    return data


def _warn_if_self_judging(
    settings: JudgeSettings, run_answers: dict[Path, dict[str, Any] | None]
) -> None:
    """A model grading its own answers is lenient with them: say so when run.json (beside
    the predictions or in DIR) names the judge's model as the answer model."""
    judge_model = settings.resolve().model
    for folder, answer in run_answers.items():
        if answer is not None and answer.get("model") == judge_model:
            warnings.warn(
                f"self-judging: {judge_model} produced the answers ({folder / RUN_JSON}) "
                "and would also judge them; use a different --model for a defensible J",
                stacklevel=1,
            )
            return
