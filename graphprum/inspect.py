"""What ``graphprum show`` prints: one unit and its neighbourhood."""

from __future__ import annotations

from typing import Any

import numpy as np


def describe_unit(store: Any, uid: str) -> dict[str, Any]:
    """The unit ``uid`` with its ancestors, children, links and partitions.

    Returns a dict with keys ``unit`` (its fields), ``ancestors`` (ids, root
    first), ``children`` (id, tag, length, words), ``out_links`` and
    ``in_links`` (ids) and ``partitions`` (summary name -> partition id).
    """
    row = store.row_of(uid)
    unit = store.units([row]).iloc[0].to_dict()
    table = store.table()
    ancestors = store.ancestors(row)
    kids = store.children(row)
    children = store.units(kids)[["id", "tag", "length", "words"]].to_dict("records") \
        if len(kids) else []
    links = store.links()
    out_rows = links["dst"].to_numpy()[links["src"].to_numpy() == row]
    in_rows = links["src"].to_numpy()[links["dst"].to_numpy() == row]
    partitions = {}
    for name in store.summary_names():
        try:
            from graphprum.summaries.axpre import Summary

            summary = Summary.load(store.summary_dir(name))
            partitions[name] = summary.partition_of(row)
        except (ImportError, OSError, ValueError, AttributeError):
            continue
    return {
        "unit": unit,
        "ancestors": table.ids(ancestors),
        "children": children,
        "out_links": table.ids(np.asarray(out_rows).tolist()),
        "in_links": table.ids(np.asarray(in_rows).tolist()),
        "partitions": partitions,
    }
