"""Every measure family graphprum computes, by name (DESIGN §1.6).

The families are declared in the modules of :data:`MODULES`, each defining
``FAMILIES``, a tuple of :class:`~graphprum.measures.declare.Family`; this
list is the index, imported as it stands: a new family module is added
here (``tests/measures/test_registry.py`` names a module of the package that
declares families and is missing).  Names, ``graphprum measures``, help
texts, curves and the ``all`` row follow from the declarations.  Each
family's description is, unless declared, the first paragraph of its
module's docstring.  Classical names (trec_eval's, ir_measures') are
answered by :mod:`graphprum.measures.classical_names`, which answers the same
:class:`Provider` questions.

The rest of graphprum reads measure names through this module and
:mod:`graphprum.measures.names`, so the declarations' own types are named
here too (:class:`Family`, :class:`MeasureSpec`, :func:`parse_measure`,
:func:`aggregate`, ...).

Examples
--------
>>> m = family("PRUM").bind(parse_measure("PRUM(exact=mc)@0.5"))
>>> m["samples"], m.level, m.rank
(1000, Fraction(1, 2), None)
>>> family("EPRUM").bind(parse_measure("EPRUM@1")).rank, family("EPRUM").bind(
...     parse_measure("EPRUM@1.0")).level
(1, Fraction(1, 1))
>>> family("map") is None  # a classical measure
True
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from types import ModuleType
from typing import Protocol

from graphprum.errors import UsageError
from graphprum.measures import bic, focused, grp, prum, ric, sr, success, t2i, xcg
from graphprum.measures.aggregate import AGGREGATES, MIN_GEO_MEAN, aggregate
from graphprum.measures.declare import (
    CURVE_LEVELS,
    CURVE_RANKS,
    CUTOFF_KINDS,
    NEEDS,
    Curve,
    Family,
    Measure,
    Param,
    Value,
    first_paragraph,
)
from graphprum.measures.spec import MeasureSpec, parse_measure

__all__ = [
    "AGGREGATES", "CURVE_LEVELS", "CURVE_RANKS", "CUTOFF_KINDS", "FAMILY_MEASURES",
    "MIN_GEO_MEAN", "MODULES", "NEEDS", "Curve", "Family", "Measure", "MeasureSpec", "Param",
    "Provider", "Value", "aggregate", "families", "family", "family_names", "index",
    "parse_measure",
]

#: The modules that declare graphprum's families (the ``prum`` package hands
#: on those of :mod:`graphprum.measures.prum.family`).
MODULES: tuple[ModuleType, ...] = (bic, focused, grp, prum, ric, sr, success, t2i, xcg)


def index(modules: Iterable[ModuleType]) -> dict[str, Family]:
    """The families the ``modules`` declare (their ``FAMILIES``), by name in
    the order of the names (case aside), each knowing its module and, unless
    declared, its description: the first paragraph of the module's docstring.
    Two modules declaring one name is an error.

    >>> list(index([sr]))
    ['SR', 'SRP']
    """
    found: dict[str, Family] = {}
    for module in modules:
        for fam in module.FAMILIES:
            if not isinstance(fam, Family):
                raise TypeError(f"{module.__name__}.FAMILIES holds {fam!r}, not a Family")
            if fam.name in found:
                raise ValueError(f"measure family {fam.name} is declared by both "
                                 f"{found[fam.name].module} and {module.__name__}")
            found[fam.name] = replace(
                fam, module=module.__name__,
                description=fam.description or first_paragraph(module.__doc__ or ""))
    return {n: found[n] for n in sorted(found, key=lambda n: (n.casefold(), n))}


_FAMILIES = index(MODULES)


def family_names() -> list[str]:
    """Every family's name, in order (case aside).

    >>> family_names()[:4]
    ['AgP', 'BEPD', 'ep', 'EPRUM']
    """
    return list(_FAMILIES)


def families() -> dict[str, Family]:
    """Every family, by name, in the order of their names (case aside)."""
    return dict(_FAMILIES)


def family(name: str) -> Family | None:
    """The family of ``name`` (case-sensitive), or None for classical measures."""
    return _FAMILIES.get(name)


class Provider(Protocol):
    """What names, help and plots ask of a source of measures: graphprum's
    families (:data:`FAMILY_MEASURES`) and the classical measures
    (:data:`graphprum.measures.classical_names.CLASSICAL`)."""

    def supports(self, name: str) -> bool:
        """Whether ``name`` (a measure name without parameters or cutoff) is one of its own."""
        ...

    def aggregation(self, spec: MeasureSpec) -> str:
        """How ``spec`` aggregates over topics (:data:`AGGREGATES`)."""
        ...

    def curve(self, name: str) -> Curve | None:
        """The curve of ``name``, or None."""
        ...

    def help(self, name: str) -> str:
        """``name`` described in plain text."""
        ...

    def catalog(self) -> list[dict[str, str]]:
        """One row per name (``graphprum measures``), columns ``name``,
        ``source``, ``cutoff``, ``aggregate``, ``needs``, ``curve``, ``summary``."""
        ...


class _Families:
    """graphprum's families as a :class:`Provider`."""

    def supports(self, name: str) -> bool:
        return name in _FAMILIES

    def aggregation(self, spec: MeasureSpec) -> str:
        return _of(spec.name).aggregate

    def curve(self, name: str) -> Curve | None:
        return _of(name).curve

    def help(self, name: str) -> str:
        return _of(name).help()

    def catalog(self) -> list[dict[str, str]]:
        """One row per family.

        >>> [r for r in FAMILY_MEASURES.catalog() if r["name"] == "PRUM"][0]["cutoff"]
        'level'
        """
        return [{"name": name, "source": "graphprum", "cutoff": f.cutoff,
                 "aggregate": f.aggregate, "needs": ",".join(f.needs) or "-",
                 "curve": f.curve.axis if f.curve is not None else "-", "summary": f.summary}
                for name, f in _FAMILIES.items()]


def _of(name: str) -> Family:
    fam = family(name)
    if fam is None:
        raise UsageError(f"{name} is not a graphprum measure family")
    return fam


#: graphprum's families, answering the :class:`Provider` questions.
FAMILY_MEASURES = _Families()
