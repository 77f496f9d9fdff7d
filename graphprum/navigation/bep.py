"""The ``bep[:A=0.1]`` navigation model: INEX 2006 eq. 14 (ERRATA inex 1).

``s(x, b) = A·L / (A·L + d(x, b))`` for x and b in the same document, with
``d = |start(x) − start(b)|`` in characters and L the mean document length
of the collection (in characters; in a store that holds documents of several
kinds, of the documents of x's kind: videos in seconds beside articles in
characters do not change an article's L); 0 across documents.  It is 1 only
when d = 0.

Examples
--------
>>> bep_similarity(np.array([0., 10., 100.]), 0.0, a=0.1, mean_length=100.0).tolist()
[1.0, 0.5, 0.09090909090909091]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from graphprum.errors import UsageError
from graphprum.navigation.base import parse_options

if TYPE_CHECKING:
    import scipy.sparse as sp

    from graphprum.context import TopicContext


def bep_similarity(start: np.ndarray | float, bep: np.ndarray | float, a: float,
                   mean_length: np.ndarray | float) -> np.ndarray:
    """s(x, b) of eq. 14 for offsets ``start`` (of x) and ``bep`` (of b),
    ``mean_length`` L for all or for each pair."""
    d = np.abs(np.asarray(start, dtype=np.float64) - np.asarray(bep, dtype=np.float64))
    al = a * np.asarray(mean_length, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):  # A·L = 0: 1 at d = 0 only
        out = np.where(al > 0, al / (al + d), d == 0)
    return np.asarray(out, dtype=np.float64)


def kind_lengths(ctx: TopicContext, doc_rows: np.ndarray) -> np.ndarray:
    """L of eq. 14 for the documents ``doc_rows`` of ``ctx.table``: the mean
    length of the collection's documents of the same kind."""
    kinds = np.asarray(ctx.table.docs["kind"], dtype=np.int64)[doc_rows]
    found, where = np.unique(kinds, return_inverse=True)
    view = ctx.units_view()
    means = np.array([view.mean_document_length(int(k)) for k in found.tolist()])
    out: np.ndarray = means[where.reshape(-1)] if len(found) else np.zeros(0)
    return out


class BepModel:
    """P(x -> b) = s(x, b) within a document (eq. 14); see the module notes.

    Parameters
    ----------
    spec : str
        The ``--nav`` spec it was built from.
    a : float
        A > 0 (INEX 2006 official value 0.1).
    """

    needs_store = True
    browses = True

    def __init__(self, spec: str, a: float = 0.1) -> None:
        if not a > 0:
            raise UsageError(f"--nav {spec!r}: A must be > 0, got {a}")
        self.spec = spec
        self.a = a

    def matrix(self, sources: Sequence[str], targets: Sequence[str],
               ctx: TopicContext | None) -> sp.csr_array:
        """s(sources[i], targets[j]) for pairs in one document (sparse)."""
        import scipy.sparse as sp  # ~80 ms of import: --nav bep only

        shape = (len(sources), len(targets))
        if ctx is None or ctx.store is None:
            raise UsageError(f"--nav {self.spec}: the bep model needs a store")
        if not sources or not targets:
            return sp.csr_array(shape)
        table = ctx.table
        src = ctx.rows(list(sources))
        tgt = ctx.rows(list(targets))
        doc = table.columns["doc"]
        tj = np.flatnonzero(tgt >= 0)
        tdoc = doc[tgt[tj]]
        order = np.argsort(tdoc, kind="stable")
        tj, tdoc = tj[order], tdoc[order]
        si = np.flatnonzero(src >= 0)
        sdoc = doc[src[si]]
        lo = np.searchsorted(tdoc, sdoc, side="left")
        hi = np.searchsorted(tdoc, sdoc, side="right")
        counts = hi - lo
        rows = np.repeat(si, counts)
        # positions lo..hi-1 for every source, concatenated
        offs = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        cols = tj[np.repeat(lo, counts) + offs]
        start = table.columns["start"]
        vals = bep_similarity(start[src[rows]], start[tgt[cols]], self.a,
                              kind_lengths(ctx, doc[src[rows]]))
        return sp.csr_array((vals, (rows, cols)), shape=shape)


def build(args: str) -> BepModel:
    spec = "bep" + (":" + args if args else "")
    opts = parse_options(spec, args, {"A": float})
    return BepModel(spec, float(opts.get("A", 0.1)))  # type: ignore[arg-type]
