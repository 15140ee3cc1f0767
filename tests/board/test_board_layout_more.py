"""PersonaMem and LoCoMo-Plus pages at 1,280 px (as test_board_layout for the others): each
benchmark's report, its board of two systems (bm25 and no-memory, the fake provider's
answerer; LoCoMo-Plus judged by the fake judge) and their comparison fit the page, no chart
text overlaps, and the charts and tables are named for the benchmark's own groups."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_layout import CHROMIUM, SKIP_REASON, WIDTH, layout
from locomo_plus_helpers import PLUS, write_cut  # tests/benchmarks: on the path (conftest)
from personamem_helpers import REAL_32K, pick_longest
from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.testing.fake_provider import FakeConfig, FakeProvider

pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason=SKIP_REASON),
    pytest.mark.skipif(not (REAL_32K.is_dir() and PLUS.exists()), reason="data not at ../shared"),
]
SYSTEMS = ("bm25", "no-memory")


def _cli(*args: str) -> None:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output


def answer(prompt: str) -> str:
    """PersonaMem's prompts: the longest option shown; LoCoMo-Plus's: the memories shown."""
    if "four possible replies:" in prompt:
        return pick_longest(prompt)
    shown = re.findall(r"^\[\d+\] .*$", prompt, re.MULTILINE)
    return " ".join(shown)[:300] or "I do not know."


def level(prompt: str) -> int:
    """The fake judge: a reply quoting a memory is correct, else partial, so the two
    systems differ."""
    fenced = re.search(r"<candidate[^>]*>(.*?)</candidate", prompt, re.S)
    return 100 if fenced and "(session of" in fenced.group(1) else 50


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    root = tmp_path_factory.mktemp("layout-more")
    plus = write_cut(root / "plus")
    made: dict[str, Path] = {}
    with (
        pytest.MonkeyPatch.context() as mp,
        FakeProvider(FakeConfig(timeout_s=5.0, answer=answer, verdict=level)) as fake,
    ):
        mp.setenv("OPENAI_API_KEY", "sk-test-layout-0123456789")
        mp.setenv("ANTHROPIC_API_KEY", "sk-ant-test-layout-0123456789")
        mp.delenv("OPENAI_BASE_URL", raising=False)
        mp.setenv("XDG_CACHE_HOME", str(root / "empty-user-cache"))
        answerer = ["--answer-provider", "openai-compatible", "--answer-model", "fake-answerer",
                    "--answer-base-url", fake.openai_url, "--skip-probe",
                    "--no-progress"]  # fmt: skip
        for bench, data, extra in (
            ("personamem", REAL_32K, ["--limit", "40"]),  # all seven question types
            ("locomo-plus", plus, []),  # nine items, the four relations
        ):
            for system in SYSTEMS:
                out = root / bench / system
                _cli("run", "--benchmark", bench, "--dataset", str(data), "--system", system,
                     "--out", str(out), *extra, *answerer)  # fmt: skip
                if bench == "locomo-plus":
                    _cli("judge", str(out / "predictions.jsonl"), "--benchmark", bench,
                         "--dataset", str(data), "--out", str(out), "--base-url", fake.url,
                         "--runs", "1", "--no-progress")  # fmt: skip
            a, b = (root / bench / s for s in SYSTEMS)
            _cli("report", str(a))
            _cli("board", str(a), str(b), "--out", str(root / bench / "board"))
            _cli("compare", str(b), str(a), "--out", str(root / bench / "compare"))
            made[f"{bench} report"] = a / "report.html"
            made[f"{bench} board"] = root / bench / "board" / "board.html"
            made[f"{bench} compare"] = root / bench / "compare" / "compare.html"
    yield made


# charts and tables each page draws: the board's two charts (by group, against cost) and
# two tables (scores, cost and speed); each report its claim card, PersonaMem's its floors
# and its types, LoCoMo-Plus's its relations
COUNTS = {
    "personamem report": (0, 3),
    "personamem board": (2, 2),
    "personamem compare": (0, 1),
    "locomo-plus report": (0, 2),
    "locomo-plus board": (2, 2),
    "locomo-plus compare": (0, 1),
}


@pytest.mark.parametrize("page", list(COUNTS))
def test_the_page_fits_1280_px_and_no_chart_text_overlaps(
    pages: dict[str, Path], page: str, tmp_path: Path
) -> None:
    measured = layout(pages[page], tmp_path)
    assert measured["width"] == WIDTH
    assert measured["found"] == [], page
    assert (measured["charts"], measured["tables"]) == COUNTS[page]


@pytest.mark.parametrize(
    ("bench", "groups", "label"),
    [
        ("personamem", "type", "suggest_new_ideas"),
        ("locomo-plus", "relation", "causal"),
    ],
)
def test_the_board_names_the_benchmarks_own_groups(
    pages: dict[str, Path], bench: str, groups: str, label: str
) -> None:
    board = pages[f"{bench} board"].read_text(encoding="utf-8")
    assert f"by {groups} (top 2, 95 % CI)" in board
    assert f">{label}</text>" in board
    assert "by category" not in board and "1 rows" not in board
    assert "2 rows in 1 comparable group" in board


def test_a_benchmark_scored_without_a_judge_is_not_called_not_judged(
    pages: dict[str, Path],
) -> None:
    """PersonaMem takes no judge (`score`, not `judge`): its board says it is scored without
    one and shows no judge columns; LoCoMo-Plus, judged, keeps them."""
    text = pages["personamem board"].read_text(encoding="utf-8")
    assert "not judged" not in text
    assert "all questions; scored without a judge; ranked by accuracy" in text
    assert "judge: none (scored without a judge)" in text
    assert "J run-to-run" not in text and "Recorded J" not in text
    assert ">no judge</td>" in text  # the judge cost cell
    judged = pages["locomo-plus board"].read_text(encoding="utf-8")
    assert "J run-to-run" in judged and "Recorded J" in judged
