"""`locoscore audit` of a benchmark that builds its probe sets from its own data (LongMemEval,
BEAM) cannot judge a file of answers or probes beside them: the option is refused (one line,
exit 2, nothing written, no call) instead of silently left out of the audit."""

from __future__ import annotations

import shutil
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.testing.fake_provider import FakeConfig, FakeProvider
from locoscore.testing.longmemeval_fixture import write_fixture

BEAM_100K = Path(__file__).resolve().parents[2] / "../shared/data/beam/100K"


@pytest.fixture(autouse=True)
def api_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-own-audit-0123456789abcdef")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    with FakeProvider(FakeConfig(timeout_s=5.0, verdict=lambda prompt: 0)) as provider:
        yield provider


def _dataset(benchmark: str, tmp_path: Path) -> Path:
    if benchmark == "longmemeval":
        return write_fixture(tmp_path / "s.json")
    if not BEAM_100K.exists():
        pytest.skip("BEAM 100K not at ../shared")
    root = tmp_path / "100K"
    shutil.copytree(BEAM_100K / "3", root / "3")  # one conversation: 20 questions
    return root


@pytest.mark.parametrize("benchmark", ["longmemeval", "beam"])
@pytest.mark.parametrize("option", ["--predictions", "--probes"])
def test_an_answers_file_is_refused_not_ignored(
    fake: FakeProvider, tmp_path: Path, benchmark: str, option: str
) -> None:
    dataset = _dataset(benchmark, tmp_path)
    given = tmp_path / "answers.jsonl"
    given.write_text('{"question_id": "q1", "answer": "x"}\n')
    out = tmp_path / "audit"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = CliRunner().invoke(app, [
            "audit", "--benchmark", benchmark, "--dataset", str(dataset), "--out", str(out),
            option, str(given), "--protocol", "binary", "--provider", "openai",
            "--model", "gpt-4o-2024-08-06", "--base-url", fake.openai_url, "--runs", "1",
            "--no-progress",
        ])  # fmt: skip
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert lines == [
        f"error: field '{option}': --benchmark {benchmark} audits its own probe sets; "
        f"it takes no {option}"
    ]
    assert not out.exists()
    assert fake.requests_log == []
