"""Every `bash` and `python` block of the README and of docs/ runs as written (or says, with a
`# needs …` comment, what it needs that CI has not)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from doc_blocks import (
    Block,
    Session,
    all_blocks,
    blocks,
    commands,
    prepare,
    skipped_whole,
)

BLOCKS = all_blocks()
PAGES = sorted({b.page for b in BLOCKS})


@pytest.mark.parametrize("page", PAGES)
def test_page_runs_as_a_reader_types_it(
    page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every block of the page in order, in one session; a block marked `# needs …` (or each
    of whose commands is) is skipped as a reader without that would skip it."""
    work = prepare(tmp_path, monkeypatch)
    ran = 0
    with Session(work, monkeypatch) as session:
        for block in (b for b in BLOCKS if b.page == page):
            if skipped_whole(block):
                continue
            if block.language == "bash" and "pytest" in block.code:
                continue  # the test command itself (CI runs it)
            started = time.monotonic()
            if block.language == "python":
                session.python(block)
                ran += 1
            else:
                ran += session.bash(block)
            # the docs blocks run in CI on every change: an example that takes long needs a
            # quick twin (`--limit`) and its own `# needs time`
            assert time.monotonic() - started < 60, f"{block.id} took over a minute"
    if not ran:
        pytest.skip("every block needs what CI has not, or installs only")


def test_every_page_with_commands_is_collected() -> None:
    pages = {b.page for b in BLOCKS}
    assert "README.md" in pages
    assert "docs/getting-started.md" in pages
    assert len([p for p in pages if p.startswith("docs/tutorials/")]) == 3


def test_blocks_are_found_inside_lists_and_with_a_title(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "text\n\n"
        "```bash\nlocoscore --version\n```\n\n"
        "- a step:\n\n"
        '    ```python title="x.py"\n    import locoscore\n    print(1)\n    ```\n\n'
        "```text\nnot run\n```\n"
    )
    found = [(b.language, b.code, b.line) for b in blocks(page)]
    assert found == [
        ("bash", "locoscore --version\n", 3),
        ("python", "import locoscore\nprint(1)\n", 9),
    ]


def test_needs_markers() -> None:
    marked = Block("p", 1, "bash", "# needs a GPU\nlocoscore run --system x\n")
    assert skipped_whole(marked) == "needs a GPU"
    line = Block("p", 1, "bash", "locoscore run --out a  # needs OPENAI_API_KEY\n")
    assert skipped_whole(line) is None
    assert commands(line.code) == [("locoscore run --out a", "needs OPENAI_API_KEY")]


def test_no_command_points_into_this_repository_s_test_data() -> None:
    """A reader has no `../shared/data/`: the pages find data as `dataset fetch` left it
    (the tests give them such a user cache), or say `--dataset PATH`."""
    pointing = [b.id for b in BLOCKS if "shared/data" in b.code]
    assert pointing == []
