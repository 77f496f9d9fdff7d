"""``graphprum query``: read-only Cypher against either store.

Both stores hold the collection as the same property graph (labels
``Unit``, ``Document``, ``Summary``; relationships ``CHILD``, ``ROOT``,
``LINK``, ``IN_PARTITION``, ``SUMMARY_EDGE``; see
:mod:`graphprum.store.local.graph`), so the same text gives the same rows:
the embedded store runs it on its LadybugDB graph (read-only), a Bolt store
sends it to the server with its parameters in a read-access session unless
``write=True``.  Writing clauses are refused before anything is sent,
because FalkorDB does not enforce read sessions.

Examples
--------
>>> writes("MATCH (n) RETURN n.name")
[]
>>> writes("MATCH (n) WHERE n.x = 'CREATE' DETACH DELETE n")
['DELETE', 'DETACH']
"""

from __future__ import annotations

import re
from typing import Any

from graphprum.errors import UsageError
from graphprum.store.base import CYPHER, Store

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


def run_query(store: Store, text: str, params: dict[str, Any] | None = None,
              write: bool = False, timeout: float | None = None) -> list[dict[str, Any]]:
    """Run ``text`` against ``store``; rows as dicts (column -> value).

    Raises UsageError for a write without ``write=True`` (checked before
    anything is sent) and for Cypher the store's engine refuses.
    """
    found = writes(text)
    if found and not write:
        raise UsageError(f"the query writes to the store ({', '.join(found)}); "
                         f"add --write to allow it")
    if CYPHER not in store.capabilities:
        raise UsageError(f"{store.location} runs no Cypher")
    return store.query(text, dict(params or {}), write=write, timeout=timeout)
