"""The answer step's prompt: a benchmark's default (versioned by hash), or the user's file.

The prompt is held constant across systems because it moves J more than most memory systems
do (harness.md §3). It shows every retrieved item with the date of the session it came from,
so temporal questions can be answered, and asks for a short answer so answer length does not
differ between systems (a judge confound). What fills its {context} is the run's business
(`run.placed_context`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from locoscore._io import sha256_text
from locoscore.errors import InputError
from locoscore.llm.templating import fill_placeholders

REQUIRED_PLACEHOLDERS = ("{question}", "{context}")

DEFAULT_ANSWER_PROMPT = """\
You answer questions about a long-running conversation between two people. Below are the
pieces of that conversation a memory system retrieved for this question, best match first.
Each piece is labelled with the date and time of the session it comes from.

Retrieved memories:
{context}

Question: {question}

How to answer:
- Use only the retrieved memories. If they do not hold the answer, say so briefly
  (for example: "Not mentioned in the conversation").
- Relative times in a memory ("yesterday", "last week", "next month") are relative to that
  memory's session date: turn them into absolute dates.
- Reply with the answer alone, as a short phrase of at most about 12 words, with no
  explanation.

Answer:"""


@dataclass(frozen=True)
class AnswerPrompt:
    text: str
    name: str = "locoscore-answer-v1"

    @property
    def version_hash(self) -> str:
        return sha256_text(self.text)[:16]

    def render(self, question: str, context: str, question_date: str | None = None) -> str:
        return fill_placeholders(
            self.text,
            {
                "{question}": question,
                "{context}": context,
                "{question_date}": question_date or "unknown",
            },
        )

    def shared_prefix(self, question: str, context: str, question_date: str | None = None) -> str:
        """The rendered prompt before the question: what the questions of a conversation
        share when they share the context (the provider caches it). The template is not
        changed for it: the prefix is whatever the template puts ahead of {question}."""
        marker = "\x02question\x03"
        marked = self.render(marker, context, question_date)
        return marked[: marked.index(marker)] if marker in marked else ""


def default_answer_prompt() -> AnswerPrompt:
    return AnswerPrompt(DEFAULT_ANSWER_PROMPT)


def load_answer_prompt(path: Path) -> AnswerPrompt:
    """A user's prompt file; it must hold {question} and {context} ({question_date} optional)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise InputError(f"cannot read answer prompt: {reason}", file=str(path)) from None
    missing = [p for p in REQUIRED_PLACEHOLDERS if p not in text]
    if missing:
        raise InputError(
            f"answer prompt lacks placeholder(s) {', '.join(missing)}",
            file=str(path),
            field="--answer-prompt",
        )
    return AnswerPrompt(text, name=f"file:{path.name}")
