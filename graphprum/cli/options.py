"""What ``eval``, ``compare``, ``plot`` and ``report`` share: the inputs
(runs, ``--qrels``, ``--passages``, ``--no-store``) and the evaluation
options, which are :class:`graphprum.evaluation.options.EvalOptions` fields
(declared there once, with their defaults, help texts and checks).

A command takes them as one :class:`EvalArgs` argument by wearing
:func:`eval_options`; the decorator adds the options to the command's
signature (so typer shows them in ``--help``) and gathers them back before
the command runs.  :meth:`EvalArgs.keywords` hands them to the API
(:mod:`graphprum.api`) with the store the command line opens by default.
"""

import dataclasses
import functools
import inspect
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer

from graphprum.cli.shared import Progress, note, state, store_exists, store_from_options
from graphprum.errors import StoreError
from graphprum.evaluation.job import needs_store, uses_user_models
from graphprum.evaluation.options import EvalOptions
from graphprum.store import default_location
from graphprum.store.base import Store

#: The inputs, as the command line declares them: name -> (annotation, default).
_INPUTS: dict[str, tuple[Any, Any]] = {
    "runs": (Annotated[list[Path], typer.Argument(help="Run files (TREC or INEX XML).")],
             inspect.Parameter.empty),
    "qrels": (Annotated[Path | None, typer.Option("--qrels", help="Qrels TOPIC ITER ID REL.")],
              None),
    "passages": (Annotated[Path | None, typer.Option(
        "--passages", help="Passage qrels TOPIC DOC START END (INEX measures). With "
        "--qrels too, the qrels name the topics (docs/formats.md).")], None),
    "no_store": (Annotated[bool, typer.Option(
        "--no-store", help="Do not open a store (ids are opaque strings).")], False),
}


def _cli_type(hint: object) -> object:
    """The type typer is given for an EvalOptions field (a tuple of str is a repeatable
    list; a number or a word, ``--jobs 2`` or ``--jobs auto``, is text EvalOptions checks)."""
    if typing.get_origin(hint) is tuple:
        return list[str]
    if hint == int | str:
        return str
    return hint


def _shared_options() -> dict[str, tuple[Any, Any]]:
    """The EvalOptions fields the command line shares: name -> (annotation, default)."""
    hints = typing.get_type_hints(EvalOptions)
    out: dict[str, tuple[Any, Any]] = {}
    for f in dataclasses.fields(EvalOptions):
        help_ = EvalOptions.help(f.name)
        if not help_.flags:
            continue
        default = list(f.default) if isinstance(f.default, tuple) else f.default
        metavar = "N|auto" if hints[f.name] == int | str else None
        out[f.name] = (Annotated[_cli_type(hints[f.name]),
                                 typer.Option(*help_.flags, help=help_.text,
                                              metavar=metavar)], default)
    return out


_OPTIONS = _shared_options()


#: The options that take a number or a word (``--jobs 2``, ``--jobs auto``).
_NUMBER_OR_WORD = {name for name, hint in typing.get_type_hints(EvalOptions).items()
                   if hint == int | str}


def _from_cli(name: str, value: Any) -> Any:
    """An option's value as the command line gave it, a number as a number
    where the option takes a number or a word."""
    if name in _NUMBER_OR_WORD and isinstance(value, str) and value.isascii() \
            and value.isdigit():
        return int(value)
    return value


@dataclass
class EvalArgs:
    """The inputs and options of an evaluating command."""

    runs: list[Path]
    qrels: Path | None
    passages: Path | None
    no_store: bool
    options: EvalOptions
    _store: Store | None = field(default=None, repr=False)
    _noted: bool = field(default=False, repr=False)

    def store(self, measures: Sequence[str]) -> Store | None:
        """The store ``--store`` names, when the measures or the navigation
        models need one, or when it exists (unless ``--no-store``); a store
        named by ``--store`` or ``$GRAPHPRUM_STORE`` that does not exist is
        an error (without it, N would silently become the default)."""
        if self._store is None and not self.no_store:
            if store_exists():
                self._store = store_from_options(create=False)
            elif state.store is not None:
                # a store named by --store or $GRAPHPRUM_STORE must be there:
                # evaluating without it would change N (the collection's size)
                try:
                    self._store = store_from_options(create=False)
                except StoreError as exc:
                    raise StoreError(f"{exc}, or evaluate without a store: --no-store") \
                        from None
            elif needs_store(list(measures), self.options.nav):
                self._store = store_from_options(create=False)
            elif (not self._noted and self.options.collection_size is None
                  and uses_user_models(measures)):
                self._noted = True
                note(f"note: no store ({default_location()} is not there): result ids are "
                     f"opaque and the collection's size N, which PRUM reads, is unbounded "
                     f"(--collection-size N gives it); --store DIR evaluates against a "
                     f"collection, --no-store says you mean it")
        return self._store

    def keywords(self, measures: Sequence[str]) -> dict[str, Any]:
        """What the API functions take besides runs, qrels and measures."""
        return {"store": self.store(measures), "passages": self.passages,
                "options": self.options, "warn": note}

    def progress(self) -> Progress:
        """A progress bar over topics (on a terminal)."""
        return Progress(None, f"evaluating {len(self.runs)} run(s), topics")


def eval_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """Give command ``func(opts: EvalArgs, ...)`` the shared inputs and evaluation options.

    The command's own parameters come first in ``--help``, then the shared ones.
    """
    own = [p for p in inspect.signature(func, eval_str=True).parameters.values()
           if p.name != "opts"]
    shared = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation,
                                default=default)
              for name, (annotation, default) in {**_INPUTS, **_OPTIONS}.items()]
    arguments = [p for p in shared if p.default is inspect.Parameter.empty]
    options = [p for p in shared if p.default is not inspect.Parameter.empty]
    params = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own]
    signature = inspect.Signature([*arguments, *params, *options])

    @functools.wraps(func)
    def wrapper(**kwargs: Any) -> Any:
        inputs = {name: kwargs.pop(name) for name in _INPUTS}
        values = {name: _from_cli(name, kwargs.pop(name)) for name in _OPTIONS}
        opts = EvalArgs(**inputs, options=EvalOptions.from_keywords(**values))
        return func(opts=opts, **kwargs)

    wrapper.__signature__ = signature  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in signature.parameters.values()}
    del wrapper.__wrapped__  # typer must read the new signature, not the command's
    return wrapper

