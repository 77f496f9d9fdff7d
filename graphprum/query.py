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

#: One lexical token that can hide keywords: a quoted parameter name, a
#: quoted name, a string literal, a comment.  Matched left to right in one
#: pass, so a quote or ``//`` inside any of them starts nothing.
_TOKEN = re.compile(r"\$`[^`]*`|`[^`]*`|'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"|//[^\n]*|/\*.*?\*/",
                    re.DOTALL)

#: Writing clauses that may stand anywhere in a query.
_CLAUSE = re.compile(r"\b(CREATE|MERGE|SET|DELETE|DETACH|REMOVE|DROP|FOREACH|ALTER|GRANT|DENY|"
                     r"REVOKE|LOAD\s+(?:CSV|FROM|WITH))\b", re.IGNORECASE)
#: Statements of the embedded engine (LadybugDB) that write files, read files
#: or code into it, or change the database: they begin a statement.
#: ``COPY … TO`` writes a file, ``LOAD EXTENSION`` runs native code.
_STATEMENT = re.compile(r"(?:^|;)\s*(COPY|EXPORT|IMPORT|ATTACH|DETACH|INSTALL|UNINSTALL|"
                        r"CHECKPOINT|LOAD\s+EXTENSION)\b", re.IGNORECASE)
_CALL = re.compile(r"\bCALL\s*(`[^`]*`(?:\s*\.\s*(?:`[^`]*`|\w+))*|[A-Za-z_][\w.]*)",
                   re.IGNORECASE)
_PARAM = re.compile(r"\$([A-Za-z_]\w*)")
#: Procedures that only read (others may write, so they need ``write=True``).
READ_PROCEDURES = {"db.labels", "db.relationshiptypes", "db.propertykeys", "db.indexes",
                   "db.constraints", "dbms.components", "db.schema.visualization",
                   "db.schema.nodetypeproperties", "db.schema.reltypeproperties"}


def _lexed(text: str) -> tuple[str, str, list[str]]:
    """``text`` with its tokens (:data:`_TOKEN`) neutralised: where clauses
    are looked for (quoted names, strings and comments blanked), where
    procedure names are (quoted names kept), and the quoted parameter names."""
    bare: list[str] = []
    calls: list[str] = []
    quoted: list[str] = []
    at = 0
    for m in _TOKEN.finditer(text):
        bare.append(text[at:m.start()])
        calls.append(text[at:m.start()])
        token = m.group(0)
        if token.startswith("$"):
            quoted.append(token[2:-1])
            bare.append(" $_ ")
            calls.append(" $_ ")
        elif token.startswith("`"):
            bare.append(" _ ")
            calls.append(token)
        else:
            bare.append(" _ " if token[0] in "'\"" else " ")
            calls.append(" _ " if token[0] in "'\"" else " ")
        at = m.end()
    bare.append(text[at:])
    calls.append(text[at:])
    return "".join(bare), "".join(calls), quoted


def _a_name(bare: str, start: int, end: int) -> bool:
    """Whether the word at ``bare[start:end]`` is a name, not a clause: a
    property (after ``.``), a parameter (after ``$``), a label or type
    (after ``:``), an alias (after ``AS``) or a map key (before ``:``)."""
    before = bare[:start].rstrip()
    if before.endswith((".", "$", ":")) or re.search(r"\bAS$", before, re.IGNORECASE):
        return True
    return bare[end:].lstrip().startswith(":")


def writes(text: str) -> list[str]:
    """Writing clauses, engine statements that write or load files or code,
    and procedure calls not known to be read-only, of a Cypher text;
    string literals, quoted names, comments, properties, labels, aliases
    and map keys are not clauses."""
    bare, calls, _ = _lexed(text)
    found = {" ".join(m.group(1).upper().split()) for m in _CLAUSE.finditer(bare)
             if not _a_name(bare, m.start(1), m.end(1))}
    found |= {" ".join(m.group(1).upper().split()) for m in _STATEMENT.finditer(bare)
              if not _a_name(bare, m.start(1), m.end(1))}
    out = sorted(found)
    for m in _CALL.finditer(calls):
        if _a_name(calls, m.start(), m.start() + 4):
            continue
        name = m.group(1)
        if re.sub(r"[`\s]", "", name).lower() not in READ_PROCEDURES:
            out.append(f"CALL {name}")
    return out


def parameters(text: str) -> list[str]:
    """Names of the ``$parameters`` a Cypher text uses, outside string
    literals, quoted names and comments, in order of first use.

    >>> parameters("MATCH (u {tag: $t}) WHERE u.x > $`min x` AND u.s = '$no' RETURN $t")
    ['t', 'min x']
    >>> parameters("RETURN 1 AS `$id`, $`a b`, $c")
    ['a b', 'c']
    """
    bare, _, quoted = _lexed(text)
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
                         f"extensions ({', '.join(found)}); add --write to allow it (on a "
                         f"Bolt store: the embedded store's graph is read-only)")
    missing = [p for p in parameters(text) if p not in (params or {})]
    if missing:  # the embedded engine would bind them to null and return wrong rows
        raise UsageError("the query uses " + ", ".join(f"${p}" for p in missing)
                         + "; give " + ", ".join(f"--param {p}=VALUE" for p in missing))
    if CYPHER not in store.capabilities:
        raise UsageError(f"{store.location} runs no Cypher")
    return store.query(text, dict(params or {}), write=write, timeout=timeout)
