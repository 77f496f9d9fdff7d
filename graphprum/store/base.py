"""The store contract: everything a backend answers, and what it declares it can do.

Three backends implement :class:`Store`: :class:`~graphprum.store.memory.MemoryStore`
(the reference, in memory), :class:`~graphprum.store.local.LocalStore` (the
embedded default: numpy columns and a LadybugDB graph in one directory) and
:class:`~graphprum.store.bolt.BoltStore` (Neo4j 5 or FalkorDB over Bolt).  The
conformance suite (``tests/store/``) runs the same tests over all three.

The unit data model the contract speaks (:class:`~graphprum.units.UnitTable`,
:class:`~graphprum.units.ParsedDocument`, :class:`~graphprum.units.DocumentBatch`)
lives in :mod:`graphprum.units`; loading any source kind into any backend is
:mod:`graphprum.loading`'s job.

Callers never sniff a backend's type or attributes: what differs is declared
in :attr:`Store.capabilities`:

``table``
    :meth:`Store.table` hands the whole collection as a
    :class:`~graphprum.units.UnitTable` cheaply (memory-mapped or in memory),
    so whole-collection work (AxPRE partitions in numpy) runs in-process.
``cypher``
    :meth:`Store.query` runs openCypher.
``fork_safe``
    the store may be shared with forked worker processes (``--jobs``).
``summary_nodes``
    stored summaries are also graph nodes (``(:Summary)``, ``IN_PARTITION``),
    so they can be queried with Cypher.
``server``
    the store's reads are queries to a graph server: cheaper in a few large
    queries than topic by topic (an evaluation announces its topics' units
    first), a forked process opens a connection of its own (``--jobs``), and
    the server counts for the client what would otherwise need the whole
    collection (:class:`ServerReads`).

Examples
--------
>>> from graphprum.store.memory import MemoryStore
>>> isinstance(MemoryStore(), Store)
True
>>> sorted(MemoryStore().capabilities)
['fork_safe', 'table']
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from graphprum.units import DocTable, DocumentBatch, LoadReport, ParsedDocument, UnitTable

if TYPE_CHECKING:
    import pandas as pd
    import scipy.sparse as sp

#: Capability names (see the module notes).
TABLE = "table"
CYPHER = "cypher"
FORK_SAFE = "fork_safe"
SUMMARY_NODES = "summary_nodes"
SERVER = "server"

#: Columns of :meth:`Store.units`.
UNIT_FIELDS = ["id", "doc", "kind", "tag", "label_path", "depth", "parent", "pre", "post",
               "size", "pos", "start", "end", "length", "words", "text", "attributes"]


class QueryRows(list[dict[str, Any]]):
    """The rows of a user's query (:meth:`Store.query`), dicts by column,
    with ``columns``: the names its RETURN gives, in order, also when no
    row comes back (a table's header).

    >>> rows = QueryRows([], ["u.uid", "n"])
    >>> rows, rows.columns
    ([], ['u.uid', 'n'])
    """

    def __init__(self, rows: Iterable[dict[str, Any]] = (), columns: Sequence[str] = ()) -> None:
        super().__init__(rows)
        self.columns = list(columns)


#: The ``link_stats`` key counting documents whose links a later load counted again.
RECOUNTED = "documents_recounted"


def merged_link_stats(stored: Mapping[str, Any], new: Mapping[str, Any] | None,
                      reloaded: int, documents: int) -> dict[str, Any]:
    """The store's link statistics after a load: its own ``new`` counts added
    to the ``stored`` ones, which describe the ``documents`` stored before it.

    The counts are sums over loads, not kept per document; a load that
    replaced ``reloaded`` stored documents counted their links again.
    When it names every stored document, the old counts are of nothing
    left and give way to the new ones; when it names only some, the sums
    keep them and :data:`RECOUNTED` says how many documents may be counted
    twice.

    >>> merged_link_stats({"external_links": 3}, {"external_links": 3}, 9, 9)
    {'external_links': 3}
    >>> merged_link_stats({"external_links": 3}, {"external_links": 1}, 2, 9)
    {'external_links': 4, 'documents_recounted': 2}
    """
    base: dict[str, Any] = {} if reloaded >= documents else dict(stored)
    if reloaded and base:
        base[RECOUNTED] = base.get(RECOUNTED, 0) + reloaded
    for k, v in (new or {}).items():
        base[k] = base.get(k, 0) + v if isinstance(v, int) else v
    return base


@dataclass
class Resumed:
    """What :meth:`Store.resume_loads` did.

    Attributes
    ----------
    removed : int
        Incomplete documents of interrupted loads that it removed.
    finished : dict or None
        The history entry (``info``'s ``loads``) of the load it finished,
        one killed while it made its documents visible; None when none was.
    freed : int
        Bytes of the files killed writes left that it removed (the embedded
        store: an unfinished generation, a killed query's graph build).
    """

    removed: int = 0
    finished: dict[str, Any] | None = None
    freed: int = 0


@dataclass
class UnitView:
    """Units the evaluator pulled for one topic: the documents that hold
    them, as a self-contained :class:`~graphprum.units.UnitTable`.

    Rows of ``table`` are the view's own (for the embedded and memory stores,
    the view is the whole collection and rows are the store's rows).

    Attributes
    ----------
    table : UnitTable
        The documents of the view.
    rows : dict of str to int
        Row of every unit id the view was asked for and holds.
    store : Store
        The store it came from (for partitions and links).
    collection : pandas.DataFrame
        Statistics of the whole store that measures need beyond the view:
        per document ``kind``, the number of ``documents`` and their total
        ``length`` (see :func:`document_statistics`).
    walker : callable or None
        For a view whose rows are the store's (embedded, memory):
        ``walker(source_rows, target_rows, hops, structure)`` is
        :meth:`Store.link_walk` by rows, without looking the ids up again;
        None elsewhere (a Bolt view: ask the store by ids).
    """

    table: UnitTable
    rows: dict[str, int]
    store: Any = field(repr=False, default=None)
    fallback: Any = field(repr=False, default=None)
    collection: pd.DataFrame | None = field(repr=False, default=None)
    walker: Callable[[np.ndarray, np.ndarray, int | None, bool], LinkWalk] | None = \
        field(repr=False, default=None)

    def statistics(self) -> pd.DataFrame:
        """:attr:`collection`, or (a view that is the whole collection) the
        same statistics of :attr:`table`, computed once per table."""
        if self.collection is not None:
            return self.collection
        table = self.table
        hit = _STATISTICS.get(id(table))
        if hit is None or hit[0]() is not table:
            for key in [k for k, (ref, _) in _STATISTICS.items() if ref() is None]:
                del _STATISTICS[key]
            hit = _STATISTICS[id(table)] = (weakref.ref(table), document_statistics(table.docs))
        return hit[1]

    def mean_document_length(self, kind: int | None = None) -> float:
        """Mean length of the store's documents (of ``kind``: XML, web pages,
        videos ... are measured in units of their own; 0 for none)."""
        stats = self.statistics()
        if kind is not None:
            stats = stats[stats["kind"] == kind]
        n = int(stats["documents"].sum())
        return float(stats["length"].sum()) / n if n else 0.0

    def total_length(self, kinds: Sequence[int]) -> float:
        """Total length of the store's documents of ``kinds``."""
        stats = self.statistics()
        return float(stats.loc[stats["kind"].isin(list(kinds)), "length"].sum())


    def resolve(self, ids: Sequence[str]) -> np.ndarray:
        """Rows of ``ids`` in :attr:`table` (-1 for ids the view does not hold).

        Ids the view was not built for are resolved by ``fallback`` (when the
        view is the whole collection) or are unknown."""
        get = self.rows.get
        out = np.fromiter((get(u, -2) for u in ids), dtype=np.int64, count=len(ids))
        missing = np.flatnonzero(out == -2)
        if len(missing):
            if self.fallback is None:
                out[missing] = -1
            else:
                asked = [ids[i] for i in missing.tolist()]
                found = self.fallback(asked)
                out[missing] = found
                self.rows.update(zip(asked, np.asarray(found).tolist(), strict=True))
        return out


#: Document statistics of whole-collection tables (weak reference, statistics).
_STATISTICS: dict[int, tuple[Any, Any]] = {}


def document_statistics(docs: pd.DataFrame | DocTable) -> pd.DataFrame:
    """Per document kind: ``documents`` and their total ``length``, from a
    table of documents (columns ``kind``, ``length``: a DataFrame or the
    store's :class:`~graphprum.units.DocTable`).

    >>> import pandas as pd
    >>> document_statistics(pd.DataFrame({"kind": [0, 0, 3], "length": [1.0, 2.0, 4.0]}))
       kind  documents  length
    0     0          2     3.0
    1     3          1     4.0
    """
    import pandas as pd  # ~0.2 s of import: only for a DataFrame

    kind = np.asarray(docs["kind"], dtype=np.int64)
    length = np.asarray(docs["length"], dtype=np.float64)
    kinds = np.unique(kind)
    return pd.DataFrame({"kind": kinds,
                         "documents": np.array([int(np.count_nonzero(kind == k))
                                                for k in kinds], dtype=np.int64),
                         "length": np.array([float(length[kind == k].sum()) for k in kinds],
                                            dtype=np.float64)})


@dataclass
class LinkWalk:
    """The part of the collection a walk of at most K moves from some
    sources into some targets can use, with its one-step moves.

    A unit's out-links are the LINK edges held in its subtree (a reader of
    x sees every link in x's text; a page's are its own), multiplicity
    counted; a link arrives at the target's root or at the element its
    fragment names.  A *structure* walk may also move to a child or to the
    parent (:meth:`Store.link_walk` with ``structure``).

    Attributes
    ----------
    sources, targets : numpy.ndarray
        Index of every requested source and target among the walk's nodes
        (-1 when it is not one of them).
    transitions : scipy.sparse.csr_array
        Link moves among the nodes at B = 1: (out-links of x arriving at z)
        / (out-links of x), out-links counted over the whole collection.
    out_links : numpy.ndarray or None
        Out-links of every node (over the whole collection).
    parents : numpy.ndarray or None
        Structure walks: index of every node's parent among the nodes, -1
        for a root, -2 for a parent that is not one of them.
    children : numpy.ndarray or None
        Structure walks: number of children of every node (in the collection).
    """

    sources: np.ndarray
    targets: np.ndarray
    transitions: sp.csr_array
    out_links: np.ndarray | None = None
    parents: np.ndarray | None = None
    children: np.ndarray | None = None


@dataclass
class SummaryPage:
    """What the explorer page reads of a server's stored summaries, counted
    by the server (:meth:`ServerReads.summary_page`).

    Attributes
    ----------
    roots : dict
        Per summary, the 0-based partitions that hold a root element (one
        whose parent is not an element).
    samples : dict
        Per summary and partition, up to ``k`` of its elements evenly spread
        over them in load order, as ``(place, id)``; ``place`` orders the
        elements as the collection's rows do.
    combinations : list
        ``(partitions, elements)``: a partition of each summary (in the order
        asked), and how many elements lie in all of them.
    """

    roots: dict[str, list[int]]
    samples: dict[str, list[list[tuple[int, str]]]]
    combinations: list[tuple[tuple[int, ...], int]]


class ServerReads(Protocol):
    """What a store with the ``server`` capability also answers: questions a
    server answers by counting, so that the client never holds the collection."""

    def read_ahead(self, ids: Iterable[str], pull: bool = False) -> None:
        """Announce the units the coming topics will view, in the order they
        will, so that their documents come in a few large queries; with
        ``pull``, pull them now."""
        ...

    def reopened(self) -> Store:
        """The same store on a connection of its own (in a forked process),
        with what this one pulled."""
        ...

    def summary_page(self, names: Sequence[str], samples: int) -> SummaryPage:
        """The explorer page's counts of the stored summaries ``names``
        (``samples`` elements per partition at most)."""
        ...

    def summary_members(self, names: Sequence[str], ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Per stored summary of ``names``, the 0-based partition of each of
        ``ids`` (-1: not a stored element)."""
        ...


@runtime_checkable
class Store(Protocol):
    """What every backend answers (see the module notes).

    Unit ids are the strings of the contract (``doc#/a[1]/b[2]``,
    ``page.html``, ``video#3``); unknown ids are answered, never raised on,
    except by the single-unit look-ups (:class:`~graphprum.errors.UnknownIdError`).
    """

    #: Where the store lives: a directory, or a URI without credentials.
    location: str
    #: What this backend can do beyond the contract (module notes).
    capabilities: frozenset[str]

    # ------------------------------------------------------------ collection
    def info(self) -> dict[str, Any]:
        """Counts per kind, documents, links, summaries, format, backend details."""
        ...

    def count_units(self, kind: int | None = None) -> int:
        """Number of units (of one kind)."""
        ...

    def documents(self) -> pd.DataFrame:
        """One row per document in load order: ``name, source, kind, length, count``."""
        ...

    def iter_documents(self) -> Iterator[ParsedDocument]:
        """Every document as the loader gave it (links, texts, attributes), in
        load order: what ``copy`` streams into another store."""
        ...

    def table(self) -> UnitTable:
        """The whole collection (capability ``table``; others raise StoreError)."""
        ...

    # ----------------------------------------------------------------- units
    def kinds(self, ids: Sequence[str]) -> np.ndarray:
        """The kind (``KIND_*``) of every id, -1 for ids the store does not hold."""
        ...

    def units(self, ids: Sequence[str]) -> pd.DataFrame:
        """One row per id (UnknownIdError for an unknown one), columns
        :data:`UNIT_FIELDS`; ``parent`` is the parent's id (``""`` for a root)."""
        ...

    def ancestors(self, uid: str) -> list[str]:
        """Ids of the ancestors of ``uid``, root first."""
        ...

    def children(self, uid: str) -> list[str]:
        """Ids of the children of ``uid``, in document order."""
        ...

    def subtree(self, uid: str) -> pd.DataFrame:
        """:meth:`units` of ``uid`` (a document name works too) and all its
        descendants, in document order."""
        ...

    def links_of(self, uid: str) -> tuple[list[str], list[str]]:
        """Ids at the ends of ``uid``'s out-links (the LINK edges held in its
        subtree: what a reader of ``uid`` can follow) and of the LINK edges
        arriving at it, with their multiplicity."""
        ...

    # ----------------------------------------------------- evaluator's pulls
    def view(self, ids: Iterable[str], documents: Iterable[str] = ()) -> UnitView:
        """The documents holding ``ids`` (and the ``documents`` named), for
        one topic's evaluation."""
        ...

    def link_walk(self, sources: Sequence[str], targets: Sequence[str],
                  hops: int | None, structure: bool = False) -> LinkWalk:
        """The neighbourhood walks of at most ``hops`` moves (None: any)
        from ``sources`` into ``targets`` can use: along links, and with
        ``structure`` also to a child or to the parent (:class:`LinkWalk`)."""
        ...

    def partitions(self, axpre: str, view: UnitView, rows: np.ndarray) -> np.ndarray:
        """0-based partition of every row of ``view`` under the stored
        summary ``axpre`` (-1: not an XML element, or an unknown row)."""
        ...

    # ------------------------------------------------------------- summaries
    def summary_names(self) -> list[str]:
        """Names of the stored summaries."""
        ...

    def load_summary(self, name: str) -> tuple[dict[str, np.ndarray], dict[str, Any]] | None:
        """A stored summary's arrays and metadata, or None if not stored.

        Arrays are those :meth:`save_summary` was given (``membership`` may be
        absent on a backend that keeps membership in the graph)."""
        ...

    def save_summary(self, name: str, arrays: dict[str, np.ndarray],
                     meta: dict[str, Any]) -> None:
        """Store a summary (replacing one of the same name), atomically."""
        ...

    def derive_partitions(self, axpre: str) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Partitions computed by the graph database (``cypher/summary/``),
        for backends without the ``table`` capability: arrays ``extent``,
        ``length``, ``edge_src``, ``edge_dst``, ``edge_count``,
        ``edge_length``, and metadata: the partitions' ``tags`` and ``keys``."""
        ...

    # --------------------------------------------------------------- Cypher
    def build_graph(self) -> bool:
        """Make the store ready for :meth:`query` now rather than at the first
        query (the embedded store derives its graph from its collection);
        whether there was anything to do."""
        ...

    def query(self, text: str, params: dict[str, Any] | None = None, *,
              write: bool = False, timeout: float | None = None) -> list[dict[str, Any]]:
        """Run Cypher (capability ``cypher``); rows as dicts."""
        ...

    # -------------------------------------------------------------- writing
    def load_documents(self, docs: Iterable[ParsedDocument | DocumentBatch], *,
                       replace: bool = False, description: dict[str, Any] | None = None,
                       link_pairs: Iterable[tuple[Sequence[str], Sequence[str]]] | None = None,
                       link_stats: dict[str, int] | None = None) -> LoadReport:
        """Add documents (and raw page-to-page link pairs) all or nothing."""
        ...

    def resume_loads(self) -> Resumed:
        """Finish what interrupted loads left: remove the documents they
        never made visible, and make what one killed once its documents were
        visible did not (a Bolt store's LINK edges, its history entry and
        link statistics); returns what it removed and finished."""
        ...

    def close(self) -> None:
        """Release what the store holds open."""
        ...
