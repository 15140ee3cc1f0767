"""`locoscore judge PREDICTIONS --panel PANEL.toml --out DIR`, for any benchmark.

Each judge of the panel is a whole `locoscore judge` of the same answers into its own
folder, DIR/judges/<name>/, through the benchmark's own judge command: its cache, retries,
batch, budget, signature and reports are a single judge's, so a rerun after a kill repeats
no call. Nothing is merged into one J: the panel's account (`judge.panel.summary`) goes to
DIR/panel.json, the `panel` section of DIR/summary.json, DIR/panel.md and the terminal.

Every judge's settings and template are checked before the first call. A judge whose pass
fails is reported by name (and the command exits 1 once every judge ran); the figures rest
on the judges that did not fail.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.markup import escape

from locoscore.errors import InputError, LocoscoreError
from locoscore.judge.panel.file import PanelJudge, read_panel
from locoscore.judge.panel.summary import JudgeOutcome, panel_lines, panel_section
from locoscore.judge.panel.variants import ACCEPTS, variant_template
from locoscore.llm.providers import api_key
from locoscore.results.layout import PANEL_JSON, PANEL_JUDGES, PANEL_MD, SCORES, SUMMARY
from locoscore.results.manifest import bound

if TYPE_CHECKING:
    from locoscore.benchmarks.base import Benchmark
    from locoscore.benchmarks.commands import JudgeCall, Terminal


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
    gold_right = None if gold_evidence is None else read_gold_right(bench, gold_evidence)
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
            outcomes.append(_outcome(bench, name, template, own, failed, crashed))
    if call.dry_run:
        _print_dry_run(t, estimates, [name for name, _, _ in calls])
        return False
    losses = _losses(bench, call, outcomes, gold_right)
    return _write_panel(call.out, outcomes, t, losses)


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


def read_gold_right(bench: Benchmark, folder: Path) -> dict[str, bool]:
    """question -> right in the gold-evidence run: under every judge of its panel (a panel
    folder), else under its one judge. Read before any call: a bad folder costs nothing."""
    import json

    if not folder.is_dir():
        raise InputError("not a folder", file=str(folder), field="--gold-evidence")
    if (folder / PANEL_JSON).is_file():
        try:
            scores = json.loads((folder / PANEL_JSON).read_text(encoding="utf-8"))["scores"]
        except (OSError, ValueError, KeyError, TypeError):
            raise InputError("no per-judge scores", file=str(folder / PANEL_JSON)) from None
        by_question: dict[str, list[bool]] = {}
        for per_judge in scores.values():
            for qid, score in per_judge.items():
                if isinstance(score, int | float):
                    by_question.setdefault(qid, []).append(score >= 50)
        return {q: all(v) for q, v in by_question.items()}
    return {
        q.question_id: q.verdict for q in bench.judged_questions(folder) if q.verdict is not None
    }


def _losses(
    bench: Benchmark, call: JudgeCall, outcomes: list[JudgeOutcome], gold: dict[str, bool] | None
) -> dict[str, Any] | None:
    from locoscore.judge.panel.losses import loss_section, read_answer_facts

    ok = [o for o in outcomes if o.ok]
    if not ok:
        return None
    verdicts: dict[str, list[bool | None]] = {}
    types: dict[str, str] = {}
    for i, o in enumerate(ok):
        for q in o.questions:
            verdicts.setdefault(q.question_id, [None] * len(ok))[i] = q.verdict
            types.setdefault(q.question_id, q.type)
    errata = bench.errata(call.errata, bench.load(call.dataset))
    facts = read_answer_facts(call.predictions)
    return loss_section(verdicts, types, facts, bench.disputed_questions(errata), gold)


def _write_panel(
    out: Path, outcomes: list[JudgeOutcome], t: Terminal, losses: dict[str, Any] | None
) -> bool:
    from locoscore._io import write_json_atomic, write_text_atomic
    from locoscore.judge.panel.report import panel_markdown
    from locoscore.judge.panel.summary import question_scores
    from locoscore.results.folder import load_summary

    section = panel_section(outcomes)
    section["losses"] = losses
    write_json_atomic(out / PANEL_JSON, {**section, "scores": question_scores(outcomes)})
    summary = load_summary(out)
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
