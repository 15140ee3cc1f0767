"""Endpoints normalised (so one server is one endpoint, and a token never reaches a
signature), served models matched against the asked name, and signatures with what served."""

from __future__ import annotations

import pytest

from locoscore.errors import InputError
from locoscore.llm.endpoint import (
    Endpoint,
    Served,
    model_matches,
    normalise_url,
    resolve_endpoint,
    without_served,
)


@pytest.mark.parametrize(
    ("given", "normalised"),
    [
        ("http://127.0.0.1:8080/v1/", "http://127.0.0.1:8080/v1"),
        ("HTTP://LocalHost:8080/V1", "http://localhost:8080/V1"),  # the path keeps its case
        ("https://api.openai.com:443/v1", "https://api.openai.com/v1"),
        ("http://proxy.internal:80", "http://proxy.internal"),
        ("https://user:sk-secret@gw.example.com/v1?key=sk-secret#x", "https://gw.example.com/v1"),
        ("http://[::1]:9000/", "http://[::1]:9000"),
    ],
)
def test_base_urls_normalise_to_scheme_host_port_and_path(given: str, normalised: str) -> None:
    assert normalise_url(given) == normalised


@pytest.mark.parametrize("bad", ["127.0.0.1:8080", "ftp://host/x", "http://", "http://h:99999"])
def test_a_base_url_that_is_not_http_is_refused_naming_the_option(bad: str) -> None:
    with pytest.raises(InputError, match="field '--answer-base-url'"):
        normalise_url(bad, field="--answer-base-url")


def test_the_label_is_host_and_port_never_a_secret() -> None:
    endpoint = resolve_endpoint("openai", "https://u:sk-secret@gw.example.com/v1?k=sk-secret")
    assert endpoint == Endpoint("https://gw.example.com/v1", False)
    assert endpoint.signature == "|endpoint:gw.example.com:443"
    assert resolve_endpoint("anthropic", "http://127.0.0.1:4000").label == "127.0.0.1:4000"


def test_no_base_url_is_the_providers_api_unless_the_sdk_environment_names_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert resolve_endpoint("anthropic", None) == Endpoint("https://api.anthropic.com", True)
    assert resolve_endpoint("openai", None).signature == ""
    # the provider's own API written out is still the default
    assert resolve_endpoint("openai", "https://API.openai.com/v1/").default
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert resolve_endpoint("openai", None) == Endpoint("http://127.0.0.1:9/v1", False)


@pytest.mark.parametrize(
    ("asked", "served", "matches"),
    [
        ("gpt-4o-mini", "gpt-4o-mini", True),
        ("gpt-4o-mini", "gpt-4o-mini-2024-07-18", True),
        ("claude-sonnet-4-5", "claude-sonnet-4-5-20250929", True),
        ("gpt-4o-mini", "smollm2-135m", False),
        ("gpt-4o", "gpt-4o-mini", False),
        ("gpt-4o", "gpt-4o-mini-2024-07-18", False),
        ("gpt-4o-mini", "gpt-4o-mini-audio", False),
    ],
)
def test_a_dated_snapshot_matches_the_asked_name_and_nothing_else_does(
    asked: str, served: str, matches: bool
) -> None:
    assert model_matches(asked, served) is matches


def test_served_collects_distinct_models_and_the_fake_mark() -> None:
    served = Served.of([("b", False), ("a", True), ("", False), ("b", False)])
    assert served == Served(("a", "b"), True)
    assert served.signature == "|served:a+b|fake"
    assert served.mismatches("a") == ["b"]
    assert Served().signature == ""


def test_a_signature_without_what_only_the_calls_could_tell() -> None:
    full = "run:x|answer:openai|model:m|served:m-2024-07-18|fake|prompt:p|version:1"
    assert without_served(full) == "run:x|answer:openai|model:m|prompt:p|version:1"
    assert without_served("judge:x|model:m|served:m") == "judge:x|model:m"
    assert without_served("judge:fakery|model:m") == "judge:fakery|model:m"
