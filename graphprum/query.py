"""``graphprum query``: read-only Cypher against either store.

On a Bolt store the text goes to the server with its parameters (never pasted
into the text), in a read-access session, unless ``write=True``.  Writing
clauses are refused before anything is sent, because FalkorDB does not
enforce read sessions.  On the local store the query runs through
``grand-cypher`` over a networkx view of the collection (nodes ``:Unit`` and
``:Document``, edges ``:CHILD``, ``:LINK``, ``:ROOT``, with the Bolt store's
property names).  grand-cypher has no ``$parameters`` and no writes; its
subset of Cypher is ``MATCH`` / ``WHERE`` / ``RETURN`` with aggregation,
``ORDER BY``, ``SKIP``/``LIMIT`` — anything else is refused with its parser's
message.

Examples
--------
>>> writes("MATCH (n) RETURN n.name")
[]
>>> writes("MATCH (n) WHERE n.x = 'CREATE' DETACH DELETE n")
['DELETE', 'DETACH']
"""

from __future__ import annotations

import re

from graphprum.errors import UsageError

_WRITE = re.compile(
    r"\b(CREATE|MERGE|SET|DELETE|DETACH|REMOVE|DROP|FOREACH|LOAD\s+CSV|ALTER|GRANT|DENY|REVOKE)\b",
    re.IGNORECASE)
_CALL = re.compile(r"\bCALL\s+([A-Za-z_][\w.]*)", re.IGNORECASE)
#: Procedures that only read (others may write, so they need ``write=True``).
READ_PROCEDURES = {"db.labels", "db.relationshiptypes", "db.propertykeys", "db.indexes",
                   "db.constraints", "dbms.components", "db.schema.visualization",
                   "db.schema.nodetypeproperties", "db.schema.reltypeproperties"}
_STRIP = re.compile(r"'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"|`[^`]*`|//[^\n]*|/\*.*?\*/",
                    re.DOTALL)


def writes(text: str) -> list[str]:
    """Writing clauses (and procedure calls not known to be read-only) of a
    Cypher text, ignoring string literals, quoted names and comments."""
    bare = _STRIP.sub(" ", text)
    found = sorted({" ".join(m.group(1).upper().split()) for m in _WRITE.finditer(bare)})
    found += [f"CALL {m.group(1)}" for m in _CALL.finditer(bare)
              if m.group(1).lower() not in READ_PROCEDURES]
    return found


def parse_param(text: str) -> tuple[str, object]:
    """``K=V`` from the command line: V as JSON when it parses (numbers,
    lists, quoted strings, true/false/null), else as a plain string.

    >>> parse_param("n=3"), parse_param("name=x'y"), parse_param('l=[1,"a"]')
    (('n', 3), ('name', "x'y"), ('l', [1, 'a']))
    """
    import json

    key, sep, value = text.partition("=")
    if not sep or not key.isidentifier():
        raise UsageError(f"--param {text!r}: expected NAME=VALUE")
    try:
        return key, json.loads(value)
    except ValueError:
        return key, value


def run_query(store, text: str, params: dict | None = None, write: bool = False) -> list[dict]:
    """Run ``text`` against ``store``; rows as dicts (column -> value).

    Raises UsageError for a write without ``write=True``, for parameters or
    writes on the local store, and for Cypher the local engine cannot run.
    """
    params = dict(params or {})
    found = writes(text)
    if found and not write:
        raise UsageError(f"the query writes to the store ({', '.join(found)}); "
                         f"add --write to allow it")
    from graphprum.store.bolt import BoltStore

    if isinstance(store, BoltStore):
        rows = store.run(text, params, write=write, raw=True)
        return [{k: _plain(v) for k, v in r.items()} for r in rows]
    return _run_local(store, text, params, write)


def _plain(value):
    """Driver values (nodes, relationships, paths) as plain data."""
    if hasattr(value, "labels") and hasattr(value, "items"):
        return {"labels": sorted(value.labels), **dict(value.items())}
    if hasattr(value, "type") and hasattr(value, "items") and hasattr(value, "nodes"):
        return {"type": value.type, **dict(value.items())}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def local_graph(store):
    """A networkx view of a local store with the Bolt store's labels and
    property names (``__labels__`` as grand-cypher expects)."""
    import networkx as nx
    import numpy as np

    table = store.table()
    g = nx.MultiDiGraph()
    ids = table.ids()
    cols = {c: np.asarray(v).tolist() for c, v in table.columns.items()}
    names = table.docs["name"].tolist()
    first = table.docs["first"].to_numpy()
    pre = table.pre.tolist()
    for r, uid in enumerate(ids):
        d = cols["doc"][r]
        g.add_node(uid, __labels__={"Unit"}, uid=uid, doc=names[d], kind=cols["kind"][r],
                   tag=table.tags[cols["tag"][r]], path=table.paths[cols["path"][r]],
                   depth=cols["depth"][r], pre=pre[r],
                   ppre=cols["parent"][r] - int(first[d]) if cols["parent"][r] >= 0 else -1,
                   post=cols["post"][r], size=cols["size"][r], pos=cols["pos"][r],
                   start=cols["start"][r], length=cols["length"][r], words=cols["words"][r])
        if cols["parent"][r] >= 0:
            g.add_edge(ids[cols["parent"][r]], uid, __labels__={"CHILD"})
    for i, rec in enumerate(table.docs.to_dict("records")):
        key = ("Document", rec["name"])
        g.add_node(key, __labels__={"Document"}, name=rec["name"], source=rec["source"],
                   kind=int(rec["kind"]), length=float(rec["length"]),
                   count=int(rec["count"]), seq=i + 1)
        g.add_edge(key, ids[int(rec["first"])], __labels__={"ROOT"})
    links = store.links()
    for s, t in zip(links["src"].tolist(), links["dst"].tolist(), strict=True):
        g.add_edge(ids[s], ids[t], __labels__={"LINK"})
    return g


def _run_local(store, text: str, params: dict, write: bool) -> list[dict]:
    if write or writes(text):
        raise UsageError("the local store runs read-only Cypher only (grand-cypher); "
                         "writes need a Bolt store")
    if params or "$" in _STRIP.sub(" ", text):
        raise UsageError("the local store's Cypher engine (grand-cypher) has no $parameters; "
                         "use a Bolt store, or write the values in the query")
    try:
        from grandcypher import GrandCypher
    except ImportError:
        raise UsageError("Cypher on the local store needs grand-cypher: "
                         "pip install grand-cypher") from None
    try:
        result = GrandCypher(local_graph(store)).run(text)
    except Exception as exc:  # the parser's errors are of many types
        first = " ".join(str(exc).split())[:200]
        raise UsageError(f"the local store's Cypher engine (grand-cypher) cannot run this "
                         f"query: {first}") from None
    columns = [str(k) for k in result]
    values = list(result.values())
    n = len(values[0]) if values else 0
    return [{c: _plain_local(values[j][i]) for j, c in enumerate(columns)} for i in range(n)]


def _plain_local(value):
    if isinstance(value, dict):
        return {k: v for k, v in value.items() if k != "__labels__"}
    return value
