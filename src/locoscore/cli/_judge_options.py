"""The judge's options, shared by `locoscore judge` and `locoscore audit`: one definition of
each option, and one place that turns them into `JudgeSettings`."""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Annotated, Any

import typer

from locoscore.cli._app import console, print_signatures
from locoscore.data.sample import QuestionSample, with_sample
from locoscore.errors import InputError
from locoscore.judge.engine import PassResult
from locoscore.judge.prompts import load_template
from locoscore.judge.settings import JudgeSettings
from locoscore.llm.cost import PriceTable
from locoscore.llm.providers import PROVIDERS
from locoscore.report.spend import NO_PRICE

# What the two engine protocols ask the judge for; a benchmark's own protocols are named by
# the registry (`Benchmark.judge_protocols`).
_PROTOCOL_NOTES = {"rubric": "rubric (0-100, the seed's)", "binary": "binary (CORRECT/WRONG)"}


def protocol_choices() -> str:
    """Every judge protocol, then which benchmarks take which (from the registry)."""
    from locoscore.benchmarks import BENCHMARKS, judge_protocols

    listed = ", ".join(_PROTOCOL_NOTES.get(p, p) for p in judge_protocols())
    # only benchmarks that take a judge (one scored without, such as personamem, takes none)
    takes = "; ".join(
        f"{b.name}: {', '.join(b.judge_protocols)}"
        for b in BENCHMARKS.values()
        if "judge" in b.commands and b.judge_protocols
    )
    return f"{listed}. Each benchmark takes its own ({takes})"


def type_template_help() -> str:
    """`--type-template`: the benchmarks whose judge takes per-type templates (registry)."""
    from locoscore.benchmarks import BENCHMARKS

    takes = ", ".join(b.name for b in BENCHMARKS.values() if b.takes_type_templates)
    return (
        "TYPE=FILE: your template for one question type (or 'abstention'), for "
        f"benchmarks with per-type rules ({takes or 'none built in'}). Repeatable."
    )


ProtocolOpt = Annotated[
    str,
    typer.Option("--protocol", help=f"The judge protocol: {protocol_choices()}."),
]
ProviderOpt = Annotated[str, typer.Option("--provider", help=" | ".join(PROVIDERS))]
ModelOpt = Annotated[
    str | None,
    typer.Option("--model", help="Default: claude-sonnet-4-6 (anthropic), gpt-4o-mini (openai)."),
]
BaseUrlOpt = Annotated[
    str | None,
    typer.Option(
        "--base-url",
        help="Any server speaking the provider's wire format "
        "(default: ANTHROPIC_BASE_URL / OPENAI_BASE_URL, else the provider).",
    ),
]
RunsOpt = Annotated[int, typer.Option("--runs", help="Independent judge runs per question.")]
ConcurrencyOpt = Annotated[
    int, typer.Option("--concurrency", help="Most calls in flight (adapts below it on 429s).")
]
BatchOpt = Annotated[bool, typer.Option("--batch", help="Use the provider's batch API (50%).")]
DryRunOpt = Annotated[
    bool, typer.Option("--dry-run", help="Print calls, tokens and cost to expect; call nothing.")
]
MaxCostOpt = Annotated[
    float | None,
    typer.Option("--max-cost", help="Stop scheduling calls before the estimate passes USD."),
]
TemperatureOpt = Annotated[
    float | None, typer.Option("--temperature", help="Default: 0.5 (rubric), 0 (binary).")
]
SamplingOpt = Annotated[
    str,
    typer.Option(
        "--sampling",
        help="explicit: send --temperature (stop if the model cannot take it); "
        "default: use the model's own sampling.",
    ),
]
ApiVersionOpt = Annotated[
    str | None,
    typer.Option("--api-version", help="anthropic-version header (default: chosen per sampling)."),
]
PromptTemplateOpt = Annotated[
    Path | None,
    typer.Option(
        "--prompt-template",
        help="Your own prompt ({question} {gold} {prediction} {category}) for --protocol.",
    ),
]
PricesOpt = Annotated[
    Path | None,
    typer.Option(
        "--prices", help='JSON price table {"model": {"input": USD/Mtok, "output": ...}}.'
    ),
]
MaxTokensOpt = Annotated[int, typer.Option("--max-tokens", help="Reply token limit per call.")]
TimeoutOpt = Annotated[float, typer.Option("--timeout", help="Seconds per call.")]
MaxAttemptsOpt = Annotated[
    int,
    typer.Option(
        "--max-attempts",
        min=1,
        help="Attempts per call for retryable errors (5xx, timeouts, refused connections), "
        "with exponential backoff from 0.5 s; 1 fails a call at its first error.",
    ),
]
DEFAULT_MAX_ATTEMPTS = 6
BatchPollOpt = Annotated[float, typer.Option("--batch-poll", help="Seconds between batch polls.")]
BatchWaitOpt = Annotated[
    float,
    typer.Option("--batch-wait", help="Stop waiting for a batch after this many seconds."),
]
ResponseFormatOpt = Annotated[
    str | None,
    typer.Option(
        "--response-format",
        help="Force json_schema | json_object | text (default: json_schema, downgraded "
        "once if a compatible server rejects it).",
    ),
]
MaxUnscoredOpt = Annotated[
    float,
    typer.Option(
        "--max-unscored",
        help="Exit 1 when more than this share of the pass's judge runs has no verdict.",
    ),
]
ProgressOpt = Annotated[bool, typer.Option("--progress/--no-progress", help="Show a progress bar.")]
UserCacheOpt = Annotated[
    bool,
    typer.Option(
        "--user-cache",
        help="Also read and write the user-level judge cache shared by all folders "
        "(hits are copied into DIR/judge_cache.sqlite).",
    ),
]


