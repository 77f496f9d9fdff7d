"""AxPRE summaries in a Bolt store, derived and kept by the graph database.

:meth:`BoltSummaries.derive_partitions` computes every element's partition
key with the queries of ``cypher/summary/`` (into a scratch property
``_part``, which every derivation sets anew for every element; level by
level of depth for ``c*``, whose keys name
the classes of the children by the ids of scratch ``CStarClass`` nodes, one
per distinct key, so that keys stay short), then one query
groups the elements by key into ``(:Summary)`` nodes numbered ``S1, S2,
...`` in load order of their first element with ``IN_PARTITION`` from each
element, and another counts the ``SUMMARY_EDGE {count, length}`` between
them.  Only the partitions' statistics come back to the client, which
computes the steady state π (:mod:`graphprum.summaries.stored`) and stores
it on the nodes (:meth:`BoltSummaries.save_summary`).  Membership stays in
the graph: the evaluator asks for the partitions of a topic's units
(:meth:`~graphprum.store.bolt.reads.BoltReads.partitions`).
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from graphprum.errors import StoreError, UsageError
from graphprum.store.base import SummaryPage
from graphprum.store.bolt.connection import BoltConnection
from graphprum.store.bolt.pack import float_text
from graphprum.store.bolt.reads import BoltReads

#: The AxPRE expressions the graph queries derive (those of
#: :mod:`graphprum.summaries.axpre`, which the store layer does not import).
AXPRES = ("label", "p", "p*", "c", "p*|c", "c*")
#: A unit's place in load order from its document's ``seq`` and its ``pre``
#: (as ``summary/number.cypher`` orders them).
PLACE = 2 ** 32
#: Sample elements a partition keeps (``summary/number.cypher``), those the
#: explorer page shows (:data:`graphprum.summaries.explore.SAMPLES`).
SAMPLES = 5
#: Bytes of a row the summaries' reads ask for at most, as parallel lists
#: (``summary/read_partitions.cypher``): FalkorDB 4.16 never answers a Bolt
#: record longer than one chunk (65,535 bytes; measured: 65,500 bytes of
#: strings in one list answered, 65,600 never).
REPLY_BYTES = 60_000
#: Bytes an edge takes at most in ``summary/read_edges.cypher``: four
#: numbers of at most 9 bytes each, and room for the lists' headers.
EDGE_BYTES = 40
#: The summaries whose partitions each summary's partition determines (every
#: element of one partition lies in the same partition of each): a label
#: path ends with the element's parent's tag and its own, a c* class names
#: its tag and its children's classes (so their tags), and p*|c keys are the
#: p* key with the c key's child tags.
DETERMINES = {"label": (), "p": ("label",), "p*": ("p", "label"), "c": ("label",),
              "p*|c": ("p*", "p", "c", "label"), "c*": ("c", "label")}


class BoltSummaries:
    """The summaries of a :class:`~graphprum.store.bolt.store.BoltStore`,
    over its connection; what is stored is read by ``reads``."""

    def __init__(self, conn: BoltConnection, reads: BoltReads) -> None:
        self.conn = conn
        self.reads = reads
        self.location = conn.location
        #: per summary read (:meth:`_read_summary`), the samples its
        #: partitions kept as ``(place, uid)``, None when they kept none
        self._kept: dict[str, list[list[tuple[int, str]]] | None] = {}
        #: per summary read, its partitions' extents (in SID order)
        self._extents: dict[str, np.ndarray] = {}

    def _max_depth(self) -> int:
        (depth,), = self.conn.read("summary/max_depth") or [(None,)]
        return int(depth) if depth is not None else -1

    def derive_partitions(self, axpre: str) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Derive the ``axpre`` partitions and summary edges in the graph and
        store them as ``(:Summary)`` nodes (see the module notes); returns
        their statistics (``partition_extent``, ``partition_length``,
        ``edge_*``) and ``{"tags": ..., "keys": ...}``."""
        if axpre not in AXPRES:
            raise UsageError(f"unknown AxPRE {axpre!r} (one of {', '.join(AXPRES)})")
        self.conn.ensure_schema()
        incomplete = self.conn.read("read/incomplete")
        if incomplete:
            raise StoreError(f"{self.location}: {len(incomplete)} documents are being loaded "
                             f"or were left by an interrupted load; wait for the load to "
                             f"finish, or run 'graphprum load --resume'")
        self.conn.write("summary/delete", axpre=axpre)
        if axpre in ("label", "c"):
            self.conn.write("summary/label")
        elif axpre == "p":
            self.conn.write("summary/p")
        elif axpre in ("p*", "p*|c"):
            self.conn.write("summary/pstar")
        else:  # c*
            depth = self._max_depth()
            try:
                for d in range(depth, -1, -1):
                    self.conn.write("summary/cstar_level", depth=d)
                    self.conn.write("summary/cstar_classes", depth=d)
                    self.conn.write("summary/cstar_ids", depth=d)
            finally:
                while self.conn.write("summary/cstar_clear")[0][0]:
                    pass
        if axpre in ("c", "p*|c"):
            self.conn.write("summary/child_tags")
        self.conn.write("summary/number", axpre=axpre, k=SAMPLES)
        self.conn.write("summary/edges", axpre=axpre)
        if axpre == "c*":
            self.conn.write("summary/cstar_keys", axpre=axpre)
        self.reads.forget_summaries()
        arrays, meta = self._read_summary(axpre)
        return arrays, meta

    def _read_summary(self, axpre: str) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """A stored summary's statistics and metadata (see
        :meth:`derive_partitions`), read as runs of partitions and edges in
        parallel lists (``summary/read_partitions.cypher``); the samples its
        partitions kept go to :attr:`_kept`."""
        runs = self.conn.read("summary/read_partitions", axpre=axpre, budget=REPLY_BYTES)
        column = [[v for run in runs for v in run[c]] for c in range(9)]
        order = np.argsort(np.array(column[0], dtype=np.int64), kind="stable").tolist()
        _, key, tag, extent, length, weight, pi, samples, places = \
            ([c[i] for i in order] for c in column)
        self._kept[axpre] = None if any(s is None for s in samples) else \
            [list(zip(p, s, strict=True)) for p, s in zip(places, samples, strict=True)]
        self._extents[axpre] = np.array(extent, np.int64)
        edges = self.conn.read("summary/read_edges", axpre=axpre, k=REPLY_BYTES // EDGE_BYTES)
        src, dst, count, size = ([v for run in edges for v in run[c]] for c in range(4))
        src_ = np.array(src, dtype=np.int64) - 1
        dst_ = np.array(dst, dtype=np.int64) - 1
        by = np.lexsort((dst_, src_))
        arrays = {"partition_extent": self._extents[axpre].copy(),
                  "partition_length": np.array(length, np.float64),
                  "edge_src": src_[by], "edge_dst": dst_[by],
                  "edge_count": np.array(count, np.int64)[by],
                  "edge_length": np.array(size, np.float64)[by]}
        meta = {"tags": [t or "" for t in tag], "keys": key,
                "weight": weight[0] if weight else None,
                "pi": [float(p) if p is not None else 0.0 for p in pi]}
        return arrays, meta

    def save_summary(self, name: str, arrays: dict[str, np.ndarray],
                     meta: dict[str, Any]) -> None:
        """Store a summary: its partitions are graph nodes (derived here
        unless already derived); π and the weighting go on the nodes."""
        if name not in self.reads.summary_names():
            self.derive_partitions(name)
        pi = np.asarray(arrays["pi"], dtype=np.float64)
        parts = [{"sid": f"S{i + 1}", "pi": float_text(float(p)), "tag": str(tag)}
                 for i, (p, tag) in enumerate(zip(pi, meta["tags"], strict=True))]
        self.conn.write_rows("summary/write_pi", "parts", parts, axpre=name,
                             weight=str(meta["weight"]))
        self.reads.forget_summaries()

    def load_summary(self, name: str) -> tuple[dict[str, np.ndarray], dict[str, Any]] | None:
        """A stored summary's arrays (without membership, which stays in the
        graph) and metadata."""
        if name not in self.reads.summary_names():
            return None
        arrays, found = self._read_summary(name)
        weight = found["weight"] or "count"
        w = arrays["edge_count"].astype(np.float64) if weight == "count" \
            else arrays["edge_length"]
        arrays.update({"pi": np.array(found["pi"], dtype=np.float64),
                       "weight_src": arrays["edge_src"], "weight_dst": arrays["edge_dst"],
                       "weight_w": w})
        meta = {"format": "graphprum-summary", "version": 1, "axpre": name,
                "weight": weight, "tags": found["tags"], "keys": found["keys"]}
        return arrays, meta

    def summary_page(self, names: Sequence[str], samples: int) -> SummaryPage:
        """The explorer page's counts of the stored summaries ``names``, by
        the server: what comes back is bounded by the partitions, never by
        the collection.

        The samples are those each partition kept when it was built, read
        with the partitions (:meth:`load_summary`; with another ``samples``,
        for a summary built before partitions kept them or not read here,
        ``summary/page_samples.cypher`` picks them, a scan of the
        collection).  The combinations of partitions are counted per
        partition of the finest summaries (:data:`DETERMINES`): the one
        partition of each other summary holding one of its elements
        (``summary/page_determined.cypher``), and its extent (read with the
        partitions); only when no summary asked determines all the others are
        the elements' combinations of the finest counted one by one
        (``summary/page_combinations.cypher``, a scan of the collection, on a
        second session while the rest is read).
        """
        names = list(names)
        finest = [m for m in names if not any(m in DETERMINES[n] for n in names)]
        with ThreadPoolExecutor(1) as pool:
            scan = pool.submit(self.conn.read, "summary/page_combinations", names=finest) \
                if len(finest) > 1 else None
            held = {m: self._determined(m, names) for m in finest}
            picks = self._samples(names, samples)
            roots: dict[str, list[int]] = {n: [] for n in names}
            for axpre, sid in self.conn.read("summary/page_roots", names=names):
                roots[axpre].append(int(sid[1:]) - 1)
            rows = scan.result() if scan is not None else []
        if scan is None:
            combos, counts = held[finest[0]], self._extents[finest[0]]
        else:  # each element's partitions of the finest, and those they determine
            part = {m: np.full(len(rows), -1, np.int64) for m in finest}
            for r, (parts, _) in enumerate(rows):
                for found in parts:
                    axpre, _, sid = str(found).rpartition(" ")
                    part[axpre][r] = int(sid[1:]) - 1
            combos = np.full((len(rows), len(names)), -1, np.int64)
            for m, p in part.items():
                ok = p >= 0
                combos[ok] = np.maximum(combos[ok], held[m][p[ok]])
            counts = np.array([int(n) for _, n in rows], np.int64)
        combinations = list(zip(map(tuple, combos.tolist()), counts.tolist(), strict=True))
        return SummaryPage({n: sorted(r) for n, r in roots.items()}, picks, combinations)

    def _determined(self, axpre: str, names: list[str]) -> np.ndarray:
        """Per partition of ``axpre`` (a row), its partition of each of
        ``names`` (a column): its own for ``axpre``, that holding its
        elements for those ``axpre`` determines (:data:`DETERMINES`,
        ``summary/page_determined.cypher``), -1 for the others."""
        if axpre not in self._extents:
            self._read_summary(axpre)
        at = {n: j for j, n in enumerate(names)}
        out = np.full((len(self._extents[axpre]), len(names)), -1, np.int64)
        out[:, at[axpre]] = np.arange(len(out))
        others = [n for n in names if n in DETERMINES[axpre]]
        # a pair: two numbers and a summary's name, each of at most 9 bytes
        runs = self.conn.read("summary/page_determined", axpre=axpre, names=others,
                              k=REPLY_BYTES // 27) if others else []
        part, other, holder = ([v for run in runs for v in run[c]] for c in range(3))
        if part and max(part) > len(out):
            raise StoreError(f"{self.location}: the {axpre} summary changed while the page "
                             f"was read; run the command again")
        out[np.array(part, np.int64) - 1, np.array([at[n] for n in other], np.int64)] = \
            np.array(holder, np.int64) - 1
        return out

    def _samples(self, names: list[str], samples: int) -> dict[str, list[list[tuple[int, str]]]]:
        """Per summary and partition (in order), its sample elements as
        ``(place, uid)``: those kept at build time, read with the partitions
        (:meth:`summary_page`)."""
        kept = {n: self._kept.get(n) for n in names}
        if samples == SAMPLES and all(k is not None for k in kept.values()):
            return {n: k for n, k in kept.items() if k is not None}
        found: dict[str, dict[int, list[tuple[int, str]]]] = {n: {} for n in names}
        for axpre, sid, units in self.conn.read("summary/page_samples", names=names,
                                                k=samples):  # every partition holds one
            found[axpre][int(sid[1:]) - 1] = [(seq * PLACE + pre, uid) for seq, pre, uid in units]
        return {n: [found[n][i] for i in range(len(found[n]))] for n in names}

    def summary_members(self, names: Sequence[str], ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Per stored summary of ``names``, the 0-based partition of each of
        ``ids`` (stored ids; -1 for a unit in none)."""
        out = {n: np.full(len(ids), -1, dtype=np.int64) for n in names}
        where: dict[str, list[int]] = {}
        for i, uid in enumerate(ids):
            where.setdefault(uid, []).append(i)
        for uid, axpre, sid in self.conn.read_batched("summary/members", "ids", list(where),
                                                      names=list(names)):
            out[axpre][where[uid]] = int(sid[1:]) - 1
        return out
