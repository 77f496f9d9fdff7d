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
>>> writes("COPY (MATCH (u:Unit) RETURN u.uid) TO '/tmp/out.csv'")
['COPY']
>>> writes("MATCH (u:Unit) WHERE u.copy = $set RETURN u.load")
[]
"""

from __future__ import annotations

import re
from typing import Any

from graphprum.errors import UsageError
from graphprum.store.base import CYPHER, Store

#: Clauses that change the graph, the server's settings or the file system,
#: or read files or code into the engine: Cypher's and the embedded engine's
#: (LadybugDB: ``COPY … TO`` writes a file, ``LOAD FROM`` reads one, ``LOAD
#: EXTENSION`` runs native code, ``EXPORT``/``IMPORT DATABASE``, ``ATTACH``).
#: A keyword after ``.`` or ``$`` is a property or a parameter, not a clause.
_WRITE = re.compile(
    r"(?<![.$])\b(CREATE|MERGE|SET|DELETE|DETACH|REMOVE|DROP|FOREACH|LOAD\s+\w+|ALTER|GRANT|"
    r"DENY|REVOKE|COPY|EXPORT|IMPORT|ATTACH|INSTALL|UNINSTALL|CHECKPOINT)\b",
    re.IGNORECASE)
_CALL = re.compile(r"(?<![.$])\bCALL\s+(`[^`]*`|[A-Za-z_][\w.]*)", re.IGNORECASE)
#: Procedures that only read (others may write, so they need ``write=True``).
READ_PROCEDURES = {"db.labels", "db.relationshiptypes", "db.propertykeys", "db.indexes",
                   "db.constraints", "dbms.components", "db.schema.visualization",
                   "db.schema.nodetypeproperties", "db.schema.reltypeproperties"}
_STRIP = re.compile(r"'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"|`[^`]*`|//[^\n]*|/\*.*?\*/",
                    re.DOTALL)
#: String literals and comments only (quoted names stay: ``$`a b``` is a parameter).
_STRIP_LITERALS = re.compile(r"'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"|//[^\n]*|/\*.*?\*/",
                             re.DOTALL)


def writes(text: str) -> list[str]:
    """Writing clauses (and procedure calls not known to be read-only) of a
    Cypher text, ignoring string literals, quoted names and comments."""
    bare = _STRIP.sub(" ", text)
    found = sorted({" ".join(m.group(1).upper().split()) for m in _WRITE.finditer(bare)})
    # procedure names may be quoted (CALL `db.labels`()): look for them with
    # quoted names kept
    for m in _CALL.finditer(_STRIP_LITERALS.sub(" ", text)):
        name = m.group(1)
        if name.lower().replace("`", "") not in READ_PROCEDURES:
            found.append(f"CALL {name}")
    return found


_PARAM = re.compile(r"\$(?:([A-Za-z_]\w*)|`([^`]*)`)")


def parameters(text: str) -> list[str]:
    """Names of the ``$parameters`` a Cypher text uses, outside string
    literals and comments, in order of first use.

    >>> parameters("MATCH (u {tag: $t}) WHERE u.x > $`min x` AND u.s = '$no' RETURN $t")
    ['t', 'min x']
    """
    bare = _STRIP_LITERALS.sub(" ", text)
    return list(dict.fromkeys(m.group(1) or m.group(2) for m in _PARAM.finditer(bare)))


def parse_param(text: str) -> tuple[str, object]:
    """``K=V`` from the command line: V as JSON when it parses (numbers,
    lists, quoted strings, true/false/null), else as a plain string.
    NAME is letters, digits and ``_``; integers must fit 64 bits.

    >>> parse_param("n=3"), parse_param("name=x'y"), parse_param('l=[1,"a"]')
    (('n', 3), ('name', "x'y"), ('l', [1, 'a']))
    """
    import json

    from graphprum.store.cypher_literal import check_integers, is_plain_name

    key, sep, value = text.partition("=")
    if not sep or not is_plain_name(key):
        raise UsageError(f"--param {text[:80]!r}: expected NAME=VALUE, NAME made of letters, "
                         f"digits and _")
    try:
        parsed = json.loads(value)
    except (ValueError, RecursionError):
        return key, value
    try:
        check_integers(parsed, f"${key}")
    except UsageError as exc:
        raise UsageError(f"--param {key}: {exc}") from None
    return key, parsed


def run_query(store: Store, text: str, params: dict[str, Any] | None = None,
              write: bool = False, timeout: float | None = None) -> list[dict[str, Any]]:
    """Run ``text`` against ``store``; rows as dicts (column -> value).

    Parameters travel as data, never as Cypher: to Neo4j and the embedded
    engine as parameters, to FalkorDB as literals written by
    :mod:`graphprum.store.cypher_literal` (hostile map keys quoted).
    ``timeout`` (seconds, None: no limit) bounds the query on every store.

    Raises UsageError for a write without ``write=True`` or a ``$parameter``
    without a value (both checked before anything is sent), for Cypher the
    store's engine refuses, for a
    parameter value that cannot be sent, and for a query past ``timeout``.
    """
    found = writes(text)
    if found and not write:
        raise UsageError(f"the query writes to the store or to files, or loads files or "
                         f"extensions ({', '.join(found)}); add --write to allow it")
    missing = [p for p in parameters(text) if p not in (params or {})]
    if missing:  # the embedded engine would bind them to null and return wrong rows
        raise UsageError("the query uses " + ", ".join(f"${p}" for p in missing)
                         + "; give " + ", ".join(f"--param {p}=VALUE" for p in missing))
    if CYPHER not in store.capabilities:
        raise UsageError(f"{store.location} runs no Cypher")
    return store.query(text, dict(params or {}), write=write, timeout=timeout)
