"""`locoscore score`, `report` and `compare` on LoCoMo folders: the lexical protocols, the
full report (with the verified-gold view under gold errata) and the paired comparison of
two or more folders, Holm-corrected."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.markup import escape

from locoscore.results.layout import REPORT_FILES, SCORES, SUMMARY

if TYPE_CHECKING:
    from locoscore.benchmarks.base import Benchmark
    from locoscore.benchmarks.calls import CompareCall, ReportCall, ScoreCall, Terminal


def report_command(bench: Benchmark, call: ReportCall, t: Terminal) -> bool:
    # imported here, not at the top: `locoscore --help` stays free of NumPy and NLTK
    from locoscore.benchmarks.locomo.data.dataset import resolve_dataset_path
    from locoscore.benchmarks.locomo.data.errata import errata_for
    from locoscore.benchmarks.locomo.report_parts import build_reports, load_results
    from locoscore.generic.folder_terminal import print_report

    directory = call.directory
    dataset_path = (
        resolve_dataset_path(call.dataset) or load_results(directory).recorded_dataset_path()
    )
    gold_errata = errata_for(call.errata, dataset_path)
    built = build_reports(
        directory,
        bench,
        paper_columns=call.paper_columns,
        svg_dir=call.svg,
        errata=gold_errata,
        compare_anyway=call.compare_anyway,
    )
    print_report(t.out, built)
    return False


def compare_command(bench: Benchmark, call: CompareCall, t: Terminal) -> bool:
    from locoscore.benchmarks.commands import print_names
    from locoscore.benchmarks.locomo.data.dataset import resolve_dataset_path
    from locoscore.benchmarks.locomo.data.errata import comparison_errata, errata_for
    from locoscore.benchmarks.locomo.parts import PARTS
    from locoscore.benchmarks.locomo.report_parts import load_results
    from locoscore.generic.folder_terminal import print_comparisons
    from locoscore.generic.paired_folders import compare_many

    folders = call.folders
    results = [load_results(folder) for folder in folders]
    view = None
    if call.verified_gold or call.errata is not None:
        recorded = (r.recorded_dataset_path() for r in results)
        dataset_path = resolve_dataset_path(call.dataset) or next(
            (path for path in recorded if path is not None), None
        )
        view = comparison_errata(errata_for(call.errata, dataset_path), *results).view()
    comparisons = compare_many(PARTS, list(results), view)
    print_names(t, folders)
    print_comparisons(t.out, comparisons, call.out)
    return False


def score_command(bench: Benchmark, call: ScoreCall, t: Terminal) -> bool:
    from locoscore.benchmarks.locomo.categories import GROUPS
    from locoscore.benchmarks.locomo.data.errata import errata_for
    from locoscore.benchmarks.locomo.data.load import load_predictions
    from locoscore.benchmarks.locomo.report_parts import LEXICAL_CAPTION, build_reports
    from locoscore.benchmarks.locomo.scoring.folder import score_into_folder
    from locoscore.generic.errata_view import verified_gold_line
    from locoscore.generic.folder_terminal import print_lexical
    from locoscore.results.folder import check_out_dir

    out = call.out
    names = parse_protocols(call.protocols)
    check_out_dir(out)
    loaded = load_predictions(
        call.predictions,
        call.fmt,
        prediction_key=call.prediction_key,
        dataset=call.dataset,
        strict=call.strict,
    )
    gold_errata = errata_for(call.errata, loaded.dataset)  # checked before anything is written
    t.claim(out, loaded.identity(), replace=call.replace)
    summary = score_into_folder(loaded, out, names)
    # one report format everywhere: the full report (`locoscore report` rebuilds the same)
    built = build_reports(out, bench, errata=gold_errata)
    print_lexical(t.out, summary["lexical"], GROUPS, LEXICAL_CAPTION)
    if (line := verified_gold_line(built.analysis)) is not None:
        t.out.print(line, highlight=False)
    t.out.print(
        f"wrote {escape(str(out))}/{', '.join((SCORES, SUMMARY, *REPORT_FILES))}",
        highlight=False,
    )
    return False


def parse_protocols(value: str | None) -> list[str]:
    """`--protocols`: the names given, in their order; None: every protocol."""
    from locoscore.benchmarks.locomo.scoring.protocols import PROTOCOLS
    from locoscore.errors import InputError

    if value is None:
        return list(PROTOCOLS)
    names = [name.strip() for name in value.split(",") if name.strip()]
    for name in names:
        if name not in PROTOCOLS:
            raise InputError(
                f"unknown protocol {name!r} (known: {', '.join(PROTOCOLS)})", field="--protocols"
            )
    if not names:
        raise InputError("no protocol given", field="--protocols")
    return names
