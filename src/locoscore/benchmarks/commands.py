"""What each command does by default with what it hands a benchmark (`benchmarks.calls`).

A command hook returns True when the command failed after its outputs were written (the CLI
exits 1).

The defaults here serve a benchmark through its pass hooks (`judge`, `audit`, `report`,
`compare`) and the lines it makes of their results; LoCoMo overrides the command hooks with
its own (`benchmarks.locomo.folder_commands`, `benchmarks.locomo.audit_command`)."""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from rich.markup import escape

from locoscore.benchmarks.calls import JudgeCall
from locoscore.results.layout import SUMMARY

if TYPE_CHECKING:
    from locoscore.benchmarks.calls import (
        AuditCall,
        CompareCall,
        PassCall,
        ReportCall,
        Terminal,
    )
    from locoscore.claim.benchmark import ClaimedBenchmark
    from locoscore.judge.engine import PassResult
    from locoscore.judge.shard import ShardedBenchmark
    from locoscore.results.identity import InputIdentity


class Hooks(Protocol):
    """The pass hooks of a benchmark (`benchmarks.base.Benchmark`) the defaults call."""

    name: str

    def load(self, path: str | Path | None) -> Any: ...
    def judge(
        self, data: Any, answers: Path, settings: Any, out: Path, **options: Any
    ) -> Coroutine[Any, Any, tuple[Any, dict[str, Any] | None]]: ...
    def audit(
        self, data: Any, settings: Any, out: Path, **options: Any
    ) -> Coroutine[Any, Any, tuple[Any, dict[str, Any] | None]]: ...
    def report(self, directory: Path) -> list[Path]: ...
    def compare(self, dir_a: Path, dir_b: Path, out: Path) -> dict[str, Any]: ...
    def judge_lines(self, section: dict[str, Any], out: Path) -> list[str]: ...
    def audit_lines(self, document: dict[str, Any], out: Path) -> list[str]: ...
    def dry_run_lines(self, result: Any) -> list[str] | None: ...


def print_pass(
    t: Terminal,
    bench: Hooks,
    call: PassCall,
    result: Any,
    section: dict[str, Any] | None,
    lines_of: Callable[[dict[str, Any], Path], list[str]],
    done: str,
) -> None:
    """What a benchmark's own judge or audit pass printed: the subset banner of a sample
    (`done`: "judged", "audited"), then the lines `lines_of` makes of its section or
    document, or a dry run's lines (None: the shared estimate of one pass)."""
    if section is not None and (drawn := section.get("sample")):
        scope = "; J is a subset" if isinstance(call, JudgeCall) else " in every probe set"
        t.out.print(
            f"smoke test: {done} a sample of {drawn['size']:,} of {drawn['population']:,} "
            f"questions ({drawn['signature']}){scope}",
            highlight=False,
        )
    if not call.dry_run and section is None:  # not a dry run: a batch still running
        for batch in pending_batches(result):
            say_still_running(t, batch)
        return
    if call.dry_run or section is None:
        dry_run_lines = bench.dry_run_lines(result)
        if dry_run_lines is None:
            t.estimate(result, call.batch)
        lines = dry_run_lines or []
    else:
        lines = lines_of(section, call.out)
    for line in lines:
        t.out.print(line, highlight=False, soft_wrap=True)


def pass_results_in(t: Terminal, result: PassResult, *, user_cache: bool) -> bool:
    """What every judge pass says first (how many verdicts the user-level cache gave);
    True when its results are in: False for a dry run (the caller shows its estimate) and
    for a batch still running (said here)."""
    if user_cache:
        from locoscore.judge.cache import user_cache_path

        t.out.print(
            f"user cache: {result.user_cache_hits:,} verdict(s) reused from {user_cache_path()}",
            highlight=False,
        )
    if result.run is None:
        return False
    if result.run.pending_batch is not None:
        say_still_running(t, result.run.pending_batch)
        return False
    return True


def say_still_running(t: Terminal, batch: str) -> None:
    t.out.print(
        f"batch {batch} is still running; rerun the same command to collect it (nothing is "
        "resubmitted)."
    )


def passes_of(result: Any) -> list[PassResult]:
    """The passes of what a benchmark's judge or audit returned: a pass (`PassResult`), or
    a result of several (`passes()`: BEAM's two judges, its probe sets)."""
    return list(result.passes()) if hasattr(result, "passes") else [result]


def pending_batches(result: Any) -> list[str]:
    """The batches the passes left running (`--batch-wait` ran out before they ended)."""
    return [p.run.pending_batch for p in passes_of(result) if p.run and p.run.pending_batch]


def failed(t: Terminal, problem: str | None) -> bool:
    """A command that fails after writing its outputs: the problem on one red line, True;
    False when there is none."""
    if not problem:
        return False
    t.err.print(f"[red]error:[/] {escape(problem)}", highlight=False, soft_wrap=True)
    return True


