"""Prompt templates filled by plain replacement, not `str.format`: user templates may hold
JSON braces. `{{` and `}}` stand for literal braces."""

from __future__ import annotations

import re
from collections.abc import Mapping


def fill_placeholders(template: str, values: Mapping[str, str]) -> str:
    """`template` with each `{name}` key of `values` replaced, in one pass (a value that
    itself contains a placeholder is never expanded again)."""
    pattern = re.compile("|".join(re.escape(k) for k in values))
    text = template.replace("{{", "\x00").replace("}}", "\x01")
    text = pattern.sub(lambda m: values[m.group(0)], text)
    return text.replace("\x00", "{").replace("\x01", "}")
