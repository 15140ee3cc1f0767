"""How a PersonaMem reply is read: locoscore's parser (the default) and the official one.

**locoscore** (`read_reply`) takes every form that names one option unambiguously and
refuses the rest; a refused reply scores 0 and is counted unparsable, never read as a guess.
A reply holding `<final_answer>` is read after the last one first (the answer it declares
final), the whole reply only when that part names nothing. It reads, in this order:

1. the reply a letter alone: `b`, `(b)`, `b)`, `B.`, `b:` (markdown emphasis ignored);
2. the letters the reply names: in parentheses (`(b)`), as a label opening the reply
   (`b) ...`, `B. ...`), or after a cue word (`Option A`, `Answer: c`, `The answer is b.`,
   `choice d`, `<final_answer> b`). One distinct letter is the choice; two or more are
   refused. After a cue, a lowercase `a` followed by a word is the article ("the answer
   is a reply about jazz"), not a letter;
3. with no letter named, the reply that is an option's whole text (case, spacing, quotes
   and closing punctuation aside). When two options hold that text (the doubled golds), the
   earlier letter, since both score alike.

A bare letter inside a sentence ("I'd pick a because ...") names nothing here.

**official** (`read_official`): the behaviour of `extract_answer` in the official
repository (bowen-upenn/PersonaMem, `inference_standalone_openai.py`), re-implemented from
what it does. The reply is read twice, each time as a set of letters: the final part (the
reply stripped, then the text after its last `<final_answer>`, the marker case-sensitive,
and a closing `</final_answer>` dropped), then the whole reply.
Each reading lowercases the text and takes every `(x)` letter a-d; only when there is none,
every standalone letter a-d (a word of its own, so the article "a", and the "d" of "I'd",
count). The reply is right when either set is exactly the gold letter.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from locoscore.benchmarks.personamem.data import LETTERS

# -- locoscore's parser -------------------------------------------------------------------
_MARKERS = re.compile(r"</?final_answer>", re.IGNORECASE)
_EMPHASIS = re.compile(r"[*_`]")
_WHOLE = re.compile(r"^\(?([a-d])\)?[.:)]?$", re.IGNORECASE)
_PARENS = re.compile(r"\(([a-d])\)", re.IGNORECASE)
_LABEL = re.compile(r"^([a-d])[.):]\s", re.IGNORECASE)
_CUE = re.compile(
    r"\b(?:option|choice|answer)(?:\s+(?:is|would be|will be|should be))?\s*[:\-]?\s*"
    r"(\()?([a-d])\)?(?![\w'])",
    re.IGNORECASE,
)
_ARTICLE_NEXT = re.compile(r"\s+[a-z]")
_EDGES = "\"'“”‘’.!?,;: \n\t"


@dataclass(frozen=True)
class Reading:
    """locoscore's reading of a reply: the letter it names (None: refused) and how it was
    read, or why it was refused (scores.jsonl `choice` and `read`)."""

    letter: str | None
    how: str


def _cue_letters(text: str) -> set[str]:
    found = set()
    for m in _CUE.finditer(text):
        letter = m.group(2)
        article = letter == "a" and m.group(1) is None and _ARTICLE_NEXT.match(text, m.end())
        if not article:
            found.add(letter.lower())
    return found


def _normal(text: str) -> str:
    return " ".join(text.split()).casefold().strip(_EDGES)


def read_reply(reply: str, options: Sequence[str]) -> Reading:
    """locoscore's reading of `reply` to a question showing `options` (as shown, a-d). A
    reply holding `<final_answer>` is read after the last one first (the answer it declares
    final); the whole reply only when that part names nothing."""
    if _FINAL in reply:
        final = _read(_final_part(reply), options)
        if not final.how.startswith("refused: names no option"):
            return Reading(final.letter, f"after {_FINAL}, {final.how}")
    return _read(reply, options)


def _read(reply: str, options: Sequence[str]) -> Reading:
    text = _EMPHASIS.sub("", _MARKERS.sub(" ", reply)).strip()
    whole = _WHOLE.match(text)
    if whole is not None:
        return Reading(whole.group(1).lower(), "a letter alone")
    kinds = (
        ("in parentheses", {m.group(1).lower() for m in _PARENS.finditer(text)}),
        ("a label opening the reply", {m.group(1).lower() for m in _LABEL.finditer(text)}),
        ("after a cue word", _cue_letters(text)),
    )
    named = set().union(*(letters for _, letters in kinds))
    if len(named) == 1:
        how = " and ".join(kind for kind, letters in kinds if letters)
        return Reading(named.pop(), f"one letter, {how}")
    if named:
        listed = ", ".join(sorted(named))
        return Reading(None, f"refused: names {len(named)} letters ({listed})")
    wanted = _normal(text)
    same = [LETTERS[i] for i, option in enumerate(options) if wanted and _normal(option) == wanted]
    if same:
        return Reading(same[0], "the option's whole text")
    bare = sorted(set(_OFFICIAL_WORD.findall(text.lower())))
    if bare:
        listed = ", ".join(bare)
        return Reading(None, f"refused: names no option (bare {listed} in a sentence: words)")
    return Reading(None, "refused: names no option")


# -- the official parser ------------------------------------------------------------------
_FINAL = "<final_answer>"
_FINAL_END = "</final_answer>"
_OFFICIAL_PARENS = re.compile(r"\(([a-d])\)")
_OFFICIAL_WORD = re.compile(r"\b([a-d])\b")


@dataclass(frozen=True)
class OfficialReading:
    """The official parser's two readings of a reply, each the set of letters it found:
    the final part (after the last `<final_answer>`; the whole reply, stripped, when it has
    no marker) and the whole reply."""

    final: frozenset[str]
    whole: frozenset[str]

    def right(self, gold: str) -> bool:
        """Credited when either reading is exactly the gold letter."""
        return {gold} in (self.final, self.whole)

    @property
    def choice(self) -> str | None:
        """The one letter it reads: the final part's when that is one, else the whole
        reply's when that is one; None when neither names exactly one."""
        for letters in (self.final, self.whole):
            if len(letters) == 1:
                return next(iter(letters))
        return None

    @property
    def how(self) -> str:
        return f"final part {_shown(self.final)}; whole reply {_shown(self.whole)}"


def _shown(letters: frozenset[str]) -> str:
    return "{" + ", ".join(sorted(letters)) + "}"


def _official_letters(text: str) -> frozenset[str]:
    lowered = text.lower()
    in_parens = _OFFICIAL_PARENS.findall(lowered)
    return frozenset(in_parens or _OFFICIAL_WORD.findall(lowered))


def _final_part(reply: str) -> str:
    part = reply.strip()
    if _FINAL in part:
        part = part.rpartition(_FINAL)[2].strip()
    if part.endswith(_FINAL_END):
        part = part.removesuffix(_FINAL_END).strip()
    return part


def read_official(reply: str) -> OfficialReading:
    """The official parser's readings of `reply`."""
    return OfficialReading(_official_letters(_final_part(reply)), _official_letters(reply))
