"""`locoscore board DIR...`: many results folders side by side, ranked within comparable groups."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from locoscore.cli._app import app, console, handle_errors


@app.command("board")
@handle_errors
def board(
    dirs: Annotated[
        list[Path],
        typer.Argument(
            help="Results folders, or folders searched for results folders.",
            show_default=False,
            metavar="DIR",
        ),
    ],
    out: Annotated[
        Path, typer.Option("--out", help="Where to write board.html, board.md and board.json.")
    ] = Path("locoscore-board"),
    title: Annotated[str, typer.Option("--title", help="The page's title.")] = "locoscore board",
) -> None:
    """One page for many runs: rows grouped by what makes numbers comparable (benchmark and
    data file, question set, lexical protocols, judge), ranked by the group's headline metric
    with 95 % intervals, each tested against the group's leader (paired Wilcoxon,
    Holm-adjusted). Writes board.html (self-contained), board.md and board.json."""
    from locoscore.board import build_board, write_board
    from locoscore.board.page import counted

    result = build_board(dirs, title)
    for group in result.groups:
        leader = group.leader
        ranked = (
            f"leader {leader.entry.folder}"
            if group.headline and leader is not None
            else "not ranked (reference lines only)"
            if group.headline
            else "not judged, not ranked"
        )
        lines = [f"{r.reference} {r.entry.folder}" for r in group.rows if r.reference]
        shown = f" ({', '.join(lines)}: reference lines)" if lines else ""
        console.print(
            f"{group.name}: {counted(len(group.rows), 'row')}, {ranked}{shown}",
            highlight=False,
            soft_wrap=True,
        )
    if (stability := result.stability) is not None:
        for judge, order in stability.orderings.items():
            ranked = " > ".join(f"{n} ({v:.1f})" for n, v in order)
            console.print(f"under judge {judge}: {ranked}", highlight=False, soft_wrap=True)
        for x, y, tau in stability.tau:
            shown = "n/a" if tau is None else f"{tau:.3f}"
            console.print(f"Kendall's tau {x} vs {y}: {shown}", highlight=False)
        for flip in stability.flips:
            console.print(f"order flips: {flip.sentence()}", highlight=False, soft_wrap=True)
    for path in write_board(result, out):
        console.print(f"wrote {path}", highlight=False)
