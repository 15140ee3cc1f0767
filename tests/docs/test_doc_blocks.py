"""Every `bash` and `python` block of the README and of docs/ runs as written (or says, with a
`# needs …` comment, what it needs that CI has not)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from doc_blocks import (
    Block,
    all_blocks,
    blocks,
    commands,
    prepare,
    run_bash,
    run_python,
    skipped_whole,
)

BLOCKS = all_blocks()


@pytest.mark.parametrize("block", BLOCKS, ids=[b.id for b in BLOCKS])
def test_block_runs_as_written(block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    reason = skipped_whole(block)
    if reason:
        pytest.skip(reason)
    if block.language == "bash" and "pytest" in block.code:
        pytest.skip("the test command itself (CI runs it)")
    work = prepare(tmp_path, monkeypatch)
    started = time.monotonic()
    if block.language == "python":
        run_python(block, work)
    else:
        ran = run_bash(block, work, monkeypatch)
        if not ran:
            marked = [note for _, note in commands(block.code) if note.startswith("needs")]
            reason = "; ".join(sorted(set(marked)))
            pytest.skip(reason or "install steps only (the tests run installed)")
    # the docs blocks run in CI on every change: an example that takes long needs a quick twin
    # (`--limit`) and its own `# needs time`
    assert time.monotonic() - started < 60, f"{block.id} took over a minute"


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
