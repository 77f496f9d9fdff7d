"""How graphprum prints numbers: one rule for every command and format.

*Machine-readable* formats (tsv, csv, json) keep full precision: a float is
written as the shortest decimal that reads back as the same float (Python's
``repr``), so nothing is lost in a pipe.  Such a value may use an exponent
(``4.8e-05``) and its last digit may differ between machines (CPU, BLAS
kernel): compare it with a tolerance, never character by character.  NaN
and infinities are ``nan``, ``inf``, ``-inf`` in tsv and csv and ``null`` in
JSON (which has no NaN).

*Tables for people* (``table``, ``markdown``, ``latex``) never use an
exponent and never show the noise of binary floats (``3.1100000000000003``):

* measure values and p-values: exactly ``digits`` decimals (default 4, as
  trec_eval prints them), so that columns line up: :func:`fixed`;
* other quantities (lengths, times, probabilities, π): rounded to the more
  precise of ``digits`` decimals and ``digits`` significant digits, trailing
  zeros dropped, so ``3.11`` stays ``3.11`` and ``4.83e-05`` shows as
  ``0.00004834``: :func:`readable`.

``--digits N`` sets ``digits`` for the table formats.

Examples
--------
>>> exact(1 / 3), exact(0.1 + 0.2), exact(4.834432631412447e-05)
('0.3333333333333333', '0.30000000000000004', '4.834432631412447e-05')
>>> fixed(1 / 3), fixed(2 / 3, 2), fixed(1.0)
('0.3333', '0.67', '1.0000')
>>> readable(3.1100000000000003), readable(4.834432631412447e-05), readable(120.0)
('3.11', '0.00004834', '120')
"""

from __future__ import annotations

import math
from numbers import Integral, Real

#: Decimals of the table formats unless ``--digits`` says otherwise (trec_eval's 4).
DIGITS = 4


def _float(value: object) -> float | None:
    """``value`` as a Python float when it is a real, non-integral number type."""
    if isinstance(value, Integral):  # bool too
        return None
    if isinstance(value, Real):
        return float(value)
    return None


def exact(value: object) -> str:
    """Text of ``value`` for tsv and csv: floats at full precision.

    Floats (numpy's too) are written with ``repr``: the shortest decimal that
    reads back as the same float.  Integers and text are written as they are.

    >>> import numpy as np
    >>> exact(np.float64(0.7000000000000002)), exact(np.int64(12)), exact(2.0)
    ('0.7000000000000002', '12', '2.0')
    >>> exact(float("nan")), exact(float("-inf")), exact("a b")
    ('nan', '-inf', 'a b')
    """
    f = _float(value)
    if f is None:
        return str(int(value)) if isinstance(value, Integral) and not isinstance(value, bool) \
            else str(value)
    return repr(f)


def json_value(value: object) -> object:
    """``value`` for JSON: numpy scalars as Python numbers, NaN and infinities as None.

    >>> import numpy as np
    >>> json_value(np.float32(0.5)), json_value(float("nan")), json_value(np.int64(3))
    (0.5, None, 3)
    """
    if hasattr(value, "item") and callable(value.item) and not isinstance(value, str | bytes):
        try:
            value = value.item()
        except (TypeError, ValueError):
            return value
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def whole(value: object) -> object:
    """A position or length for every format: an integral float as an int.

    The store keeps ``start``, ``end`` and ``length`` as floats, characters
    for XML and web pages (always integral), seconds for video (often not);
    ``show`` and ``summary show`` write them through this, so that a
    character count reads ``21958`` in tsv, csv and json (``int()`` takes
    it), and ``10.5`` seconds stay ``10.5``.  Other values are unchanged.

    >>> import numpy as np
    >>> whole(np.float64(6144.0)), whole(10.5), whole(float("nan")), whole("S1"), whole(3)
    (6144, 10.5, nan, 'S1', 3)
    """
    f = _float(value)
    return int(f) if f is not None and f.is_integer() else value


def _nonfinite(v: float) -> str | None:
    if math.isnan(v):
        return "–"
    if math.isinf(v):
        return "∞" if v > 0 else "-∞"
    return None


def fixed(value: float, digits: int = DIGITS, *, sign: bool = False) -> str:
    """A measure value for a table: exactly ``digits`` decimals.

    NaN prints as a dash and infinities as ``∞``; a value that rounds to zero
    never prints as ``-0.0000``; ``sign`` writes ``+`` before positive values
    (differences).

    >>> fixed(0.70000000000000018), fixed(-1e-9), fixed(0.5, 1, sign=True), fixed(0, sign=True)
    ('0.7000', '0.0000', '+0.5', '0.0000')
    >>> fixed(float("nan")), fixed(float("inf"), 2)
    ('–', '∞')
    """
    v = float(value)
    special = _nonfinite(v)
    if special is not None:
        return special
    text = f"{v:.{digits}f}"
    if float(text) == 0:
        return f"{0.0:.{digits}f}"
    if sign:
        return f"{v:+.{digits}f}"
    return text


def readable(value: object, digits: int = DIGITS) -> str:
    """A quantity for people: the more precise of ``digits`` decimals and
    ``digits`` significant digits, trailing zeros dropped, never an exponent.

    Integers (and integral floats) print without a decimal point; text is
    returned unchanged.

    >>> readable(0.536), readable(1 / 3), readable(2 / 3, 2), readable(1234.56789)
    ('0.536', '0.3333', '0.67', '1234.5679')
    >>> readable(1e-20), readable(-0.0), readable(float("inf")), readable("S3")
    ('0.00000000000000000001', '0', '∞', 'S3')
    >>> readable(0.000696, 0), readable(0.0016, 0), readable(1234.56, 0)
    ('0.0007', '0.002', '1235')
    """
    f = _float(value)
    if f is None:
        return str(int(value)) if isinstance(value, Integral) and not isinstance(value, bool) \
            else str(value)
    special = _nonfinite(f)
    if special is not None:
        return special
    if f == 0:
        return "0"
    significant = max(digits, 1)  # digits=0: whole numbers, one digit of a fraction
    decimals = max(digits, significant - 1 - math.floor(math.log10(abs(f))))
    text = f"{f:.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def p_value(p: float, digits: int = DIGITS) -> str:
    """A p-value for a table: ``digits`` decimals, ``<0.0001`` below what they show.

    >>> p_value(0.03125), p_value(1e-7), p_value(0.004, 2), p_value(float("nan"))
    ('0.0312', '<0.0001', '<0.01', '–')
    """
    p = float(p)
    if math.isnan(p):
        return "–"
    floor = 10.0 ** -digits
    return f"<{floor:.{digits}f}" if p < floor else f"{p:.{digits}f}"
