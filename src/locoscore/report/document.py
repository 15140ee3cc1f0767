"""A report as a list of plain blocks; the markdown and HTML renderers each escape for their format.

Block text is plain text, never markup, so user-supplied strings (questions, predictions) can
only ever be data in either output.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


def anchor(text: str) -> str:
    """A heading's fragment id, as GitHub makes it: lowercase, punctuation dropped, spaces
    to hyphens (so one table of contents links in both report.md and report.html)."""
    kept = re.sub(r"[^\w\- ]", "", text.lower(), flags=re.UNICODE)
    return kept.replace(" ", "-")


@dataclass(frozen=True)
class Heading:
    text: str
    level: int = 2


@dataclass(frozen=True)
class Banner:
    """A warning a reader must see before any number (e.g. "these come from a sample")."""

    text: str


@dataclass(frozen=True)
class Contents:
    """A table of contents: the headings it links to, in order."""

    headings: tuple[str, ...]


@dataclass(frozen=True)
class Paragraph:
    text: str


@dataclass(frozen=True)
class Table:
    headers: list[str]
    rows: list[list[str]]
    # Indices of rows to emphasise (this run's own rows).
    highlight: frozenset[int] = field(default_factory=frozenset)
    # Per column: True = numbers (right-aligned).
    numeric: tuple[bool, ...] = ()
    caption: str = ""
    # Set when the table's numbers come from a sample of the questions (e.g.
    # "sample:50/1986@seed0:strat-cat"): the renderers put it in front of the caption.
    subset: str = ""
    # False: no number of this folder's questions (published rows alone, an audit's probes)
    own_numbers: bool = True

    @property
    def full_caption(self) -> str:
        marker = f"Subset ({self.subset}): not the full benchmark." if self.subset else ""
        return " ".join(part for part in (marker, self.caption) if part)


@dataclass(frozen=True)
class Notes:
    items: list[str]


@dataclass(frozen=True)
class Preformatted:
    lines: list[str]


@dataclass(frozen=True)
class Figure:
    name: str  # file stem when charts are written out as .svg files
    title: str
    svg: str  # inline SVG markup built by locoscore.report.charts (already escaped)
    caption: str = ""


Block = Heading | Banner | Contents | Paragraph | Table | Notes | Preformatted | Figure
