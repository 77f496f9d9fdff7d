"""Classical measures: trec_eval's names and ir_measures' names, on graphprum's ranking.

Two spellings reach this module (DESIGN §1.6, "anything else"):

- **trec_eval's names** (``map``, ``P_10``, ``P.5,10``, ``ndcg_cut_10``,
  ``recip_rank``, ``num_rel_ret``, ``iprec_at_recall_0.10``, the sets
  ``all_trec``, ``official`` and ``set``): computed by trec_eval's own C
  code through pytrec_eval, and printed with trec_eval's names.
- **ir_measures' names** (``AP``, ``P@10``, ``nDCG@10``, ``P(rel=2)@5``,
  ``ERR@20``, ...): computed by ir_measures, which hands every measure it
  can to the same pytrec_eval.

Both see graphprum's evaluation order (DESIGN §1.3) through strictly
decreasing synthetic scores, so ties are broken once, by graphprum.  A
topic evaluated on an empty ranking (a qrels topic the run lacks, averaged
in as with trec_eval's ``-c``) gets the value trec_eval gives an empty
ranking: 0 for most measures, the number of relevant documents for
``num_rel``; a NaN there (trec_eval's ``11pt_avg`` and ``iprec_at_recall``
divide 0 by 0) becomes 0, as trec_eval's help promises ("missing queries
contribute a value of 0").

Aggregation over topics (:func:`classical_aggregation`) is trec_eval's:
counts (``num_*``, ``NumQ``, ``NumRet``, ``NumRel``, ``NumRelRet``) are
summed, ``gm_map`` and ``gm_bpref`` are geometric means with the floor
1e-5, everything else is the mean.  Per topic, ``gm_map`` shows the topic's
average precision floored at 1e-5 (trec_eval stores its logarithm and
prints no per-topic value).

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
>>> trec_names("P.5,10")
['P_5', 'P_10']
>>> trec_names("ndcg_cut_10"), trec_names("iprec_at_recall_0.1"), trec_names("AP")
(['ndcg_cut_10'], ['iprec_at_recall_0.10'], None)
>>> grades, scale = trec_grades({"1": {"a": 2.0, "b": 1.0, "c": 0.5}})
>>> grades, scale, trec_threshold(2, scale)
({'1': {'a': 2000, 'b': 1000, 'c': 500}}, 1000, 1001)
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import ir_measures
import pytrec_eval

from graphprum.errors import InputError, UsageError
from graphprum.io.lines import find_line
from graphprum.measures.aggregate import MIN_GEO_MEAN
from graphprum.measures.declare import Curve, first_paragraph
from graphprum.measures.spec import MeasureSpec, is_bare_name

#: Largest |REL| handed to trec_eval (it allocates one counter per level up
#: to the largest: 8 MB here).
MAX_GRADE = 1_000_000
#: Integer levels per unit of REL when the qrels hold graded values in (0, 1).
GRADE_SCALE = 1000
_LOG_FLOOR = math.log(MIN_GEO_MEAN) + 1e-12
#: The id judged REL 0 in a topic whose RELs are all negative (module notes).
NO_RESULT = "\x00judged-0-for-trec_eval\x00"

_CUTOFFS = ("5", "10", "15", "20", "30", "100", "200", "500", "1000")


@dataclass(frozen=True)
class TrecMeasure:
    """One measure of trec_eval's ``all_trec`` set, as graphprum offers it.

    Attributes
    ----------
    root : str
        trec_eval's name (``P``, ``map``, ``iprec_at_recall``).
    param : {None, "int", "level"}
        Kind of the parameters that name printed variants (``P_10``,
        ``iprec_at_recall_0.10``): none, integer cutoffs, or numbers
        printed with two decimals.
    defaults : tuple of str
        The variants a bare ``root`` stands for (trec_eval's defaults).
    aggregate : {"mean", "sum", "gmean"}
        How trec_eval averages the measure over topics.
    desc : str
        What it measures, in a few words (``graphprum measures``).
    """

    root: str
    param: str | None = None
    defaults: tuple[str, ...] = ()
    aggregate: str = "mean"
    desc: str = ""


_LEVELS = tuple(f"{k / 10:.2f}" for k in range(11))
_MULTS = tuple(f"{k / 5:.2f}" for k in range(1, 11))

#: trec_eval's ``all_trec`` measures that graphprum computes, in trec_eval's
#: order (``runid`` is the run's TAG, see ``--format trec``; ``relstring`` is
#: not a number).
TREC_MEASURES: dict[str, TrecMeasure] = {m.root: m for m in [
    TrecMeasure("num_q", aggregate="sum", desc="number of topics evaluated"),
    TrecMeasure("num_ret", aggregate="sum", desc="number of documents retrieved"),
    TrecMeasure("num_rel", aggregate="sum", desc="number of relevant documents"),
    TrecMeasure("num_rel_ret", aggregate="sum", desc="number of relevant documents retrieved"),
    TrecMeasure("map", desc="mean average precision: precision after each relevant document, "
                            "averaged over the relevant documents"),
    TrecMeasure("gm_map", aggregate="gmean", desc="average precision, geometric mean over "
                                                  "topics"),
    TrecMeasure("Rprec", desc="precision after R documents, R the number of relevant ones"),
    TrecMeasure("bpref", desc="binary preference: relevant documents ranked above judged "
                              "non-relevant ones"),
    TrecMeasure("recip_rank", desc="reciprocal rank of the first relevant document"),
    TrecMeasure("iprec_at_recall", "level", _LEVELS, desc="interpolated precision at recall "
                                                          "levels"),
    TrecMeasure("P", "int", _CUTOFFS, desc="precision after k documents"),
    TrecMeasure("recall", "int", _CUTOFFS, desc="recall after k documents"),
    TrecMeasure("infAP", desc="inferred average precision, for sampled judgements (REL -1: "
                              "pooled, not judged)"),
    TrecMeasure("gm_bpref", aggregate="gmean", desc="bpref, geometric mean over topics"),
    TrecMeasure("Rprec_mult", "level", _MULTS, desc="precision after multiples of R documents"),
    TrecMeasure("utility", desc="set utility: a gain per relevant, a cost per non-relevant "
                                "document retrieved"),
    TrecMeasure("11pt_avg", desc="interpolated precision averaged over 11 recall levels"),
    TrecMeasure("ndcg", desc="normalised discounted cumulative gain (REL as the gain)"),
    TrecMeasure("relative_P", "int", _CUTOFFS, desc="precision after k documents over the "
                                                    "best possible at k"),
    TrecMeasure("success", "int", ("1", "5", "10"), desc="1 when a relevant document is among "
                                                         "the first k"),
    TrecMeasure("map_cut", "int", _CUTOFFS, desc="average precision of the first k documents"),
    TrecMeasure("ndcg_cut", "int", _CUTOFFS, desc="nDCG of the first k documents"),
    TrecMeasure("ndcg_rel", desc="nDCG averaged over the relevant documents"),
    TrecMeasure("Rndcg", desc="nDCG at R documents"),
    TrecMeasure("binG", desc="binary gain (experimental)"),
    TrecMeasure("G", desc="normalised gain (experimental)"),
    TrecMeasure("set_P", desc="precision of the retrieved set"),
    TrecMeasure("set_recall", desc="recall of the retrieved set"),
    TrecMeasure("set_relative_P", desc="set precision over the best possible for its size"),
    TrecMeasure("set_map", desc="set precision times set recall"),
    TrecMeasure("set_F", desc="F measure of the retrieved set"),
    TrecMeasure("num_nonrel_judged_ret", aggregate="sum", desc="number of judged non-relevant "
                                                                "documents retrieved"),
]}

#: trec_eval's measure sets (``-m official``, ...), restricted to the
#: measures above.
TREC_SETS: dict[str, tuple[str, ...]] = {
    "all_trec": tuple(TREC_MEASURES),
    "official": ("num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
                 "bpref", "recip_rank", "iprec_at_recall", "P"),
    "set": ("num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"),
}

#: trec_eval measures whose value depends on the size of a grade, not only
#: on its order and on thresholds: refused with fractional RELs.
_GAIN_SIZE = frozenset({"G"})
#: ir_measures measures computed by pytrec_eval that only compare grades
#: with thresholds or use them as proportional gains.
_IR_SCALE_SAFE = frozenset({"P", "RR", "Rprec", "AP", "nDCG", "R", "Bpref", "NumRet", "NumQ",
                            "NumRel", "SetAP", "SetF", "SetP", "SetR", "Success", "IPrec",
                            "infAP", "Judged"})
_IR_SUM = frozenset({"NumQ", "NumRet", "NumRel", "NumRelRet"})

_INT = re.compile(r"[0-9]+")
_NUMBER = re.compile(r"[0-9]+(\.[0-9]*)?|\.[0-9]+")


def trec_names(text: str) -> list[str] | None:
    """trec_eval's printed names that ``text`` asks for, or None if it is not one.

    Accepts a set (``all_trec``, ``official``, ``set``), a name
    (``map``; a bare parameterised name stands for trec_eval's defaults),
    ``NAME_PARAM`` (``P_10``) and trec_eval's ``NAME.P1,P2`` (``P.5,10``).

    >>> trec_names("official")[:5]
    ['num_q', 'num_ret', 'num_rel', 'num_rel_ret', 'map']
    >>> trec_names("success")
    ['success_1', 'success_5', 'success_10']
    >>> trec_names("P_x")
    Traceback (most recent call last):
    ...
    graphprum.errors.UsageError: measure 'P_x': P takes integer cutoffs (P_10, P.5,10), got 'x'
    """
    text = text.strip()
    if text in TREC_SETS:
        out: list[str] = []
        for root in TREC_SETS[text]:
            out.extend(_variants(TREC_MEASURES[root], ()))
        return out
    if text in TREC_MEASURES:
        return _variants(TREC_MEASURES[text], ())
    if re.split(r"[(@]", text, maxsplit=1)[0] in ir_measures.measures.registry:
        return None  # P_IA is ir_measures' measure, not P with the parameter IA
    for root in sorted(TREC_MEASURES, key=len, reverse=True):
        m = TREC_MEASURES[root]
        if m.param is None or len(text) <= len(root) + 1 or not text.startswith(root) \
                or text[len(root)] not in "._":
            continue
        rest = text[len(root) + 1:]
        params = rest.split(",") if text[len(root)] == "." else [rest]
        return _variants(m, params, text)
    return None


def _variants(m: TrecMeasure, params: Sequence[str], text: str = "") -> list[str]:
    """Printed names of ``m`` with ``params`` (its defaults when empty)."""
    if m.param is None:
        return [m.root]
    out = []
    for p in params or m.defaults:
        p = p.strip()
        if m.param == "int":
            if not _INT.fullmatch(p) or int(p) < 1:
                raise UsageError(f"measure {text!r}: {m.root} takes integer cutoffs "
                                 f"({m.root}_10, {m.root}.5,10), got {p!r}")
            out.append(f"{m.root}_{int(p)}")
        else:
            if not _NUMBER.fullmatch(p):
                raise UsageError(f"measure {text!r}: {m.root} takes numbers "
                                 f"({m.root}_0.20), got {p!r}")
            if m.root == "iprec_at_recall" and float(p) > 1:
                raise UsageError(f"measure {text!r}: the recall level must be in [0, 1]")
            out.append(f"{m.root}_{float(p):.2f}")
    return list(dict.fromkeys(out))


def trec_root(name: str) -> TrecMeasure | None:
    """The :class:`TrecMeasure` of a printed trec_eval name (``P_10`` -> P).

    >>> trec_root("map_cut_10").root, trec_root("map").root, trec_root("AP")
    ('map_cut', 'map', None)
    """
    if name in TREC_MEASURES:
        return TREC_MEASURES[name]
    for root in sorted(TREC_MEASURES, key=len, reverse=True):
        m = TREC_MEASURES[root]
        if m.param is not None and name.startswith(root + "_") and len(name) > len(root) + 1:
            return m
    return None


def ir_measure_names() -> list[str]:
    """Names ir_measures knows (``AP``, ``nDCG``, ``P``, ...)."""
    return sorted(ir_measures.measures.registry)


def classical_aggregation(spec: MeasureSpec | str) -> str:
    """How a classical measure aggregates over topics, as trec_eval and ir_measures do.

    >>> classical_aggregation("num_rel_ret"), classical_aggregation("gm_map")
    ('sum', 'gmean')
    >>> classical_aggregation("NumRet(rel=2)"), classical_aggregation("P@10")
    ('sum', 'mean')
    """
    name = spec if isinstance(spec, str) else str(spec)
    m = trec_root(name)
    if m is not None:
        return m.aggregate
    head = re.split(r"[(@]", name, maxsplit=1)[0].strip()
    return "sum" if head in _IR_SUM else "mean"


# --------------------------------------------------------------------------
# the provider


#: ir_measures' measures ``graphprum plot`` draws over ranks.
IR_CURVES = {"P": Curve("rank", "precision"), "R": Curve("rank", "recall"),
             "nDCG": Curve("rank", "nDCG")}
_TREC_PARAMS = {"int": "integer cutoffs", "level": "numbers printed with two decimals"}


class _Classical:
    """trec_eval's and ir_measures' measures, answering the questions graphprum's
    families answer (:class:`graphprum.measures.registry.Provider`).

    >>> CLASSICAL.supports("P_10"), CLASSICAL.supports("nDCG"), CLASSICAL.supports("PRUM")
    (True, True, False)
    >>> print(CLASSICAL.help("success").splitlines()[0])
    success: trec_eval's success, computed by trec_eval's own C code (pytrec_eval)
    """

    def supports(self, name: str) -> bool:
        """Whether ``name`` is a trec_eval name or set, or an ir_measures name."""
        return name in TREC_SETS or trec_root(name) is not None or name in ir_measure_names()

    def aggregation(self, spec: MeasureSpec | str) -> str:
        return classical_aggregation(spec)

    def curve(self, name: str) -> Curve | None:
        return IR_CURVES.get(name)

    def catalog(self) -> list[dict[str, str]]:
        """One row per trec_eval name and set, then per ir_measures name
        (``graphprum measures``); column ``source`` says whose.

        >>> rows = CLASSICAL.catalog()
        >>> [(r["name"], r["source"], r["cutoff"]) for r in rows if r["name"] in ("P", "P@k")]
        [('P', 'trec_eval', 'rank'), ('P', 'ir_measures', 'rank')]
        """
        return [*(_trec_row(m) for m in TREC_MEASURES.values()),
                *({"name": name, "source": "trec_eval", "cutoff": "none", "aggregate": "-",
                   "needs": "-", "curve": "-",
                   "summary": f"trec_eval's measure set: {' '.join(TREC_SETS[name])}"}
                  for name in TREC_SETS),
                *(_ir_row(name) for name in ir_measure_names() if is_bare_name(name))]

    def help(self, name: str) -> str:
        """``name`` in plain text: what computes it, how it aggregates, its
        parameters (ir_measures' own descriptions of them)."""
        if name in TREC_SETS:
            return (f"{name}: trec_eval's measure set, the measures\n"
                    f"  {' '.join(TREC_SETS[name])}\n")
        m = trec_root(name)
        if m is not None:
            out = [f"{m.root}: trec_eval's {m.root}, computed by trec_eval's own C code "
                   f"(pytrec_eval)", "", m.desc, "", f"aggregate  {m.aggregate} over topics"]
            if m.param is not None:
                d = m.defaults
                out.append(f"parameters {_TREC_PARAMS[m.param]} ({m.root}_{d[1]}, "
                           f"{m.root}.{d[0]},{d[1]}); bare {m.root} = "
                           f"{', '.join(_variants(m, ()))}")
            out += ["", "example:", f"  graphprum eval RUN --qrels QRELS -m "
                                    f"{_variants(m, ())[0]}"]
            return "\n".join(out) + "\n"
        return _ir_help(name)


#: What the suffix of a parameterised trec_eval name is.
_TREC_CUTOFF = {"iprec_at_recall": "level", "Rprec_mult": "R multiple"}


def _trec_row(m: TrecMeasure) -> dict[str, str]:
    """``m`` as a row of ``graphprum measures``."""
    summary = m.desc
    cutoff = "none"
    if m.param is not None:
        cutoff = _TREC_CUTOFF.get(m.root, "rank")
        d = _variants(m, ())
        summary += (f" ({m.root}_{m.defaults[1]}, {m.root}.{m.defaults[0]},{m.defaults[1]}; "
                    f"bare {m.root}: {d[0]} ... {d[-1]})")
    return {"name": m.root, "source": "trec_eval", "cutoff": cutoff, "aggregate": m.aggregate,
            "needs": "-", "curve": "-", "summary": summary}


def _ir_row(name: str) -> dict[str, str]:
    """ir_measures' ``name`` as a row of ``graphprum measures``: its own
    description, what its ``@`` is, its other parameters."""
    m = ir_measures.measures.registry[name]
    params = getattr(m, "SUPPORTED_PARAMS", {})
    at = getattr(m, "AT_PARAM", "cutoff")
    cutoff = ("level" if at == "recall" else "rank") if at in params else "none"
    desc = getattr(m, "SHORT_DESC", "") or first_paragraph(type(m).__doc__ or "")
    canonical = str(getattr(m, "NAME", name))
    others = [k for k in params if k != at]
    curve = IR_CURVES.get(name)
    return {"name": name, "source": "ir_measures", "cutoff": cutoff,
            "aggregate": classical_aggregation(name), "needs": "-",
            "curve": curve.axis if curve is not None else "-",
            "summary": " ".join(desc.split()).rstrip(".")
            + (f" (= {canonical})" if canonical != name else "")
            + (f"; parameters: {', '.join(others)}" if others else "")}


def _ir_help(name: str) -> str:
    if name not in ir_measures.measures.registry:
        raise UsageError(f"unknown measure {name!r}")
    m = ir_measures.measures.registry[name]
    desc = getattr(m, "SHORT_DESC", "") or first_paragraph(type(m).__doc__ or "")
    out = [f"{name}: ir_measures' {getattr(m, 'PRETTY_NAME', None) or m.NAME}", ""]
    if desc:
        out += [desc, ""]
    out.append(f"aggregate  {classical_aggregation(name)} over topics")
    params = getattr(m, "SUPPORTED_PARAMS", {})
    if params:
        out += ["", "parameters:"]
        for key, info in params.items():
            shown = f"@{key.upper()}" if key == getattr(m, "AT_PARAM", "cutoff") else f"{key}="
            out.append(f"  {shown:<14}{info.desc or ''}")
    return "\n".join(out) + "\n"


#: trec_eval's and ir_measures' measures, answering the :class:`Provider` questions.
CLASSICAL = _Classical()


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


def preload_classical(names: Sequence[str]) -> None:
    """Nothing left to do: the libraries :func:`compute_classical` uses
    (pytrec_eval, ir_measures) are imported with this module.  Kept while
    the evaluation still calls it before reading runs."""


def compute_classical(names: Sequence[str], rankings: Mapping[str, Sequence[str]],
                      qrels: Mapping[str, Mapping[str, float]], *, relevance_level: int = 1,
                      missing: Collection[str] = (), qrels_path: str | None = None
                      ) -> dict[str, dict[str, float]]:
    """Values of classical measures per topic.

    Parameters
    ----------
    names : sequence of str
        Measure names: trec_eval's printed names (from :func:`trec_names`)
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
            if ranked:
                metrics.extend(ir_measures.evaluator(rest, grades).iter_calc(ranked))
    except (ValueError, TypeError, ZeroDivisionError, RuntimeError) as exc:
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