@dataclass(frozen=True)
class JudgeFlags:
    """The options `judge` and `audit` share, as typed: each field is its typer option and
    the commands' default, added to each command's signature by `with_judge_flags`."""

    protocol: ProtocolOpt = "rubric"
    provider: ProviderOpt = "anthropic"
    model: ModelOpt = None
    runs: RunsOpt = 10
    concurrency: ConcurrencyOpt = 64
    batch: BatchOpt = False
    dry_run: DryRunOpt = False
    max_cost: MaxCostOpt = None
    temperature: TemperatureOpt = None
    sampling: SamplingOpt = "explicit"
    api_version: ApiVersionOpt = None
    prompt_template: PromptTemplateOpt = None
    prices: PricesOpt = None
    max_tokens: MaxTokensOpt = 256
    timeout: TimeoutOpt = 60.0
    max_attempts: MaxAttemptsOpt = DEFAULT_MAX_ATTEMPTS
    batch_poll: BatchPollOpt = 30.0
    batch_wait: BatchWaitOpt = 24 * 3600.0
    progress: ProgressOpt = True
    user_cache: UserCacheOpt = False

    def settings(
        self,
        *,
        base_url: str | None,
        signs_exclusion: bool,
        include_adversarial: bool = False,
        response_format: str | None = None,
        pool: Any = None,
    ) -> JudgeSettings:
        """The settings the options ask for (checked when resolved)."""
        if self.sampling not in ("explicit", "default"):
            raise InputError("expected explicit or default", field="--sampling")
        template = self.prompt_template
        return JudgeSettings(
            protocol=self.protocol, provider=self.provider, model=self.model, base_url=base_url,
            pool=pool, runs=self.runs, temperature=self.temperature,
            use_model_default_sampling=self.sampling == "default", api_version=self.api_version,
            max_tokens=self.max_tokens, concurrency=self.concurrency, timeout_s=self.timeout,
            max_attempts=self.max_attempts,
            template=load_template(template, self.protocol) if template else None,
            include_adversarial=include_adversarial, signs_exclusion=signs_exclusion,
            max_cost_usd=self.max_cost, prices=PriceTable.load(self.prices),
            response_format=response_format,
        )  # fmt: skip

    def how_the_pass_runs(self) -> dict[str, Any]:
        """The `benchmarks.calls.PassCall` fields the options give."""
        names = ("dry_run", "batch", "batch_poll", "batch_wait", "progress", "user_cache")
        return {name: getattr(self, name) for name in names}


# the placeholder default of a command's `JudgeFlags` parameter (`with_judge_flags` replaces it)
JUDGE_DEFAULTS = JudgeFlags()


def with_judge_flags(command: Callable[..., None]) -> Callable[..., None]:
    """`command` as typer sees it: its one `JudgeFlags` parameter stands for every judge
    option (in `JudgeFlags`' order); typer parses them, and `command` is called with them
    gathered into that parameter."""
    signature = inspect.signature(command, eval_str=True)
    (gathered,) = (p.name for p in signature.parameters.values() if p.annotation is JudgeFlags)
    typed = typing.get_type_hints(JudgeFlags, include_extras=True)  # each its typer option
    options = [
        inspect.Parameter(
            f.name, inspect.Parameter.KEYWORD_ONLY, default=f.default, annotation=typed[f.name]
        )
        for f in fields(JudgeFlags)
    ]
    before = [p for p in signature.parameters.values() if p.name != gathered]
    # typer reads the signature; keyword-only keeps Python's rule that a parameter without
    # a default comes before those with one
    parameters = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in before]
    at = [p.name for p in signature.parameters.values()].index(gathered)
    parameters[at:at] = options

    @functools.wraps(command)
    def with_flags(**given: Any) -> None:
        flags = JudgeFlags(**{f.name: given.pop(f.name) for f in fields(JudgeFlags)})
        command(**given, **{gathered: flags})

    with_flags.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    with_flags.__annotations__ = {p.name: p.annotation for p in parameters}
    with_flags.__annotations__["return"] = signature.return_annotation
    return with_flags


def print_estimate(result: PassResult, batch: bool, sample: QuestionSample | None = None) -> None:
    """A dry run's report: calls still to make (of the sample, with --limit), tokens, cost."""
    estimate = result.estimate
    cost = (
        NO_PRICE
        if estimate.cost_usd is None
        else (f"${estimate.cost_usd:.2f}" + (" (batch price)" if batch else ""))
    )
    console.print("[bold]dry run[/] of", highlight=False)
    print_signatures([with_sample(result.judge.signature, sample)])
    console.print(
        f"calls to make: {estimate.calls:,} (cached: {result.plan.cached:,}, "
        f"graded 0 without a call: {result.plan.short_circuited:,})\n"
        f"estimated tokens: {estimate.input_tokens:,} in, {estimate.output_tokens:,} out\n"
        f"estimated cost: {cost}"
    )
