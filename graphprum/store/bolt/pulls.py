"""What an evaluation on a Bolt store pulls from the server, once: the
stored documents its topics name, their units (as
:class:`~graphprum.store.bolt.pieces.Piece` objects) and their partitions
under a stored summary, each kept until the next load.

An evaluation first announces the units its topics will view, in order
(:meth:`DocumentPulls.read_ahead`); a topic's first pull then takes the
documents that come next with it, in a few large queries instead of one per
topic.  With ``--jobs N`` the parent pulls before forking and each worker
keeps what it inherited (:meth:`DocumentPulls.take`), so each document
crosses the network once per evaluation.  On FalkorDB, when its Redis port
is reachable, documents and partitions come packed
(``read/*_packed.cypher``), else over Bolt in rows of :data:`SLICE` units.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from graphprum.store.bolt.connection import BoltConnection
from graphprum.store.bolt.pieces import (
    Piece,
    Row,
    canonical,
    packed_piece,
    piece_of,
    whole_numbers,
)
from graphprum.units import KIND_PAGE, KIND_VIDEO

#: The fields of ``read/documents*.cypher``, in their order.
DOC_FIELDS = ["name", "source", "kind", "length", "count", "seq"]
#: Units pulled by one query at most (a document larger comes alone).
PULL_UNITS = 10_000
#: Pulls under way at once (a server answers several reads at a time, and
#: the client decodes one while the server encodes the next).
PULL_THREADS = 4
#: Units per row of the column queries (a row stays under FalkorDB's 64 KB
#: record: ``read/document_columns.cypher``).
SLICE = 48
#: Units of pulled documents kept for later views (about 60 bytes each).
CACHE_UNITS = 1_000_000
#: Units of the documents announced by :meth:`DocumentPulls.read_ahead`
#: that a pull takes with it.
AHEAD_UNITS = 250_000


def document_of(uid: str) -> str:
    """The document name in a unit id (the part before ``#``).

    >>> document_of("d#/a[1]"), document_of("page.html")
    ('d', 'page.html')
    """
    return uid.partition("#")[0]


def batches_of(docs: Sequence[dict[str, Any]],
               most: int = PULL_UNITS) -> list[list[dict[str, Any]]]:
    """``docs`` in consecutive batches of at most ``most`` units (a document
    larger than ``most`` comes alone).

    >>> [[d["name"] for d in b] for b in batches_of(
    ...     [{"name": n, "count": c} for n, c in [("a", 3), ("b", 2), ("c", 9), ("d", 1)]], 5)]
    [['a', 'b'], ['c'], ['d']]
    """
    batches: list[list[dict[str, Any]]] = []
    units = most
    for d in docs:
        if units + int(d["count"]) > most:
            batches.append([])
            units = 0
        batches[-1].append(d)
        units += int(d["count"])
    return batches


class DocumentPulls:
    """The documents pulled from one Bolt connection (see the module notes):
    their records, their pieces (:data:`CACHE_UNITS` units at most, the
    least recently used dropped first) and their partitions.  Safe to use
    from several threads (each pull is a session of its own)."""

    def __init__(self, conn: BoltConnection) -> None:
        self.conn = conn
        self._lock = threading.Lock()
        self._docs: dict[str, dict[str, Any] | None] = {}
        self._pieces: OrderedDict[str, Piece] = OrderedDict()
        self._cached_units = 0
        self._ahead: list[dict[str, Any]] = []
        self._next: dict[str, int] = {}
        self._parts: dict[tuple[str, str], np.ndarray] = {}

    def clear(self) -> None:
        """Forget everything pulled (after a load)."""
        with self._lock:
            self._docs.clear()
            self._pieces.clear()
            self._cached_units = 0
            self._ahead, self._next = [], {}
            self._parts = {}

    def forget_partitions(self) -> None:
        """Forget the partitions pulled (after a summary is written)."""
        self._parts = {}

    def take(self, other: DocumentPulls) -> None:
        """Keep what ``other`` pulled (in a forked worker, its parent's pulls,
        on a connection of its own now)."""
        self._docs, self._pieces = dict(other._docs), OrderedDict(other._pieces)
        self._cached_units, self._parts = other._cached_units, dict(other._parts)

    # ---------------------------------------------------------- documents
    def documents_named(self, names: Sequence[str]) -> list[dict[str, Any]]:
        """The stored documents among ``names``, in load order (each asked
        of the server once until the next load)."""
        names = list(dict.fromkeys(names))
        missing = [n for n in names if n not in self._docs]
        if missing:
            found = {r[0]: dict(zip(DOC_FIELDS, r, strict=True))
                     for r in self.conn.read_batched("read/documents_named", "names", missing,
                                                     compact=True)}
            with self._lock:
                self._docs.update({n: found.get(n) for n in missing})
        docs = [d for d in (self._docs.get(n) for n in names) if d is not None]
        return sorted(docs, key=lambda d: int(d["seq"]))

    def pull(self, docs: Sequence[dict[str, Any]]) -> dict[str, Piece]:
        """The pieces of ``docs``, not kept: a query per :data:`PULL_UNITS`
        units, :data:`PULL_THREADS` of them at a time; through FalkorDB's
        Redis port when it is reachable, packed
        (``read/document_columns_packed.cypher``: 1.0-1.6 µs of the client's
        CPU a unit, 2.2-4.1 over Bolt), else, and for a document the packed
        row cannot give exactly (:func:`~graphprum.store.bolt.pieces.packed_piece`),
        over Bolt."""
        batches = batches_of(docs)
        if len(batches) <= 1:
            return self._pull_batch(batches[0]) if batches else {}
        out: dict[str, Piece] = {}
        with ThreadPoolExecutor(min(PULL_THREADS, len(batches))) as pool:
            for got in pool.map(self._pull_batch, batches):
                out.update(got)
        return out

    def _pull_batch(self, batch: list[dict[str, Any]]) -> dict[str, Piece]:
        out: dict[str, Piece] = {}
        if self.conn.redis() is not None:
            named = {d["name"]: d for d in batch}
            for row in self.conn.read_batched("read/document_columns_packed", "names",
                                              list(named), compact=True):
                piece = packed_piece(row, named[row[0]])
                if piece is not None:
                    out[row[0]] = piece
        rest = [d for d in batch if d["name"] not in out]
        rows: dict[str, list[Row]] = {d["name"]: [] for d in rest}
        for row in self.conn.read_batched("read/document_columns", "names",
                                          list(rows), slice=SLICE) if rest else ():
            rows[row[0]].append(row)
        return {**out, **{d["name"]: piece_of(rows[d["name"]], d, self.conn.location)
                          for d in rest}}

    def pieces(self, docs: Sequence[dict[str, Any]]) -> list[Piece]:
        """The pieces of ``docs``, each document pulled once until the next
        load (while the cache holds it).  A pull also takes the next
        documents :meth:`read_ahead` announced, :data:`AHEAD_UNITS` units of
        them, in the same few queries."""
        with self._lock:
            have = {d["name"]: self._pieces.get(d["name"]) for d in docs}
            for name, hit in have.items():
                if hit is not None:
                    self._pieces.move_to_end(name)
            missing = [d for d in docs if have[d["name"]] is None]
            if missing:
                missing += self._upcoming("", lambda name: name in self._pieces,
                                          {d["name"] for d in missing})
        new = self._keep(self.pull(missing))
        return [hit if (hit := have[d["name"]]) is not None else new[d["name"]] for d in docs]

    def _keep(self, new: dict[str, Piece]) -> dict[str, Piece]:
        """``new``, pulled, kept (:data:`CACHE_UNITS` units at most, the least
        recently used dropped first)."""
        with self._lock:
            for name, piece in new.items():
                if name not in self._pieces:
                    self._pieces[name] = piece
                    self._cached_units += len(piece)
            while self._cached_units > CACHE_UNITS and len(self._pieces) > 1:
                _, dropped = self._pieces.popitem(last=False)
                self._cached_units -= len(dropped)
        return new

    def _upcoming(self, what: str, held: Callable[[str], bool], taken: set[str],
                  most: int = AHEAD_UNITS) -> list[dict[str, Any]]:
        """The next announced documents (:meth:`read_ahead`) whose ``what``
        (``""``: units, else a summary's partitions) is not ``held`` nor in
        ``taken``, about ``most`` units of them (the lock held)."""
        out: list[dict[str, Any]] = []
        units = 0
        at = self._next.get(what, 0)
        while at < len(self._ahead) and units < most:
            d = self._ahead[at]
            at += 1
            if not held(d["name"]) and d["name"] not in taken:
                out.append(d)
                units += int(d["count"])
        self._next[what] = at
        return out

    def read_ahead(self, ids: Iterable[str], pull: bool = False) -> None:
        """Announce the units an evaluation's topics will view, in the order
        they will: the first pull (a topic whose measures read its table)
        takes the documents that come next with it (:meth:`pieces`); a model
        that reads no table pulls none.  With ``pull``, those of their
        documents whose ids resolve in their units (an element's XPath; a
        page or a video by its place:
        :func:`~graphprum.store.bolt.pieces.resolver`) are pulled now,
        :data:`CACHE_UNITS` units at most, in the queries a first pull would
        send."""
        names = list(dict.fromkeys(document_of(canonical(u)) for u in ids))
        docs = {d["name"]: d for d in self.documents_named(names)}
        with self._lock:
            self._ahead = [docs[n] for n in names if n in docs]
            self._next = {}
            now = self._upcoming("", lambda name: name in self._pieces, set(), CACHE_UNITS) \
                if pull else []
            self._next = {}  # the topics' own pulls start from the first again
        self._keep(self.pull([d for d in now if int(d["kind"]) not in (KIND_PAGE, KIND_VIDEO)]))

    # ------------------------------------------------------- partitions
    def partitions(self, axpre: str, docs: Sequence[dict[str, Any]]) -> np.ndarray:
        """0-based partition of every unit of ``docs`` (in order, -1 for a
        unit in none) under the stored summary ``axpre``, each document's
        asked once with the next announced documents' (:meth:`read_ahead`)."""
        names = [str(d["name"]) for d in docs]
        with self._lock:
            missing = [d for d in docs if (axpre, d["name"]) not in self._parts]
            if missing:
                missing += self._upcoming(axpre, lambda name: (axpre, name) in self._parts,
                                          {d["name"] for d in missing})
        found = {str(d["name"]): np.full(int(d["count"]), -1, dtype=np.int64) for d in missing}
        rest = list(found)  # a document none of whose units is in a partition has no row
        if self.conn.redis() is not None and rest:  # as read/document_columns_packed
            rest = []
            for name, pre, sid in self.conn.read_batched(
                    "read/document_partitions_packed", "names", list(found), compact=True,
                    axpre=axpre):
                at, of = whole_numbers(pre), whole_numbers(sid)
                if at is None or of is None or len(at) != len(of):
                    rest.append(name)
                else:
                    found[name][at] = of - 1
        for name, _, pre, sid in self.conn.read_batched(
                "read/document_partitions", "names", rest, axpre=axpre,
                slice=SLICE) if rest else ():
            found[name][np.asarray(pre, dtype=np.int64)] = np.asarray(sid, dtype=np.int64) - 1
        with self._lock:
            self._parts.update({(axpre, n): a for n, a in found.items()})
            got = [self._parts.get((axpre, n), found.get(n)) for n in names]
        return np.concatenate([g for g in got if g is not None]) if names \
            else np.zeros(0, np.int64)
