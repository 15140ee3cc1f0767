"""`zep`: zep-papers result files, `{"locomo_experiment_user_<i>": [item, ...]}`.

Careful with the names: here `answer` is the system's **response** and `golden_answer` the
gold (some are ints); `grade` is the recorded judge verdict (a bool), kept in `recorded`.
User `i` is the i-th conversation of locomo10.json.
"""

from __future__ import annotations

import re

from locoscore.benchmarks.locomo.data.models import PredictionRecord
from locoscore.benchmarks.locomo.data.readers._fields import (
    Where,
    read_qa,
    require_object,
)
from locoscore.benchmarks.locomo.data.readers._load import LoadedFile
from locoscore.errors import InputError

USER_KEY = re.compile(r"locomo_experiment_user_(\d+)", re.ASCII)


def parse_zep_item(item: object, conversation: int, where: Where) -> PredictionRecord:
    fields = require_object(item, where)
    qa = read_qa(fields, where, gold=("golden_answer",), prediction=("answer",))
    recorded = {}
    grade = fields.get("grade")
    if grade is not None:
        if not isinstance(grade, bool):
            raise where.error(f"must be true or false, got {grade!r}", field="grade")
        recorded["grade"] = grade
    return qa.record(where, conversation=conversation, recorded=recorded)


def read_zep(loaded: LoadedFile) -> list[PredictionRecord]:
    raw = loaded.keyed_object(
        'zep format expects an object {"locomo_experiment_user_<i>": [items]}'
    )
    users: dict[int, str] = {}
    for key, items in raw.items():
        match = USER_KEY.fullmatch(key)
        if match is None:
            raise InputError(
                "zep keys must look like 'locomo_experiment_user_<i>'",
                file=loaded.file,
                record=key,
            )
        loaded.check_items(key, items)
        user = int(match.group(1))
        if user in users:
            raise InputError(f"same user as {users[user]!r}", file=loaded.file, record=key)
        users[user] = key
    records = []
    for user in sorted(users):
        key = users[user]
        for position, item in enumerate(raw[key]):
            records.append(parse_zep_item(item, user, Where(loaded.file, f"{key}[{position}]")))
    return records
