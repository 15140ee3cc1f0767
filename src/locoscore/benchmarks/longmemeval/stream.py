"""The byte spans of a top-level JSON array's objects, found without parsing the file.

LongMemEval's `_m` file is 2.7 GB: parsing it whole would hold several copies of it. The
scanner reads fixed-size chunks and tracks only nesting depth and string state (jumping
between quotes, backslashes and brackets with a regex), so memory stays one chunk plus one
record; each record is then parsed on its own from its span.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import BinaryIO

_OUTSIDE = re.compile(rb'["{}\[\]]')
# The rest of a string up to its closing quote, escapes included (one C-level match).
_STRING_REST = re.compile(rb'(?:[^"\\]++|\\.)*+"', re.DOTALL)
CHUNK = 1 << 22


class NotAnArray(ValueError):
    """The file is not a JSON array of objects (the message says where it stopped fitting)."""


def _check_gap(gap: bytearray, comma: bool, where: int) -> None:
    text = bytes(gap).strip()
    if text != (b"," if comma else b""):
        raise NotAnArray(f"unexpected text before byte {where}")
    gap.clear()


def object_spans(handle: BinaryIO, chunk_size: int = CHUNK) -> Iterator[tuple[int, int]]:
    """(offset, length) of every object directly inside the file's top-level array."""
    depth = 0
    in_string = escaped = False
    start = -1
    seen = False  # an object was closed at depth 1: the next needs a comma before it
    gap = bytearray()  # what lies between two objects at depth 1
    base = 0
    first = True
    while chunk := handle.read(chunk_size):
        i = 0
        if first:
            stripped = chunk.lstrip()
            if stripped[:3] == b"\xef\xbb\xbf":  # a UTF-8 byte order mark
                stripped = stripped[3:].lstrip()
            if stripped[:1] != b"[":
                raise NotAnArray("expected a JSON list of question records")
            i = len(chunk) - len(stripped) + 1
            depth, first = 1, False
        if escaped:
            i, escaped = i + 1, False
        while True:
            if in_string:
                match = _STRING_REST.match(chunk, i)
                if match is None:  # the string goes on in the next chunk
                    # an odd run of backslashes at the end escapes the next chunk's first byte
                    tail = len(chunk) - i - len(chunk[i:].rstrip(b"\\"))
                    escaped = tail % 2 == 1
                    break
                in_string, i = False, match.end()
                continue
            match = _OUTSIDE.search(chunk, i)
            if match is None:
                if depth == 1:
                    gap += chunk[i:]
                break
            char, at = match.group(), match.start()
            if depth == 1:
                gap += chunk[i:at]
                if char == b"{":
                    _check_gap(gap, seen, base + at)
                    start = base + at
                elif char == b"]":
                    _check_gap(gap, False, base + at)
                    return
                else:
                    raise NotAnArray(f"expected an object at byte {base + at}")
            if char == b'"':
                in_string = True
            elif char in (b"{", b"["):
                depth += 1
            else:
                depth -= 1
                if depth == 1:
                    yield start, base + at + 1 - start
                    seen = True
            i = match.end()
        base += len(chunk)
    raise NotAnArray("the JSON list is not closed (file truncated?)")
