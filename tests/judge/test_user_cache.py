"""`locoscore judge --user-cache`: a second store shared by every output folder. The folder's
cache answers first, then the user cache (its hits copied into the folder); new verdicts go
to both."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from judge_helpers import ANTHROPIC_KEY, make_records, write_native
from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.judge.cache import CachedVerdict, JudgeIdentity, JudgeStore, user_cache_path
from locoscore.results.layout import JUDGE_CACHE
from locoscore.testing.fake_provider import FakeProvider

runner = CliRunner()
RUNS = 3
RECORDS = 4


@pytest.fixture(autouse=True)
def user_cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "xdg-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    return home


def _judge(fake: FakeProvider, predictions: Path, out: Path, *extra: str) -> Any:
    args = ["judge", str(predictions), "--out", str(out), "--base-url", fake.url]
    result = runner.invoke(app, [*args, "--no-progress", "--runs", str(RUNS), *extra])
    assert result.exit_code == 0, result.output
    return result


def _j(out: Path) -> dict[str, Any]:
    judge = json.loads((out / "summary.json").read_text())["judge"]
    return {k: judge[k] for k in ("overall", "by_category", "run_level")}


def _cached_rows(path: Path) -> int:
    with JudgeStore(path) as store:
        return store.count()


@pytest.fixture
def predictions(tmp_path: Path) -> Path:
    return write_native(tmp_path / "p.jsonl", make_records(RECORDS))


def test_the_user_cache_lives_under_the_platform_cache_dir(user_cache_home: Path) -> None:
    assert user_cache_path() == user_cache_home / "locoscore" / "judge_cache.sqlite"


def test_a_new_folder_reuses_the_user_cache_with_no_call_and_the_same_j(
    fake: FakeProvider, tmp_path: Path, predictions: Path
) -> None:
    _judge(fake, predictions, tmp_path / "A", "--user-cache")
    assert fake.generation_calls == RUNS * RECORDS
    assert _cached_rows(user_cache_path()) == RUNS * RECORDS
    fake.reset_counters()
    result = _judge(fake, predictions, tmp_path / "B", "--user-cache")
    assert fake.requests == 0
    assert _j(tmp_path / "A")["overall"]["count"] == RECORDS
    assert _j(tmp_path / "B") == _j(tmp_path / "A")
    assert f"user cache: {RUNS * RECORDS} verdict(s) reused" in result.output


def test_without_the_flag_a_new_folder_makes_the_calls(
    fake: FakeProvider, tmp_path: Path, predictions: Path
) -> None:
    _judge(fake, predictions, tmp_path / "A", "--user-cache")
    fake.reset_counters()
    _judge(fake, predictions, tmp_path / "B")
    assert fake.generation_calls == RUNS * RECORDS


def test_the_default_pass_writes_no_user_cache(
    fake: FakeProvider, tmp_path: Path, predictions: Path
) -> None:
    _judge(fake, predictions, tmp_path / "A")
    assert not user_cache_path().exists()


def test_hits_are_copied_so_the_folder_resumes_without_the_user_cache(
    fake: FakeProvider, tmp_path: Path, predictions: Path
) -> None:
    _judge(fake, predictions, tmp_path / "A", "--user-cache")
    _judge(fake, predictions, tmp_path / "B", "--user-cache")
    assert _cached_rows(tmp_path / "B" / JUDGE_CACHE) == RUNS * RECORDS
    for leftover in user_cache_path().parent.iterdir():
        leftover.unlink()
    fake.reset_counters()
    _judge(fake, predictions, tmp_path / "B")
    assert fake.requests == 0


def test_the_folder_cache_answers_before_the_user_cache(tmp_path: Path) -> None:
    meta = JudgeIdentity("p", "http://127.0.0.1:1", "m", "rubric", "h", {})

    def verdict(key: str, score: float) -> CachedVerdict:
        return CachedVerdict(key, "q", 0, score, "why", "structured", "{}", 1, 1, 0.1)

    with JudgeStore(tmp_path / "user.sqlite") as user:
        user.put(verdict("both", 10.0), meta)
        user.put(verdict("user-only", 20.0), meta)
    with JudgeStore(tmp_path / "folder.sqlite") as folder:
        folder.put(verdict("both", 90.0), meta)
    user = JudgeStore(tmp_path / "user.sqlite")
    with JudgeStore(tmp_path / "folder.sqlite", shared=user) as folder:
        found = folder.get_many(["both", "user-only", "neither"])
        assert {k: v.score for k, v in found.items()} == {"both": 90.0, "user-only": 20.0}
        assert folder.shared_hits == 1
        folder.put(verdict("new", 55.0), meta)
    with JudgeStore(tmp_path / "folder.sqlite") as folder:
        assert {k: v.score for k, v in folder.get_many(["user-only", "new"]).items()} == {
            "user-only": 20.0,
            "new": 55.0,
        }
    with JudgeStore(tmp_path / "user.sqlite") as user:
        assert user.get("new") is not None and user.count() == 3


def test_a_dry_run_counts_user_cache_hits_and_writes_nothing(
    fake: FakeProvider, tmp_path: Path, predictions: Path
) -> None:
    _judge(fake, predictions, tmp_path / "A", "--user-cache")
    result = _judge(fake, predictions, tmp_path / "B", "--user-cache", "--dry-run")
    assert "calls to make: 0" in result.output
    assert not (tmp_path / "B").exists()


def test_the_api_key_is_in_neither_store(
    fake: FakeProvider, tmp_path: Path, predictions: Path
) -> None:
    _judge(fake, predictions, tmp_path / "A", "--user-cache")
    _judge(fake, predictions, tmp_path / "B", "--user-cache")
    files = [
        *user_cache_path().parent.iterdir(),
        *(tmp_path / "A").iterdir(),
        *(tmp_path / "B").iterdir(),
    ]
    assert any(f.name == "judge_cache.sqlite" for f in user_cache_path().parent.iterdir())
    assert [f for f in files if ANTHROPIC_KEY.encode() in f.read_bytes()] == []
