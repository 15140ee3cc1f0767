"""`locoscore judge` over a benchmark's prediction records (each with its question key and
type id, joined to its data file), judged N runs each through the shared records pass
(`generic.judged_records`): `--limit` and `--shard` over the records the benchmark judges,
the gold errata checked before any call, the folder guard, the pass, its table and lines
(`generic.judge_terminal`), and the folder's reports rebuilt with the new J. The benchmark
declares its parts (`RecordsJudge`)."""

from __future__ import annotations

import warnings
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from locoscore.results.layout import JUDGMENTS, REPORT_FILES, RUN_JSON, SCORES, SUMMARY

if TYPE_CHECKING:
    from locoscore.benchmarks.base import Benchmark
    from locoscore.benchmarks.calls import JudgeCall, Terminal
    from locoscore.data.sample import QuestionSample
    from locoscore.data.shard import Shard, ShardSample
    from locoscore.generic.folder_parts import Groups
    from locoscore.judge.engine import PassResult
    from locoscore.judge.settings import JudgeSettings


@dataclass(frozen=True)
class RecordsJudge:
    """A benchmark's records judge: how the answers file is read into records (an object
    with `records`, `dataset`, `identity()` and `provenance()`), which records its judge
    judges (`judged(records, include_excluded)`), the pass over them (`judge_pass(records,
    settings, out, **options)`, options as `generic.judged_records.judge_records` takes
    them), the groups its table shows, and the reports rebuilt after the pass
    (`rebuild(out, errata)`: a line to print, or None)."""

    load: Callable[[JudgeCall], Any]
    judged: Callable[[Sequence[Any], bool], list[Any]]
    judge_pass: Callable[..., Awaitable[PassResult]]
    groups: Groups
    rebuild: Callable[[Path, Any], str | None]


def judge_records_command(
    bench: Benchmark, parts: RecordsJudge, call: JudgeCall, t: Terminal
) -> bool:
    from locoscore.benchmarks.commands import failed, pass_results_in
    from locoscore.generic.judge_terminal import print_judge_section
    from locoscore.judge.folder import unscored_problem

    console, out, request = t.out, call.out, call.request
    loaded = parts.load(call)
    judged = parts.judged(loaded.records, call.include_adversarial)
    # `--limit`: a sample of the questions the judge would judge, drawn as `run` draws it;
    # or a run's own sample, kept
    sample = (
        None
        if request is None
        else bench.draw_sample(request, [(r.key, r.category) for r in judged])
    )
    if call.shard is not None:  # after the sample: its shard I
        data = loaded.dataset or _split_data(bench, call.predictions)
        sample = _shard_sample(bench, data, judged, sample, call.shard)
    if sample is not None:
        console.print(
            f"smoke test: judging {sample.describe()} ({sample.signature}); J is a subset",
            highlight=False,
        )
    gold_errata = bench.errata(call.errata, loaded.dataset)  # a bad list fails before any call
    _warn_if_self_judging(call.settings, call.run_answers)
    t.claim(out, loaded.identity(), replace=call.replace, dry_run=call.dry_run)
    bar = t.progress(call.progress and not call.dry_run, "judging", "judgments")
    result = t.run_pass(
        parts.judge_pass(
            loaded.records,
            call.settings,
            out,
            input_info=loaded.provenance()["input"],
            sample=sample,
            **call.engine_options(bar),
        ),
        bar,
    )
    if not pass_results_in(t, result, user_cache=call.user_cache):
        if call.dry_run:
            t.estimate(result, call.batch, sample)
        return False
    assert result.run is not None and result.summary is not None
    print_judge_section(console, result.summary, parts.groups)
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
    if (line := parts.rebuild(out, gold_errata)) is not None:
        console.print(line, highlight=False)
    console.print(
        f"wrote {out}/{', '.join((JUDGMENTS, SCORES, SUMMARY, *REPORT_FILES))}",
        highlight=False,
    )
    if result.run.stop_reason:
        return failed(t, f"stopped early: {result.run.stop_reason}")
    return failed(t, unscored_problem(result.run.rows, call.max_unscored))


def _shard_sample(
    bench: Benchmark,
    data: Any,
    judged: Sequence[Any],
    sample: QuestionSample | None,
    shard: Shard,
) -> ShardSample:
    """Shard I of the records judged (within the sample), split by whole conversations as
    `run --shard` splits them."""
    from locoscore.data.shard import ShardSample, shard_question_ids

    keys = [r.key for r in judged]
    if sample is not None:
        keys = [key for key in keys if key in sample.ids]
    conversations = bench.conversations(data)
    ids = shard_question_ids(shard, conversations, bench.questions(data, conversations), keys)
    return ShardSample.of(shard, ids, sample, len(keys))


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
