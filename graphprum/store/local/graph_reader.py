"""The embedded graph opened read-only, and its rows as plain data.

:class:`GraphReader` answers Cypher over a generation's graph
(``graph.lbug``, :mod:`graphprum.store.local.graph`), every text checked
first to only read; :func:`plain` gives LadybugDB's values the way the
Bolt store gives them.  :func:`import_ladybug` imports the engine, or says
what is missing.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

from graphprum.errors import StoreError, UsageError
from graphprum.store.cypher_guard import a_name, lexed, refuse_writes


def import_ladybug() -> Any:
    try:
        import ladybug  # ~12 ms: Cypher on the embedded store only
    except ImportError as exc:  # pragma: no cover - a dependency
        raise StoreError(f"the embedded store needs LadybugDB (pip install ladybug): {exc}") \
            from None
    if not hasattr(ladybug, "Database"):
        raise StoreError("the module 'ladybug' found is not LadybugDB (the graph database) "
                         "but another package of that name (ladybug-core, climate data?); "
                         "pip uninstall it and pip install ladybug")
    return ladybug



class GraphReader:
    """A generation's graph opened read-only, for queries that only read.

    LadybugDB's read-only mode refuses writes to the database but lets
    ``COPY … TO``, ``EXPORT DATABASE``, ``LOAD FROM``, ``LOAD EXTENSION``,
    ``INSTALL`` and ``CHECKPOINT`` run (the last writes files beside the
    graph), and has no setting that turns them off; so every text is
    checked first (:func:`~graphprum.store.cypher_guard.refuse_writes`),
    however the store is reached (``graphprum query``, the API's
    ``store.query``).
    """

    def __init__(self, path: Path) -> None:
        lb = import_ladybug()
        try:
            self.db = lb.Database(str(path), read_only=True)
            self.conn = lb.Connection(self.db)
        except RuntimeError as exc:
            raise StoreError(f"{path}: cannot open the store's graph: {exc}") from None

    def query(self, text: str, params: dict[str, Any] | None = None,
              timeout: float | None = None) -> list[dict[str, Any]]:
        """Rows of ``text`` as dicts; UsageError for a text that does more
        than read, and for Cypher the engine refuses."""
        refuse_writes(text)
        refuse_ungrouped_after_limit(text)
        if timeout is not None:  # in whole milliseconds, at least one (0 is no limit)
            self.conn.set_query_timeout(max(1, math.ceil(timeout * 1000)))
        try:
            result = self.conn.execute(text, params or {})
        except (ValueError, TypeError) as exc:  # a parameter the engine cannot take
            raise UsageError(f"a parameter the embedded store cannot take ({exc}): its "
                             f"lists hold values of one type (numbers, strings, ...)") from None
        except RuntimeError as exc:
            message = " ".join(str(exc).split())
            if "interrupted" in message.lower() or "timeout" in message.lower():
                raise UsageError(f"the query ran past its timeout ({timeout:g} s); "
                                 f"give --timeout SECONDS") from None
            if "vector with ANY type" in message:
                raise UsageError("a parameter is an empty list (or a list of nulls), whose "
                                 "type the embedded store cannot tell") from None
            raise UsageError(f"Cypher error: {message[:400]}") from None
        if isinstance(result, list):  # several statements: the last one's rows
            result = result[-1]
        columns = result.get_column_names()
        rows = []
        while result.has_next():
            rows.append({c: plain(v) for c, v in zip(columns, result.get_next(), strict=True)})
        return rows

    def close(self) -> None:
        """Close the database."""
        self.conn.close()
        self.db.close()


#: The clauses a statement is cut at, and the aggregate functions.
_CLAUSES = re.compile(r"\b(OPTIONAL\s+MATCH|MATCH|UNWIND|WITH|RETURN|CALL|WHERE|ORDER\s+BY|SKIP|"
                      r"LIMIT|UNION)\b", re.IGNORECASE)
_AGGREGATE = re.compile(r"\b(?:count|sum|avg|min|max|collect|histogram|stdevp?|"
                        r"percentile(?:cont|disc))\s*\(", re.IGNORECASE)
#: ``STARTS WITH`` and ``ENDS WITH`` are operators, not clauses.
_OPERATOR_BEFORE = re.compile(r"\b(?:STARTS|ENDS)\s*$", re.IGNORECASE)


def refuse_ungrouped_after_limit(text: str) -> None:
    """UsageError for a query LadybugDB 0.22 answers wrongly: an aggregate
    without a grouping key after ``WITH … ORDER BY … SKIP/LIMIT`` sees the
    first rows in storage order, not in the order asked for (so ``WITH u
    ORDER BY u.length DESC LIMIT 3 RETURN sum(u.length)`` sums three
    arbitrary lengths; even a count can be wrong, after a ``WHERE`` or of
    distinct values).  With a constant key (``RETURN 1 AS g, sum(u.length)``)
    the engine answers right, and the message says so.

    >>> refuse_ungrouped_after_limit("MATCH (u) WITH u ORDER BY u.n LIMIT 3 RETURN u.n, count(*)")
    >>> refuse_ungrouped_after_limit("MATCH (u) WITH u ORDER BY u.n LIMIT 3 RETURN sum(u.n)")
    Traceback (most recent call last):
    ...
    graphprum.errors.UsageError: the embedded store's engine (LadybugDB 0.22) ...
    """
    for statement in lexed(text).bare.split(";"):
        _refuse_in_statement(statement)


def _refuse_in_statement(bare: str) -> None:
    cuts = [m for m in _CLAUSES.finditer(bare)
            if _depth(bare, m.start()) == 0 and not a_name(bare, m.start(), m.end())
            and not (m.group(1).upper() == "WITH" and _OPERATOR_BEFORE.search(bare[:m.start()]))]
    clauses = [(m.group(1).split()[0].upper(), bare[m.end():end.start() if end else len(bare)])
               for m, end in zip(cuts, [*cuts[1:], None][:len(cuts)], strict=True)]
    last: str | None = None  # the last WITH or RETURN
    ordered = limited = False  # its ORDER BY; a WITH ... ORDER BY ... SKIP/LIMIT came before
    for word, body in clauses:
        if word == "UNION":
            last, ordered, limited = None, False, False
        elif word == "ORDER":
            ordered = last == "WITH"
        elif word in ("SKIP", "LIMIT"):
            limited = limited or ordered
        elif word in ("WITH", "RETURN"):
            items = [item for item in _top_level_items(body) if item.strip()]
            aggregates = [bool(_AGGREGATE.search(item)) for item in items]
            if limited and aggregates and all(aggregates):
                raise UsageError(
                    "the embedded store's engine (LadybugDB 0.22) gives a wrong answer to an "
                    "aggregate without a grouping key after WITH ... ORDER BY ... SKIP/LIMIT: "
                    "it ignores the ORDER BY. Give the aggregate a constant key "
                    "(RETURN 1 AS g, sum(...)), or return the rows (docs/query.md)")
            if any(aggregates):  # grouped by a key: rows of its own, answered right
                limited = False
            last, ordered = word, False


def _depth(text: str, at: int) -> int:
    """How many brackets are open at ``text[at]``."""
    head = text[:at]
    return sum(head.count(o) - head.count(c) for o, c in ("()", "[]", "{}"))


def _top_level_items(body: str) -> list[str]:
    """``body`` cut at the commas outside brackets."""
    items, depth, start = [], 0, 0
    for i, ch in enumerate(body):
        depth += (ch in "([{") - (ch in ")]}")
        if ch == "," and depth == 0:
            items.append(body[start:i])
            start = i + 1
    items.append(body[start:])
    return items


#: Keys of LadybugDB values that are the engine's or the embedded store's.
_INTERNAL = {"_ID", "_LABEL", "_SRC", "_DST", "row", "nid", "aid"}


def plain(value: Any) -> Any:
    """A LadybugDB value (node, relationship, path) as plain data, the way
    the Bolt store gives it: nodes ``{"labels": [...], **properties}``,
    relationships ``{"type": ..., **properties}``; absent properties dropped."""
    if isinstance(value, dict):
        if "_LABEL" in value and "_SRC" in value:
            return {"type": value["_LABEL"],
                    **{k: plain(v) for k, v in value.items()
                       if k not in _INTERNAL and v is not None}}
        if "_LABEL" in value:
            return {"labels": [value["_LABEL"]],
                    **{k: plain(v) for k, v in value.items()
                       if k not in _INTERNAL and v is not None}}
        if "_NODES" in value:
            return [plain(n) for n in value["_NODES"]]
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, Decimal):  # sums of integers come back as INT128
        return int(value) if value == value.to_integral_value() else float(value)
    return value
