"""Whether answer prompts fit the answer model's context window, known before any call.

The window comes from `--answer-context-window` or the server (llama.cpp `/props`, vLLM
`/v1/models`, Ollama `/api/show`); prompts are counted with the server's `/tokenize` where
it has one, else tiktoken with a margin (`locoscore.llm.local_server`). A prompt fits when
it and the answer's `max_tokens` do: a server either refuses the rest (vLLM) or has no room
left to answer (llama.cpp). A prompt that does not fit is recorded as `context_overflow`
without a call; a window too small for a question with no context at all is bad input.
"""

from __future__ import annotations

import asyncio
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

from locoscore.data.conversation import Question
from locoscore.errors import InputError
from locoscore.llm.local_server import PromptCounter, ServerFacts
from locoscore.run.answerer import AnswerStep
from locoscore.run.question import Retrieved, retrieve
from locoscore.systems.base import MemorySystem

OVERFLOW = "context_overflow"


@dataclass
class ContextFit:
    step: AnswerStep
    window: int
    counter: PromptCounter
    overflows: dict[str, int] = field(default_factory=dict)  # question id -> prompt tokens
    reasons: dict[str, str] = field(default_factory=dict)  # question id -> its error

    @classmethod
    def for_step(cls, step: AnswerStep) -> ContextFit | None:
        window = step.context_window
        if window is None or step.is_extractive or step.model is None:
            return None
        return cls(step, window, PromptCounter(step.server or ServerFacts(), step.model))

    @property
    def room(self) -> int:
        """Prompt tokens that fit: the window less the answer's max_tokens."""
        return self.window - self.step.settings.max_tokens

    async def overflow(self, question_id: str, prompt: str) -> str | None:
        """None when the prompt fits; else the error recorded for the question."""
        tokens = await asyncio.to_thread(self.counter.count, prompt)
        if tokens <= self.room:
            return None
        self.overflows[question_id] = tokens
        why = self.reasons[question_id] = (
            f"{OVERFLOW}: the prompt's {tokens:,} tokens and {self.step.settings.max_tokens} "
            f"for the answer exceed the {self.window:,}-token context window "
            f"({self.step.window_source}); counted with {self.counter.facts.tokenizer_name}; "
            f"not sent"
        )
        return why

    async def recorded(self, question_id: str, prompt: str) -> str | None:
        """What `overflow` found for the question before the run's first answer call."""
        return self.reasons.get(question_id)

    async def retrieve_and_count(
        self, question: Question, system: MemorySystem, *, top_k: int, budget: int | None
    ) -> Retrieved | Exception:
        """The question's search, done once (the answer step reuses it), and its prompt
        counted against the window; a search error is returned for the answer step to
        record."""
        try:
            retrieved = await retrieve(question, system, top_k=top_k, budget=budget)
        except Exception as exc:
            return exc
        prompt = self.step.prompt.render(question.text, retrieved.context.text, question.date_iso)
        await self.overflow(question.question_id, prompt)
        return retrieved

    def describe(self, question_ids: Sequence[str], where: str) -> str | None:
        """One line for the questions of `where` that do not fit, or None when all do."""
        over = [self.overflows[q] - self.room for q in question_ids if q in self.overflows]
        if not over:
            return None
        return (
            f"{where}: {len(over)} of {len(question_ids)} answer prompt(s) do not fit the "
            f"{self.window:,}-token context window ({self.step.window_source}) with "
            f"{self.step.settings.max_tokens} tokens for the answer: over by "
            f"{min(over):,}-{max(over):,} tokens (median {statistics.median(over):,.0f}); "
            f"recorded as {OVERFLOW} without a call"
        )

    def to_json(self, questions: int) -> dict[str, object]:
        return {
            "window": self.window,
            "source": self.step.window_source,
            "tokenizer": self.counter.facts.tokenizer_name,
            "questions": questions,
            "overflowing": len(self.overflows),
            "max_prompt_tokens": max(self.overflows.values(), default=None),
        }

    def close(self) -> None:
        self.counter.close()


def check_bare_questions(step: AnswerStep, questions: Sequence[Question]) -> None:
    """Bad input: a window that cannot hold the longest question's prompt with no context
    (counted with tiktoken and its margin: no call is made to check)."""
    window = step.context_window
    if window is None or step.is_extractive or not questions:
        return
    counter = PromptCounter(ServerFacts(), step.model or "")
    longest = max(questions, key=lambda q: len(step.prompt.render(q.text, "", q.date_iso)))
    tokens = counter.count(step.prompt.render(longest.text, "", longest.date_iso))
    need = tokens + step.settings.max_tokens
    if need > window:
        raise InputError(
            f"the {window:,}-token context window ({step.window_source}) cannot hold question "
            f"{longest.question_id} with no context at all: its prompt is about {tokens:,} "
            f"tokens plus {step.settings.max_tokens} for the answer",
            field="--answer-context-window",
        )
