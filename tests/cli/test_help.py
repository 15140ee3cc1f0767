"""`--help` reads as whole sentences: docstring line breaks never cut a summary."""

from __future__ import annotations

import re

from typer.testing import CliRunner

from locoscore.cli import app, unwrap_help


def test_docstring_line_breaks_are_joined_and_paragraphs_kept() -> None:
    text = """Judge every prediction N times; write judgments.jsonl and
        a "judge" section.

        Rerunning resumes."""
    assert unwrap_help(text) == (
        'Judge every prediction N times; write judgments.jsonl and a "judge" section.'
        "\n\nRerunning resumes."
    )


def _command_summaries(args: list[str]) -> dict[str, str]:
    result = CliRunner().invoke(app, args, env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    box = result.output.split("Commands")[1]
    rows = re.findall(r"^│ (\S+)\s{2,}(.+?)\s*│$", box, re.MULTILINE)
    return dict(rows)


def test_every_command_summary_is_one_whole_sentence_line() -> None:
    for args in (["--help"], ["dataset", "--help"]):
        summaries = _command_summaries(args)
        assert summaries, args
        for name, summary in summaries.items():
            assert summary.endswith((".", "?", ")")), (name, summary)
            assert summary[0].isupper(), (name, summary)
    assert _command_summaries(["--help"])["run"].startswith(
        "Ingest each conversation into the system, ask every question, answer with a fixed prompt,"
    )
