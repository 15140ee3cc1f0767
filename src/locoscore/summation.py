"""Sums and means of floats that do not depend on the interpreter.

Python 3.12 made `sum()` of floats compensated (Neumaier), so the same scores averaged on 3.11
and on 3.12+ can differ in the last digit, and a published number would depend on the Python
that computed it. locoscore adds left to right in IEEE double precision, which is what `sum()`
did up to 3.11, what a plain `for` loop does in every version, and what the published
scorers' Python loops and `sum()` calls did on the interpreters they were run with: the LoCoMo
parity snapshot holds those values bit for bit on 3.11, 3.12 and 3.13.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def ordered_sum(values: Iterable[float]) -> float:
    """Left-to-right float addition (no compensation), the same on every Python."""
    total = 0.0
    for value in values:
        total += value
    return total


def ordered_mean(values: Sequence[float]) -> float:
    """`ordered_sum(values) / len(values)`; ZeroDivisionError on no values, as `sum()/len()`."""
    return ordered_sum(values) / len(values)
