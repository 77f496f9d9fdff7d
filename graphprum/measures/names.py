"""From what a user types after ``-m`` to measure specs (DESIGN §1.6).

Three vocabularies share ``-m``: graphprum's families (``PRUM``, ``SRP@10``,
...), trec_eval's names (``map``, ``P_10``, ``P.5,10``, ``all_trec``; see
:mod:`graphprum.measures.classical_names`) and ir_measures' names (``AP``,
``nDCG@10``, ``P(rel=2)@5``).  A name is looked up exactly first (the
vocabularies share no name except trec_eval's and ir_measures' ``Rprec``
and ``infAP``, the same measures); failing that, case-insensitively
(``prum``, ``ndcg@10``, ``NDCG_CUT_10``) in the order graphprum, trec_eval,
ir_measures, the first vocabulary with a match winning, and a name that
matches two different measures of one vocabulary is an error; failing
that, the error suggests the closest known names.

Examples
--------
>>> [str(s) for s in resolve("map")], [str(s) for s in resolve("ndcg@10")]
(['map'], ['nDCG@10'])
>>> [str(s) for s in resolve("prum@0.5")]
['PRUM@0.5']
>>> resolve("PRMU")
Traceback (most recent call last):
...
graphprum.errors.UsageError: unknown measure 'PRMU'; did you mean PRUM or EPRUM?
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Sequence

import ir_measures

from graphprum.errors import UsageError
from graphprum.measures.classical_names import (
    CLASSICAL,
    IR_CURVES,
    TREC_MEASURES,
    TREC_SETS,
    ir_measure_names,
    trec_names,
)
from graphprum.measures.declare import CURVE_LEVELS, CURVE_RANKS, Curve, Family
from graphprum.measures.registry import FAMILY_MEASURES, Provider, families, family, family_names
from graphprum.measures.spec import MeasureSpec, parse_measure

#: Where names come from, in the order they are looked up.
PROVIDERS: tuple[Provider, ...] = (FAMILY_MEASURES, CLASSICAL)


def resolve(text: str) -> list[MeasureSpec]:
    """The measure specs ``text`` stands for (a set or a bare family name
    stands for several); UsageError for an unknown or ambiguous name."""
    text = text.strip()
    trec = trec_names(text)
    if trec is not None:
        return [MeasureSpec(n) for n in trec]
    trec = _trec_any_case(text)
    spec = _parse(text)
    if spec is None:
        if trec is not None:
            return [MeasureSpec(n) for n in trec]
        typo = _trec_typo(text, text)
        if typo is not None:
            raise UsageError(typo)
        raise UsageError(f"cannot parse measure name {text!r}; expected NAME(param=value,...)"
                         f"@cutoff, or a trec_eval name such as P_10 or P.5,10")
    name = _canonical(spec.name, trec is not None)
    if name is None:
        if trec is not None:
            return [MeasureSpec(n) for n in trec]
        raise UsageError(_unknown(text, spec.name))
    spec = MeasureSpec(name, dict(spec.params), spec.cutoff)
    fam = family(name)
    if fam is None:
        _check_ir(spec)
        return [spec]
    specs = fam.expand(spec)
    for s in specs:
        fam.bind(s)  # parameters and cutoff checked here, once
    return specs


def provider(name: str) -> Provider:
    """The provider (graphprum's families, or the classical measures) of a
    resolved name (:attr:`MeasureSpec.name`).

    >>> provider("PRUM") is FAMILY_MEASURES, provider("map") is CLASSICAL
    (True, True)
    """
    for p in PROVIDERS:
        if p.supports(name):
            return p
    raise UsageError(_unknown(name, name))


def aggregation(spec: MeasureSpec) -> str:
    """How ``spec`` aggregates over topics (:func:`graphprum.measures.aggregate.aggregate`):
    its family's declaration, or trec_eval's / ir_measures' for a classical measure.

    >>> [aggregation(s) for s in resolve("PRUM") + resolve("num_rel_ret") + resolve("gm_map")]
    ['mean', 'sum', 'gmean']
    """
    return provider(spec.name).aggregation(spec)


def aggregation_of(name: str) -> str:
    """:func:`aggregation` of a row's measure name as printed (``PRUM@0.5``,
    ``num_rel_ret``, ``NumRet(rel=2)``); ``mean`` for a stderr row.

    >>> aggregation_of("num_ret"), aggregation_of("SRP@10"), aggregation_of("P_10 stderr")
    ('sum', 'mean', 'mean')
    """
    if name.endswith(" stderr"):
        return "mean"
    spec = _parse(name)
    fam = family(spec.name) if spec is not None else None
    return fam.aggregate if fam is not None else CLASSICAL.aggregation(name)


def better_of(name: str) -> str | None:
    """Which values of a row's measure (as printed) are better: its family's
    :attr:`~graphprum.measures.declare.Family.better`; for a classical
    measure ``higher``, or None for a count (trec_eval's ``num_ret``,
    ir_measures' ``NumRet``: summed over topics); None for a stderr row.

    >>> [better_of(n) for n in ("ESL(tau=5)", "PRUM@0.5", "map", "num_rel_ret", "P_10 stderr")]
    ['lower', 'higher', 'higher', None, None]
    """
    if name.endswith(" stderr"):
        return None
    spec = _parse(name)
    fam = family(spec.name) if spec is not None else None
    if fam is not None:
        return fam.better
    return None if CLASSICAL.aggregation(name) == "sum" else "higher"


def best_value(values: Sequence[float], better: str | None) -> float:
    """The best of ``values`` (means of runs) in a measure's direction
    (:func:`better_of`): the largest or, for ``better="lower"``, the
    smallest; NaN (equal to none) when ``better`` is None.

    >>> best_value([0.2, 0.5], "higher"), best_value([0.2, 0.5], "lower")
    (0.5, 0.2)
    >>> best_value([0.2, 0.5], None)
    nan
    """
    if better is None or not values:
        return math.nan
    return max(values) if better == "higher" else min(values)


def is_best(value: float | None, best: float) -> bool:
    """Whether ``value`` ties :func:`best_value`'s ``best``: equal up to float
    noise (relative 1e-9), so that two runs whose means are the same number
    summed in another order (``0.4000000000000001`` and
    ``0.39999999999999997``, both 6/15) are both the best.

    >>> is_best(0.39999999999999997, 0.4000000000000001), is_best(0.3999, 0.4)
    (True, False)
    >>> is_best(0.5, float("nan")), is_best(None, 0.5)
    (False, False)
    """
    return value is not None and math.isclose(value, best, rel_tol=1e-9, abs_tol=1e-12)


def curve(text: str) -> tuple[MeasureSpec, Curve]:
    """The curve a bare name stands for (``graphprum plot -m NAME``): its
    spec with the name as canonical, and how it is drawn.  UsageError when
    ``text`` has a cutoff, names no curve, or has a parameter that names
    one point (``PRUM(r=K)``: precision at integer recall K).

    >>> spec, c = curve("t2i-pr(tau=15)")
    >>> str(spec), c.axis
    ('T2I-PR(tau=15)', 'level')
    >>> curve("PRUM(r=2)")
    Traceback (most recent call last):
    ...
    graphprum.errors.UsageError: PRUM(r=2) has no curve (r=2 names one point of it); use -m PRUM
    >>> curve("PRUM@0.5")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    graphprum.errors.UsageError: PRUM@0.5 has a cutoff, a curve has none: give PRUM ...
    """
    spec = parse_measure(text)
    if spec.cutoff is not None:
        raise UsageError(f"{text} has a cutoff, a curve has none: give {spec.name} for its "
                         f"curve, read at every level or rank")
    name = _canonical(spec.name, False)
    found = provider(name).curve(name) if name is not None else None
    if name is None or found is None:
        raise UsageError(f"no curve for {text!r}; curves: {', '.join(curve_names())}")
    spec = MeasureSpec(name, dict(spec.params))
    fam = family(name)
    if fam is not None:
        fam.bind(spec)  # its parameters checked once, as -m does
        _points(fam, spec, found, text)
    return spec, found


def _points(fam: Family, spec: MeasureSpec, kind: Curve, text: str) -> None:
    """UsageError when ``spec`` read at the first point of its curve is no
    measure: a parameter that names one point itself, as ``r=K`` of PRUM.
    The error suggests ``spec`` without the parameter that does."""
    point = CURVE_LEVELS[0] if kind.axis == "level" else str(CURVE_RANKS[0])
    try:
        fam.bind(MeasureSpec(spec.name, dict(spec.params), point))
    except UsageError:
        for key, value in spec.params.items():
            rest = {k: v for k, v in spec.params.items() if k != key}
            try:
                fam.bind(MeasureSpec(spec.name, rest, point))
            except UsageError:
                continue
            raise UsageError(f"{text} has no curve ({key}={value} names one point of it); "
                             f"use -m {MeasureSpec(spec.name, rest)}") from None
        raise UsageError(f"{text} has no curve; use -m {spec.name}") from None


def curve_names() -> list[str]:
    """Every name ``graphprum plot`` draws a curve of."""
    return [n for n, f in families().items() if f.curve is not None] + list(IR_CURVES)


def describe(text: str) -> str:
    """``text`` (a family, a trec_eval or an ir_measures name, any case, as
    ``-m`` takes it) described in plain text: ``graphprum measures NAME``.

    >>> print(describe("srp").splitlines()[0])
    SRP: structural relevance precision SR@k / k (§6); classical precision at k
    """
    text = text.strip()
    if text in TREC_SETS:
        return CLASSICAL.help(text)
    name = resolve(text)[0].name
    return provider(name).help(name)


def catalog() -> list[dict[str, str]]:
    """One row per name ``-m`` takes, what ``graphprum measures`` lists:
    graphprum's families, then trec_eval's names and sets, then ir_measures'
    names (column ``source``: ``graphprum``, ``trec_eval``, ``ir_measures``).

    >>> rows = catalog()
    >>> [r["source"] for r in rows if r["name"] in ("PRUM", "map", "nDCG")]
    ['graphprum', 'trec_eval', 'ir_measures']
    """
    return [row for p in PROVIDERS for row in p.catalog()]


def _parse(text: str) -> MeasureSpec | None:
    try:
        return parse_measure(text)
    except UsageError:
        return None


def _canonical(name: str, trec_matches: bool) -> str | None:
    """``name`` as a family or ir_measures name, exactly or in another case."""
    if family(name) is not None or name in ir_measure_names():
        return name
    low = name.lower()
    fams = [f for f in family_names() if f.lower() == low]
    if fams:
        return _one(name, fams)
    if trec_matches:
        return None
    irs = [n for n in ir_measure_names() if n.lower() == low]
    if irs:
        return _one(name, sorted({_ir_canonical(n) for n in irs}))
    return None


def _ir_canonical(name: str) -> str:
    return str(getattr(ir_measures.measures.registry[name], "NAME", name))


def _one(name: str, found: list[str]) -> str:
    if len(found) > 1:
        raise UsageError(f"measure {name!r} is ambiguous: {' or '.join(found)} (names are "
                         f"case-sensitive where they differ only by case)")
    return found[0]


def _trec_any_case(text: str) -> list[str] | None:
    """trec_eval names of ``text`` with its measure or set name in any case."""
    low = text.lower()
    for name in [*TREC_SETS, *sorted(TREC_MEASURES, key=len, reverse=True)]:
        n = name.lower()
        if low == n or (low.startswith(n) and len(low) > len(n) and low[len(n)] in "._"):
            return trec_names(name + text[len(name):])
    return None


#: The largest rank cutoff (trec_eval and pytrec_eval keep cutoffs in C ints).
MAX_CUTOFF = 2**31 - 1


def _check_ir(spec: MeasureSpec) -> None:
    """UsageError unless ir_measures can parse ``spec``."""
    rank_cutoff = spec.name.lower() != "iprec"  # IPrec@R: a recall level
    if rank_cutoff and spec.cutoff is not None and spec.cutoff.isdigit():
        if int(spec.cutoff) < 1:
            raise UsageError(f"measure {spec}: the cutoff must be a rank >= 1")
        if int(spec.cutoff) > MAX_CUTOFF:
            raise UsageError(f"measure {spec}: the cutoff must be a rank <= {MAX_CUTOFF}")
    try:
        measure = ir_measures.parse_measure(str(spec))
        # e.g. P@1.5, NERR10@10, SDCG@10 without max_rel
        measure.validate_params()  # type: ignore[no-untyped-call]  # ir_measures: unannotated
    except (ValueError, NameError, TypeError, AttributeError, KeyError, SyntaxError,
            AssertionError) as exc:
        reason = " ".join(str(exc).split())
        reason = re.sub(r"<object object at 0x[0-9a-f]+>", "(not given)", reason)
        raise UsageError(f"measure {spec}: ir_measures cannot take it ({reason})") from None


def known_names() -> list[str]:
    """Every measure and set name ``-m`` accepts (parameters and cutoffs aside)."""
    return [*family_names(), *TREC_SETS, *TREC_MEASURES, *ir_measure_names()]


def _trec_typo(text: str, name: str) -> str | None:
    """A suggestion for a misspelt parameterised trec_eval name (``ndgc_cut_10``)."""
    tail = re.search(r"[_.][0-9][0-9.,]*$", name)
    if not tail:
        return None
    roots = [r for r in TREC_MEASURES if TREC_MEASURES[r].param is not None]
    close = difflib.get_close_matches(name[:tail.start()], roots, n=3, cutoff=0.6)
    if not close:
        return None
    params = tail.group()[1:]
    return f"unknown measure {text!r}; did you mean " + " or ".join(
        f"{r}_{params}" if "," not in params else f"{r}.{params}" for r in close) + "?"


def _cutoff_typo(text: str, name: str) -> str | None:
    """A suggestion for a cutoff written without its ``@`` (``P10``, ``nDCG20``)."""
    glued = re.fullmatch(r"([A-Za-z](?:[\w-]*?[A-Za-z])?)([0-9]+)", name)
    if not glued:
        return None
    root, k = glued.groups()
    known = {n.lower(): n for n in known_names()}
    if root.lower() not in known:
        return None
    close = [f"{known[root.lower()]}@{k}"]
    if root in TREC_MEASURES and TREC_MEASURES[root].param is not None:
        close.append(f"{root}_{k}")
    close = [n for n in close if _resolves(n)]  # not ESL@2, PRUM@5 (a level) ...
    return f"unknown measure {text!r}; did you mean {' or '.join(close)}?" if close else None


def _resolves(name: str) -> bool:
    try:
        resolve(name)
    except UsageError:
        return False
    return True


def _unknown(text: str, name: str) -> str:
    typo = _trec_typo(text, name) or _cutoff_typo(text, name)
    if typo is not None:
        return typo
    close = difflib.get_close_matches(name, known_names(), n=3, cutoff=0.6)
    if not close:
        close = difflib.get_close_matches(name.lower(), [n.lower() for n in known_names()],
                                          n=3, cutoff=0.6)
        close = [n for n in known_names() if n.lower() in close][:3]
    if close:
        return f"unknown measure {text!r}; did you mean {' or '.join(dict.fromkeys(close))}?"
    return (f"unknown measure {text!r}: not a graphprum measure, a trec_eval name or one "
            f"ir_measures knows (see docs/trec_eval.md)")
