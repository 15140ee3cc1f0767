"""`locoscore audit` on LoCoMo: the gold and the probe files (MemOS format, or the fetched
two), with your predictions if given, judged as `judge` would; audit.md/html/json."""

from __future__ import annotations

from typing import TYPE_CHECKING

from locoscore.results.layout import SCORES, SUMMARY

if TYPE_CHECKING:
    from locoscore.benchmarks.base import Benchmark
    from locoscore.benchmarks.calls import AuditCall, Terminal
    from locoscore.benchmarks.locomo.judge.audit import ProbeSet


def audit_command(bench: Benchmark, call: AuditCall, t: Terminal) -> bool:
    # imported here, not at the top: `locoscore --help` stays free of NumPy and NLTK
    from locoscore.benchmarks.commands import failed, pass_results_in
    from locoscore.benchmarks.locomo.data.dataset import load_dataset
    from locoscore.benchmarks.locomo.data.probes import cached_probe_paths
    from locoscore.benchmarks.locomo.judge.audit import (
        AUDIT,
        calls_per_set,
        run_audit,
        sample_sets,
    )
    from locoscore.benchmarks.locomo.probe_sets import (
        gold_probe_set,
        predictions_set,
        probe_file_set,
    )
    from locoscore.benchmarks.locomo.report_parts import build_reports
    from locoscore.data.sample import judged_sample
    from locoscore.generic.audit_report import audit_document, write_audit
    from locoscore.generic.folder_terminal import print_audit

    console, out, predictions, spec = t.out, call.out, call.predictions, call.spec
    # a run's predictions made with --limit: every set cut to the run's own sample (`ran`)
    request = spec if predictions is None else judged_sample(spec, call.ran)
    ds = load_dataset(call.dataset)
    sets: list[ProbeSet] = [gold_probe_set(ds)]
    sets += [probe_file_set(path, ds) for path in (call.probes or cached_probe_paths())]
    if predictions is not None:
        own = predictions_set(predictions, ds, call.fmt)
        assert own.identity is not None
        t.claim(out, own.identity, replace=call.replace, dry_run=call.dry_run)
        sets.append(own)
    sample = None
    if request is not None:
        sets, sample = sample_sets(sets, request, bench.draw_sample)
        console.print(
            f"smoke test: auditing {sample.describe()} ({sample.signature}) of every probe set",
            highlight=False,
        )
    bar = t.progress(call.progress and not call.dry_run, "auditing", "judgments")
    result = t.run_pass(
        run_audit(sets, call.settings, out, **call.engine_options(bar)),
        bar,
    )
    if not pass_results_in(t, result, user_cache=call.user_cache):
        if call.dry_run:
            t.estimate(result, call.batch, sample)
            per_set = ", ".join(f"{name} {n:,}" for name, n in calls_per_set(sets, result).items())
            console.print(f"calls per probe set: {per_set}", highlight=False)
        return False
    assert result.run is not None
    dataset = {"path": str(ds.path), "sha256": ds.sha256}
    document = audit_document(sets, result, dataset, call.accept_threshold, AUDIT, sample)
    write_audit(out, document, AUDIT)
    if (out / SCORES).is_file() and (out / SUMMARY).is_file():
        build_reports(out, bench)  # a results folder: its report shows the audit next to J
    print_audit(t.out, document, out)
    return failed(t, result.run.stop_reason and f"stopped early: {result.run.stop_reason}")
