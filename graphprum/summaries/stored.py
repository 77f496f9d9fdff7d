"""AxPRE summaries kept in a store: building one into any backend, reading it back.

A store with its collection at hand as rows (capability ``table``: the
embedded and memory stores) has its partitions computed in numpy
(:func:`graphprum.summaries.axpre.build_summary`) and stored as arrays
(the embedded store also writes them into its graph as ``(:Summary)``
nodes).  A server store (Bolt) derives the partitions with the graph
queries of ``cypher/summary/`` itself and writes ``IN_PARTITION`` edges; only
the summary graph's statistics come back, and the steady state π is
computed here from them.

Examples
--------
>>> import tempfile, pathlib
>>> from graphprum.loading import load_xml
>>> from graphprum.store.memory import MemoryStore
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "x.xml").write_text("<a><b/><b><c/></b></a>")
>>> store = MemoryStore()
>>> _ = load_xml(store, [d / "x.xml"])
>>> build_stored(store, "label").sids
['S1', 'S2', 'S3']
>>> stored_summary(store, "label").partitions["extent"].tolist()
[1, 2, 1]
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from graphprum.errors import StoreError, UsageError
from graphprum.store.base import TABLE, Store
from graphprum.summaries.axpre import Summary, _steady, build_summary, normalise_axpre
from graphprum.units import KIND_ELEMENT


def build_stored(store: Store, axpre: str, weight: str = "count") -> Summary:
    """Build the ``axpre`` summary of ``store``'s XML elements, store it, return it."""
    name = normalise_axpre(axpre)
    if TABLE in store.capabilities:
        table = store.table()
        if not (np.asarray(table.columns["kind"]) == KIND_ELEMENT).any():
            raise UsageError(f"{store.location} holds no XML elements to summarise "
                             f"(load XML, or web pages with --elements)")
        summary = build_summary(table, name, weight)
    else:
        if store.count_units(KIND_ELEMENT) == 0:
            raise UsageError(f"{store.location} holds no XML elements to summarise "
                             f"(load XML, or web pages with --elements)")
        statistics, info = store.derive_partitions(name)
        summary = _from_statistics(name, weight, statistics, info)
    arrays, meta = summary.to_arrays()
    store.save_summary(name, arrays, meta)
    return summary


def _from_statistics(axpre: str, weight: str, arrays: dict[str, np.ndarray],
                     meta: dict[str, object]) -> Summary:
    """A summary (without membership) from a server's partition statistics."""
    keys = list(meta["keys"])  # type: ignore[call-overload]
    n = len(keys)
    partitions = pd.DataFrame({
        "sid": [f"S{i + 1}" for i in range(n)], "tag": meta["tags"], "key": keys,
        "extent": np.asarray(arrays["partition_extent"], np.int64),
        "length": np.asarray(arrays["partition_length"], np.float64)})
    edges = pd.DataFrame({"src": np.asarray(arrays["edge_src"], np.int32),
                          "dst": np.asarray(arrays["edge_dst"], np.int32),
                          "count": np.asarray(arrays["edge_count"], np.int64),
                          "length": np.asarray(arrays["edge_length"], np.float64)})
    summary = Summary(axpre, weight, np.zeros(0, np.int32), partitions, edges,
                      pd.DataFrame({"src": [], "dst": [], "w": []}), np.zeros(n))
    if weight == "extent":
        raise UsageError("the extent weighting needs the unit table; a server store "
                         "offers count or length (or a weights file)")
    summary.weights, summary.pi = _steady(summary, weight, None)
    return summary


def stored_summary(store: Store, axpre: str, weight: str | None = None) -> Summary:
    """The summary ``axpre`` stored in ``store`` (under ``weight`` when given);
    StoreError naming the command that builds it when there is none."""
    name = normalise_axpre(axpre)
    found = store.load_summary(name)
    if found is None:
        raise StoreError(f"{store.location}: no {name} summary stored; build it with "
                         f"'graphprum summary build {name}'")
    try:
        summary = Summary.from_arrays(*found)
    except (KeyError, ValueError) as exc:
        raise StoreError(f"{store.location}: the stored {name} summary is damaged ({exc}); "
                         f"build it again") from None
    if weight is not None and weight != summary.weight:
        table = store.table() if TABLE in store.capabilities else None
        summary = summary.reweighted(weight, table)
    return summary
