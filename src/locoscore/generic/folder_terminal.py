"""What `score`, `report`, `compare` and `audit` print for a folder scored on several metric
columns, once the benchmark has done its own part (read its data, resolved its errata):
the lexical table, the report's headline table, the comparisons, the audit's summary; and
the files written. Everything is read from what the shared machinery computed.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from locoscore.generic.audit_stats import placement_sentence
from locoscore.generic.compare_report import write_comparisons
from locoscore.generic.compare_terminal import print_comparison
from locoscore.generic.errata_view import verified_of
from locoscore.generic.folder_parts import Groups
from locoscore.generic.paired_folders import Comparison, side_name
from locoscore.generic.report_build import BuiltReports
from locoscore.generic.report_terminal import (
    audit_table,
    lexical_signatures,
    lexical_table,
    overall_table,
    print_signatures,
)
from locoscore.llm.endpoint import through_sentence
from locoscore.report.spend import judge_calls_line
from locoscore.results.layout import AUDIT_HTML, AUDIT_JSON, AUDIT_MD


def print_written(console: Console, paths: list[Path]) -> None:
    for path in paths:
        console.print(f"wrote {path}", highlight=False)


def print_report(console: Console, built: BuiltReports) -> None:
    """Every metric's overall (and on the verified gold, when the folder records errata),
    then the files written."""
    verified = verified_of(built.analysis)
    more = [] if verified is None else [(ms, " (verified gold)") for ms in verified.metrics]
    console.print(overall_table(built.analysis, more))
    print_written(console, built.paths)


def print_lexical(console: Console, lexical: dict[str, Any], groups: Groups, caption: str) -> None:
    """The lexical protocols' table (summary.json's `lexical`), then their signatures."""
    console.print(lexical_table(lexical, groups, caption), highlight=False)
    print_signatures(console, lexical_signatures(lexical))


def print_comparisons(console: Console, comparisons: list[Comparison], out: Path) -> None:
    """Each comparison against the baseline (A), printed, then written to `out`."""
    for i, comparison in enumerate(comparisons, start=1):
        print_comparison(console, comparison, side_name(i), several=len(comparisons) > 1)
    print_written(console, write_comparisons(comparisons, out))


def print_audit(console: Console, document: dict[str, Any], out: Path) -> None:
    """An audit's acceptance per probe set, where the judge places, its calls and endpoint;
    its warnings raised; the files written."""
    console.print(audit_table(document))
    if document.get("placement"):
        console.print(placement_sentence(document["placement"]), highlight=False)
    console.print(f"[bold]{document['summary_line']}[/]", highlight=False)
    console.print(judge_calls_line(document["calls"], document["usage"]), highlight=False)
    judge = document["judge"]
    through = through_sentence("judged", judge["endpoint"], judge["served"]["fake"])
    if through is not None:
        console.print(escape(through), highlight=False, soft_wrap=True)
    for warning in document["warnings"]:
        warnings.warn(warning, stacklevel=1)
    console.print(f"wrote {out}/{AUDIT_MD}, {AUDIT_HTML}, {AUDIT_JSON}", highlight=False)
