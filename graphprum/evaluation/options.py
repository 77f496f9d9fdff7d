"""How to evaluate: :class:`EvalOptions`, every option declared once.

Each field says its type, its default and its help text (the command line's
``--help`` shows the same words); :meth:`EvalOptions.check` holds every rule
an option value must keep.  The Python API takes the options as keywords
(:meth:`EvalOptions.from_keywords`: ``graphprum.evaluate(..., nav="structural",
jobs=2)``); the command line builds its shared evaluation options from these
fields (:mod:`graphprum.cli.options`), so both say the same and check the same.

Examples
--------
>>> opts = EvalOptions.from_keywords(nav="structural", ideal_min=2)
>>> opts.nav, opts.ideal_min, opts.complete
(('structural',), 2.0, True)
>>> EvalOptions.from_keywords(jbos=2)
Traceback (most recent call last):
...
graphprum.errors.UsageError: unknown option 'jbos'; did you mean 'jobs'?
>>> EvalOptions(jobs=0)
Traceback (most recent call last):
...
graphprum.errors.UsageError: --jobs must be a positive integer or auto, got 0
>>> EvalOptions().jobs, EvalOptions(jobs=2).jobs
('auto', 2)
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import numbers
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from graphprum.errors import UsageError

#: Values of ``order`` (DESIGN §1.3).
ORDERS = ("score", "rank")
#: Values of ``unknown``: what result ids the store does not hold do.
UNKNOWN = ("error", "skip")
#: Values of ``offsets``.
OFFSETS = ("chars", "bytes")
#: INEX 2006 tasks whose rules ``task`` checks.
TASKS = ("thorough", "focused", "ric", "bic")
#: ``jobs``: as many processes as CPUs when the work pays for them (the default).
AUTO = "auto"


@dataclass(frozen=True)
class Help:
    """What the command line shows for an option: its flags and help text.

    ``flags`` empty: the option is not among the shared command-line options
    (a command that needs it declares its own).
    """

    text: str
    flags: tuple[str, ...] = ()


def _option(default: object, text: str, *flags: str) -> Any:
    """A field of :class:`EvalOptions` with its help."""
    return field(default=default, metadata={"help": Help(text, flags)})


@dataclass(frozen=True)
class EvalOptions:
    """How runs are evaluated (see the module notes).

    Create with keywords (``EvalOptions(nav=("structural",), jobs=2)``) or
    :meth:`from_keywords`, which also takes a single navigation model as a
    string and says which option was meant when a name is misspelt.  Every
    value is checked on creation (:meth:`check`); a bad one is a
    :class:`~graphprum.errors.UsageError`.
    """

    nav: tuple[str, ...] = _option(
        ("classical",),
        "Navigation model (repeat: several combine by noisy-or; structural with links also "
        "moves down into a link's target): classical (default), structural, links, "
        "browse (child, parent and link moves), walk:FILE, log:FILE, direct:FILE, bep, "
        "summary:AXPRE, t2i; their parameters: graphprum nav --help.", "--nav")
    collection_size: float | None = _option(
        None, "N for the unranked part; default: units in the store (infinite without).",
        "--collection-size")
    ideal_min: float = _option(1.0, "Ideal units have REL >= this.", "--ideal-min")
    order: str = _option("score", "score (trec_eval order) or rank (INEX).", "--order")
    dedup: bool = _option(False, "Keep the first of duplicate results.", "--dedup/--no-dedup")
    trees: bool = _option(False, "Runs list trees (lines sharing a RANK).", "--trees/--no-trees")
    strict: bool = _option(
        False, "Unknown qrels ids (and, with --task, breaking the task's rules) are an error.",
        "--strict/--no-strict")
    unknown: str = _option(
        "error", "Result ids the store does not hold: error (the default) refuses a run whose "
        "ids are mostly not in the store and counts the odd one as a non-relevant result, with "
        "a note; skip drops them before ranking (the results after them move up) and says "
        "how many per run, in a note and in the tsv, csv and json output.", "--unknown")
    offsets: str = _option("chars", "Passage offsets count 'chars' (default) or UTF-8 'bytes'.",
                           "--offsets")
    inclusive_ends: bool = _option(
        False, "Passage END offsets are inclusive (default exclusive).",
        "--inclusive-ends/--no-inclusive-ends")
    jobs: int | str = _option(
        AUTO, "Evaluate chunks of topics (and read several run files) in N processes, or "
        "auto (the default): one per CPU once the runs hold 150,000 results in the qrels' "
        "topics (8 MB of run files), else one; the same results either way.", "--jobs", "-j")
    force: bool = _option(
        False, "Start a PRUM(exact=mc) simulation even when its estimated cost (samples x "
        "ranked results) is above 1e10 steps, about 10 minutes.", "--force")
    complete: bool = _option(
        True, "Average over the qrels' topics, a topic the run lacks evaluated on an empty "
        "ranking (trec_eval -c; the default). --no-c: over the run's topics that the qrels "
        "judge (trec_eval's default).", "--complete/--no-c", "-c")
    relevance_level: int = _option(
        1, "REL a document needs to be relevant for classical measures (trec_eval -l; rel= "
        "of ir_measures names that give none).", "--level", "-l")
    judged_only: bool = _option(
        False, "Drop results the qrels do not judge (REL >= 0) before evaluating "
        "(trec_eval -J).", "--judged-only", "-J")
    max_results: int | None = _option(
        None, "Evaluate the first N results of each topic (trec_eval -M).", "--max-results",
        "-M")
    task: str | None = _option(
        None, "INEX 2006 task (thorough, focused, ric, bic) whose rules every run must keep "
        "(overlap, grouping, one element per article): violations are notes, errors with "
        "strict.")

    def __post_init__(self) -> None:
        self.check()

    @property
    def ends(self) -> str:
        """``inclusive`` or ``exclusive`` passage ends."""
        return "inclusive" if self.inclusive_ends else "exclusive"

    @classmethod
    def from_keywords(cls, base: EvalOptions | None = None, /,
                      **values: object) -> EvalOptions:
        """Options from keywords (on top of ``base``); a misspelt name is a
        UsageError saying which option was meant; ``nav`` may be one string."""
        if isinstance(base, Mapping):  # options={"collection_size": 10}
            values = {**base, **values}
            base = None
        elif base is not None and not isinstance(base, EvalOptions):
            raise UsageError(f"options are EvalOptions or a dict of them, got "
                             f"{type(base).__name__}")
        names = [f.name for f in fields(cls)]
        for name in values:
            if name not in names:
                close = difflib.get_close_matches(name, names, n=1)
                raise UsageError(f"unknown option {name!r}"
                                 + (f"; did you mean {close[0]!r}?" if close else
                                    f"; options: {', '.join(names)}"))
        if isinstance(values.get("nav"), str):
            values["nav"] = (values["nav"],)
        elif isinstance(values.get("nav"), list):
            values["nav"] = tuple(values["nav"])  # type: ignore[arg-type]
        return dataclasses.replace(base or cls(), **values)  # type: ignore[arg-type]

    def replace(self, **values: object) -> EvalOptions:
        """These options with some changed (checked again)."""
        return EvalOptions.from_keywords(self, **values)

    def check(self) -> None:
        """UsageError unless every value has its declared type and keeps its rule."""
        hints = _hints()
        for f in fields(self):
            value = getattr(self, f.name)
            fixed = _conform(value, hints[f.name])
            if fixed is _BAD:
                raise UsageError(f"option {f.name}={value!r}: expected {_describe(hints[f.name])}")
            if fixed is not value:
                object.__setattr__(self, f.name, fixed)
        if not self.nav:
            raise UsageError("--nav: give at least one navigation model")
        if self.collection_size is not None and not self.collection_size > 0:
            raise UsageError(f"--collection-size {self.collection_size:g}: N must be a positive "
                             f"number of units")
        if not self.ideal_min > 0:
            raise UsageError(f"--ideal-min {self.ideal_min:g}: must be > 0 (REL 0 means not "
                             f"relevant)")
        if self.order not in ORDERS:
            raise UsageError(f"unknown run order {self.order!r}; expected 'score' or 'rank'")
        if self.unknown not in UNKNOWN:
            raise UsageError(f"--unknown {self.unknown!r}: choose error or skip")
        if self.offsets not in OFFSETS:
            raise UsageError(f"--offsets {self.offsets!r}: choose chars or bytes")
        if isinstance(self.jobs, str) and self.jobs != AUTO:
            raise UsageError(f"--jobs must be a positive integer or auto, got {self.jobs!r}")
        if isinstance(self.jobs, int) and self.jobs < 1:
            raise UsageError(f"--jobs must be a positive integer or auto, got {self.jobs!r}")
        if self.max_results is not None and self.max_results < 1:
            raise UsageError(f"-M/--max-results must be a positive integer, got "
                             f"{self.max_results!r}")
        if self.trees and (self.judged_only or self.max_results is not None):
            raise UsageError("--judged-only and --max-results do not apply to tree runs "
                             "(--trees)")
        if self.task is not None and self.task not in TASKS:
            raise UsageError(f"unknown task {self.task!r}; choose {', '.join(TASKS)}")

    @classmethod
    def help(cls, name: str) -> Help:
        """The flags and help text of option ``name``."""
        found = {f.name: f for f in fields(cls)}[name].metadata["help"]
        assert isinstance(found, Help)
        return found


@functools.cache
def _hints() -> dict[str, object]:
    return typing.get_type_hints(EvalOptions)


class _Bad:
    """A value that does not conform (a sentinel)."""


_BAD = _Bad()


def _conform(value: object, hint: object) -> object:
    """``value`` as the declared type ``hint`` (an int where a float is
    declared becomes a float; a list where a tuple of str is declared, a
    tuple), or :data:`_BAD`.  ``bool`` is no number here."""
    if isinstance(hint, types.UnionType):
        for arm in typing.get_args(hint):
            fixed = _conform(value, arm)
            if fixed is not _BAD:
                return fixed
        return _BAD
    if hint is type(None):
        return value if value is None else _BAD
    if typing.get_origin(hint) is tuple:
        if isinstance(value, tuple | list) and all(isinstance(v, str) for v in value):
            return value if isinstance(value, tuple) else tuple(value)
        return _BAD
    numpy_bool = type(value).__module__ == "numpy" and type(value).__name__ in ("bool", "bool_")
    if hint is bool:
        if isinstance(value, bool):
            return value
        return bool(value) if numpy_bool else _BAD
    if isinstance(value, bool) or numpy_bool:
        return _BAD
    if hint is float:  # numpy numbers too (numbers.Real)
        if type(value) is float:
            return value
        return float(value) if isinstance(value, numbers.Real) else _BAD
    if hint is int:
        if type(value) is int:
            return value
        return int(value) if isinstance(value, numbers.Integral) else _BAD
    if hint is str:
        return value if isinstance(value, str) else _BAD
    raise TypeError(f"EvalOptions: no rule for the type {hint!r}")  # a declaration error


def _describe(hint: object) -> str:
    """A declared type in words.

    >>> _describe(int | None), _describe(tuple[str, ...])
    ('int or None', 'a sequence of str')
    """
    if isinstance(hint, types.UnionType):
        return " or ".join(_describe(a) for a in typing.get_args(hint))
    if hint is type(None):
        return "None"
    if typing.get_origin(hint) is tuple:
        return "a sequence of str"
    return getattr(hint, "__name__", str(hint))


def option_values(options: EvalOptions) -> Mapping[str, object]:
    """The options as a mapping of name to value (in declaration order)."""
    return {f.name: getattr(options, f.name) for f in fields(options)}
