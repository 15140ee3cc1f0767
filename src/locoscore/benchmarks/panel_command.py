"""`locoscore judge PREDICTIONS --panel PANEL.toml --out DIR`, for any benchmark.

Each judge of the panel is a whole `locoscore judge` of the same answers into its own
folder, DIR/judges/<name>/, through the benchmark's own judge command: its cache, retries,
batch, budget, signature and reports are a single judge's, so a rerun after a kill repeats
no call. Nothing is merged into one J: the panel's account (`judge.panel.summary`) goes to
DIR/panel.json, the `panel` section of DIR/summary.json, DIR/panel.md and the terminal.

Every judge's settings and template, the data file, the answers and `--gold-evidence` are
checked before the first call (`panel_inputs`). A judge whose pass fails is reported by name
(and the command exits 1 once every judge ran); the figures rest on the judges that did not
fail. Each judge's folder, and the panel's, records the data file, the answers and the run
that made them (`panel_inputs.provenance`); a judge whose model made the answers is named
(`self_judged` in the panel section), per judge and for the panel as a whole.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.markup import escape

from locoscore.benchmarks.panel_inputs import (
    PanelInputs,
    provenance,
    read_panel_inputs,
    record_provenance,
)
from locoscore.errors import InputError, LocoscoreError
from locoscore.judge.panel.file import PanelJudge, read_panel
from locoscore.judge.panel.summary import JudgeOutcome, panel_lines, panel_section, same_model
from locoscore.judge.panel.variants import ACCEPTS, variant_template
from locoscore.llm.providers import api_key
from locoscore.results.layout import PANEL_JSON, PANEL_JUDGES, PANEL_MD, SCORES, SUMMARY
from locoscore.results.manifest import bound

if TYPE_CHECKING:
    from locoscore.benchmarks.base import Benchmark
    from locoscore.benchmarks.calls import JudgeCall, Terminal


def panel_calls(bench: Benchmark, call: JudgeCall, panel: Path) -> list[tuple[str, str, JudgeCall]]:
    """(name, template, the judge's own call) per panel judge, every settings resolved (a
    bad one refused, naming the panel file and the judge) before anything runs."""
    out = []
    for number, judge in enumerate(read_panel(panel), 1):
        try:
            settings = _settings(bench, call, judge, panel.parent)
            settings.resolve()
            if not call.dry_run:  # a missing key stops the panel before its first judge
                api_key(settings.provider)
        except InputError as exc:
            raise InputError(
                exc.reason, file=str(panel), record=f"judge {number} ({judge.name})",
                field=exc.field,
            ) from None  # fmt: skip
        folder = call.out / PANEL_JUDGES / judge.name
        own = dataclasses.replace(call, out=folder, settings=settings, runs=settings.runs)
        out.append((judge.name, judge.template, own))
    return out


def _settings(bench: Benchmark, call: JudgeCall, judge: PanelJudge, base: Path) -> Any:
    given = call.settings
    protocol = judge.protocol or given.protocol
    template = variant_template(
        judge.template,
        protocol,
        official=bench.official_judge_template,
        benchmark=bench.name,
        base=base,
        no_official=bench.no_official_judge,
    )
    # a judge that names its provider takes none of the command line's model or endpoint
    own_provider = judge.provider is not None and judge.provider != given.provider
    return dataclasses.replace(
        given,
        provider=judge.provider or given.provider,
        model=judge.model or (None if own_provider else given.model),
        base_url=judge.base_url or (None if own_provider else given.base_url),
        protocol=protocol,
        runs=judge.runs or given.runs,
        template=template,
    )


def panel_command(
    bench: Benchmark,
    call: JudgeCall,
    panel: Path,
    t: Terminal,
    gold_evidence: Path | None = None,
) -> bool:
    """Every judge in turn, then the panel's account; True (exit 1) when a judge failed.
    `gold_evidence`: the judged folder of a gold-evidence run of the same answer model."""
    calls = panel_calls(bench, call, panel)
    inputs = read_panel_inputs(bench, call, gold_evidence)
    models = {name: own.settings.resolve().model for name, _, own in calls}
    answer_model = ((inputs.run or {}).get("answer") or {}).get("model")
    self_judged = [n for n, m in models.items() if same_model(m, answer_model)]
    for name in self_judged:
        t.err.print(
            f"[yellow]warning:[/] self-judging: judge {escape(name)} is {escape(models[name])}, "
            "the model that made the answers (a judge favours its own model's answers)",
            highlight=False,
        )
    estimates: dict[str, Any] = {}
    outcomes = []
    for name, template, own in calls:
        t.out.print(f"[bold]judge {escape(name)}[/] -> {escape(str(own.out))}", highlight=False)
        recording = dataclasses.replace(t, estimate=_recording(t, estimates, name))
        crashed = None
        try:
            with bound(own.out, "judge") as binding:  # each judge's folder: its own manifest
                binding.read("predictions", own.predictions)
                failed = bench.judge_command(own, recording)
        except InputError:
            raise  # bad input (the folder guard, the answers): the command stops, exit 2
        except LocoscoreError as exc:  # this judge failed; the others still judge
            t.err.print(f"[red]error:[/] judge {escape(name)}: {escape(str(exc))}")
            failed, crashed = True, str(exc)
        if not call.dry_run:
            outcome = _outcome(bench, name, template, own, failed, crashed)
            outcome.model = models[name]
            outcomes.append(outcome)
            _bind(bench, own.out, inputs, outcome)
    if call.dry_run:
        _print_dry_run(t, estimates, [name for name, _, _ in calls])
        return False
    losses = _losses(bench, inputs, outcomes)
    return _write_panel(call.out, outcomes, t, losses, inputs, answer_model)


def _bind(bench: Benchmark, folder: Path, inputs: PanelInputs, outcome: JudgeOutcome) -> None:
    """The judge's folder records what it judged (data file, answers, the run), then its
    claim card is rebuilt to read them."""
    from locoscore.benchmarks.commands import refresh_claim

    if not (folder / SUMMARY).is_file():
        return  # the judge wrote nothing (it failed before its pass)
    judged = [q.question_id for q in outcome.questions] or None
    with bound(folder, "judge"):  # the provenance and the card are the judge's files too
        record_provenance(folder, provenance(inputs, judged))
        refresh_claim(bench, folder)


def _recording(t: Terminal, estimates: dict[str, Any], name: str) -> Any:
    def estimate(result: Any, *args: Any, **kwargs: Any) -> None:
        estimates[name] = result.estimate
        t.estimate(result, *args, **kwargs)

    return estimate


def _print_dry_run(t: Terminal, estimates: dict[str, Any], names: list[str]) -> None:
    """The panel's dry run: calls and cost per judge, then for the whole panel."""
    from locoscore.report.spend import NO_PRICE

    def cost(value: float | None) -> str:
        return NO_PRICE if value is None else f"${value:.2f}"

    t.out.print("[bold]panel dry run[/]", highlight=False)
    total_calls, costs = 0, list[float | None]()
    for name in names:
        e = estimates.get(name)
        if e is None:
            t.out.print(f"  {escape(name)}: no estimate (see above)", highlight=False)
            costs.append(None)
            continue
        total_calls += e.calls
        costs.append(e.cost_usd)
        t.out.print(f"  {escape(name)}: {e.calls:,} calls, {cost(e.cost_usd)}", highlight=False)
    total = None if any(c is None for c in costs) else sum(c for c in costs if c is not None)
    t.out.print(f"  whole panel: {total_calls:,} calls, {cost(total)}", highlight=False)


