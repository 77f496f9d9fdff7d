"""Classical measures computed: trec_eval's C code and ir_measures on graphprum's ranking.

The measures named by trec_eval's names and ir_measures' names
(:mod:`graphprum.measures.classical_names`) are computed here, one call per
chunk of topics for all the names asked (:func:`compute_classical`):
trec_eval's names by trec_eval's own C code through pytrec_eval, printed
with trec_eval's names; ir_measures' names by ir_measures, which hands
every measure it can to the same pytrec_eval.

Both see graphprum's evaluation order (DESIGN §1.3) through strictly
decreasing synthetic scores, so ties are broken once, by graphprum.  A
topic evaluated on an empty ranking (a qrels topic the run lacks, averaged
in as with trec_eval's ``-c``) gets the value trec_eval gives an empty
ranking: 0 for most measures, the number of relevant documents for
``num_rel``; a NaN there (trec_eval's ``11pt_avg`` and ``iprec_at_recall``
divide 0 by 0) becomes 0, as trec_eval's help promises ("missing queries
contribute a value of 0").

Grades
------
trec_eval takes integer relevance levels and allocates memory per level up
to the largest one (a REL of 2,147,480,000 asks for 17 GB), so
:func:`trec_grades` hands it small integers and :func:`trec_threshold` moves
every relevance threshold (``rel=N``, ``-l N``) with them:

- Integer RELs pass unchanged when no REL of the qrels is fractional; any
  REL beyond ±:data:`MAX_GRADE` is refused.
- When some REL is a graded value in (0, 1), every REL is multiplied by a
  scale S (:data:`GRADE_SCALE`, less when integer grades are large) and
  rounded, at least 1 for REL > 0, and a threshold N >= 2 becomes
  (N - 1) S + 1.  So ``rel=1`` still means REL > 0 (DESIGN §1.3), ``rel=N``
  still means REL >= N (a grade 0.5 is below 2), and gains stay proportional
  to REL: nDCG-type measures agree with REL as gains to within 1/(2S) of a
  grade.  Measures whose value depends on the absolute size of a grade
  (trec_eval's ``G``, ir_measures' ``ERR``, gain maps ``gains=``, ...) are
  refused with fractional RELs.
- Negative RELs (``-1``, ``-2`` in TREC Web track qrels) pass unchanged:
  trec_eval counts them as judged but not relevant ("in the pool,
  unjudged"), so ``bpref`` does not count them as judged non-relevant and
  ``-J`` drops them.
- A topic whose RELs are all negative gets one more judgement, REL 0 for an
  id no run holds (:data:`NO_RESULT`).  trec_eval sizes its per-level
  counts by the largest REL and, when that is negative, keeps the counts of
  the topic evaluated before: ``ndcg`` then depends on the order of topics
  and ``G`` never returns (found by the differential tests).  With the
  extra judgement every measure gives its value for a topic without
  relevant documents.

Examples
--------
>>> grades, scale = trec_grades({"1": {"a": 2.0, "b": 1.0, "c": 0.5}})
>>> grades, scale, trec_threshold(2, scale)
({'1': {'a': 2000, 'b': 1000, 'c': 500}}, 1000, 1001)
>>> compute_classical(["map", "P_2"], {"1": ["a", "b"]}, {"1": {"a": 1, "b": 0, "c": 1}})
{'map': {'1': 0.5}, 'P_2': {'1': 0.5}}
"""

from __future__ import annotations

import math
import re
import subprocess
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import ir_measures
import pytrec_eval

from graphprum.errors import InputError, UsageError
from graphprum.io.lines import find_line
from graphprum.measures.aggregate import MIN_GEO_MEAN
from graphprum.measures.classical_names import trec_root

__all__ = ["GRADE_SCALE", "MAX_GRADE", "NO_RESULT", "compute_classical",
           "trec_grades", "trec_threshold"]

#: Largest |REL| handed to trec_eval (it allocates one counter per level up
#: to the largest: 8 MB here).
MAX_GRADE = 1_000_000
#: Integer levels per unit of REL when the qrels hold graded values in (0, 1).
GRADE_SCALE = 1000
_LOG_FLOOR = math.log(MIN_GEO_MEAN) + 1e-12
#: The id judged REL 0 in a topic whose RELs are all negative (module notes).
NO_RESULT = "\x01judged-0-for-trec_eval\x01"

#: trec_eval measures whose value depends on the size of a grade, not only
#: on its order and on thresholds: refused with fractional RELs.
_GAIN_SIZE = frozenset({"G"})
#: ir_measures measures computed by pytrec_eval that only compare grades
#: with thresholds or use them as proportional gains.
_IR_SCALE_SAFE = frozenset({"P", "RR", "Rprec", "AP", "nDCG", "R", "Bpref", "NumRet", "NumQ",
                            "NumRel", "SetAP", "SetF", "SetP", "SetR", "Success", "IPrec",
                            "infAP", "Judged"})


# --------------------------------------------------------------------------
# grades