def judge_command(bench: Hooks, call: JudgeCall, t: Terminal) -> bool:
    """A benchmark's judge through the shared fold (`judge.folder`): its section carries an
    `error` when the gate fails (too many runs without a verdict, a pass stopped early), and
    the command then fails after the outputs are written, as LoCoMo's does."""
    data = bench.load(call.dataset)
    request = call.request
    if call.shard is not None:
        from locoscore.judge.shard import benchmark_shard_sample

        # a Benchmark is a ShardedBenchmark (its conversations, questions and sample draw)
        request = benchmark_shard_sample(cast("ShardedBenchmark", bench), data, request, call.shard)

    def claim(ours: InputIdentity) -> None:
        """The folder guard, called by the benchmark's pass once it has read the answers."""
        t.claim(call.out, ours, replace=call.replace, dry_run=call.dry_run)

    bar = t.progress(call.progress and not call.dry_run, "judging", "judgments")
    result, section = t.run_pass(
        bench.judge(
            data,
            call.predictions,
            call.settings,
            call.out,
            type_templates=parse_type_templates(call.type_templates),
            sample=request,  # a spec each benchmark draws as `run` does, or the run's
            claim=claim,
            max_unscored=call.max_unscored,
            **call.engine_options(bar),
        ),
        bar,
    )
    if not call.dry_run and section is not None:
        refresh_claim(bench, call.out)
    print_pass(t, bench, call, result, section, bench.judge_lines, "judged")
    return failed(t, None if section is None else section.get("error"))


def refuse_audit_files(bench: Hooks, predictions: Path | None, probes: list[Path] | None) -> None:
    """A benchmark whose audit builds its probe sets from its own data: a file of answers or
    probes would be silently left out of the audit, so say so before anything is read."""
    from locoscore.errors import InputError

    for given, option in ((predictions, "--predictions"), (probes, "--probes")):
        if given:
            raise InputError(
                f"--benchmark {bench.name} audits its own probe sets; it takes no {option}",
                field=option,
            )


def audit_command(bench: Hooks, call: AuditCall, t: Terminal) -> bool:
    data = bench.load(call.dataset)
    bar = t.progress(call.progress and not call.dry_run, "auditing", "judgments")
    result, document = t.run_pass(
        bench.audit(data, call.settings, call.out, sample=call.spec, **call.engine_options(bar)),
        bar,
    )
    # a results folder: its card says "audited"
    if not call.dry_run and document is not None and (call.out / SUMMARY).is_file():
        refresh_claim(bench, call.out)
    print_pass(t, bench, call, result, document, bench.audit_lines, "audited")
    return False


def report_command(bench: Hooks, call: ReportCall, t: Terminal) -> bool:
    for path in bench.report(call.directory):
        t.out.print(f"wrote {path}", highlight=False)
    return False


def refresh_claim(bench: Hooks, out: Path) -> None:
    """The folder's claim card (summary.json `claim`) after a command changed the folder;
    its report too when it has one, so that the report's first box is the new card."""
    from locoscore.claim.refresh import write_claim
    from locoscore.results.layout import REPORT_MD

    if (out / REPORT_MD).is_file():
        bench.report(out)  # records the card first
    else:
        write_claim(out, cast("ClaimedBenchmark", bench))


def print_names(t: Terminal, folders: list[Path]) -> None:
    """Which folder is A, B, ...: every figure printed after is named by these letters."""
    from locoscore.generic.paired_folders import side_name

    for i, folder in enumerate(folders):
        t.out.print(f"{side_name(i)} = {escape(str(folder))}", highlight=False, soft_wrap=True)


def compare_command(bench: Hooks, call: CompareCall, t: Terminal) -> bool:
    from locoscore.errors import InputError
    from locoscore.results.layout import COMPARE_HTML, COMPARE_JSON, COMPARE_MD

    folders, out = call.folders, call.out
    if len(folders) != 2:
        raise InputError(
            f"compare of {bench.name} folders takes exactly two (A B); {len(folders)} were given"
        )
    dir_a, dir_b = folders
    result = bench.compare(dir_a, dir_b, out)
    print_names(t, folders)
    for name, row in result["groups"].items():
        # a right/wrong judge's test (McNemar) or a graded one's (Wilcoxon)
        test = "McNemar" if "mcnemar_p" in row else "Wilcoxon"
        t.out.print(
            f"{name}: A {row['a']:.1f}, B {row['b']:.1f}, B - A {row['difference']:+.1f} "
            f"[{row['ci95'][0]:+.1f}, {row['ci95'][1]:+.1f}], {test} p "
            f"{row[test.lower() + '_p']:.3g}",
            highlight=False,
        )
    t.out.print(f"wrote {out}/{COMPARE_MD}, {COMPARE_HTML}, {COMPARE_JSON}", highlight=False)
    return False


def parse_type_templates(values: Sequence[str]) -> dict[str, Path]:
    """`--type-template TYPE=FILE` values as {type: file}."""
    from locoscore.errors import InputError

    out = {}
    for value in values:
        key, sep, path = value.partition("=")
        if not sep or not key.strip() or not path.strip():
            raise InputError(f"expected TYPE=FILE, got {value!r}", field="--type-template")
        out[key.strip()] = Path(path.strip())
    return out
