"""The packaged queries of the Bolt store (``cypher/``) and the sizes they
are sent in: their text (:func:`cypher`), a schema file's statements, the
bytes FalkorDB receives, and the units per load query.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from importlib.resources import files
from typing import Any

from graphprum.errors import UsageError
from graphprum.store.cypher_literal import splice

DEFAULT_BATCH = 1000
#: One row of a query, its values in the order of its RETURN.
Row = tuple[Any, ...]


def batch_size_from(value: int | None, environ: Mapping[str, str] = os.environ) -> int:
    """Units per load query: ``value``, else ``GRAPHPRUM_BOLT_BATCH``, else
    :data:`DEFAULT_BATCH`; a usage error for anything but a whole number >= 1.

    >>> batch_size_from(None, {"GRAPHPRUM_BOLT_BATCH": "500"}), batch_size_from(None, {})
    (500, 1000)
    >>> batch_size_from(None, {"GRAPHPRUM_BOLT_BATCH": "lots"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    graphprum.errors.UsageError: GRAPHPRUM_BOLT_BATCH='lots': expected a whole number...
    >>> batch_size_from(0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    graphprum.errors.UsageError: batch_size=0: expected a whole number...
    """
    if value is not None:
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise UsageError(f"batch_size={value!r}: expected a whole number of units per "
                             f"load query, 1 or more")
        return value
    text = environ.get("GRAPHPRUM_BOLT_BATCH", "").strip()
    if not text:
        return DEFAULT_BATCH
    if not (text.isascii() and text.isdigit() and int(text) >= 1):
        raise UsageError(f"GRAPHPRUM_BOLT_BATCH={text!r}: expected a whole number of units "
                         f"per load query, 1 or more")
    return int(text)


#: Bytes of query text (parameters spliced in) sent to FalkorDB's Bolt port at
#: most.  FalkorDB 4.16 writes a query *with* parameters into ``char[4096]``
#: and aborts above it, but the store sends it none (``get_query`` in its
#: src/bolt/bolt_api.c); and a Bolt message longer than one chunk (65,535
#: bytes) is never answered: the query text stays in one chunk, with room
#: for the RUN message around it (measured: 65,000 bytes answered, 66,000 not;
#: tests/store/test_bolt.py).
FALKOR_PARAM_LIMIT = 60_000
#: Rows per query written through FalkorDB's Redis port (no size limit there).
REDIS_ROWS = 5000


def cypher(name: str) -> str:
    """Text of the packaged query ``name`` (``"read/units"`` -> ``read/units.cypher``).

    >>> "UNWIND $links" in cypher("load/pending_links")
    True
    """
    text = files("graphprum.cypher").joinpath(f"{name}.cypher").read_text(encoding="utf-8")
    return "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("//"))


def statements(text: str) -> list[str]:
    """Statements of a schema file (``;`` separated, ``//`` comment lines dropped).

    >>> statements("// a comment\\nCREATE INDEX a;\\n\\nCREATE INDEX b;")
    ['CREATE INDEX a', 'CREATE INDEX b']
    """
    lines = [ln for ln in text.splitlines() if not ln.strip().startswith("//")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


def query_bytes(text: str, params: Mapping[str, Any]) -> int:
    """Bytes of the query FalkorDB receives: ``text`` with ``params`` in a
    ``CYPHER k=v ...`` prefix of literals (:func:`~graphprum.store.cypher_literal.splice`).

    >>> query_bytes("RETURN $a", {"a": "x'y"})  # CYPHER a='x\\'y' RETURN $a
    25
    """
    return len(splice(text, params).encode("utf-8"))


def label_property(statement: str) -> tuple[str, str]:
    """The label and property of a ``CREATE INDEX FOR (x:Label) ON (x.prop)``.

    >>> label_property("CREATE INDEX FOR (u:Unit) ON (u.uid)")
    ('Unit', 'uid')
    """
    label = statement.split("(", 1)[1].split(":", 1)[1].split(")", 1)[0].strip()
    return label, statement.rsplit(".", 1)[1].rstrip(")").strip()
