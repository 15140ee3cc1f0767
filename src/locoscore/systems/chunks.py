"""Fixed-size chunks of a conversation, in cl100k tokens: the Mem0 paper's RAG baselines.

The paper's RAG runs (chunks of 128 … 8192 tokens, top 1 or 2) cut the whole conversation
as one token stream, so a chunk may end mid-turn and run across a session boundary; at 2048
tokens and more a LoCoMo chunk holds several sessions. The same here, with two choices of
our own where the paper's text is silent or lossy:

- The stream is the sessions in order, each rendered as its dated transcript block
  (`Session N (date)` then one line per turn) ending in a newline, and tokenised one session
  at a time: a session's tokens never depend on its neighbours, so chunks can be cut as
  sessions arrive and a rerun cuts the same chunks.
- Chunk i is tokens [i·N, (i+1)·N) of the stream. Its text is the stream's characters from
  its first token's to the next chunk's first token's (a character split across two tokens
  goes to the chunk where its last byte lies), so the chunks partition the transcript
  exactly, with no broken characters.

A chunk is dated by the session it starts in; a later session inside it brings its own
dated header in the text. Its `dia_ids` are the turns whose line overlaps it (so evidence
recall still counts turns), in order.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from locoscore.data.conversation import SessionInput
from locoscore.systems.base import MemoryItem


@dataclass(frozen=True)
class _Span:
    """What one stream token belongs to: its session (position in the stream) and the
    turns whose characters it holds (none for a session header or a line break)."""

    session: int
    dia_ids: tuple[str, ...]


@dataclass
class ChunkStream:
    """One conversation's token stream, cut every `size` tokens as sessions arrive."""

    size: int
    sessions: list[SessionInput] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)  # per token: the characters it starts
    owners: list[_Span] = field(default_factory=list)  # per token

    def add(self, session: SessionInput) -> None:
        from locoscore.tokens import encoding

        position = len(self.sessions)
        self.sessions.append(session)
        header = f"Session {session.index} ({session.date_raw or 'date unknown'})"
        lines = [(header, None), *((turn.render(), turn.dia_id) for turn in session.turns)]
        block = "".join(f"{line}\n" for line, _ in lines)
        # Which turn each character belongs to (line breaks belong to none).
        char_owner: list[str | None] = []
        for line, dia_id in lines:
            char_owner.extend([dia_id] * len(line))
            char_owner.append(None)
        enc = encoding()
        tokens = enc.encode(block, disallowed_special=())
        _, starts = enc.decode_with_offsets(tokens)
        bounds = [*starts, len(block)]
        for i in range(len(tokens)):
            first, end = bounds[i], bounds[i + 1]
            self.texts.append(block[first:end])
            owned = (char_owner[c] for c in range(first, end))
            dia_ids = tuple(dict.fromkeys(d for d in owned if d is not None))
            self.owners.append(_Span(position, dia_ids))

    @property
    def tokens(self) -> int:
        return len(self.texts)

    @property
    def complete(self) -> int:
        """Chunks that are full (`size` tokens); later sessions cannot change them."""
        return self.tokens // self.size

    @property
    def total(self) -> int:
        """Chunks including the last, shorter one."""
        return -(-self.tokens // self.size)

    def chunk(self, i: int) -> MemoryItem:
        start, end = i * self.size, min((i + 1) * self.size, self.tokens)
        if not 0 <= start < end:
            raise IndexError(f"chunk {i} of {self.total}")
        owners = self.owners[start:end]
        dia_ids = dict.fromkeys(d for owner in owners for d in owner.dia_ids)
        first = self.sessions[owners[0].session]
        return MemoryItem(
            text="".join(self.texts[start:end]),
            date_iso=first.date_iso,
            date_raw=first.date_raw,
            dia_ids=tuple(dia_ids),
        )
