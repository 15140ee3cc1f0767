"""Session dates written as spoken ("1:56 pm on 8 May, 2023", the format of LoCoMo's files
and of the probe's own conversations), read into ISO 8601."""

from __future__ import annotations

import re
from datetime import datetime

# "1:56 pm on 8 May, 2023": hour, minute, am/pm, day, month name, year.
_SPOKEN_DATE = re.compile(
    r"^\s*(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$", re.I
)


def parse_spoken_date(raw: str) -> str:
    """ISO 8601 (minute precision, no zone: the format gives none) of a spoken date."""
    match = _SPOKEN_DATE.match(raw)
    if match is None:
        raise ValueError(f"unrecognised date {raw!r} (expected like '1:56 pm on 8 May, 2023')")
    hour, minute, ampm, day, month, year = match.groups()
    text = f"{int(hour)}:{minute} {ampm.upper()} {int(day)} {month} {year}"
    try:
        parsed = datetime.strptime(text, "%I:%M %p %d %B %Y")
    except ValueError:
        raise ValueError(f"unrecognised date {raw!r}") from None
    return parsed.isoformat(timespec="minutes")