def trec_grades(qrels: Mapping[str, Mapping[str, float]], path: str | None = None
                ) -> tuple[dict[str, dict[str, int]], int]:
    """The qrels as trec_eval's integer levels, and the scale S used (module notes).

    Raises
    ------
    InputError
        A REL beyond ±:data:`MAX_GRADE`, a negative fractional REL, or a
        fractional REL above 1 (naming ``path`` and the line when known).

    Examples
    --------
    >>> trec_grades({"1": {"a": 3.0, "b": 0.0, "c": -2.0}})
    ({'1': {'a': 3, 'b': 0, 'c': -2}}, 1)
    >>> trec_grades({"1": {"a": 0.25, "b": 0.0001}, "2": {"x": 1.0}})
    ({'1': {'a': 250, 'b': 1}, '2': {'x': 1000}}, 1000)
    """
    top = 1.0
    graded = False
    for topic, judged in qrels.items():
        for unit, rel in judged.items():
            rel = float(rel)
            if rel.is_integer():
                if abs(rel) > MAX_GRADE:
                    _bad_grade(path, topic, unit, rel, f"beyond ±{MAX_GRADE:,} (trec_eval "
                               f"allocates memory per grade level; grades are ordinal: "
                               f"renumber them)")
                top = max(top, rel)
            elif 0 < rel < 1:
                graded = True
            else:
                _bad_grade(path, topic, unit, rel, "not an integer nor a graded value in [0, 1]")
    if not graded:
        return {t: {u: int(r) for u, r in judged.items()} for t, judged in qrels.items()}, 1
    scale = max(1, min(GRADE_SCALE, MAX_GRADE // int(top)))
    return {t: {u: _scaled(float(r), scale) for u, r in judged.items()}
            for t, judged in qrels.items()}, scale


def _scaled(rel: float, scale: int) -> int:
    if rel <= 0:
        return int(rel)
    if rel.is_integer():
        return int(rel) * scale
    return max(1, round(rel * scale))


def _bad_grade(path: str | None, topic: str, unit: str, rel: float, why: str) -> None:
    line = None
    if path:
        try:
            line = find_line(path, lambda f: len(f) == 4 and f[0] == topic and f[2] == unit) \
                or None
        except InputError:
            line = None
    shown = int(rel) if rel.is_integer() else rel
    raise InputError(path or "qrels", line, f"REL {shown} of {unit!r} (topic {topic!r}) is "
                                            f"{why}")


def trec_threshold(level: int, scale: int) -> int:
    """The integer threshold that means REL >= ``level`` on grades scaled by ``scale``.

    ``level`` 1 means REL > 0 (graded values count as relevant), so it stays 1.

    >>> trec_threshold(1, 1000), trec_threshold(3, 1000), trec_threshold(3, 1), trec_threshold(0, 9)
    (1, 2001, 3, 0)
    """
    return level if level <= 1 else (level - 1) * scale + 1


# --------------------------------------------------------------------------
# computation


def compute_classical(names: Sequence[str], rankings: Mapping[str, Sequence[str]],
                      qrels: Mapping[str, Mapping[str, float]], *, relevance_level: int = 1,
                      missing: Collection[str] = (), qrels_path: str | None = None
                      ) -> dict[str, dict[str, float]]:
    """Values of classical measures per topic.

    Parameters
    ----------
    names : sequence of str
        Measure names: trec_eval's printed names (from
        :func:`~graphprum.measures.classical_names.trec_names`)
        or ir_measures' names.
    rankings : mapping of str to sequence of str
        Per topic to evaluate, the ids in evaluation order; an empty
        sequence evaluates the topic on an empty ranking.  Topics not in
        the qrels are ignored.
    qrels : mapping
        topic -> {id: REL}.
    relevance_level : int
        trec_eval's ``-l``: REL needed to be relevant, for trec_eval's names
        and for ir_measures' names that take ``rel=`` and do not give it.
    missing : collection of str
        Topics the run lacks (their rankings are empty): a NaN there becomes
        0 (trec_eval -c: "missing queries contribute a value of 0").  An
        empty ranking of a topic the run has (all results dropped by ``-J``)
        keeps trec_eval's value, NaN included.
    qrels_path : str or None
        Named in errors about grades.

    Returns
    -------
    dict
        name -> {topic: value}.
    """
    if not isinstance(relevance_level, int) or isinstance(relevance_level, bool):
        raise UsageError(f"-l {relevance_level!r}: the relevance level must be an integer")
    grades, scale = trec_grades(qrels, qrels_path)
    for t, judged in grades.items():
        if judged and max(judged.values()) < 0:
            grades[t] = {**judged, NO_RESULT: 0}
    topics = [t for t in rankings if t in grades]
    # pytrec_eval ranks by score: n, n-1, ..., 1 keeps the order given
    longest = max((len(rankings[t]) for t in topics), default=0)
    scores = [float(x) for x in range(longest, 0, -1)]
    run = {t: dict(zip(rankings[t], scores[longest - len(rankings[t]):], strict=True))
           for t in topics}
    empty = {t for t in topics if not rankings[t] and t in missing}
    out: dict[str, dict[str, float]] = {n: {} for n in names}
    trec = [n for n in names if trec_root(n) is not None]
    other = [n for n in names if trec_root(n) is None]
    if trec and topics:
        _trec_eval(trec, run, grades, trec_threshold(relevance_level, scale), scale, out)
    if other and topics:
        _ir_measures(other, run, grades, relevance_level, scale, out)
    for per in out.values():
        for t in empty:
            if t not in per or math.isnan(per[t]):
                per[t] = 0.0
    return out


def _trec_eval(names: list[str], run: dict[str, dict[str, float]],
               grades: dict[str, dict[str, int]], level: int, scale: int,
               out: dict[str, dict[str, float]]) -> None:
    """trec_eval's names through pytrec_eval (trec_eval's C code)."""
    if scale != 1:
        refused = [n for n in names if n in _GAIN_SIZE]
        if refused:
            raise UsageError(f"measure {refused[0]} uses REL as a gain whose size matters; "
                             f"the qrels hold graded values in (0, 1): use integer grades")
    # pytrec_eval 0.4 crashes (a segfault) when the first topic it reads has an
    # empty ranking (a topic missing from the run under -c, or one -J emptied):
    # a topic with results goes first; with none, nothing is evaluated and the
    # topics' values are filled in by the caller
    run = dict(sorted(run.items(), key=lambda item: not item[1]))
    if not any(run.values()):
        return
    evaluator = pytrec_eval.RelevanceEvaluator(grades, set(names), relevance_level=level)
    result = evaluator.evaluate(run)
    logged = {n for n in names if (m := trec_root(n)) is not None and m.aggregate == "gmean"}
    for topic, values in result.items():
        for name in names:
            value = values.get(name)
            if value is None:
                continue
            if name in logged:  # trec_eval keeps log(max(v, 1e-5))
                value = MIN_GEO_MEAN if value <= _LOG_FLOOR else math.exp(value)
            out[name][topic] = float(value)


def _ir_measures(names: list[str], run: dict[str, dict[str, float]],
                 grades: dict[str, dict[str, int]], level: int, scale: int,
                 out: dict[str, dict[str, float]]) -> None:
    """ir_measures' names: by pytrec_eval where it can, by ir_measures' other providers else."""
    measures: dict[Any, list[str]] = {}
    for name in names:
        measure = _ir_threshold(name, _ir_parse(name), level, scale)
        measures.setdefault(measure, []).append(name)
    by_pytrec = [m for m in measures if ir_measures.pytrec_eval.supports(m)]
    rest = [m for m in measures if m not in by_pytrec]
    try:
        metrics: list[Any] = []
        if by_pytrec:  # empty rankings kept: evaluated as trec_eval -c does
            metrics.extend(ir_measures.pytrec_eval.evaluator(by_pytrec, grades).iter_calc(run))
        if rest:
            ranked = {t: docs for t, docs in run.items() if docs}
            if ranked:  # the topics travel as 1, 2, ...: gdeval (ERR@k) reads them as numbers
                topic_of = dict(zip(map(str, range(1, len(ranked) + 1)), ranked, strict=True))
                numbered = ir_measures.evaluator(
                    rest, {k: grades[t] for k, t in topic_of.items() if t in grades})
                metrics.extend(m._replace(query_id=topic_of[m.query_id]) for m in
                               numbered.iter_calc({k: ranked[t] for k, t in topic_of.items()}))
    except (ValueError, TypeError, ZeroDivisionError, RuntimeError,
            subprocess.CalledProcessError) as exc:
        raise UsageError(f"ir_measures could not compute {', '.join(names)}: {exc}") from None
    for metric in metrics:
        if metric.query_id in run:
            for name in measures.get(metric.measure, ()):
                out[name][metric.query_id] = float(metric.value)


def _ir_parse(name: str) -> Any:
    try:
        return ir_measures.parse_measure(name)
    except (ValueError, NameError, TypeError, AttributeError, KeyError, SyntaxError) as exc:
        raise UsageError(f"unknown measure {name!r}: neither a graphprum measure nor one "
                         f"ir_measures knows ({exc})") from None


def _ir_threshold(name: str, measure: Any, level: int, scale: int) -> Any:
    """``measure`` with its relevance threshold moved onto the scaled grades."""
    if scale != 1 and (measure.NAME not in _IR_SCALE_SAFE or "gains" in measure.params):
        raise UsageError(f"measure {name} uses REL as a number whose size matters; the "
                         f"qrels hold graded values in (0, 1): use integer grades")
    if "rel" not in measure.SUPPORTED_PARAMS:
        return measure
    # rel given in the name; an alias's own rel (NumRelRet is NumRet(rel=1)) is a default
    given = measure.params.get("rel") if re.search(r"\brel\s*=", name) else None
    if given is None and "rel" in measure.params:
        given = level
    if given is None:
        if measure["rel"] != 1 or (level == 1 and scale == 1):
            return measure  # NumRet without rel is num_ret; thresholds unchanged
        given = level
    if not isinstance(given, int) or isinstance(given, bool):
        raise UsageError(f"measure {name}: rel must be an integer grade, got {given!r}")
    moved = trec_threshold(given, scale)
    return measure if moved == measure.params.get("rel") else measure(rel=moved)
