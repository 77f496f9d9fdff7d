"""``graphprum query``: read-only Cypher against either store.

Both stores hold the collection as the same property graph (labels
``Unit``, ``Document``, ``Summary``; relationships ``CHILD``, ``ROOT``,
``LINK``, ``IN_PARTITION``, ``SUMMARY_EDGE``; see
:mod:`graphprum.store.local.graph`), so the same text gives the same rows:
the embedded store runs it on its LadybugDB graph (opened read-only), a
Bolt store sends it to the server with its parameters in a read-access
session unless ``write=True``.  Without ``write=True`` a text runs only when
it only reads (:mod:`graphprum.store.cypher_guard`: every statement starts
as a read does, ``PROFILE``/``EXPLAIN`` seen through, no writing clause,
no procedure that may write), checked before anything is sent, because
FalkorDB does not enforce read sessions and LadybugDB's read-only mode lets
``COPY … TO`` and ``LOAD EXTENSION`` through.

Examples
--------
>>> writes("MATCH (n) RETURN n.name")
[]
>>> writes("MATCH (n) WHERE n.x = 'CREATE' DETACH DELETE n")
['DELETE', 'DETACH']
>>> writes("PROFILE COPY (MATCH (u:Unit) RETURN u.uid) TO '/tmp/out.csv'")
['COPY']
>>> writes("MATCH (u:Unit) WHERE u.copy = $set RETURN u.load")
[]
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from graphprum.errors import UsageError
from graphprum.store.base import CYPHER, Store
from graphprum.store.cypher_guard import lexed, refuse_writes, statement_count, what_runs, writes
from graphprum.store.cypher_literal import check_integers, is_plain_name

_PARAM = re.compile(r"\$([A-Za-z_]\w*)")

__all__ = ["parameters", "parse_param", "run_query", "writes"]


def parameters(text: str) -> list[str]:
    """Names of the ``$parameters`` a Cypher text uses, outside string
    literals, quoted names and comments, in order of first use.

    >>> parameters("MATCH (u {tag: $t}) WHERE u.x > $`min x` AND u.s = '$no' RETURN $t")
    ['t', 'min x']
    >>> parameters("RETURN 1 AS `$id`, $`a b`, $c")
    ['a b', 'c']
    """
    bare, _, quoted = lexed(text)
    return list(dict.fromkeys(_in_order(bare, quoted)))


def _in_order(bare: str, quoted: list[str]) -> list[str]:
    """Parameter names in order of use: ``$_`` in ``bare`` stands for the
    next quoted one."""
    out: list[str] = []
    q = iter(quoted)
    for m in _PARAM.finditer(bare):
        out.append(next(q) if m.group(1) == "_" else m.group(1))
    return out


def parse_param(text: str) -> tuple[str, object]:
    """``K=V`` from the command line: V as JSON when it parses (numbers,
    lists, quoted strings, true/false/null), else as a plain string.
    NAME is letters, digits and ``_``; integers must fit 64 bits.

    >>> parse_param("n=3"), parse_param("name=x'y"), parse_param('l=[1,"a"]')
    (('n', 3), ('name', "x'y"), ('l', [1, 'a']))
    """
    key, sep, value = text.partition("=")
    if not sep or not is_plain_name(key):
        raise UsageError(f"--param {text[:80]!r}: expected NAME=VALUE, NAME made of letters, "
                         f"digits and _")
    try:
        parsed = json.loads(value)
    except (ValueError, RecursionError):
        return key, value
    refuse_deep({key: parsed})
    try:
        check_integers(parsed, f"${key}")
    except UsageError as exc:
        raise UsageError(f"--param {key}: {exc}") from None
    return key, parsed


#: Seconds past which a query's timeout is no limit (about 115 days).
MAX_TIMEOUT = 1e7
#: How deep lists and maps may nest in a parameter.
MAX_DEPTH = 64


def refuse_deep(params: Mapping[str, Any]) -> None:
    """UsageError for a parameter whose lists and maps nest deeper than
    :data:`MAX_DEPTH` (the encoders recurse: Python's stack would end first).

    >>> refuse_deep({"x": [[1, {"k": [2]}]]})
    >>> refuse_deep({"x": [[[[[]]]]] * 1}) is None
    True
    """
    stack = [(name, value, 0) for name, value in params.items()]
    while stack:
        name, value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise UsageError(f"parameter ${name} nests lists or maps more than {MAX_DEPTH} "
                             f"deep")
        if isinstance(value, Mapping):
            stack.extend((name, v, depth + 1) for v in value.values())
        elif isinstance(value, list | tuple):
            stack.extend((name, v, depth + 1) for v in value)


def run_query(store: Store, text: str, params: dict[str, Any] | None = None,
              write: bool = False, timeout: float | None = None) -> list[dict[str, Any]]:
    """Run ``text`` against ``store``; rows as dicts (column -> value).

    Parameters travel as data, never as Cypher: to Neo4j and the embedded
    engine as parameters, to FalkorDB as literals written by
    :mod:`graphprum.store.cypher_literal` (hostile map keys quoted).
    ``timeout`` (seconds, None: no limit) bounds the query on every store.

    Raises UsageError for a text that does more than read without
    ``write=True`` (:func:`~graphprum.store.cypher_guard.refuse_writes`),
    for one of more than one statement (a store would answer with the last
    one's rows only) or a ``$parameter``
    without a value (all checked before anything is sent), for Cypher the
    store's engine refuses, for a parameter value that cannot be sent, and
    for a query past ``timeout``.
    """
    if timeout is not None and not timeout <= MAX_TIMEOUT:  # inf, 1e300: no limit
        timeout = None
    refuse_deep(params or {})
    text = what_runs(text)  # comments out: the store runs what was checked
    if not write:  # first: what a text would do matters more than its form
        refuse_writes(text)
    statements = statement_count(text)
    if statements > 1:  # a store answers with the last one's rows only
        raise UsageError(f"the query holds {statements} statements (';' separates them): "
                         "give one statement per query")
    missing = [p for p in parameters(text) if p not in (params or {})]
    if missing:  # the embedded engine would bind them to null and return wrong rows
        raise UsageError("the query uses " + ", ".join(f"${p}" for p in missing)
                         + "; give " + ", ".join(f"--param {p}=VALUE" for p in missing))
    if CYPHER not in store.capabilities:
        raise UsageError(f"{store.location} runs no Cypher")
    return store.query(text, dict(params or {}), write=write, timeout=timeout)
