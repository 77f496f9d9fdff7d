"""What a measure family declares about itself, and what its function receives.

Each graphprum measure NAME is a :class:`Family` that describes itself, as
ir_measures' measures do with ``SUPPORTED_PARAMS`` and trec_eval's with its
measure table:

- its parameters (:class:`Param`: type, default, range, description);
- its cutoff: a rank (``SR@10``), a recall level (``PRUM@0.5``), either
  (``EPRUM@1`` is rank 1, ``EPRUM@1.0`` recall level 1.0), or none;
- the cutoffs a bare name stands for (``SRP`` -> ``SRP@5``, ``@10``, ...);
- how per-topic values aggregate over topics
  (:data:`~graphprum.measures.aggregate.AGGREGATES`);
- its curve (:class:`Curve`), when ``graphprum plot`` can draw one;
- what it needs besides the run and qrels (:data:`NEEDS`);
- a one-line summary, names with their meaning, and a description: the
  first paragraph of the docstring of the module that declares it.

A name is checked against the declaration once, generically
(:meth:`Family.bind`), before anything is computed; the family's function
then receives the checked :class:`Measure`, with typed parameters and its
cutoff read as a rank or a level, and returns a float or a :class:`Value`
(a value with its standard error or a note).  The index of every family is
:mod:`graphprum.measures.registry`.

Examples
--------
>>> from graphprum.measures.spec import parse_measure
>>> double = Family("Double", lambda m, ctx: 2.0 * m["x"], "twice x",
...                 params={"x": Param(float, 1.0, "the value", minimum=0)}, cutoff="rank")
>>> m = double.bind(parse_measure("Double(x=3)@5"))
>>> m["x"], m.rank, m.level, double.compute(parse_measure("Double"), None)
(3.0, 5, None, 2.0)
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from graphprum.context import TopicContext
from graphprum.errors import UsageError
from graphprum.measures.aggregate import AGGREGATES
from graphprum.measures.spec import MeasureSpec, is_bare_name

#: Spellings of true and false accepted by boolean parameters.
_TRUE = ("true", "1", "yes", "on")
_FALSE = ("false", "0", "no", "off")
_KIND_NAMES = {int: "INT", float: "NUMBER", bool: "BOOL", str: "TEXT"}


@dataclass(frozen=True)
class Param:
    """One parameter of a family (after ir_measures' ``ParamInfo``).

    Attributes
    ----------
    kind : {int, float, bool, str}
        The type a value converts to (floats must be finite; booleans are
        true/false, 1/0, yes/no, on/off).
    default : Any
        The value when the name does not give one (None: the family decides,
        as ``desc`` says).
    desc : str
        What the parameter means, for help texts.
    choices : tuple of str
        The only values accepted (a text parameter such as ``exact``).
    minimum, maximum : float or None
        Inclusive bounds of a number.
    above : float or None
        Exclusive lower bound of a number (``A > 0``).
    keywords : tuple of str
        Words accepted besides numbers, kept as text (``S=R``).
    requires : (str, str) or None
        Another parameter and its value that must be given with this one
        (``samples`` goes with ``exact=mc``).

    Examples
    --------
    >>> Param(int, 1000, "simulated users", minimum=1).describe()
    '>= 1, default 1000'
    >>> Param(float, 0.1, above=0).convert("1e-2", "BEPD(A=1e-2)", "A")
    0.01
    """

    kind: type = str
    default: Any = None
    desc: str = ""
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    above: float | None = None
    keywords: tuple[str, ...] = ()
    requires: tuple[str, str] | None = None

    def __post_init__(self) -> None:
        if self.kind not in _KIND_NAMES:
            raise TypeError(f"Param kind {self.kind!r}: expected int, float, bool or str")

    def range_text(self) -> str:
        """The accepted values in words: ``'>= 1'``, ``'in [0, 1]'``, ``'enum | mc'``."""
        if self.choices:
            return " | ".join(self.choices)
        parts = []
        if self.minimum is not None and self.maximum is not None:
            parts.append(f"in [{_number(self.minimum)}, {_number(self.maximum)}]")
        elif self.minimum is not None:
            parts.append(f">= {_number(self.minimum)}")
        elif self.maximum is not None:
            parts.append(f"<= {_number(self.maximum)}")
        if self.above is not None:
            parts.append(f"> {_number(self.above)}")
        text = " and ".join(parts)
        if self.keywords:
            text = (text + " or " if text else "") + " | ".join(self.keywords)
        return text

    def describe(self) -> str:
        """Range, default and companion in one line (help texts).

        >>> Param(str, "thorough", choices=("thorough", "focused")).describe()
        'default thorough'
        >>> Param(int, 1000, minimum=1, requires=("exact", "mc")).describe()
        '>= 1, default 1000, only with exact=mc'
        """
        parts = [] if self.choices else [self.range_text()]
        if self.default is not None:
            parts.append(f"default {_shown(self.default)}")
        if self.requires is not None:
            parts.append(f"only with {self.requires[0]}={self.requires[1]}")
        return ", ".join(p for p in parts if p)

    def placeholder(self) -> str:
        """What a value looks like: ``INT``, ``NUMBER``, ``enum|mc`` (help texts)."""
        return "|".join(self.choices) if self.choices else _KIND_NAMES[self.kind]

    def convert(self, text: str, measure: object, key: str) -> Any:
        """``text`` as this parameter's value; UsageError naming ``measure`` and
        ``key`` when it is not one."""
        value = text.strip()
        if value in self.keywords:
            return value
        if self.choices:
            if value not in self.choices:
                raise UsageError(f"measure {measure}: {key} must be {' or '.join(self.choices)}, "
                                 f"got {text!r}")
            return value
        try:
            out = _CONVERT[self.kind](value)
        except (TypeError, ValueError):
            what = {int: "an integer", float: "a finite number", bool: "true or false",
                    str: "text"}[self.kind]
            raise UsageError(f"measure {measure}: parameter {key}={text!r} is not {what}"
                             + (f" (or {' | '.join(self.keywords)})" if self.keywords else "")
                             ) from None
        if self.kind in (int, float) and not self._in_range(out):
            raise UsageError(f"measure {measure}: {key} must be {self.range_text()}, got {text}")
        return out

    def _in_range(self, v: float) -> bool:
        return not ((self.minimum is not None and v < self.minimum)
                    or (self.maximum is not None and v > self.maximum)
                    or (self.above is not None and not v > self.above))


def _to_bool(text: str) -> bool:
    t = text.lower()
    if t in _TRUE:
        return True
    if t in _FALSE:
        return False
    raise ValueError(text)


def _to_float(text: str) -> float:
    v = float(text)
    if not math.isfinite(v):
        raise ValueError(text)
    return v


_CONVERT: dict[type, Callable[[str], Any]] = {int: int, float: _to_float, bool: _to_bool,
                                              str: str}


def _number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def _shown(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return _number(v)
    return str(v)


#: What a cutoff ``@X`` can be: a rank k (an integer >= 1), a recall level
#: L in [0, 1], either (an integer is a rank, a number with a decimal point,
#: an exponent or a slash a level: ``EPRUM@1`` vs ``EPRUM@1.0``), or nothing.
CUTOFF_KINDS = ("rank", "level", "rank|level", "none")
#: Which values of a measure are better (:attr:`Family.better`); None: neither.
BETTER = ("higher", "lower", None)
#: What a family may need besides runs and qrels, and how help texts say it.
NEEDS = {"store": "a store (--store)",
         "passages": "passage assessments (--passages)",
         "assessments": "passage assessments (--passages) or graded element qrels "
                        "(--qrels)",
         "beps": "best entry points in the passage assessments"}
#: Recall levels a level curve is read at, as cutoffs.
CURVE_LEVELS = tuple(f"{i / 10:.1f}" for i in range(11))
#: Default ranks of a rank curve.
CURVE_RANKS = tuple(range(1, 51))
_CUTOFF_TEXT = {"rank": "@k: a rank, an integer >= 1",
                "level": "@L: a recall level in [0, 1]",
                "rank|level": "@k: a rank (an integer: @1), or @L: a recall level in [0, 1] "
                              "(with a decimal point: @1.0)",
                "none": "none"}


@dataclass(frozen=True)
class Curve:
    """How ``graphprum plot`` draws a family: its values at every recall
    level 0.0, 0.1, ..., 1.0 (``axis="level"``) or at ranks 1..50
    (``axis="rank"``) against that axis.

    Attributes
    ----------
    axis : {"level", "rank"}
    label : str
        The y axis label.
    bounded : bool
        Whether the values lie in [0, 1] (the y axis is then [0, 1]).
    """

    axis: str
    label: str
    bounded: bool = True

    def __post_init__(self) -> None:
        if self.axis not in ("level", "rank"):
            raise ValueError(f"Curve axis {self.axis!r}: expected level or rank")

    def describe(self) -> str:
        """The curve in words (help texts)."""
        x = "recall levels 0.0, 0.1, ..., 1.0" if self.axis == "level" else "ranks 1..50"
        return f"{self.label} at {x}"


@dataclass(frozen=True)
class Value:
    """What a family's function may return besides a float: the value of
    one topic with its standard error (simulated measures) and a note for
    the user (why the error is what it is)."""

    value: float
    stderr: float | None = None
    note: str | None = None


@dataclass(frozen=True)
class Measure:
    """A measure name checked against its family: what a family's function receives.

    Attributes
    ----------
    spec : MeasureSpec
        The name as given (``str(measure)`` is its row name).
    args : mapping
        Every declared parameter: the given value converted, else its default.
    rank, level : int or Fraction or None
        The cutoff, read as the family declares (at most one is set).
    """

    spec: MeasureSpec
    args: Mapping[str, Any]
    rank: int | None = None
    level: Fraction | None = None

    @property
    def name(self) -> str:
        return self.spec.name

    def __str__(self) -> str:
        return str(self.spec)

    def __getitem__(self, key: str) -> Any:
        return self.args[key]

    def given(self, key: str) -> bool:
        """Whether the name gave parameter ``key`` (rather than its default)."""
        return key in self.spec.params


#: A family's function: the value of a checked measure for the topic in ``ctx``.
MeasureFunc = Callable[[Measure, TopicContext], "float | Value"]


@dataclass(frozen=True, eq=False)
class Family:
    """One measure name, declared with everything the rest of graphprum asks of it.

    Attributes
    ----------
    name : str
        The name (case-sensitive, DESIGN §1.6).
    function : callable
        ``function(measure, ctx) -> float | Value`` for one topic;
        ``measure`` is the checked :class:`Measure`.
    summary : str
        One line: what the value is, and the equation it comes from.
    params : mapping of str to Param
        The parameters the name takes (any other is an error).
    cutoff : {"rank", "level", "rank|level", "none"}
        What ``@X`` is (:data:`CUTOFF_KINDS`).
    expands_to : tuple of str
        The cutoffs a bare name stands for (empty: the name stands for itself).
    aggregate : {"mean", "sum", "gmean"}
        How per-topic values become the ``all`` value
        (:func:`~graphprum.measures.aggregate.aggregate`).
    better : {"higher", "lower", None}
        Which values are better: what eval's and compare's tables set in
        bold and compare's superscripts point at ("lower" for ``ESL``, a
        count of give-ups; None where "best" means nothing, as for counts).
    curve : Curve or None
        How ``graphprum plot`` draws it, if it can.
    needs : tuple of str
        Keys of :data:`NEEDS`: a store, passage assessments, best entry points.
    examples : tuple of (str, str)
        Names and what they compute (the first is the example command's).
    validate : callable or None
        Rules between parameters, called with the checked :class:`Measure`
        (``PRUM``: ``r=K`` or ``@L``, not both); raises UsageError.
    ranges : str
        How the family reads a range run (results that are passages or
        clips, not units: ``ctx.spans``), in a few words starting "taken";
        empty: it takes runs of units only.
    description : str
        A paragraph: the first of the declaring module's docstring unless given.
    module : str
        The declaring module (set by :mod:`graphprum.measures.registry`).
    """

    name: str
    function: MeasureFunc
    summary: str
    params: Mapping[str, Param] = field(default_factory=dict)
    cutoff: str = "none"
    expands_to: tuple[str, ...] = ()
    aggregate: str = "mean"
    better: str | None = "higher"
    curve: Curve | None = None
    needs: tuple[str, ...] = ()
    examples: tuple[tuple[str, str], ...] = ()
    validate: Callable[[Measure], None] | None = None
    ranges: str = ""
    description: str = ""
    module: str = ""
    _bound: dict[str, Measure] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        if not is_bare_name(self.name):
            raise ValueError(f"family name {self.name!r} is not a measure name")
        if self.aggregate not in AGGREGATES:
            raise ValueError(f"{self.name}: aggregate {self.aggregate!r}: expected one of "
                             f"{', '.join(AGGREGATES)}")
        if self.better not in BETTER:
            raise ValueError(f"{self.name}: better {self.better!r}: expected one of "
                             f"{', '.join(map(repr, BETTER))}")
        if self.cutoff not in CUTOFF_KINDS:
            raise ValueError(f"{self.name}: cutoff {self.cutoff!r}: expected one of "
                             f"{', '.join(CUTOFF_KINDS)}")
        unknown = set(self.needs) - set(NEEDS)
        if unknown:
            raise ValueError(f"{self.name}: needs {sorted(unknown)}: expected {', '.join(NEEDS)}")
        if self.expands_to and self.cutoff == "none":
            raise ValueError(f"{self.name}: expands_to needs a cutoff kind")

    @property
    def example(self) -> str:
        """The name of the example command: the first example with parameters
        or a cutoff, else the first example."""
        names = [n for n, _ in self.examples]
        return next((n for n in names if "(" in n or "@" in n), names[0] if names else self.name)

    @property
    def needs_store(self) -> bool:
        """Whether the measure reads the collection's structure (spans, trees)."""
        return "store" in self.needs

    # ------------------------------------------------------------------ names

    def bind(self, spec: MeasureSpec) -> Measure:
        """``spec`` checked against the declaration: typed parameters with
        their defaults, the cutoff as a rank or a level; UsageError naming
        the measure for anything the family does not take."""
        key = str(spec)
        bound = self._bound.get(key)
        if bound is None:
            bound = self._bind(spec)
            self._bound[key] = bound
        return bound

    def _bind(self, spec: MeasureSpec) -> Measure:
        if spec.name != self.name:
            raise UsageError(f"measure {spec} is not a {self.name} measure")
        unknown = [k for k in spec.params if k not in self.params]
        if unknown:
            takes = f"takes {', '.join(self.params)}" if self.params else "takes no parameters"
            raise UsageError(f"measure {spec}: unknown parameter(s) {', '.join(sorted(unknown))};"
                             f" {self.name} {takes}")
        args = {k: (p.convert(spec.params[k], spec, k) if k in spec.params else p.default)
                for k, p in self.params.items()}
        for k, p in self.params.items():
            if p.requires is not None and k in spec.params:
                other, want = p.requires
                if args.get(other) != want:
                    raise UsageError(f"measure {spec}: {k} only goes with {other}={want}")
        rank, level = self._cutoff(spec)
        measure = Measure(spec, args, rank, level)
        if self.validate is not None:
            self.validate(measure)
        return measure

    def _cutoff(self, spec: MeasureSpec) -> tuple[int | None, Fraction | None]:
        text = spec.cutoff
        if text is None:
            return None, None
        if self.cutoff == "none":
            raise UsageError(f"measure {spec}: {self.name} takes no @cutoff")
        if self.cutoff == "rank" or (self.cutoff == "rank|level" and text.isdigit()):
            if not text.isdigit() or int(text) < 1:
                raise UsageError(f"measure {spec}: the cutoff @{text} must be a rank, an "
                                 f"integer >= 1")
            return int(text), None
        try:
            level = Fraction(text)
        except (ValueError, ZeroDivisionError):
            raise UsageError(f"measure {spec}: the cutoff @{text} must be a recall level, a "
                             f"number in [0, 1]") from None
        if not 0 <= level <= 1:
            raise UsageError(f"measure {spec}: the recall level @{text} is outside [0, 1]")
        return None, level

    def expand(self, spec: MeasureSpec) -> list[MeasureSpec]:
        """The names a bare name stands for (``SRP`` -> ``SRP@5``, ``SRP@10``, ...).

        >>> srp = Family("SRP", lambda m, ctx: 0.0, "SR@k / k", cutoff="rank",
        ...              expands_to=("5", "10", "25", "50"))
        >>> [str(s) for s in srp.expand(MeasureSpec("SRP"))]
        ['SRP@5', 'SRP@10', 'SRP@25', 'SRP@50']
        """
        if spec.cutoff is not None or not self.expands_to:
            return [spec]
        return [MeasureSpec(spec.name, dict(spec.params), c) for c in self.expands_to]

    # ------------------------------------------------------------ computation

    def evaluate(self, spec: MeasureSpec, ctx: TopicContext) -> Value:
        """The value of ``spec`` for the topic of ``ctx``, with its standard
        error and note when the family gives them."""
        out = self.function(self.bind(spec), ctx)
        return out if isinstance(out, Value) else Value(float(out))

    def compute(self, spec: MeasureSpec, ctx: TopicContext) -> float:
        """The value of ``spec`` for the topic of ``ctx``."""
        return self.evaluate(spec, ctx).value

    # ------------------------------------------------------------------- help

    def help(self, width: int = 78) -> str:
        """The family described in plain text: what ``graphprum measures NAME``,
        ``graphprum eval -m help`` and the docs print."""
        out = [textwrap.fill(f"{self.name}: {self.summary}", width, break_on_hyphens=False),
               ""]
        if self.description:
            out += [textwrap.fill(self.description, width, break_on_hyphens=False), ""]
        facts = [("cutoff", _CUTOFF_TEXT[self.cutoff]
                  + (f"; bare {self.name} = @{', @'.join(self.expands_to)}"
                     if self.expands_to else ""))]
        facts.append(("aggregate", f"{self.aggregate} over topics"))
        facts.append(("needs", ", ".join(NEEDS[n] for n in self.needs) or
                      "runs and qrels only"))
        facts.append(("curve", self.curve.describe() + f" (graphprum\xa0plot\xa0-m\xa0{self.name})"
                      if self.curve else "none"))
        if self.ranges:
            facts.append(("ranges", self.ranges))
        out += _columns(facts, width)
        out += ["", "parameters:" if self.params else "parameters: none"]
        rows = []
        for k, p in self.params.items():
            extra = p.describe()
            rows.append((f"  {k}={p.placeholder()}",
                         p.desc + (f" ({extra})" if extra and p.desc else extra)))
        out += _columns(rows, width)
        if self.examples:
            out += ["", "names:"]
            out += _columns([(f"  {n}", meaning) for n, meaning in self.examples], width)
            out += ["", "example:",
                    f"  graphprum eval RUN --qrels QRELS -m '{self.example}'"]
        out.append(f"\n(declared in {self.module})" if self.module else "")
        return "\n".join(out).rstrip() + "\n"

    def describe(self) -> dict[str, Any]:
        """The declaration as JSON-ready data (``graphprum measures --format json``)."""
        return {
            "name": self.name, "summary": self.summary, "description": self.description,
            "cutoff": self.cutoff, "expands_to": list(self.expands_to),
            "aggregate": self.aggregate, "needs": list(self.needs),
            "curve": None if self.curve is None else
            {"axis": self.curve.axis, "label": self.curve.label, "bounded": self.curve.bounded},
            "params": {k: {"type": _KIND_NAMES[p.kind].lower(), "default": p.default,
                           "range": p.range_text(), "description": p.desc,
                           **({"requires": f"{p.requires[0]}={p.requires[1]}"}
                              if p.requires else {})}
                       for k, p in self.params.items()},
            "examples": [{"name": n, "meaning": m} for n, m in self.examples],
            "ranges": self.ranges,
            "module": self.module,
        }


def _columns(rows: Sequence[tuple[str, str]], width: int) -> list[str]:
    """``label  text`` lines, the texts aligned and wrapped under themselves."""
    if not rows:
        return []
    pad = min(max(len(a) for a, _ in rows), 32) + 2
    out = []
    for a, b in rows:
        # a bound stays with its number (">= 0" is never cut in two)
        b = re.sub(r"([<>]=?) ", "\\1\xa0", b)
        lines = [x.replace("\xa0", " ") for x in
                 textwrap.wrap(b, max(20, width - pad), break_on_hyphens=False)] or [""]
        if len(a) + 2 > pad:
            out.append(a)
            out.extend(" " * pad + x for x in lines)
        else:
            out.append(a.ljust(pad) + lines[0])
            out.extend(" " * pad + x for x in lines[1:])
    return out


def first_paragraph(doc: str) -> str:
    """The first paragraph of a docstring as plain text (reST roles and
    literals unwrapped, lines joined).

    >>> first_paragraph('''``SR@k`` of :mod:`graphprum.measures.sr`
    ... (CIKM 2008).
    ...
    ... More.''')
    'SR@k of graphprum.measures.sr (CIKM 2008).'
    """
    para = textwrap.dedent(doc).strip().split("\n\n", 1)[0]
    text = " ".join(line.strip() for line in para.splitlines())
    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"\1", text)
    return text.replace("``", "")
