"""The evaluation options shared by ``eval``, ``compare``, ``plot`` and
``report``, declared once.

A command takes them as one :class:`EvalOptions` argument by wearing
:func:`eval_options`; the decorator adds the options to the command's
signature (so typer shows them in ``--help``) and gathers them back into the
dataclass before the command runs.
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from graphprum.cli.app import Progress, note, open_store, store_exists, usage

if TYPE_CHECKING:
    import pandas as pd

_OPTIONS: dict[str, tuple[Any, Any]] = {
    # name: (annotation, default)
    "runs": (Annotated[list[Path], typer.Argument(help="Run files (TREC or INEX XML).")],
             inspect.Parameter.empty),
    "qrels": (Annotated[Path | None, typer.Option("--qrels", help="Qrels TOPIC ITER ID REL.")],
              None),
    "passages": (Annotated[Path | None, typer.Option(
        "--passages", help="Passage qrels TOPIC DOC START END (INEX measures).")], None),
    "nav": (Annotated[list[str], typer.Option(
        "--nav", help="Navigation model (repeat; noisy-or): classical (default), structural, "
                      "links, walk:FILE, log:FILE, direct:FILE, bep, summary:AXPRE, t2i.")],
            ["classical"]),
    "collection_size": (Annotated[float | None, typer.Option(
        help="N for the unranked part; default: units in the store (infinite without).")],
        None),
    "ideal_min": (Annotated[float, typer.Option(help="Ideal units have REL >= this.")], 1.0),
    "order": (Annotated[str, typer.Option(help="score (trec_eval order) or rank (INEX).")],
              "score"),
    "dedup": (Annotated[bool, typer.Option(help="Keep the first of duplicate results.")],
              False),
    "trees": (Annotated[bool, typer.Option(help="Runs list trees (lines sharing a RANK).")],
              False),
    "strict": (Annotated[bool, typer.Option(
        help="Unknown qrels ids (and, with --task, breaking the task's rules) are an "
             "error.")], False),
    "no_store": (Annotated[bool, typer.Option(
        "--no-store", help="Do not open a store (ids are opaque strings).")], False),
    "offsets": (Annotated[str, typer.Option(
        help="Passage offsets count 'chars' (default) or UTF-8 'bytes'.")], "chars"),
    "inclusive_ends": (Annotated[bool, typer.Option(
        help="Passage END offsets are inclusive (default exclusive).")], False),
    "jobs": (Annotated[int, typer.Option(
        "--jobs", "-j", min=1, help="Evaluate topics in N processes (same results).")], 1),
    "force": (Annotated[bool, typer.Option(
        "--force", help="Start a PRUM(exact=mc) simulation even when its estimated cost "
                        "(samples x ranked results) is above 1e10 steps, about 10 minutes.")],
              False),
    "complete": (Annotated[bool, typer.Option(
        "--complete/--no-c", "-c",
        help="Average over the qrels' topics, a topic the run lacks evaluated on an empty "
             "ranking (trec_eval -c; the default). --no-c: over the run's topics that the "
             "qrels judge (trec_eval's default).")], True),
    "relevance_level": (Annotated[int, typer.Option(
        "--level", "-l", help="REL a document needs to be relevant for classical measures "
                              "(trec_eval -l; rel= of ir_measures names that give none).")],
        1),
    "judged_only": (Annotated[bool, typer.Option(
        "--judged-only", "-J", help="Drop results the qrels do not judge (REL >= 0) before "
                                    "evaluating (trec_eval -J).")], False),
    "max_results": (Annotated[int | None, typer.Option(
        "--max-results", "-M", min=1,
        help="Evaluate the first N results of each topic (trec_eval -M).")], None),
}


@dataclass
class EvalOptions:
    """What to evaluate and how: the options every evaluating command shares."""

    runs: list[Path]
    qrels: Path | None = None
    passages: Path | None = None
    nav: list[str] | None = None
    collection_size: float | None = None
    ideal_min: float = 1.0
    order: str = "score"
    dedup: bool = False
    trees: bool = False
    strict: bool = False
    no_store: bool = False
    offsets: str = "chars"
    inclusive_ends: bool = False
    jobs: int = 1
    force: bool = False
    complete: bool = True
    relevance_level: int = 1
    judged_only: bool = False
    max_results: int | None = None

    def __post_init__(self) -> None:
        self.nav = list(self.nav or ["classical"])
        self.store: Any = None

    @property
    def ends(self) -> str:
        """``inclusive`` or ``exclusive`` passage ends."""
        return "inclusive" if self.inclusive_ends else "exclusive"

    def check(self) -> None:
        """Usage errors that need no input file read."""
        if self.qrels is None and self.passages is None:
            raise usage("needs --qrels or --passages")
        if self.offsets not in ("chars", "bytes"):
            raise usage(f"--offsets {self.offsets!r}: choose chars or bytes")

    def evaluate(self, measures: Sequence[str], per_topic: bool = True,
                 task: str | None = None) -> pd.DataFrame:
        """Evaluate the runs on ``measures`` (opening the store when one is
        needed or present), with a progress bar over topics; ``task`` checks
        the runs against an INEX task's rules."""
        from graphprum.evaluation import needs_store, run_evaluation

        self.check()
        assert self.nav is not None
        if not self.no_store and (needs_store(measures, self.nav) or store_exists()):
            self.store = open_store(create=False)
        with Progress(None, f"evaluating {len(self.runs)} run(s), topics") as bar:
            return run_evaluation(self.runs, self.qrels, measures, nav=self.nav,
                                  store=self.store, collection_size=self.collection_size,
                                  ideal_min=self.ideal_min, order=self.order, dedup=self.dedup,
                                  trees=self.trees, passages=self.passages,
                                  per_topic=per_topic, strict=self.strict, warn=note,
                                  offsets=self.offsets, ends=self.ends, jobs=self.jobs,
                                  progress=bar.update, force=self.force,
                                  complete=self.complete,
                                  relevance_level=self.relevance_level,
                                  judged_only=self.judged_only, max_results=self.max_results,
                                  task=task)

    def parameters(self) -> dict[str, str]:
        """What the evaluation used, for a report's reproduction section."""
        assert self.nav is not None
        params = {"navigation models (--nav)": ", ".join(self.nav),
                  "collection size N": self._collection_size(),
                  "ideal units": f"REL >= {self.ideal_min:g}",
                  "run order": self.order, "dedup": str(self.dedup), "tree runs": str(self.trees),
                  "topics averaged": "the qrels' (-c)" if self.complete
                  else "the run's (--no-c)"}
        if self.relevance_level != 1:
            params["relevance level (-l)"] = str(self.relevance_level)
        if self.judged_only:
            params["judged results only (-J)"] = "True"
        if self.max_results is not None:
            params["results per topic (-M)"] = str(self.max_results)
        if self.passages is not None:
            params["passage offsets"] = f"{self.offsets}, ends {self.ends}"
        if self.store is None:
            params["store"] = "none (ids are opaque strings)"
        else:
            params["store"] = str(getattr(self.store, "location", self.store))
            try:
                info = self.store.info()
            except Exception:  # a report must not fail on a detail
                info = {}
            for key in ("format", "documents", "elements", "pages", "segments", "links",
                        "summaries"):
                if info.get(key):
                    v = info[key]
                    params[f"store {key}"] = ", ".join(v) if isinstance(v, list) else str(v)
        return params

    def _collection_size(self) -> str:
        if self.collection_size is not None:
            return f"{self.collection_size:g} (--collection-size)"
        if self.store is None:
            return "infinite (no store: unranked units add no precision)"
        if self.qrels is None:
            return "units in the store of the judged kind"
        from graphprum.evaluation import _collection_size
        from graphprum.io.qrels import read_qrels

        n = _collection_size(self.store, read_qrels(self.qrels), None, False,
                             lambda message: None)
        return f"{n:g} (units in the store of the judged kind)" if math.isfinite(n) else "∞"

    def inputs(self, tags: Sequence[str]) -> list[dict[str, str]]:
        """Input files with their SHA-256; ``tags`` are the runs' TAGs in file order."""
        from graphprum.html_report import file_digest

        files = []
        for role, path in (("qrels", self.qrels), ("passages", self.passages)):
            if path is not None:
                files.append({"role": role, "path": str(path), "sha256": file_digest(path)})
        tags = list(tags) if len(tags) == len(self.runs) else [""] * len(self.runs)
        for path, tag in zip(self.runs, tags, strict=True):
            files.append({"role": "run", "path": str(path), "tag": str(tag),
                          "sha256": file_digest(path)})
        return files


assert set(_OPTIONS) == {f.name for f in fields(EvalOptions)}, "declare each option once"


def eval_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """Give command ``func(opts: EvalOptions, ...)`` the shared evaluation options.

    The command's own parameters come first in ``--help``, then the shared ones.
    """
    own = [p for p in inspect.signature(func, eval_str=True).parameters.values()
           if p.name != "opts"]
    shared = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation,
                                default=default)
              for name, (annotation, default) in _OPTIONS.items()]
    arguments = [p for p in shared if p.default is inspect.Parameter.empty]
    options = [p for p in shared if p.default is not inspect.Parameter.empty]
    params = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own]
    signature = inspect.Signature([*arguments, *params, *options])

    @functools.wraps(func)
    def wrapper(**kwargs: Any) -> Any:
        opts = EvalOptions(**{name: kwargs.pop(name) for name in _OPTIONS})
        return func(opts=opts, **kwargs)

    wrapper.__signature__ = signature  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in signature.parameters.values()}
    del wrapper.__wrapped__  # typer must read the new signature, not the command's
    return wrapper
