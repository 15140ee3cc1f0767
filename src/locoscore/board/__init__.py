"""`locoscore board`: many results folders on one page, ranked only within comparable groups.

`build_board` reads every folder (given, or found under a given parent) before anything is
written; `write_board` renders board.md, board.html (self-contained, one inline script allowed
by hash) and board.json, each atomically.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from locoscore._io import dumps_json, write_text_atomic
from locoscore.board.entries import Entry, folder_entries
from locoscore.board.groups import Group, build_groups
from locoscore.board.page import board_blocks, board_json
from locoscore.board.rank_stability import (
    RankStability,
    flipped_rows,
    is_panel_folder,
    mark_flips,
    rank_stability,
    read_panel_folder,
    stability_blocks,
    stability_json,
)
from locoscore.board.script import SCRIPT
from locoscore.errors import InputError
from locoscore.report.html import render_html
from locoscore.report.markdown import render_markdown
from locoscore.results.layout import (
    BOARD_HTML,
    BOARD_JSON,
    BOARD_MD,
    PANEL_JUDGES,
    SCORES,
    SUMMARY,
)

DEFAULT_TITLE = "locoscore board"


@dataclass(frozen=True)
class Board:
    title: str
    folders: list[str]  # each results folder as given (or as found under a given parent)
    groups: list[Group]
    stability: RankStability | None = None  # panel-judged folders: orders under each judge


def _is_results_folder(path: Path) -> bool:
    return (path / SUMMARY).exists() or (path / SCORES).exists()


def results_folders(arg: Path) -> list[tuple[Path, str]]:
    """`arg` itself when it is a results folder, else every results folder under it (sorted);
    each with the path to show for it (`arg` joined with the part found)."""
    if not arg.is_dir():
        raise InputError(
            "not a results folder (give results folders or a folder holding them)", file=str(arg)
        )
    if _is_results_folder(arg):
        return [(arg, str(arg))]
    found = sorted({p.parent for name in (SUMMARY, SCORES) for p in arg.rglob(name)})
    if not found:
        raise InputError(
            f"not a results folder, and none under it (a results folder holds {SCORES} "
            f"and {SUMMARY})",
            file=str(arg),
        )
    return [(p, str(arg / p.relative_to(arg))) for p in found]


def build_board(dirs: list[Path], title: str = DEFAULT_TITLE) -> Board:
    seen: set[Path] = set()
    entries: list[Entry] = []
    folders: list[str] = []
    panels = []
    names: dict[str, str] = {}  # system -> its panel folder as shown
    for arg in dirs:
        for path, shown in results_folders(arg):
            if path.resolve() in seen:
                continue
            seen.add(path.resolve())
            folders.append(shown)
            if not is_panel_folder(path):
                entries += folder_entries(path, shown)
                continue
            # a panel folder: one row per judge (each judge's own group), and its order
            panels.append(read_panel_folder(path, shown))
            names[panels[-1][0]] = shown
            for judge in sorted((path / PANEL_JUDGES).glob("*/")):
                if (judge / SUMMARY).exists():
                    entries += folder_entries(judge, f"{shown}/{PANEL_JUDGES}/{judge.name}")
    stability = rank_stability(panels)
    groups = build_groups(entries)
    if stability is not None:
        groups = mark_flips(groups, flipped_rows(stability, names))
    return Board(title, folders, groups, stability)


def write_board(board: Board, out: Path) -> list[Path]:
    if out.exists() and not out.is_dir():
        raise InputError("exists and is not a folder", file=str(out), field="--out")
    blocks = board_blocks(board.title, board.groups, board.folders)
    document = board_json(board.title, board.groups, board.folders)
    if board.stability is not None:
        blocks[3:3] = stability_blocks(board.stability)  # after the title and the method
        document["rank_stability"] = stability_json(board.stability)
    texts = {
        BOARD_MD: render_markdown(blocks),
        BOARD_HTML: render_html(blocks, board.title, SCRIPT),
        BOARD_JSON: dumps_json(document),
    }
    for name, text in texts.items():
        write_text_atomic(out / name, text)
    return [out / name for name in texts]
