"""The dataset loader on the real locomo10.json and on modified copies."""

from __future__ import annotations

import json
import socket
import warnings
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from locoscore.benchmarks.locomo.data import (
    LOCOMO_SHA256,
    ChecksumWarning,
    fetch_dataset,
    load_dataset,
)
from locoscore.cli import app
from locoscore.errors import DatasetError


def test_real_dataset_counts(dataset: Any) -> None:
    assert dataset.checksum_ok and dataset.sha256 == LOCOMO_SHA256
    assert dataset.category_counts() == {1: 282, 2: 321, 3: 96, 4: 841, 5: 446}
    assert [s.sample_id for s in dataset.samples][:3] == ["conv-26", "conv-30", "conv-41"]
    assert sum(len(s.sessions) for s in dataset.samples) == 272
    assert sum(len(t.turns) for s in dataset.samples for t in s.sessions) == 5882


def test_sessions_are_counted_from_session_keys_not_dates(dataset: Any) -> None:
    conv26 = dataset.samples[0]
    assert conv26.sample_id == "conv-26"
    assert len(conv26.sessions) == 19  # date keys go up to 35 without content


def test_gold_falls_back_to_adversarial_answer(dataset: Any) -> None:
    adversarial = [qa for qa in dataset.all_questions() if qa.category == 5]
    without_answer = [qa for qa in adversarial if qa.answer is None]
    assert len(without_answer) == 444  # 2 conv-26 items carry both fields
    assert all(qa.gold_field == "adversarial_answer" and qa.gold_text for qa in without_answer)


def test_int_answers_are_kept_and_scored_as_strings(dataset: Any) -> None:
    ints = [qa for qa in dataset.all_questions() if isinstance(qa.answer, int)]
    assert sorted(qa.answer for qa in ints) == [2, 3, 2022, 2022, 2022, 2022]
    assert {qa.sample_id for qa in ints} == {"conv-26"}
    assert ints[0].gold_text == str(ints[0].answer)


def test_question_identity_is_sample_and_index(dataset: Any) -> None:
    qa = dataset.items[("conv-30", 0)]
    assert qa.qa_index == 0 and qa.sample_id == "conv-30"


def test_modified_copy_loads_with_warning_naming_both_hashes(
    tmp_path: Path, locomo_path: Path
) -> None:
    raw = json.loads(locomo_path.read_text())
    raw[0]["qa"][0]["answer"] = "patched"
    copy = tmp_path / "locomo10.json"
    copy.write_text(json.dumps(raw))
    with pytest.warns(ChecksumWarning) as caught:
        ds = load_dataset(copy)
    message = str(caught[0].message)
    assert ds.sha256 in message and LOCOMO_SHA256 in message
    assert ds.items[("conv-26", 0)].answer == "patched"


def test_env_variable_supplies_the_path(monkeypatch: pytest.MonkeyPatch, locomo_path: Path) -> None:
    monkeypatch.setenv("LOCOSCORE_DATASET", str(locomo_path))
    assert load_dataset().path == locomo_path


def test_sample_missing_qa_names_file_record_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "locomo10.json"
    bad.write_text(json.dumps([{"sample_id": "x", "conversation": {}}]))
    with pytest.raises(DatasetError) as err, warnings.catch_warnings():
        # a malformed file fails before its checksum is compared: one error, no warning
        warnings.simplefilter("error")
        load_dataset(bad)
    assert str(err.value) == f"{bad}, record 0, field 'qa': missing"


def test_fetch_offline_gives_a_clear_error(tmp_path: Path) -> None:
    with socket.socket() as sock:  # a closed local port: connection refused, no network used
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(DatasetError, match="offline"):
        fetch_dataset(f"http://127.0.0.1:{port}/locomo10.json", tmp_path / "d.json", timeout=2)
    assert not (tmp_path / "d.json").exists()


def test_dataset_info_prints_counts_and_checksum(locomo_path: Path) -> None:
    result = CliRunner().invoke(app, ["dataset", "info", "--dataset", str(locomo_path)])
    assert result.exit_code == 0
    assert LOCOMO_SHA256 in result.output and "841" in result.output and "1540" in result.output


def test_fetch_refuses_a_file_with_the_wrong_checksum(tmp_path: Path) -> None:
    import http.server
    import threading

    (tmp_path / "srv").mkdir()
    (tmp_path / "srv" / "locomo10.json").write_text("[]")
    handler = lambda *a: http.server.SimpleHTTPRequestHandler(  # noqa: E731
        *a, directory=str(tmp_path / "srv")
    )
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/locomo10.json"
        with pytest.raises(DatasetError, match="expected " + LOCOMO_SHA256):
            fetch_dataset(url, tmp_path / "d.json", timeout=5)
    finally:
        server.shutdown()
    assert not (tmp_path / "d.json").exists()
