"""Qrels in the TREC layout ``TOPIC ITER ID REL`` (DESIGN §1.3).

REL is an integer as in trec_eval, or a graded value in [0, 1], written
with ASCII digits.  Relevant means REL > 0; a negative REL (``-1``, ``-2``
as in the TREC Web track qrels) is judged not relevant (trec_eval counts it
as in the pool but unjudged: ``bpref`` does not count it as judged
non-relevant, ``-J`` drops it).  A duplicate (TOPIC, ID) is an error that
names both lines.  ITER is read and ignored, as trec_eval does.

INEX 2005 assessments with separate exhaustivity and specificity are read
from ``TOPIC ITER ID E S`` lines (E, S in 0..3, E0 only with S0): REL is
then the generalized quantization of PRUM app. C.1 (E3S3 1; E2S3, E3S2,
E3S1 .75; E1S3, E2S2, E2S1 .5; E1S1, E1S2 .25; E0S0 0), and the pairs are
kept in :attr:`Qrels.exh_spec` for GRPng (app. C.2), which weighs recall by
q(E) = E/3 and precision by q(S) = S/3.  One file uses one layout.

Examples
--------
>>> import tempfile, os
>>> p = os.path.join(tempfile.mkdtemp(), "qrels")
>>> _ = open(p, "w").write("1 0 d1 2\\n1 0 d2 0\\n2 0 d1 0.5\\n")
>>> q = read_qrels(p)
>>> q
Qrels({'1': {'d1': 2.0, 'd2': 0.0}, '2': {'d1': 0.5}})
>>> q.relevant("1")
['d1']
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping

import numpy as np

from graphprum.errors import InputError
from graphprum.io.lines import (
    PathArg,
    ascii_number,
    expect_count,
    find_line,
    gc_paused,
    read_lines,
)

_LAYOUT = "TOPIC ITER ID REL"
_REL = "REL an integer (negative: not relevant) or a graded value in [0, 1]"


class Qrels(dict[str, dict[str, float]]):
    """Judgements: topic -> {id: REL}, both levels in file order.

    A plain ``dict`` subclass, so it can be handed wherever a mapping of
    topics to judged ids is expected; :attr:`path` keeps the source file.
    """

    path: str = ""
    #: topic -> {id: (E, S)} for INEX 2005 ``TOPIC ITER ID E S`` qrels, else empty.
    exh_spec: dict[str, dict[str, tuple[int, int]]]

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type,unused-ignore]
        self.exh_spec = {}

    def __repr__(self) -> str:
        return f"Qrels({dict.__repr__(self)})"

    def relevant(self, topic: str) -> list[str]:
        """Ids of ``topic`` with REL > 0, in file order ([] for an unknown topic)."""
        return [u for u, rel in self.get(topic, {}).items() if rel > 0]


def parse_rel(path: PathArg, line: int, text: str) -> float:
    """REL as a float, or InputError: not an ASCII decimal number, fractional
    outside [0, 1].

    >>> parse_rel("q", 1, "3"), parse_rel("q", 1, "0.25"), parse_rel("q", 1, "-2")
    (3.0, 0.25, -2.0)
    >>> parse_rel("q", 7, "-0.5")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    graphprum.errors.InputError: q:7: expected REL an integer ..., got '-0.5'
    >>> parse_rel("q", 8, "1_0")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    graphprum.errors.InputError: q:8: expected REL ... (ASCII digits), got '1_0'
    """
    rel = _rel_value(text)
    if rel is None:
        odd = not text.isascii() or "_" in text
        hint = " (ASCII digits)" if odd and any(c.isdigit() for c in text) else ""
        raise InputError(path, line, f"expected {_REL}{hint}, got {text!r}")
    return rel


@functools.lru_cache(maxsize=4096)
def _rel_value(text: str) -> float | None:
    """REL as :func:`parse_rel` takes it, or None; qrels write few distinct
    values (0, 1, 2), each parsed once."""
    rel = ascii_number(text)
    if rel is None or not math.isfinite(rel) or (not rel.is_integer() and not 0 <= rel <= 1):
        return None
    return rel


def read_qrels(path: PathArg) -> Qrels:
    """Read a TREC qrels file into a :class:`Qrels`.

    Parameters
    ----------
    path : str or PathLike
        A UTF-8 file of ``TOPIC ITER ID REL`` lines (whitespace separated;
        ``#`` comment lines and blank lines skipped).

    Raises
    ------
    InputError
        A line without 4 fields, a bad REL, a duplicate (TOPIC, ID), an
        unreadable or non-UTF-8 file, a file without judgements; the message
        names ``file:line``.
    """
    qrels = Qrels()
    qrels.path = str(path)
    with gc_paused():
        _fill(qrels, path)
    if not qrels:
        raise InputError(path, None, f"empty qrels: no {_LAYOUT} lines")
    return qrels


def check_rel(value: object) -> float | None:
    """A REL given as a number (not text) as a float, or None when it breaks
    :func:`parse_rel`'s rule (an integer, or a graded value in [0, 1]).

    >>> check_rel(2), check_rel(0.25), check_rel(-1), check_rel(1.5), check_rel("1")
    (2.0, 0.25, -1.0, None, None)
    """
    if isinstance(value, bool) or not isinstance(value, int | float | np.number):
        return None
    rel = float(value)
    if not math.isfinite(rel) or (not rel.is_integer() and not 0 <= rel <= 1):
        return None
    return rel


#: One judgement held in memory: (where, TOPIC, ID, REL); ``where`` names it
#: in error messages (``"index 3"``).
JudgementRow = tuple[str, str, str, object]


def qrels_from_rows(source: str, rows: Iterable[JudgementRow]) -> Qrels:
    """A :class:`Qrels` from judgements held in memory, with the rules of
    :func:`read_qrels`: REL an integer or a graded value in [0, 1], a
    duplicate (TOPIC, ID) an error naming both, at least one judgement.

    >>> qrels_from_rows("demo", [("index 0", "1", "a", 1), ("index 1", "1", "b", 0)])
    Qrels({'1': {'a': 1.0, 'b': 0.0}})
    >>> qrels_from_rows("demo", [("index 0", "1", "a", 1), ("index 1", "1", "a", 2)])
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    graphprum.errors.InputError: demo: index 1: duplicate judgement of 'a' ... (first at index 0)
    """
    qrels = Qrels()
    first: dict[tuple[str, str], str] = {}
    for where, topic, unit, value in rows:
        rel = check_rel(value)
        if rel is None:
            raise InputError(source, None, f"{where}: expected {_REL}, got {value!r}")
        judged = qrels.get(topic)
        if judged is None:
            judged = qrels[topic] = {}
        elif unit in judged:
            raise InputError(source, None, f"{where}: duplicate judgement of {unit!r} for "
                                           f"topic {topic!r} (first at {first[topic, unit]})")
        first[topic, unit] = where
        judged[unit] = rel
    if not qrels:
        raise InputError(source, None, "empty qrels: no judgements")
    return qrels


#: PRUM app. C.1: the generalized quantization of an INEX (E, S) assessment.
GENERALIZED = {(3, 3): 1.0, (2, 3): 0.75, (3, 2): 0.75, (3, 1): 0.75, (1, 3): 0.5,
               (2, 2): 0.5, (2, 1): 0.5, (1, 1): 0.25, (1, 2): 0.25, (0, 0): 0.0}
_LAYOUT_ES = "TOPIC ITER ID E S"


def parse_exh_spec(path: PathArg, line: int, e_text: str, s_text: str) -> tuple[int, int]:
    """An INEX (exhaustivity, specificity) pair, each 0..3, E0 exactly with S0.

    >>> parse_exh_spec("q", 1, "3", "2")
    (3, 2)
    >>> parse_exh_spec("q", 2, "0", "2")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    graphprum.errors.InputError: q:2: expected E S with E, S in 0..3 and E 0 only ..., got '0 2'
    """
    pair = (ascii_number(e_text), ascii_number(s_text))
    ok = all(v is not None and v in (0, 1, 2, 3) for v in pair)
    if not ok or (pair[0] == 0) != (pair[1] == 0):
        raise InputError(path, line, f"expected E S with E, S in 0..3 and E 0 only with S 0 "
                                     f"(INEX 2005), got '{e_text} {s_text}'")
    return int(pair[0]), int(pair[1])  # type: ignore[arg-type]


def _fill(qrels: Qrels, path: PathArg) -> None:
    """Add the judgements of ``path`` to ``qrels``."""
    width = 0
    for line, fields in read_lines(path):
        if width == 0:
            width = 5 if len(fields) == 5 else 4
        if len(fields) != width:
            expect_count(path, line, fields, width, _LAYOUT if width == 4 else _LAYOUT_ES)
        if width == 5:
            topic, _, unit, e_text, s_text = fields
            pair = parse_exh_spec(path, line, e_text, s_text)
            rel = GENERALIZED[pair]
            qrels.exh_spec.setdefault(topic, {})[unit] = pair
        else:
            topic, _, unit, rel_text = fields
            rel = parse_rel(path, line, rel_text)
        judged = qrels.get(topic)
        if judged is None:
            judged = qrels[topic] = {}
        elif unit in judged:
            def same(f: list[str], t: str = topic, u: str = unit) -> bool:
                return f[0] == t and f[2:3] == [u]

            first = find_line(path, same)
            raise InputError(path, line, f"duplicate judgement of {unit!r} for topic {topic!r}"
                                         f" (first on line {first})")
        judged[unit] = rel


def write_qrels(qrels: Mapping[str, Mapping[str, float]], path: PathArg) -> None:
    """Write ``qrels`` as ``TOPIC 0 ID REL`` lines (integral REL without '.0').

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "q")
    >>> write_qrels({"1": {"a": 1.0, "b": 0.5}}, p)
    >>> open(p).read()
    '1 0 a 1\\n1 0 b 0.5\\n'
    >>> read_qrels(p) == {"1": {"a": 1.0, "b": 0.5}}
    True
    """
    with open(path, "w", encoding="utf-8") as f:
        for topic, judged in qrels.items():
            for unit, rel in judged.items():
                value = int(rel) if float(rel).is_integer() else repr(float(rel))
                f.write(f"{topic} 0 {unit} {value}\n")
