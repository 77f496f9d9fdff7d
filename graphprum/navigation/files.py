"""Navigation models read from files: ``direct:``, ``walk:`` and ``log:``.

DESIGN §1.3 and §1.5.  Ids are opaque strings, so none of these needs a
store.

*  ``direct:FILE`` — P(x → y) is the P of the line ``x  y  P`` of FILE;
   pairs not listed get 0.
*  ``walk:FILE[,hops=K]`` — FILE gives one-step transitions (the P of
   the lines leaving one unit must sum to at most 1, the rest being the
   probability of stopping there); P(x → y) is the probability that a walk
   from x visits y within K steps (any number by default), computed by
   :func:`graphprum.navigation.hitting.hitting_probabilities`.  PRUM Fig. 2
   (ERRATA PRUM 7): x→y .5, x→z .3, z→y .12, y→z .8 give P(x → y) = .536 and
   P(x → z) = .7.
*  ``log:FILE[,hops=K]`` — as ``walk``, with the one-step transitions
   estimated from the observed sessions ``SESSION STEP ID`` of FILE
   (:func:`graphprum.io.navfile.estimate_transitions`: moves x → y over
   visits of x, a visit that ends its session counting as a stop).

A navigation file with a leading TOPIC column is topic-specific: a topic
uses only its own lines (a topic with no lines gets P = 0 everywhere, each
unit still leading to itself); asking for P without a topic (``graphprum
nav`` without ``--topic``) is a usage error.  Each file is read once per
model, on first use, and its matrices are kept for the following topics.

Examples
--------
>>> import os, tempfile
>>> p = os.path.join(tempfile.mkdtemp(), "fig2.tsv")
>>> _ = open(p, "w").write("x\\ty\\t.5\\nx\\tz\\t.3\\nz\\ty\\t.12\\ny\\tz\\t.8\\n")
>>> from graphprum.navigation.base import parse_model
>>> parse_model(f"walk:{p}").matrix(["x"], ["y", "z", "w"], None).toarray().round(6)
array([[0.536, 0.7  , 0.   ]])
>>> parse_model(f"walk:{p},hops=1").matrix(["x"], ["y", "z"], None).toarray()
array([[0.5, 0.3]])
>>> parse_model(f"direct:{p}").matrix(["x", "y"], ["y", "z"], None).toarray()
array([[0.5, 0.3],
       [0. , 0.8]])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from graphprum.errors import InputError, UsageError
from graphprum.io.lines import find_line
from graphprum.io.navfile import NavTable, estimate_transitions, read_nav, read_nav_log
from graphprum.navigation.base import parse_hops, parse_options
from graphprum.navigation.hitting import hitting_probabilities

if TYPE_CHECKING:
    from graphprum.context import TopicContext

Pair = tuple[str, str]

#: Rows of a walk may sum to this much above 1 (rounding in the file).
SUM_TOL = 1e-9


class PairMatrix:
    """Probabilities of id pairs as a sparse matrix over an id vocabulary.

    Parameters
    ----------
    pairs : dict of (str, str) to float
        P of each (FROM, TO) pair.
    vocab : dict of str to int, optional
        Index of every id; built from ``pairs`` when not given (ids in order
        of first appearance).

    Examples
    --------
    >>> m = PairMatrix({("a", "b"): .5, ("b", "c"): 1.0})
    >>> m.submatrix(["a", "zz", "b"], ["b", "c"]).toarray()
    array([[0.5, 0. ],
           [0. , 0. ],
           [0. , 1. ]])
    """

    def __init__(self, pairs: dict[Pair, float], vocab: dict[str, int] | None = None) -> None:
        if vocab is None:
            vocab = {}
            for a, b in pairs:
                vocab.setdefault(a, len(vocab))
                vocab.setdefault(b, len(vocab))
        self.vocab = vocab
        n = len(vocab)
        rows = np.fromiter((vocab[a] for a, _ in pairs), dtype=np.int64, count=len(pairs))
        cols = np.fromiter((vocab[b] for _, b in pairs), dtype=np.int64, count=len(pairs))
        vals = np.fromiter(pairs.values(), dtype=np.float64, count=len(pairs))
        self.matrix = sp.csr_array((vals, (rows, cols)), shape=(n, n))
        self.matrix.sum_duplicates()

    def index(self, ids: Sequence[str]) -> np.ndarray:
        """Index of every id in the vocabulary, -1 for ids the file does not name."""
        get = self.vocab.get
        return np.fromiter((get(i, -1) for i in ids), dtype=np.int64, count=len(ids))

    def submatrix(self, sources: Sequence[str], targets: Sequence[str]) -> sp.csr_array:
        """P[sources[i], targets[j]]; unknown ids give zero rows and columns."""
        shape = (len(sources), len(targets))
        si, ti = self.index(sources), self.index(targets)
        rows, cols = np.flatnonzero(si >= 0), np.flatnonzero(ti >= 0)
        if not len(rows) or not len(cols):
            return sp.csr_array(shape)
        sub = sp.coo_array(self.matrix[si[rows]][:, ti[cols]])
        return sp.csr_array((sub.data, (rows[sub.row], cols[sub.col])), shape=shape)


class FileModel:
    """A model from a navigation file or log (see the module notes).

    Parameters
    ----------
    spec : str
        The ``--nav`` spec.
    kind : {"direct", "walk", "log"}
        How the file's numbers are used.
    path : str
        The file.
    hops : int or None
        K for ``walk`` and ``log`` (None: walks of any length).
    """

    needs_store = False
    browses = True

    def __init__(self, spec: str, kind: str, path: str, hops: int | None = None) -> None:
        self.spec = spec
        self.kind = kind
        self.path = path
        self.hops = hops
        self._table: NavTable | None = None
        self._matrices: dict[str, PairMatrix] = {}

    def _load(self) -> NavTable:
        """The file's pairs, read once."""
        if self._table is None:
            if self.kind == "log":
                pairs = estimate_transitions(read_nav_log(self.path))
                self._table = NavTable(pairs=pairs, path=self.path)
            else:
                self._table = read_nav(self.path)
        return self._table

    def pairs(self, topic: str | None) -> PairMatrix:
        """The matrix that applies to ``topic`` (built once per topic)."""
        table = self._load()
        key = ""
        if table.topics is not None:
            if not topic:
                raise UsageError(f"--nav {self.spec}: {self.path} has a TOPIC column; "
                                 "a topic is needed (--topic)")
            key = topic
        found = self._matrices.get(key)
        if found is None:
            found = PairMatrix(table.for_topic(key))
            if self.kind == "walk":
                self._check_sums(found, key if table.topics is not None else None)
            self._matrices[key] = found
        return found

    def _check_sums(self, pm: PairMatrix, topic: str | None) -> None:
        """A walk's one-step probabilities from one unit must sum to at most 1."""
        sums = np.asarray(pm.matrix.sum(axis=1)).ravel()
        bad = np.flatnonzero(sums > 1.0 + SUM_TOL)
        if not len(bad):
            return
        ids = list(pm.vocab)
        unit = ids[int(bad[0])]
        if topic is None:
            line = find_line(self.path, lambda f: len(f) == 3 and f[0] == unit, sep="\t")
        else:
            line = find_line(self.path, lambda f: len(f) == 4 and f[:2] == [topic, unit],
                             sep="\t")
        where = f" for topic {topic!r}" if topic is not None else ""
        raise InputError(self.path, line or None,
                         f"one-step probabilities from {unit!r}{where} sum to "
                         f"{sums[bad[0]]:.6g} > 1 (walk: P of the lines leaving a unit "
                         "must sum to at most 1)")

    def matrix(self, sources: Sequence[str], targets: Sequence[str],
               ctx: TopicContext | None) -> sp.csr_array:
        """P(sources[i] → targets[j]); ids the file does not name get 0 (but see combine)."""
        shape = (len(sources), len(targets))
        pm = self.pairs(ctx.topic if ctx is not None else None)
        if not shape[0] or not shape[1]:
            return sp.csr_array(shape)
        if self.kind == "direct":
            return pm.submatrix(sources, targets)
        return sp.csr_array(hitting_probabilities(
            pm.matrix, pm.index(sources), pm.index(targets), self.hops))




def _factory(kind: str) -> Callable[[str], FileModel]:
    def build(args: str) -> FileModel:
        spec = f"{kind}:{args}"
        allowed = {} if kind == "direct" else {"hops": parse_hops}
        opts = parse_options(spec, args, allowed, positional="file")
        path = opts.get("file")
        if not path:
            form = "direct:FILE" if kind == "direct" else f"{kind}:FILE[,hops=K]"
            raise UsageError(f"--nav {spec!r}: expected {form}")
        return FileModel(spec, kind, str(path), opts.get("hops"))  # type: ignore[arg-type]

    return build


#: What builds each of the three models (navigation.base.MODELS).
build_direct = _factory("direct")
build_walk = _factory("walk")
build_log = _factory("log")
