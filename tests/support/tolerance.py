"""Comparing printed output with expected text: numbers within a tolerance,
everything else exactly.

The last digit of a printed float depends on the CPU and the BLAS kernel a
computation ran on (``0.7000000000000002`` on one machine,
``0.7000000000000001`` on another), so no test compares printed numbers
character by character.  Two numbers agree when they differ by at most
``max(REL * max(|a|, |b|), ABS)``: relative 1e-9 or absolute 1e-12, whichever
is looser.  ``nan`` agrees with ``nan``, ``inf`` with ``inf``.

A number is what :data:`NUMBER` matches: an optional sign, digits with an
optional fraction and exponent (``12``, ``0.5``, ``.5``, ``4.8e-05``), or
``nan``/``inf`` standing alone.  Digits inside names (``P@10``, ``S78``) are
numbers too, which is harmless: equal text gives equal numbers.

>>> line_matches("x\\tz\\t0.7000000000000002", "x\\tz\\t0.7000000000000001")
True
>>> line_matches("x\\tz\\t0.7", "x\\tz\\t0.7000001"), line_matches("x\\tz 0.7", "x\\tz\\t0.7")
(False, False)
>>> line_matches("loaded ... in ... s", "loaded 3 links in 0.2 s")
True
"""

from __future__ import annotations

import math
import re

#: Relative and absolute tolerance (the looser of the two applies).
REL, ABS = 1e-9, 1e-12

NUMBER = (r"(?<![A-Za-z])[-+]?(?:nan|inf)(?![A-Za-z])"
          r"|[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")
_NUMBER = re.compile(f"({NUMBER})")


def numbers_close(a: str, b: str) -> bool:
    """Whether the numbers written ``a`` and ``b`` agree within the tolerance.

    >>> numbers_close("0.33333333333333337", "0.3333333333333333"), numbers_close("1", "1.0")
    (True, True)
    >>> numbers_close("1e-13", "0"), numbers_close("0.5", "0.5001"), numbers_close("nan", "nan")
    (True, False, True)
    """
    x, y = float(a), float(b)
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    if math.isinf(x) or math.isinf(y):
        return x == y
    return abs(x - y) <= max(REL * max(abs(x), abs(y)), ABS)


def _pattern(expected: str, ellipsis: bool) -> tuple[re.Pattern[str], list[str]]:
    """A regular expression for ``expected`` (each number a group, ``...`` any
    text when ``ellipsis``) and the expected numbers in order."""
    parts = expected.split("...") if ellipsis else [expected]
    regex, numbers = [], []
    for part in parts:
        pieces = _NUMBER.split(part)  # text, number, text, number, ..., text
        out = []
        for i, piece in enumerate(pieces):
            if i % 2:
                numbers.append(piece)
                out.append(f"({NUMBER})")
            else:
                out.append(re.escape(piece))
        regex.append("".join(out))
    return re.compile(".*".join(regex)), numbers


def line_matches(expected: str, actual: str, *, ellipsis: bool = True) -> bool:
    """Whether ``actual`` is ``expected`` up to the tolerance on numbers (and,
    with ``ellipsis``, any text where ``expected`` has ``...``)."""
    pattern, numbers = _pattern(expected, ellipsis)
    m = pattern.fullmatch(actual)
    return m is not None and all(numbers_close(e, g)
                                 for e, g in zip(numbers, m.groups(), strict=True))


def text_mismatch(expected: str, actual: str) -> str | None:
    """None when ``actual`` has the lines of ``expected`` up to the tolerance
    on numbers (no ``...`` wildcards; trailing spaces ignored), else the
    first line that differs.

    >>> text_mismatch("a 0.5\\nb\\n", "a 0.50000000000000001\\nb\\n")
    >>> text_mismatch("a 0.5\\n", "a 0.6\\n")
    "line 1: expected 'a 0.5', got 'a 0.6'"
    """
    exp = [line.rstrip() for line in expected.splitlines()]
    got = [line.rstrip() for line in actual.splitlines()]
    for i, (e, g) in enumerate(zip(exp, got, strict=False), start=1):
        if not line_matches(e, g, ellipsis=False):
            return f"line {i}: expected {e!r}, got {g!r}"
    if len(exp) != len(got):
        return f"expected {len(exp)} lines, got {len(got)}"
    return None
