"""`locoscore compare` names its folders, for every benchmark: which folder is A and which
is B, on the terminal and in the files it writes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from locoscore.cli import app


@pytest.mark.parametrize(
    ("a", "b", "written"),
    [
        ("lme-k1", "lme-k20", ("compare.md", "compare.html")),
        ("beam-k1", "beam-k10", ("compare.md", "compare.html")),
        ("locomo", None, ("compare.md", "compare.html")),
    ],
)
def test_compare_says_which_folder_is_a_and_which_is_b(
    made: dict[str, Path], tmp_path: Path, a: str, b: str | None, written: tuple[str, ...]
) -> None:
    dir_a = made[a]
    # one LoCoMo run: compared with a copy of itself under another name
    dir_b = made[b] if b else Path(shutil.copytree(dir_a, tmp_path / "locomo-copy"))
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["compare", str(dir_a), str(dir_b), "--out", str(out)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert f"A = {dir_a}" in lines and f"B = {dir_b}" in lines
    for name in written:
        text = (out / name).read_text()
        assert str(dir_a) in text and str(dir_b) in text, name
