"""A report as a list of plain blocks; the markdown and HTML renderers each escape for their format.

Block text is plain text, never markup, so user-supplied strings (questions, predictions) can
only ever be data in either output.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Heading:
    text: str
    level: int = 2


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


Block = Heading | Paragraph | Table | Notes | Preformatted | Figure
