"""What ``graphprum show`` prints: one unit and its neighbourhood."""

from __future__ import annotations

from typing import Any

from graphprum.errors import UsageError
from graphprum.floats import whole
from graphprum.io.xpaths import normalise_id
from graphprum.store.base import Store


def describe_unit(store: Store, uid: str) -> dict[str, Any]:
    """The unit ``uid`` (a document name means its root; steps without a
    position mean ``[1]``, as in runs) with its ancestors,
    children, links and summary partitions.

    Returns a dict with keys ``unit`` (its fields, text and attributes
    included), ``ancestors`` (ids, root first), ``children`` (id, tag,
    length, words), ``out_links`` (the units the links held in its subtree
    arrive at: what a reader of the unit can follow) and ``in_links`` (the
    units holding a link that arrives at it), ids with multiplicity,
    and ``partitions`` (summary name -> partition id).
    """
    if not isinstance(uid, str):
        raise UsageError(f"a unit id is a string (DOC#XPATH, a page's path, VIDEO#N), "
                         f"got {type(uid).__name__} {uid!r}")
    unit = store.units([normalise_id(uid)]).iloc[0].to_dict()
    unit.pop("row", None)
    unit.update({k: whole(unit[k]) for k in ("start", "end", "length") if k in unit})
    uid = unit["id"]
    kids = store.children(uid)
    children = store.units(kids)[["id", "tag", "length", "words"]].to_dict("records") \
        if kids else []
    for child in children:
        child["length"] = whole(child["length"])
    out_links, in_links = store.links_of(uid)
    partitions = {}
    if store.summary_names():
        view = store.view([uid])
        rows = view.resolve([uid])
        for name in store.summary_names():
            part = int(store.partitions(name, view, rows)[0])
            if part >= 0:
                partitions[name] = f"S{part + 1}"
    return {
        "unit": unit,
        "ancestors": store.ancestors(uid),
        "children": children,
        "out_links": out_links,
        "in_links": in_links,
        "partitions": partitions,
    }
