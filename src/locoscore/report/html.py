"""Render report blocks as one self-contained HTML file: inline CSS and SVG, no script at all.

Every text is escaped with `html.escape`; a Content-Security-Policy forbids scripts and any
network load, as a second line of defence behind the escaping. A page that needs a script of
its own (the board's sorting) passes it whole: the policy then allows exactly that script, by
its sha256, and still no other script, handler or network load.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Sequence
from html import escape

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

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
_CSS = """
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d1d1f;
       max-width: 1200px; margin: 2rem auto; padding: 0 1rem; }
h1 { font-size: 1.6rem; } h2 { margin-top: 2.2rem; border-bottom: 1px solid #ddd; }
div.table { max-width: 100%; overflow-x: auto; margin: 0.8rem 0; }
table { border-collapse: collapse; font-size: 13px; }
th, td { border: 1px solid #d5d5d5; padding: 4px 5px; vertical-align: top; }
th, td { overflow-wrap: break-word; }
th { background: #f3f4f6; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.ours td { font-weight: 600; background: #eef4fb; }
caption { caption-side: bottom; text-align: left; color: #555; padding-top: 4px; }
pre { background: #f6f8fa; padding: 0.8rem; font-size: 12px;
      white-space: pre-wrap; overflow-wrap: anywhere; }
figure { margin: 1rem 0; } figcaption { color: #555; font-size: 13px; }
svg.chart { max-width: 100%; height: auto; border: 1px solid #eee; }
th[data-sort] { cursor: pointer; } th[aria-sort=ascending]::after { content: " \\25B2"; }
th[aria-sort=descending]::after { content: " \\25BC"; }
input.filter { font: inherit; padding: 4px 8px; width: 22rem; margin: 0.4rem 0; }
p.banner { background: #fff4e5; border-left: 4px solid #e8590c; padding: 0.6rem 0.8rem;
           font-weight: 600; }
caption.subset { color: #b3440b; }
nav.toc ul { columns: 2; padding-left: 1.2rem; } nav.toc li { margin: 0.1rem 0; }
""".strip()


# where a long cell (a signature, a folder path) may break: after `|`, `;`, `,` and a `/`
# inside a path. `<wbr>` adds the chance without adding a character to copied text.
_BREAK_AFTER = re.compile(r"([|;,]|(?<=[\w.\-])/)")


def _cell(text: str) -> str:
    parts = _BREAK_AFTER.split(text)  # text, separator, text, ...
    return "".join(escape(p) + ("<wbr>" if i % 2 else "") for i, p in enumerate(parts))


def _table(table: Table) -> str:
    numeric = table.numeric or tuple(False for _ in table.headers)
    head = "".join(f"<th>{escape(h)}</th>" for h in table.headers)
    body = []
    for index, row in enumerate(table.rows):
        cls = ' class="ours"' if index in table.highlight else ""
        cells = "".join(
            f'<td class="num">{escape(c)}</td>' if num else f"<td>{_cell(c)}</td>"
            for c, num in zip(row, numeric, strict=False)
        )
        body.append(f"<tr{cls}>{cells}</tr>")
    text = table.full_caption
    cls = ' class="subset"' if table.subset else ""
    caption = f"<caption{cls}>{escape(text)}</caption>" if text else ""
    # the wrapper scrolls a table too wide for the page (it never runs off the page)
    return (
        f'<div class="table"><table>{caption}<thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


def render_block(block: Block) -> str:
    if isinstance(block, Heading):
        level = block.level
        return f'<h{level} id="{escape(anchor(block.text))}">{escape(block.text)}</h{level}>'
    if isinstance(block, Paragraph):
        return f"<p>{escape(block.text)}</p>"
    if isinstance(block, Banner):
        return f'<p class="banner">{escape(block.text)}</p>'
    if isinstance(block, Contents):
        items = "".join(
            f'<li><a href="#{escape(anchor(h))}">{escape(h)}</a></li>' for h in block.headings
        )
        return f'<nav class="toc"><ul>{items}</ul></nav>'
    if isinstance(block, Table):
        return _table(block)
    if isinstance(block, Notes):
        return "<ul>" + "".join(f"<li>{escape(i)}</li>" for i in block.items) + "</ul>"
    if isinstance(block, Preformatted):
        return "<pre>" + escape("\n".join(block.lines)) + "</pre>"
    if isinstance(block, Figure):
        caption = f"<figcaption>{escape(block.caption)}</figcaption>" if block.caption else ""
        return f'<figure id="fig-{escape(block.name)}">{block.svg}{caption}</figure>'
    raise TypeError(f"unknown block {block!r}")


def script_hash(script: str) -> str:
    """The CSP source that allows exactly this inline script."""
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def render_html(blocks: Sequence[Block], title: str, script: str = "") -> str:
    body = "\n".join(render_block(b) for b in blocks)
    csp = CSP
    if script:
        if "</" in script:
            raise ValueError("an inline script must not contain '</'")
        csp += f"; script-src {script_hash(script)}"
        body += f"\n<script>{script}</script>"
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(title)}</title>\n<style>\n{_CSS}\n</style></head>\n"
        f"<body>\n{body}\n</body></html>\n"
    )
