"""`judge --panel` beyond LoCoMo's (tests/judge/test_panel_cli.py): the generic judge of the
example plugin, each judge's folder, its headline read back through
`Benchmark.judged_questions`, and the panel's spread, for two judges that agree (the fake's
reference-recall rule). LongMemEval and BEAM pass the same test (add LONGMEMEVAL, BEAM to the
parameters) but take 15-20 s each here, over CI's budget for an end-to-end test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_judge_fold import TINY_CASE, Case, _judge, fake, keys

from locoscore.testing.fake_provider import FakeProvider

__all__ = ["fake", "keys"]  # the fold's fixtures: the fake provider, the API key


@pytest.mark.parametrize("case", [TINY_CASE])
def test_panel_of_two_judges_on_every_shape(case: Case, fake: FakeProvider, tmp_path: Path) -> None:
    fake.config.verdict = case.verdict
    panel = tmp_path / "panel.toml"
    panel.write_text(
        f'[[judge]]\nname = "one"\nbase_url = "{fake.url}"\n\n'
        f'[[judge]]\nname = "two"\nbase_url = "{fake.url}"\nmodel = "claude-haiku-4-5"\n'
    )
    result = _judge(case, tmp_path, fake.url, tmp_path / "out", "--panel", str(panel))
    assert result.exit_code == 0, result.output
    section = json.loads((tmp_path / "out" / "panel.json").read_text())
    assert section["failed"] == []
    for name in ("one", "two"):
        own = json.loads((tmp_path / "out" / "judges" / name / "summary.json").read_text())
        assert own["judge"]["signature"]  # each judge's own folder and signature
    heads = [section["judges"][n]["overall"]["mean"] for n in ("one", "two")]
    # the same deterministic rule behind both judges: the same verdicts, no spread, no split
    assert heads[0] == heads[1] and heads[0] is not None
    assert section["spread"]["overall"] == 0.0 and section["split"] == []
