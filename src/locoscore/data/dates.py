"""Session dates as conversation files write them, read into ISO 8601 (the probe's own
conversations are written in LoCoMo's format, so both read them here)."""

from __future__ import annotations

import re
from datetime import datetime

# LoCoMo writes session dates as "1:56 pm on 8 May, 2023".
_LOCOMO_DATE = re.compile(
    r"^\s*(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$", re.I
)


def parse_locomo_date(raw: str) -> str:
    """ISO 8601 (minute precision, no zone: LoCoMo gives none) of a LoCoMo session date."""
    match = _LOCOMO_DATE.match(raw)
    if match is None:
        raise ValueError(f"unrecognised date {raw!r} (expected like '1:56 pm on 8 May, 2023')")
    hour, minute, ampm, day, month, year = match.groups()
    text = f"{int(hour)}:{minute} {ampm.upper()} {int(day)} {month} {year}"
    try:
        parsed = datetime.strptime(text, "%I:%M %p %d %B %Y")
    except ValueError:
        raise ValueError(f"unrecognised date {raw!r}") from None
    return parsed.isoformat(timespec="minutes")
