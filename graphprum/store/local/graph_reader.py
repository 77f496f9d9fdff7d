"""The embedded graph opened read-only, and its rows as plain data.

:class:`GraphReader` answers Cypher over a generation's graph
(``graph.lbug``, :mod:`graphprum.store.local.graph`), every text checked
first to only read; :func:`plain` gives LadybugDB's values the way the
Bolt store gives them.  :func:`import_ladybug` imports the engine, or says
what is missing.
"""

from __future__ import annotations

import math
from decimal import Decimal
from pathlib import Path
from typing import Any

from graphprum.errors import StoreError, UsageError
from graphprum.store.base import QueryRows
from graphprum.store.cypher_guard import (
    refuse_ungrouped_after_limit,
    refuse_writes,
    statement_count,
    what_runs,
)


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
        text = what_runs(text)  # the engine runs what was checked: no comment to read otherwise
        refuse_writes(text)
        refuse_ungrouped_after_limit(text)
        if statement_count(text) > 1:  # the engine would run them all, one after the other
            raise UsageError("the query holds several statements (';' separates them): give "
                             "one statement per query")
        refuse_mixed_lists(params or {})
        if timeout is not None and math.isfinite(timeout):  # whole ms, at least one (0: none)
            self.conn.set_query_timeout(min(max(1, math.ceil(timeout * 1000)), 2**53))
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
        if isinstance(result, list):  # the engine split what the guard read as one
            raise UsageError("the engine read several statements where the guard read one; "
                             "refused")
        columns = result.get_column_names()
        rows = QueryRows(columns=columns)
        while result.has_next():
            rows.append({c: plain(v) for c, v in zip(columns, result.get_next(), strict=True)})
        return rows

    def close(self) -> None:
        """Close the database."""
        self.conn.close()
        self.db.close()


def refuse_mixed_lists(params: dict[str, Any]) -> None:
    """UsageError for a parameter holding a list of lists or maps beside
    other values, which LadybugDB 0.22 turns into a string silently when the
    list is inside a map (``{"k": [1, {"z": "q"}]}`` came back as
    ``{"k": '[1, {"z": "q"}]'}``) and refuses at the top level.

    >>> refuse_mixed_lists({"v": {"k": [[1], [2, 3]], "n": [1, 2.5, None]}})
    >>> refuse_mixed_lists({"v": {"k": [1, {"z": "q"}]}})
    Traceback (most recent call last):
    ...
    graphprum.errors.UsageError: parameter $v: a list holds lists or maps beside other \
values, which the embedded store cannot take (its lists hold values of one type)
    """
    stack = list(params.items())
    while stack:
        name, value = stack.pop()
        if isinstance(value, dict):
            stack.extend((name, v) for v in value.values())
        elif isinstance(value, list | tuple):
            kinds = {"map" if isinstance(v, dict) else "list" if isinstance(v, list | tuple)
                     else "value" for v in value if v is not None}
            if len(kinds) > 1:
                raise UsageError(f"parameter ${name}: a list holds lists or maps beside other "
                                 f"values, which the embedded store cannot take (its lists "
                                 f"hold values of one type)")
            stack.extend((name, v) for v in value)


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
