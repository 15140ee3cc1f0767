"""What a command hands a benchmark: the options it read (a `*Call`), and the terminal
(`Terminal`: its consoles and the services that belong to a command line).

The CLI only wires: it reads the options, refuses what it can refuse before any file is read,
and calls the benchmark's command hook (`Benchmark.judge_command`, `audit_command`,
`report_command`, `compare_command`, `score_command`) with a call and the terminal; the
defaults are `benchmarks.commands`'."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

    from locoscore.data.sample import QuestionSample, SampleSpec
    from locoscore.data.shard import Shard
    from locoscore.judge.settings import JudgeSettings


@dataclass(frozen=True)
class Terminal:
    """The command line's side of a command: where it prints, how a pass runs (stopped
    cleanly by the first SIGINT), its progress bar, the folder guard."""

    out: Console  # results
    err: Console  # progress, errors, what --replace dropped
    # `run_pass(coroutine, tally=None)`: the coroutine's result; `Interrupted` on a signal
    run_pass: Callable[..., Any]
    # `progress(enabled, verb, noun)`: the progress bar (a tally `run_pass` names on a signal)
    progress: Callable[[bool, str, str], Any]
    # `claim(out, identity, replace=, dry_run=)`: the folder guard, saying what it dropped
    claim: Callable[..., None]
    # `estimate(result, batch, sample=None)`: a dry run's calls, tokens and cost
    estimate: Callable[..., None]


@dataclass(frozen=True, kw_only=True)
class PassCall:
    """What a judge pass and an audit pass both take: the folder, the judge, and how the
    pass runs (a dry run, the batch API and its polling, the progress bar, the user-level
    cache, `--replace`)."""

    out: Path
    settings: JudgeSettings
    dry_run: bool
    batch: bool
    batch_poll: float
    batch_wait: float
    progress: bool
    user_cache: bool
    replace: bool

    def engine_options(self, progress: Any) -> dict[str, Any]:
        """What the call asks of the engine's pass (`judge.engine.run_pass`), with `progress`
        (the bar the command made, or None) as its progress sink."""
        return {
            "batch": self.batch,
            "dry_run": self.dry_run,
            "progress": progress,
            "poll_interval_s": self.batch_poll,
            "max_wait_s": self.batch_wait,
            "user_cache": self.user_cache,
        }


@dataclass(frozen=True, kw_only=True)
class JudgeCall(PassCall):
    predictions: Path
    dataset: Path | None
    fmt: str | None
    prediction_key: str | None
    strict: bool
    runs: int
    include_adversarial: bool
    type_templates: list[str]
    errata: Path | None
    max_unscored: float
    request: SampleSpec | QuestionSample | None  # --limit, or the run's own sample (shard)
    shard: Shard | None = None  # --shard I/N of answers that are not a run's own shard
    # the answer step each folder's run.json records (beside the predictions, and --out)
    run_answers: dict[Path, dict[str, Any] | None] = field(default_factory=dict)

    @classmethod
    def of_folder(
        cls,
        predictions: Path,
        out: Path,
        settings: JudgeSettings,
        dataset: Path | None,
        request: SampleSpec | QuestionSample | None,
        *,
        dry_run: bool = False,
        max_unscored: float | None = None,
        run_answers: dict[Path, dict[str, Any] | None] | None = None,
    ) -> JudgeCall:
        """The judge pass a command makes of a folder's own answers (`merge`, `reproduce`,
        `verify --rejudge`): the answers in the run's format, `settings`' runs and question
        types, no batch, no progress bar, no user-level cache, nothing replaced."""
        from locoscore.judge.folder import DEFAULT_MAX_UNSCORED

        return cls(
            predictions=predictions,
            out=out,
            settings=settings,
            dataset=dataset,
            request=request,
            dry_run=dry_run,
            fmt=None,
            prediction_key=None,
            strict=False,
            runs=settings.runs,
            include_adversarial=settings.include_adversarial,
            type_templates=[],
            batch=False,
            batch_poll=30.0,
            batch_wait=24 * 3600.0,
            progress=False,
            user_cache=False,
            errata=None,
            max_unscored=DEFAULT_MAX_UNSCORED if max_unscored is None else max_unscored,
            replace=False,
            run_answers=run_answers or {},
        )


# `audit --accept-threshold`: a rubric run (0-100) accepts an answer scored at least this
DEFAULT_ACCEPT_THRESHOLD = 50.0


@dataclass(frozen=True, kw_only=True)
class AuditCall(PassCall):
    dataset: Path | None
    probes: list[Path] | None
    predictions: Path | None
    fmt: str | None
    accept_threshold: float
    spec: SampleSpec | None
    ran: QuestionSample | None = None  # the sample of the run whose --predictions these are


@dataclass(frozen=True)
class ReportCall:
    directory: Path
    paper_columns: bool
    svg: Path | None
    errata: Path | None
    compare_anyway: bool
    dataset: Path | None


@dataclass(frozen=True)
class CompareCall:
    folders: list[Path]
    out: Path
    verified_gold: bool
    errata: Path | None
    dataset: Path | None


@dataclass(frozen=True)
class ScoreCall:
    predictions: Path
    dataset: Path | None
    fmt: str | None
    prediction_key: str | None
    strict: bool
    out: Path
    protocols: str | None  # comma-separated; None: every one the benchmark has
    errata: Path | None
    replace: bool
