"""A collection in a store, as a notebook user holds it: load, look, query,
summarise and evaluate through one object.

:func:`graphprum.open_store` returns a :class:`Collection`; its backend
(:class:`~graphprum.store.base.Store`) is :attr:`Collection.store`.

Examples
--------
>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "x.xml").write_text("<a><sec><title>Methods</title></sec></a>")
>>> c = Collection.open(d / "store")
>>> c.load_xml([d / "x.xml"]).elements
3
>>> c.query("MATCH (t:Unit {tag: $tag}) RETURN t.uid AS uid, t.text AS text",
...         tag="title").to_dict("records")
[{'uid': 'x#/a[1]/sec[1]/title[1]', 'text': 'Methods'}]
>>> unit = c.show("x#/a[1]/sec[1]")
>>> unit
<x#/a[1]/sec[1]: element <sec>, length 7, 1 child, 0 out-links, 0 in-links>
>>> unit["length"], unit["children"][0]["id"]
(7, 'x#/a[1]/sec[1]/title[1]')
>>> list(c.document_graph("x").edges)
[('x#/a[1]', 'x#/a[1]/sec[1]'), ('x#/a[1]/sec[1]', 'x#/a[1]/sec[1]/title[1]')]
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from graphprum import loading
from graphprum.api import evaluate
from graphprum.describe import describe_unit
from graphprum.errors import UsageError
from graphprum.evaluation.inputs import MeasuresLike, QrelsLike, RunsLike
from graphprum.floats import json_value, readable
from graphprum.query import run_query
from graphprum.store import open_store
from graphprum.store.base import Store
from graphprum.units import LoadReport

if TYPE_CHECKING:
    import networkx as nx
    import pandas as pd

    from graphprum.summaries.axpre import Summary

PathLike = str | os.PathLike[str]


class UnitInfo(dict[str, Any]):
    """What :meth:`Collection.show` returns: one mapping of the unit's fields
    (``id``, ``kind``, ``tag``, ``length``, ``text``, ``attributes``, ...)
    and its neighbourhood (``ancestors``, ``children``, ``out_links``,
    ``in_links``, ``partitions``), printed as one line."""

    def __repr__(self) -> str:
        n = len(self.get("children", []))
        return (f"<{self['id']}: {self['kind']} <{self['tag']}>, length "
                f"{readable(self['length'])}, {n} {'child' if n == 1 else 'children'}, "
                f"{len(self.get('out_links', []))} out-links, "
                f"{len(self.get('in_links', []))} in-links>")


def _paths(paths: PathLike | Iterable[PathLike]) -> list[PathLike]:
    """One path (never its characters) or several, as a list."""
    if isinstance(paths, str | os.PathLike):
        return [paths]
    return list(paths)


class Collection:
    """A store and what a user does with it (see the module notes).

    Parameters
    ----------
    store : Store
        The backend.
    """

    def __init__(self, store: Store) -> None:
        self.store = store

    @classmethod
    def open(cls, location: PathLike | None = None, *, create: bool = True) -> Collection:
        """Open the store at ``location``: a directory (embedded) or a
        ``bolt://`` URI; None uses ``$GRAPHPRUM_STORE`` or ``./graphprum-store``."""
        return cls(open_store(location, create=create))

    @property
    def location(self) -> str:
        """Where the store lives (a URI without credentials)."""
        return self.store.location

    def __repr__(self) -> str:
        return f"Collection({self.location!r})"

    # ------------------------------------------------------------- loading
    def load_xml(self, paths: PathLike | Iterable[PathLike], *,
                 links: str | Sequence[str] | None = None,
                 replace: bool = False, skip_bad: bool = False,
                 jobs: int | str = "auto") -> LoadReport:
        """Load XML files or directories (:func:`graphprum.loading.load_xml`);
        one path or several; ``jobs``: processes that parse them (a number,
        or ``"auto"``: one per CPU, at most 4, from 8 MB of XML)."""
        return loading.load_xml(self.store, _paths(paths), links=links, replace=replace,
                                skip_bad=skip_bad, jobs=jobs)

    def load_web(self, root: PathLike, *, elements: bool = False,
                 replace: bool = False) -> LoadReport:
        """Load an HTML site (:func:`graphprum.loading.load_web`)."""
        return loading.load_web(self.store, root, elements=elements, replace=replace)

    def load_links(self, path: PathLike) -> LoadReport:
        """Load a link list (:func:`graphprum.loading.load_links`)."""
        return loading.load_links(self.store, path)

    def load_video(self, paths: PathLike | Iterable[PathLike], *,
                   replace: bool = False) -> LoadReport:
        """Load segment tables or subtitles (:func:`graphprum.loading.load_video`);
        one path or several."""
        return loading.load_video(self.store, _paths(paths), replace=replace)

    # ------------------------------------------------------------- looking
    def info(self) -> dict[str, Any]:
        """Counts per kind, documents, links, summaries, format."""
        return self.store.info()

    def show(self, uid: str) -> UnitInfo:
        """A unit's fields with its ancestors, children, links and partitions,
        in one mapping (:class:`UnitInfo`)."""
        found = describe_unit(self.store, uid)
        unit = {k: json_value(v) for k, v in found.pop("unit").items()}
        return UnitInfo({**unit, **found})

    def document_graph(self, doc: str) -> nx.DiGraph:
        """Document ``doc``'s element tree as a :class:`networkx.DiGraph`
        (:func:`graphprum.graphs.document_graph`)."""
        from graphprum.graphs import document_graph  # networkx: only these graphs need it

        return document_graph(self.store, doc)

    def link_graph(self, units: str | Iterable[str] | None = None, *, hops: int = 1,
                   undirected: bool = False) -> nx.DiGraph:
        """The LINK graph, or the ``hops``-link neighbourhood of ``units`` (one
        id or several), as a :class:`networkx.DiGraph`
        (:func:`graphprum.graphs.link_graph`)."""
        from graphprum.graphs import link_graph  # networkx: only these graphs need it

        return link_graph(self.store, [units] if isinstance(units, str) else units, hops=hops,
                          undirected=undirected)

    def units(self, ids: str | Iterable[str]) -> pd.DataFrame:
        """The fields of some units (one id, or several), one row each."""
        return self.store.units([ids] if isinstance(ids, str) else list(ids))

    def query(self, text: str, params: dict[str, object] | None = None, *,
              write: bool = False, timeout: float | None = 60.0, **named: object,
              ) -> pd.DataFrame:
        """Run Cypher (read-only unless ``write``); rows as a DataFrame.
        Parameters come as a dict or as keywords."""
        import pandas as pd  # ~0.2 s of import: only for a DataFrame (graphprum.evaluation.rows)

        rows = run_query(self.store, text, {**(params or {}), **named}, write=write,
                         timeout=timeout)
        return pd.DataFrame(rows)

    # ----------------------------------------------------------- summaries
    def build_summary(self, axpre: str, weight: str = "count") -> Summary:
        """Build and store the AxPRE summary ``axpre``."""
        from graphprum.summaries.stored import build_stored  # pandas: for summaries only

        return build_stored(self.store, axpre, weight)

    def summary(self, axpre: str, weight: str | None = None) -> Summary:
        """The stored summary ``axpre`` (under another ``weight`` if given)."""
        from graphprum.summaries.stored import stored_summary  # pandas: for summaries only

        return stored_summary(self.store, axpre, weight)

    # ---------------------------------------------------------- evaluating
    def evaluate(self, runs: RunsLike, qrels: QrelsLike | None, measures: MeasuresLike,
                 **options: object) -> pd.DataFrame:
        """:func:`graphprum.evaluate` on this collection (``store`` is this one)."""
        if "store" in options:
            raise UsageError("Collection.evaluate evaluates on its own store; "
                             "use graphprum.evaluate(..., store=...) for another")
        return evaluate(runs, qrels, measures, store=self.store,
                        **options)  # type: ignore[arg-type]

    def close(self) -> None:
        """Release the store."""
        self.store.close()

    def __enter__(self) -> Collection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
