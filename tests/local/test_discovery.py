"""What a compatible server says about itself, asked once before the first call: slots,
context window and tokenizer of llama.cpp, vLLM and Ollama, also behind a proxy that renames
the model list's `owned_by`; nothing from a server that answers no probe."""

from __future__ import annotations

import pytest

from locoscore.llm.local_server import discover
from locoscore.testing.llama_server import TEMPLATE_TOKENS, LlamaConfig, LlamaServer


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        (LlamaConfig(slots=4, n_ctx=2048), ("llama.cpp", 4, 2048, "/props n_ctx", "llama.cpp")),
        (
            LlamaConfig(n_ctx=32768, flavour="vllm"),
            ("vllm", None, 32768, "/v1/models max_model_len", "vllm"),
        ),
        (LlamaConfig(n_ctx=4096, flavour="ollama"), ("ollama", None, 4096, "/api/show", None)),
        (LlamaConfig(props=False, tokenize=False), (None, None, None, None, None)),
        # llama-cpp-python's server (`owned_by: "me"`): one request at a time, no window said
        (
            LlamaConfig(flavour="llama-cpp-python"),
            ("llama-cpp-python", 1, None, None, None),
        ),
        # behind a proxy that rewrites `owned_by`: still asked, still found
        (
            LlamaConfig(slots=3, n_ctx=4096, owned_by="openai"),
            ("llama.cpp", 3, 4096, "/props n_ctx", "llama.cpp"),
        ),
        (
            LlamaConfig(n_ctx=2048, flavour="ollama", owned_by="openai"),
            ("ollama", None, 2048, "/api/show", None),
        ),
        (
            LlamaConfig(props=False, tokenize=False, owned_by="openai"),
            (None, None, None, None, None),
        ),
    ],
)
def test_the_server_says_its_slots_window_and_tokenizer(
    config: LlamaConfig, expected: tuple[object, ...]
) -> None:
    with LlamaServer(config) as server:
        facts = discover(server.openai_url, config.model)
    assert (facts.kind, facts.slots, facts.context_window, facts.window_source, facts.tokenize) == (
        expected
    )


def test_prompts_are_counted_by_the_servers_tokenizer_plus_the_template() -> None:
    from locoscore.llm.local_server import CHAT_TEMPLATE_TOKENS, PromptCounter

    with LlamaServer(LlamaConfig(flavour="vllm")) as server:
        counter = PromptCounter(discover(server.openai_url, "smollm2-135m"), "smollm2-135m")
        counted = counter.count("When did Caroline go to the support group, and why?")
        counter.close()
    assert counted == 12 + CHAT_TEMPLATE_TOKENS  # 10 words, a comma and a question mark
    assert CHAT_TEMPLATE_TOKENS >= TEMPLATE_TOKENS  # the margin covers the stand-in's template
