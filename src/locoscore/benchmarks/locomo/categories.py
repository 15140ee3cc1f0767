"""LoCoMo category ids and names, as numbered in the released data.

The data's numbering (checked against the paper's statistics table and the official
scorer's print order) is 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop,
5 adversarial. The Mem0 paper titles its columns with another mapping; see
the baselines module of the LoCoMo benchmark package.
"""

from __future__ import annotations

from locoscore.generic.folder_parts import Groups

CATEGORY_NAMES: dict[int, str] = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}

# The LoCoMo paper's column order: single-hop, multi-hop, temporal, open-domain, adversarial.
LOCOMO_COLUMN_ORDER: tuple[int, ...] = (4, 1, 2, 3, 5)
ADVERSARIAL = 5
# The groups reports and comparisons split by: the rows' `category`, adversarial left out
# of an overall unless a protocol's convention counts it.
GROUPS = Groups("category", LOCOMO_COLUMN_ORDER, CATEGORY_NAMES, frozenset({ADVERSARIAL}))

# What a good answer must get right, per LoCoMo category id (our own wording).
CATEGORY_GUIDANCE: dict[int, str] = {
    1: "The question needs facts joined from several parts of the conversation: every part "
    "the reference names must be present; a partial answer earns partial credit at most.",
    2: "The question is about time: the date, period or order of events must match the "
    "reference exactly in substance (any date format is fine; a different day, month, "
    "year or order is an error).",
    3: "The question asks for an inference or an opinion grounded in the conversation: "
    "judge whether the reasoning reaches the reference's conclusion and stays consistent "
    "with what the speakers said.",
    4: "The question asks for one fact stated in the conversation: the candidate must "
    "state that fact.",
    5: "The question may rest on a false premise: the right answer may be that the "
    "conversation does not contain this information.",
}

_NAME_TO_ID: dict[str, int] = {}
for _cid, _name in CATEGORY_NAMES.items():
    for _alias in (_name, _name.replace("-", "_"), _name.replace("-", " "), _name.replace("-", "")):
        _NAME_TO_ID[_alias] = _cid
_NAME_TO_ID.update({"single": 4, "multi": 1, "open": 3, "open_domain_knowledge": 3})


def category_name(category_id: int) -> str:
    return CATEGORY_NAMES[category_id]


def parse_category(value: object) -> int:
    """Category id from an int, a digit string or a name; ValueError when unknown."""
    if isinstance(value, bool):
        raise ValueError(f"unknown category {value!r}")
    if isinstance(value, int):
        if value in CATEGORY_NAMES:
            return value
        raise ValueError(f"unknown category {value!r} (expected 1-5 or a name)")
    if isinstance(value, float) and value.is_integer() and int(value) in CATEGORY_NAMES:
        return int(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text.isdigit() and int(text) in CATEGORY_NAMES:
            return int(text)
        if text in _NAME_TO_ID:
            return _NAME_TO_ID[text]
    raise ValueError(f"unknown category {value!r} (expected 1-5 or a name such as 'single-hop')")
