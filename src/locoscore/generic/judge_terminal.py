"""What `judge` prints of a pass over keyed records (`generic.judged_records`): J ± sd per
group and overall, the signature whole, J run to run, who served the verdicts, the
structured-output mode, the concurrency reached, and the calls with their cost."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from locoscore.generic.folder_parts import Groups
from locoscore.llm.endpoint import through_sentence
from locoscore.report.spend import concurrency_phrase, judge_calls_line

_FORMAT_NOTES = {
    "json_object": " (the server rejected json_schema)",
    "none": " (the server rejected json_schema and json_object; verdicts read from the text)",
}


def short_name(groups: Groups, key: Any) -> str:
    # short headers keep the tables readable on an 80-column terminal
    return groups.names[key].split("-")[0]


def print_signatures(console: Console, signatures: list[str]) -> None:
    """Each signature alone on its line, never wrapped or cut at the terminal's width (nor
    at 80 columns when piped), so it can be copied whole."""
    for signature in signatures:
        console.print(signature, soft_wrap=True, highlight=False, markup=False)


def judge_table(section: dict[str, Any], groups: Groups) -> Table:
    """J ± std per group and overall from the summary's `judge` section."""
    table = Table(
        title=f"locoscore: LLM judge J ({section['protocol']}, 0-100, {section['runs']} runs)",
        caption="± is the std across questions (the run-to-run ± follows below)",
        caption_justify="left",
    )
    table.add_column("", overflow="fold")
    shown = [c for c in groups.order if str(c) in section["by_category"]]
    for cid in shown:
        table.add_column(short_name(groups, cid), justify="right", overflow="fold")
    table.add_column("overall", justify="right", overflow="fold")

    def cell(stats: dict[str, Any]) -> str:
        if stats.get("mean") is None:
            return "-"
        std = "" if stats.get("std") is None else f" ± {stats['std']:.1f}"
        return f"{stats['mean']:.1f}{std}"

    cats = [section["by_category"][str(c)] for c in shown]
    table.add_row("J ± sd", *[cell(c) for c in cats], cell(section["overall"]))
    table.add_row(
        "[dim]questions[/]",
        *[f"[dim]{c['count']}[/]" for c in cats],
        f"[dim]{section['overall']['count']}[/]",
    )
    return table


def print_judge_section(console: Console, section: dict[str, Any], groups: Groups) -> None:
    """The table, then the signature, J run to run and how the verdicts were made."""
    console.print(judge_table(section, groups), highlight=False)
    print_signatures(console, [section["signature"]])
    run_level = section["run_level"]
    if run_level["mean"] is not None:
        std = "" if run_level["std"] is None else f" ± {run_level['std']:.2f}"
        console.print(f"run-level J: {run_level['mean']:.2f}{std} over {section['runs']} runs")
    mode = section.get("response_format")
    through = through_sentence("judged", section.get("endpoint"), section["served"]["fake"])
    if through is not None:
        console.print(escape(through), highlight=False, soft_wrap=True)
    if mode is not None:
        console.print(f"structured output: {mode}{_FORMAT_NOTES.get(mode, '')}")
    concurrency = section.get("concurrency")
    if concurrency is not None:
        console.print(
            f"concurrency: {concurrency_phrase(concurrency)}", highlight=False, soft_wrap=True
        )
    console.print(judge_calls_line(section["calls"], section["usage"]), highlight=False)
