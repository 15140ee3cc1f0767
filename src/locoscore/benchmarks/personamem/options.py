"""How a PersonaMem question is put to the answerer (its reply is read by `replies`).

- **Shuffle.** The stored letter of the gold is not uniform (a 143, b 146, c 158, d 142) and
  a model's position bias would mix into its score, so every question's options are shown in
  an order drawn from the seed and the question id alone: option i of the file sorts by
  sha256(`<seed>:<question id>:<i>`). No Python `random` is involved, so the order is the
  same on every Python version and platform. The seed is signed (`signature_part`). The
  official protocol shows the stored order (seed None), the order the official replies use.
- **Two letters right.** 17 questions list the gold text under two letters; either is right
  (locoscore's protocol; the official one credits the stored gold letter alone).
"""

from __future__ import annotations

from locoscore._io import sha256_text
from locoscore.benchmarks.personamem.data import LETTERS, Item

# The memories and the question, then which reply fits: the part both profiles share.
_ASK = """\
You are a chat assistant with a memory of your earlier chat sessions with this user. Below
are the parts of those sessions your memory retrieved for the user's new message, best match
first.

Retrieved memories:
{context}

The user's new message, followed by four possible replies:
{question}

Which of the four replies fits this user best, given what you remember of them (their
preferences, how those changed, and why)? """

ANSWER_PROMPT = (
    _ASK
    + """Answer with the letter of that reply in
parentheses, for example (b), and nothing else.

Answer:"""
)

# The official profile's prompt: the same memories and question, the answer asked for in
# the official code's format (a letter after `<final_answer>`), which its parser reads.
FINAL_MARKER_PROMPT = (
    _ASK
    + """Write the token <final_answer> and then the
letter of that reply in parentheses, for example <final_answer>(b).

Answer:"""
)


def order(question_id: str, seed: int | None) -> tuple[int, int, int, int]:
    """The stored option indexes in the order they are shown (seed None: as stored)."""
    if seed is None:
        return 0, 1, 2, 3

    def key(i: int) -> str:
        return sha256_text(f"{seed}:{question_id}:{i}")

    a, b, c, d = sorted(range(4), key=key)
    return a, b, c, d


def shown_options(item: Item, seed: int | None) -> tuple[str, ...]:
    return tuple(item.options[i] for i in order(item.question_id, seed))


def correct_letters(item: Item, seed: int | None) -> frozenset[str]:
    """The shown letters that hold the gold text (two for the 17 doubled golds)."""
    shown = order(item.question_id, seed)
    return frozenset(LETTERS[pos] for pos, i in enumerate(shown) if i in item.gold_indexes)


def question_text(item: Item, seed: int | None) -> str:
    """The message and the shuffled options, laid out as the file lays them out."""
    lines = [f"({LETTERS[n]}) {text}" for n, text in enumerate(shown_options(item, seed))]
    return item.message + "\n\n" + "\n".join(lines)


def gold_text(item: Item, seed: int | None) -> str:
    """The gold as outputs show it: its shown letter(s) and its text."""
    letters = " or ".join(f"({x})" for x in sorted(correct_letters(item, seed)))
    return f"{letters} {item.options[LETTERS.index(item.gold_letter)].strip()}"


# -- floors: options picked without a model ---------------------------------------------
def option_length(text: str) -> int:
    """An option's length: characters of its whole text after strip (one option runs over
    three lines; measuring its first line only gives the longest floor 305, not 304)."""
    return len(text.strip())


def blind_pick(item: Item, rule: str) -> int:
    """The stored index a blind rule picks. Ties go to the earlier stored letter (the file's
    order, not the shuffled one), so the floors do not depend on the seed."""
    lengths = [option_length(t) for t in item.options]
    if rule == "longest":
        return max(range(4), key=lambda i: (lengths[i], -i))
    if rule == "shortest":
        return min(range(4), key=lambda i: (lengths[i], i))
    raise ValueError(rule)