def _outcome(
    bench: Benchmark,
    name: str,
    template: str,
    own: JudgeCall,
    failed: bool,
    crashed: str | None = None,
) -> JudgeOutcome:
    folder = f"{PANEL_JUDGES}/{name}"
    outcome = JudgeOutcome(name, folder, template, ACCEPTS.get(template))
    if crashed is not None:
        outcome.error = crashed
        return outcome
    if not (own.out / SCORES).exists():
        outcome.error = "no verdicts written (a batch still pending? rerun the same command)"
        return outcome
    from locoscore.results.folder import load_summary

    judge = load_summary(own.out).get("judge") or {}
    outcome.signature = judge.get("signature")
    questions = bench.judged_questions(own.out)
    without = sum(1 for q in questions if q.score is None)
    if failed or not questions or without == len(questions):
        outcome.error = (
            f"its judge pass failed ({without} of {len(questions)} questions without a "
            "verdict, or the pass stopped early); rerun the same command to retry"
        )
        return outcome
    outcome.questions = questions
    return outcome


def _losses(
    bench: Benchmark, inputs: PanelInputs, outcomes: list[JudgeOutcome]
) -> dict[str, Any] | None:
    from locoscore.judge.panel.losses import loss_section

    ok = [o for o in outcomes if o.ok]
    if not ok:
        return None
    verdicts: dict[str, list[bool | None]] = {}
    types: dict[str, str] = {}
    for i, o in enumerate(ok):
        for q in o.questions:
            verdicts.setdefault(q.question_id, [None] * len(ok))[i] = q.verdict
            types.setdefault(q.question_id, q.type)
    disputed = bench.disputed_questions(inputs.errata)
    return loss_section(verdicts, types, inputs.facts, disputed, inputs.gold_right)


def _write_panel(
    out: Path,
    outcomes: list[JudgeOutcome],
    t: Terminal,
    losses: dict[str, Any] | None,
    inputs: PanelInputs,
    answer_model: str | None,
) -> bool:
    from locoscore._io import write_json_atomic, write_text_atomic
    from locoscore.judge.panel.report import panel_markdown
    from locoscore.judge.panel.summary import question_scores
    from locoscore.results.folder import load_summary

    section = panel_section(outcomes, answer_model)
    section["losses"] = losses
    write_json_atomic(out / PANEL_JSON, {**section, "scores": question_scores(outcomes)})
    summary = load_summary(out)
    for key, value in provenance(inputs).items():  # a run's own folder keeps its records
        if value is not None:
            summary.setdefault(key, value)
    summary["panel"] = section
    write_json_atomic(out / SUMMARY, summary)
    write_text_atomic(out / PANEL_MD, panel_markdown(section))
    for line in panel_lines(section):
        t.out.print(escape(line), highlight=False, soft_wrap=True)
    t.out.print(f"wrote {out}/{PANEL_JSON}, {PANEL_MD}, {SUMMARY} (panel)", highlight=False)
    if section["failed"]:
        t.err.print(
            f"[red]error:[/] panel judge(s) failed: {escape(', '.join(section['failed']))}",
            highlight=False,
        )
        return True
    return False
