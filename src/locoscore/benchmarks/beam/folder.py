"""`locoscore judge --benchmark beam`: a rubric judge pass into a results folder.

Writes `judgments.jsonl` (every item and pair verdict), `beam_*` columns in `scores.jsonl`,
a `judge` section in `summary.json` (the run's sections kept) and the BEAM report. The
signature says which scoring protocol made the numbers: `beam` (question shown, 0.5 kept)
or `beam-official` (the official code's behaviour, for comparison with the paper).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from locoscore._io import write_text_atomic
from locoscore._version import __version__
from locoscore.benchmarks.beam.data import BeamDataset
from locoscore.benchmarks.beam.judge_pass import (
    BeamJudgeResult,
    Sampler,
    beam_judge_pass,
    predictions_identity,
    read_predictions,
    settings_for,
)
from locoscore.benchmarks.beam.report import report_files
from locoscore.data.sample import with_sample
from locoscore.errors import InputError
from locoscore.judge.engine import PassResult
from locoscore.judge.folder import (
    DEFAULT_MAX_UNSCORED,
    fold_problem,
    open_folder,
    over_phrase,
    provenance,
    spend,
)
from locoscore.judge.settings import JudgeSettings
from locoscore.llm.endpoint import Served, through_sentence
from locoscore.report.spend import attempts_phrase
from locoscore.results.folder import load_summary, write_results
from locoscore.results.identity import InputIdentity
from locoscore.results.layout import JUDGMENTS, REPORT_HTML, REPORT_MD, SCORES, SUMMARY

PROTOCOLS = ("beam", "beam-official")


def signature(settings: JudgeSettings, *, official: bool, served: Served | None = None) -> str:
    """What made the numbers: the scoring variant, both prompts, the endpoint when it is not
    the provider's API, the model asked for and (after the calls) what was served."""
    item, match = (s.resolve() for s in settings_for(settings, official=official))
    protocol = "beam-official" if official else "beam"
    variant = (
        "half:int|question:withheld|blank-lines:items"
        if official
        else ("half:kept|question:shown|blank-lines:skipped")
    )
    return (
        f"judge:{protocol}|{variant}|items:{item.prompt_hash}|pairs:{match.prompt_hash}"
        f"|provider:{item.provider}{item.endpoint.signature}|model:{item.model}"
        f"{(served or Served()).signature}|{item.sampling.signature}"
        f"|max_tokens:{item.settings.max_tokens}|runs:{item.settings.runs}"
        f"|agg:mean-of-abilities+q-weighted|version:{__version__}"
    )


@dataclass
class BeamFolderResult:
    result: BeamJudgeResult
    signature: str
    summary: dict[str, Any] | None = None

    def passes(self) -> list[PassResult]:
        return self.result.passes()


def _usage(passes: list[PassResult]) -> dict[str, Any]:
    """The shared `calls` and `usage` (every attempt counted), with the figures BEAM's report
    and board read beside them: the same totals under BEAM's older names."""
    shared = spend(passes)
    calls, usage = shared["calls"], shared["usage"]
    calls["graded_0_without_a_call"] = sum(p.plan.short_circuited for p in passes)
    return {
        **shared,
        "input_tokens": usage["input_tokens"],
        "output_tokens": usage["output_tokens"],
        "cost_usd": usage["estimated_cost_usd"],
    }


def scoring_protocol(protocol: str) -> str:
    """`--protocol`: beam or beam-official (`rubric`, the option's default, means beam)."""
    if protocol == "rubric":
        return "beam"
    if protocol not in PROTOCOLS:
        raise InputError(
            f"BEAM is scored with --protocol beam, beam-official, not {protocol!r}",
            field="--protocol",
        )
    return protocol


