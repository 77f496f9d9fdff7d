"""Measure names (DESIGN §1.6), parsed with ir_measures' grammar, and their implementations.

A measure name reads ``NAME(param=value,...)@cutoff``; the cutoff is a rank
(``SR@10``) or a recall level (``PRUM@0.5``) depending on the family.  Each
family module registers a function ``compute(spec, ctx) -> float`` for one
topic; names that no family claims are classical measures handed to
ir_measures as a whole run.

Examples
--------
>>> parse_measure("PRUM(exact=mc,samples=1000)@0.5")
MeasureSpec(name='PRUM', params={'exact': 'mc', 'samples': '1000'}, cutoff='0.5')
>>> str(parse_measure("SRP@10"))
'SRP@10'
>>> parse_measure("BEPD(A=0.1)").param("A", float, 1.0)
0.1
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from graphprum.errors import UsageError

if TYPE_CHECKING:
    from graphprum.context import TopicContext

_NAME = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_\-]*)\s*(?:\(([^()]*)\))?\s*(?:@\s*([^\s()]+))?\s*$")


@dataclass(frozen=True)
class MeasureSpec:
    """A parsed measure name: ``NAME(params)@cutoff``."""

    name: str
    params: dict[str, str] = field(default_factory=dict)
    cutoff: str | None = None

    def __str__(self) -> str:
        text = self.name
        if self.params:
            text += "(" + ",".join(f"{k}={v}" for k, v in self.params.items()) + ")"
        if self.cutoff is not None:
            text += f"@{self.cutoff}"
        return text

    def __hash__(self) -> int:
        return hash(str(self))

    def param(self, key: str, kind: Callable[[str], Any] = str, default: Any = None) -> Any:
        """A parameter converted with ``kind``; ``default`` when absent.

        Raises UsageError naming the measure when the value does not convert.
        """
        if key not in self.params:
            return default
        try:
            return kind(self.params[key])
        except (TypeError, ValueError):
            raise UsageError(
                f"measure {self}: parameter {key}={self.params[key]!r} is not a valid "
                f"{getattr(kind, '__name__', 'value')}"
            ) from None

    def cutoff_as(self, kind: Callable[[str], Any], default: Any = None) -> Any:
        """The cutoff converted with ``kind`` (``int`` for ranks, ``float`` for levels)."""
        if self.cutoff is None:
            return default
        try:
            return kind(self.cutoff)
        except ValueError:
            raise UsageError(f"measure {self}: cutoff @{self.cutoff} is not a valid "
                             f"{getattr(kind, '__name__', 'value')}") from None


def parse_measure(text: str) -> MeasureSpec:
    """Parse ``NAME(param=value,...)@cutoff``; UsageError on a malformed name."""
    m = _NAME.match(text)
    if not m:
        raise UsageError(f"cannot parse measure name {text!r}; "
                         f"expected NAME(param=value,...)@cutoff")
    name, params_text, cutoff = m.groups()
    params: dict[str, str] = {}
    if params_text:
        for item in params_text.split(","):
            if not item.strip():
                continue
            if "=" not in item:
                raise UsageError(f"measure {text!r}: parameter {item.strip()!r} must be key=value")
            k, v = item.split("=", 1)
            params[k.strip()] = v.strip()
    return MeasureSpec(name, params, cutoff)


#: A measure implementation: value of ``spec`` for the topic in ``ctx``.
MeasureFunc = Callable[[MeasureSpec, "TopicContext"], float]


@dataclass(frozen=True)
class Family:
    """A registered measure family.

    Attributes
    ----------
    compute : callable
        ``compute(spec, ctx) -> float`` for one topic.
    needs_store : bool
        Whether the measure reads the collection's structure (spans, trees).
    expand : callable or None
        Turns a bare name into the names it stands for (``SRP`` ->
        ``SRP@5``, ``SRP@10``, ...); None when the name stands for itself.
    aggregate : {"mean", "sum", "gmean"}
        How the per-topic values become the ``all`` value (:func:`aggregate`).
    """

    compute: MeasureFunc
    needs_store: bool = False
    expand: Callable[[MeasureSpec], list[MeasureSpec]] | None = None
    aggregate: str = "mean"


_FAMILIES: dict[str, Family] = {}


def register(name: str, compute: MeasureFunc, *, needs_store: bool = False,
             expand: Callable[[MeasureSpec], list[MeasureSpec]] | None = None,
             aggregate: str = "mean") -> None:
    """Register the family ``name`` (case-sensitive, as in DESIGN §1.6)."""
    if aggregate not in AGGREGATES:
        raise ValueError(f"aggregate {aggregate!r}: expected one of {', '.join(AGGREGATES)}")
    _FAMILIES[name] = Family(compute, needs_store, expand, aggregate)


def family(name: str) -> Family | None:
    """The registered family of ``name``, or None for classical measures."""
    _load_families()
    return _FAMILIES.get(name)


def families() -> dict[str, Family]:
    """All registered families by name."""
    _load_families()
    return dict(_FAMILIES)


#: How per-topic values become the ``all`` value: the arithmetic mean (most
#: measures), the sum (counts: trec_eval's ``num_rel_ret``, ir_measures'
#: ``NumRelRet``), the geometric mean (``gm_map``, ``gm_bpref``).
AGGREGATES = ("mean", "sum", "gmean")

#: trec_eval's floor for a value entering a geometric mean (``MIN_GEO_MEAN``):
#: a topic scoring 0 would otherwise make the geometric mean 0.
MIN_GEO_MEAN = 1e-5


def aggregate(values: Sequence[float], how: str = "mean") -> float:
    """The ``all`` value of per-topic ``values``; 0.0 without topics.

    ``gmean`` is trec_eval's: ``exp(mean(log(max(v, MIN_GEO_MEAN))))``.

    >>> aggregate([1.0, 2.0, 6.0]), aggregate([1.0, 2.0, 6.0], "sum")
    (3.0, 9.0)
    >>> round(aggregate([0.5, 0.0], "gmean"), 6)  # sqrt(0.5 * 1e-5)
    0.002236
    """
    if how not in AGGREGATES:
        raise ValueError(f"aggregate {how!r}: expected one of {', '.join(AGGREGATES)}")
    if len(values) == 0:
        return 0.0
    v = np.asarray(values, dtype=np.float64)
    if how == "sum":
        return float(np.sum(v))
    if how == "gmean":
        return float(np.exp(np.sum(np.log(np.maximum(v, MIN_GEO_MEAN))) / len(v)))
    return float(np.mean(v))


_LOADED = False


def _load_families() -> None:
    """Import the family modules once; each registers its names on import."""
    global _LOADED
    if _LOADED:
        return
    import importlib

    for module in ("prum", "sr", "inex", "t2i"):
        importlib.import_module(f"graphprum.measures.{module}")
    _LOADED = True
