"""A report's two files, from one list of blocks: report.md and report.html."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from locoscore._io import write_text_atomic
from locoscore.report.document import Block
from locoscore.report.html import render_html
from locoscore.report.markdown import render_markdown
from locoscore.results.layout import REPORT_HTML, REPORT_MD


def report_texts(blocks: Sequence[Block], title: str) -> dict[str, str]:
    """File name -> text: the same blocks rendered for each format."""
    return {REPORT_MD: render_markdown(blocks), REPORT_HTML: render_html(blocks, title)}


def write_report_files(directory: Path, blocks: Sequence[Block], title: str) -> list[Path]:
    """report.md and report.html into `directory`, each written whole then renamed."""
    written = []
    for name, text in report_texts(blocks, title).items():
        write_text_atomic(directory / name, text)
        written.append(directory / name)
    return written
