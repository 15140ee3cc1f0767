"""The fake provider's prompt caches follow each provider's published rules (four
characters a token, the fake's estimate throughout)."""

from __future__ import annotations

from typing import Any

from fakeprov_helpers import claude, gpt, user

from locoscore.testing import FakeProvider

LINE = "The same long conversation, line after line, word after word...\n"  # 64 characters


def _blocks(prefix: str, question: str, mark: bool = True) -> list[dict[str, Any]]:
    first: dict[str, Any] = {"type": "text", "text": prefix}
    if mark:
        first["cache_control"] = {"type": "ephemeral"}
    content = [first, {"type": "text", "text": question}]
    return [{"role": "user", "content": content}]


def _usage(fake: FakeProvider, model: str, messages: list[dict[str, Any]]) -> Any:
    reply = claude(fake).messages.create(model=model, max_tokens=64, messages=messages)
    return reply.usage


def test_anthropic_marked_prefix_is_written_once_then_read(fake: FakeProvider) -> None:
    prefix = LINE * 80  # 5,120 characters: 1,280 tokens, over claude-sonnet-4-5's 1,024
    first = _usage(fake, "claude-sonnet-4-5", _blocks(prefix, "Question one?"))
    assert first.cache_creation_input_tokens == 1280 and first.cache_read_input_tokens == 0
    # input_tokens leaves the cached part out: the question and the line break between blocks
    assert first.input_tokens == len(prefix + "\nQuestion one?") // 4 - 1280
    second = _usage(fake, "claude-sonnet-4-5", _blocks(prefix, "Another question?"))
    assert second.cache_read_input_tokens == 1280 and second.cache_creation_input_tokens == 0
    # another prefix, another model, or no mark: nothing read
    other = _usage(fake, "claude-sonnet-4-5", _blocks(prefix + "x", "Question one?"))
    assert other.cache_read_input_tokens == 0 and other.cache_creation_input_tokens > 0
    haiku = _usage(fake, "claude-opus-4-8", _blocks(prefix, "Question one?"))
    assert haiku.cache_read_input_tokens == 0
    plain = _usage(fake, "claude-sonnet-4-5", _blocks(prefix, "Question one?", mark=False))
    assert plain.cache_read_input_tokens == plain.cache_creation_input_tokens == 0


def test_anthropic_prefix_under_the_models_minimum_is_not_cached(fake: FakeProvider) -> None:
    prefix = LINE * 80  # 1,280 tokens: under claude-haiku-4-5's 4,096
    for _ in range(2):
        usage = _usage(fake, "claude-haiku-4-5", _blocks(prefix, "Q?"))
        assert usage.cache_read_input_tokens == usage.cache_creation_input_tokens == 0
        assert usage.input_tokens == len(prefix + "\nQ?") // 4


def test_anthropic_rejects_a_bad_cache_control(fake: FakeProvider) -> None:
    import anthropic
    import pytest

    messages = _blocks("x", "y")
    messages[0]["content"][0]["cache_control"] = {"type": "persistent"}
    with pytest.raises(anthropic.BadRequestError, match="ephemeral"):
        claude(fake).messages.create(model="claude-sonnet-4-5", max_tokens=8, messages=messages)


def test_openai_caches_1024_tokens_on_in_128_token_steps(fake: FakeProvider) -> None:
    client = gpt(fake)

    def cached(text: str) -> int:
        reply = client.chat.completions.create(model="gpt-4o-mini", messages=user(text))
        details = reply.usage.prompt_tokens_details
        return details.cached_tokens if details else 0

    shared = LINE * 70  # 4,480 characters: 1,120 tokens
    assert cached(shared + "first question") == 0  # nothing served before
    # 1,120 shared tokens: the 1,024 step is cached, 1,152 is not reached
    assert cached(shared + "second question") == 1024
    longer = LINE * 100  # 1,600 tokens; its first 1,120 were served: still 1,024 (not 1,536)
    assert cached(longer + "q") == 1024
    assert cached(longer + "r") == 1536  # now the longer prefix was served: 1,024 + 4 x 128
    assert cached("short prompt") == 0 and cached("short prompt") == 0  # under 1,024 tokens


def test_anthropic_cache_is_readable_only_once_the_writing_reply_has_started() -> None:
    from concurrent.futures import ThreadPoolExecutor

    from locoscore.testing import FakeConfig

    prefix = LINE * 80
    with FakeProvider(FakeConfig(latency_s=0.5)) as slow:
        with ThreadPoolExecutor(2) as pool:  # both sent before either reply has started
            both = list(
                pool.map(lambda q: _usage(slow, "claude-sonnet-4-5", _blocks(prefix, q)), "ab")
            )
        after = _usage(slow, "claude-sonnet-4-5", _blocks(prefix, "c"))
    assert [u.cache_creation_input_tokens for u in both] == [1280, 1280]
    assert after.cache_read_input_tokens == 1280