async def judge_folder(
    predictions: Path,
    data: BeamDataset,
    settings: JudgeSettings,
    out: Path,
    *,
    benchmark: str = "beam",
    dry_run: bool = False,
    batch: bool = False,
    user_cache: bool = False,
    claim: Callable[[InputIdentity], None] | None = None,
    max_unscored: float = DEFAULT_MAX_UNSCORED,
    sampler: Sampler,
    **pass_options: Any,
) -> BeamFolderResult:
    protocol = scoring_protocol(settings.protocol)
    official = protocol == "beam-official"
    loaded = read_predictions(predictions, data)  # bad input fails before any call
    ours = predictions_identity(predictions, loaded)
    open_folder(out, ours, claim, dry_run=dry_run)  # the folder guard, before any call
    result = await beam_judge_pass(
        loaded,
        data,
        settings,
        out,
        official=official,
        dry_run=dry_run,
        batch=batch,
        user_cache=user_cache,
        sampler=sampler,
        **pass_options,
    )
    signed = with_sample(signature(settings, official=official), result.sample)
    folder = BeamFolderResult(result, signed)
    if dry_run or result.summary is None:
        return folder
    served = result.fold.served()
    folder.signature = with_sample(
        signature(settings, official=official, served=served), result.sample
    )
    item_judge = settings_for(settings, official=official)[0].resolve()
    section = {
        "signature": folder.signature,
        "sample": None if result.sample is None else result.sample.to_json(),
        "protocol": protocol,
        "model": item_judge.model,
        "endpoint": item_judge.endpoint.to_json(),
        **provenance(result.fold, model=item_judge.model, endpoint=item_judge.endpoint),
        "input": {"path": str(predictions), **ours.to_json()},
        "runs": settings.runs,
        **result.summary,
        **_usage(folder.passes()),
    }
    if (problem := fold_problem(result.fold, max_unscored)) is not None:
        section["error"] = problem
    elif section["unscored"]:
        # BEAM's own rule, stricter than the gate: a question needs every item's verdict
        section["error"] = (
            f"{section['unscored']} question(s) unscored after failed judge calls; rerun the "
            "same command to retry them"
        )
    verdicts = [row.as_json() for p in folder.passes() if p.run for row in p.run.rows]
    sections = {"benchmark": benchmark, "data": data.describe(), "judge": section}
    report = report_files({**load_summary(out), **sections})
    lines = "".join(json.dumps(v, ensure_ascii=False) + "\n" for v in verdicts)
    extra = {JUDGMENTS: lines, **report}
    folder.summary = write_results(
        out, result.rows, sections, ("beam_",), extra_files=lambda _s: extra
    )
    return folder


def write_report(out: Path) -> list[Path]:
    """Rebuild the folder's BEAM report from its summary.json (no call, no data needed)."""
    summary = load_summary(out)
    if "data" not in summary:
        raise InputError(
            f"not a BEAM results folder ({SUMMARY} has no data section)",
            file=str(out / SUMMARY),
        )
    files = report_files(summary)
    for name, text in files.items():
        write_text_atomic(out / name, text)
    return [out / name for name in sorted(files)]


def dry_run_lines(result: Any) -> list[str]:
    """A judge or audit dry run: the signature, then every pass's calls, tokens and cost."""
    passes = result.passes()
    costs = [p.estimate.cost_usd for p in passes]
    cost = (
        "unknown (no price for this model)"
        if None in costs
        else f"${sum(c or 0 for c in costs):.2f}"
    )
    return [
        f"dry run: {result.signature}",
        f"calls to make: {sum(p.estimate.calls for p in passes):,} "
        f"(cached: {sum(p.plan.cached for p in passes):,}, graded 0 without a call: "
        f"{sum(p.plan.short_circuited for p in passes):,})",
        f"estimated tokens: {sum(p.estimate.input_tokens for p in passes):,} in, "
        f"{sum(p.estimate.output_tokens for p in passes):,} out",
        f"estimated cost: {cost}",
    ]


def judge_lines(section: dict[str, Any], out: Path) -> list[str]:
    lines = [f"judge: {section['signature']}"]
    for ability, entry in section["per_ability"].items():
        lines.append(f"{ability:<26} n={entry['n']:<4} {100 * entry['mean']:.1f}")
    mean, weighted = section["mean_of_abilities"], section["question_weighted"]
    lines.append(
        f"mean of abilities {100 * (mean or 0):.1f}; question-weighted {100 * (weighted or 0):.1f}"
        f" {over_phrase(section)} ({section['missing']} without an answer)"
    )
    calls, cost = section["calls"], section["cost_usd"]
    lines.append(
        f"calls: {calls['made']} made{attempts_phrase(calls)}, {calls['cached']} cached, "
        f"{calls['failed']} failed; cost {'n/a' if cost is None else f'${cost:.2f}'}"
    )
    served = section.get("served") or {}
    through = through_sentence("judged", section.get("endpoint"), bool(served.get("fake")))
    lines += [through] if through else []
    lines.append(f"wrote {out}/{', '.join((JUDGMENTS, SCORES, SUMMARY, REPORT_MD, REPORT_HTML))}")
    return lines
