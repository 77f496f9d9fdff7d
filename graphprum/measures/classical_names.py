"""Classical measures' names: trec_eval's and ir_measures', and what each answers.

Two spellings of classical measures reach ``-m`` (DESIGN §1.6, "anything
else"):

- **trec_eval's names** (``map``, ``P_10``, ``P.5,10``, ``ndcg_cut_10``,
  ``recip_rank``, ``num_rel_ret``, ``iprec_at_recall_0.10``, the sets
  ``all_trec``, ``official`` and ``set``): the measures of trec_eval's
  ``all_trec`` (:data:`TREC_MEASURES`) and its sets (:data:`TREC_SETS`),
  printed with trec_eval's names (:func:`trec_names` turns what a user
  types into them, :func:`trec_root` a printed name back into its measure).
- **ir_measures' names** (``AP``, ``P@10``, ``nDCG@10``, ``P(rel=2)@5``,
  ``ERR@20``, ...): whatever ir_measures' registry holds
  (:func:`ir_measure_names`).

:data:`CLASSICAL` answers for both the questions graphprum's families
answer (:class:`graphprum.measures.registry.Provider`: whether a name is
one of them, how it aggregates, its curve, its row of ``graphprum
measures``, its help); :mod:`graphprum.measures.names` asks them.  The
values are computed by :mod:`graphprum.measures.classical`.

Aggregation over topics (:func:`classical_aggregation`) is trec_eval's:
counts (``num_*``, ``NumQ``, ``NumRet``, ``NumRel``, ``NumRelRet``) are
summed, ``gm_map`` and ``gm_bpref`` are geometric means with the floor
1e-5, everything else is the mean.  Per topic, ``gm_map`` shows the topic's
average precision floored at 1e-5 (trec_eval stores its logarithm and
prints no per-topic value).

Examples
--------
>>> trec_names("P.5,10")
['P_5', 'P_10']
>>> trec_names("ndcg_cut_10"), trec_names("iprec_at_recall_0.1"), trec_names("AP")
(['ndcg_cut_10'], ['iprec_at_recall_0.10'], None)
>>> classical_aggregation("P_10"), classical_aggregation("gm_map")
('mean', 'gmean')
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import ir_measures

from graphprum.errors import UsageError
from graphprum.measures.declare import Curve, first_paragraph
from graphprum.measures.spec import MeasureSpec, is_bare_name

__all__ = ["CLASSICAL", "IR_CURVES", "TREC_MEASURES", "TREC_SETS", "TrecMeasure",
           "classical_aggregation", "ir_measure_names", "trec_names", "trec_root"]

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
    TrecMeasure("binG", desc="binary gain (experimental)"),
    TrecMeasure("G", desc="normalised gain (experimental)"),
    TrecMeasure("ndcg", desc="normalised discounted cumulative gain (REL as the gain)"),
    TrecMeasure("ndcg_rel", desc="nDCG averaged over the relevant documents"),
    TrecMeasure("Rndcg", desc="nDCG at R documents"),
    TrecMeasure("ndcg_cut", "int", _CUTOFFS, desc="nDCG of the first k documents"),
    TrecMeasure("map_cut", "int", _CUTOFFS, desc="average precision of the first k documents"),
    TrecMeasure("relative_P", "int", _CUTOFFS, desc="precision after k documents over the "
                                                    "best possible at k"),
    TrecMeasure("success", "int", ("1", "5", "10"), desc="1 when a relevant document is among "
                                                         "the first k"),
    TrecMeasure("set_P", desc="precision of the retrieved set"),
    TrecMeasure("set_relative_P", desc="set precision over the best possible for its size"),
    TrecMeasure("set_recall", desc="recall of the retrieved set"),
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

#: ir_measures' counts, summed over topics as trec_eval sums its ``num_*``.
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
    if _ir_measures_root(text):
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


def _ir_measures_root(name: str) -> bool:
    """Whether ``name`` (parameters and cutoff aside) is one of ir_measures'."""
    return re.split(r"[(@]", name, maxsplit=1)[0] in ir_measures.measures.registry


def trec_root(name: str) -> TrecMeasure | None:
    """The :class:`TrecMeasure` of a printed trec_eval name (``P_10`` -> P).

    >>> trec_root("map_cut_10").root, trec_root("map").root, trec_root("AP"), trec_root("P_IA")
    ('map_cut', 'map', None, None)
    """
    if name in TREC_MEASURES:
        return TREC_MEASURES[name]
    if _ir_measures_root(name):
        return None  # P_IA: ir_measures' (as in trec_names)
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
