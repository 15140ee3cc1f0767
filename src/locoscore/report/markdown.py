"""Render report blocks as GitHub-flavoured markdown."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from locoscore.report.document import (
    Banner,
    Block,
    Contents,
    Figure,
    Heading,
    Notes,
    Paragraph,
    Preformatted,
    Table,
    anchor,
)

_WHITESPACE = re.compile(r"\s+")


def cell(text: str) -> str:
    """A table cell: one line, `|` escaped, and `<`/`>`/`&` as entities so that a prediction
    holding HTML stays text in any markdown viewer."""
    flat = _WHITESPACE.sub(" ", text).strip()
    return html.escape(flat, quote=False).replace("|", "\\|")


def inline(text: str) -> str:
    return html.escape(text, quote=False)


def render_table(table: Table) -> str:
    numeric = table.numeric or tuple(False for _ in table.headers)
    lines = ["| " + " | ".join(cell(h) for h in table.headers) + " |"]
    lines.append("|" + "|".join("---:" if num else "---" for num in numeric) + "|")
    for index, row in enumerate(table.rows):
        cells = [cell(c) for c in row]
        if index in table.highlight:
            cells = [f"**{c}**" if c else c for c in cells]
        lines.append("| " + " | ".join(cells) + " |")
    out = "\n".join(lines)
    caption = table.full_caption
    return f"{out}\n\n{inline(caption)}" if caption else out


def render_block(block: Block) -> str | None:
    if isinstance(block, Heading):
        return "#" * block.level + " " + inline(block.text)
    if isinstance(block, Paragraph):
        return inline(block.text)
    if isinstance(block, Banner):
        return f"> **{inline(block.text)}**"
    if isinstance(block, Contents):
        return "\n".join(f"- [{inline(h)}](#{anchor(h)})" for h in block.headings)
    if isinstance(block, Table):
        return render_table(block)
    if isinstance(block, Notes):
        return "\n".join(f"- {inline(item)}" for item in block.items)
    if isinstance(block, Preformatted):
        return "```\n" + "\n".join(block.lines) + "\n```"
    if isinstance(block, Figure):
        return None  # charts live in report.html (and in .svg files with --svg)
    raise TypeError(f"unknown block {block!r}")


def render_markdown(blocks: Sequence[Block]) -> str:
    parts = [text for block in blocks if (text := render_block(block)) is not None]
    return "\n\n".join(parts) + "\n"
