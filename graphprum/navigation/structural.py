"""The ``structural[:words]`` navigation model: PRUM eq. 9.

Within one document a user moves up and down the hierarchy:

    P(x → y) = length(x) / length(y)   if y contains x,
               length(y) / length(x)   if x contains y,
               0                       otherwise (and across documents),

i.e. the length of the inner unit over the length of the outer one (PRUM
§4.2.1, Fig. 6; ERRATA PRUM 4).  ``length`` is the number of characters of
the text content; ``structural:words`` uses the number of words instead.

A zero-length unit leads nowhere and is reached from nowhere (0/0 is taken
as 0): it holds no text to read.  Its P = 1 to itself comes from
:func:`graphprum.navigation.base.combine`, like every unit's.

Containment is the interval test on global rows, ``a contains b  <=>
a <= b < a + size[a]``, so the pairs are found by binary search over the
sorted rows of sources and targets: the cost is O((|sources| + |targets|)
log + number of nested pairs), never all pairs of a document.

Examples
--------
PRUM Fig. 6: a (60 words) has children b (40) and f (10); b has children
c, d, e (10 words each).

>>> from graphprum.units import UnitTable
>>> t = UnitTable.from_tree("fig6", ["a", "b", "c", "d", "e", "f"], [-1, 0, 1, 1, 1, 0],
...                         words=[60, 40, 10, 10, 10, 10])
>>> rows = np.arange(6)
>>> structural_probabilities(t, rows[[0, 1, 3]], rows[[2]], "words").toarray().round(4)
array([[0.1667],
       [0.25  ],
       [0.    ]])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from graphprum.errors import UsageError
from graphprum.units import UnitTable

if TYPE_CHECKING:
    from graphprum.context import TopicContext


def structural_probabilities(table: UnitTable, src: np.ndarray, tgt: np.ndarray,
                             column: str = "length") -> sp.csr_array:
    """Eq. 9 for global rows ``src`` × ``tgt`` (rows < 0 are unknown units: P = 0).

    Parameters
    ----------
    table : UnitTable
        The collection.
    src, tgt : array of int
        Global rows of the sources and the targets (repeats allowed).
    column : {"length", "words"}
        The unit length used.

    Returns
    -------
    scipy.sparse.csr_array, shape (len(src), len(tgt))
    """
    src = np.asarray(src, dtype=np.int64)
    tgt = np.asarray(tgt, dtype=np.int64)
    shape = (len(src), len(tgt))
    size = table.columns["size"]
    length = table.columns[column].astype(np.float64, copy=False)
    si, ti = np.flatnonzero(src >= 0), np.flatnonzero(tgt >= 0)
    if not len(si) or not len(ti):
        return sp.csr_array(shape)
    s_order = si[np.argsort(src[si], kind="stable")]
    t_order = ti[np.argsort(tgt[ti], kind="stable")]
    s_sorted, t_sorted = src[s_order], tgt[t_order]
    # source contains target (itself included): target row in [s, s + size[s])
    s_rows = src[si]
    lo = np.searchsorted(t_sorted, s_rows, side="left")
    hi = np.searchsorted(t_sorted, s_rows + size[s_rows], side="left")
    rows_down = np.repeat(si, hi - lo)
    cols_down = t_order[_ranges(lo, hi)]
    # target strictly contains source: source row in (t, t + size[t])
    t_rows = tgt[ti]
    lo = np.searchsorted(s_sorted, t_rows, side="right")
    hi = np.searchsorted(s_sorted, t_rows + size[t_rows], side="left")
    cols_up = np.repeat(ti, hi - lo)
    rows_up = s_order[_ranges(lo, hi)]
    rows = np.concatenate([rows_down, rows_up])
    cols = np.concatenate([cols_down, cols_up])
    inner = np.concatenate([length[tgt[cols_down]], length[src[rows_up]]])
    outer = np.concatenate([length[src[rows_down]], length[tgt[cols_up]]])
    with np.errstate(divide="ignore", invalid="ignore"):
        vals = np.where(outer > 0, inner / outer, 0.0)
    keep = vals > 0
    out = sp.csr_array((np.minimum(vals[keep], 1.0), (rows[keep], cols[keep])), shape=shape)
    return out


def _ranges(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Concatenation of ``arange(lo[i], hi[i])`` without a Python loop."""
    counts = (hi - lo).astype(np.int64)
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    return np.repeat(lo - (np.cumsum(counts) - counts), counts) + np.arange(total)


class StructuralModel:
    """PRUM eq. 9 with character (``length``) or word (``words``) lengths."""

    needs_store = True
    browses = True

    def __init__(self, spec: str, column: str = "length") -> None:
        self.spec = spec
        self.column = column

    def matrix(self, sources: Sequence[str], targets: Sequence[str],
               ctx: TopicContext | None) -> sp.csr_array:
        """P(sources[i] → targets[j]) by eq. 9; unknown ids give zero rows/columns."""
        shape = (len(sources), len(targets))
        if ctx is None or ctx.store is None:
            raise UsageError(f"--nav {self.spec}: the structural model needs a store (--store)")
        if not shape[0] or not shape[1]:
            return sp.csr_array(shape)
        src = ctx.rows(list(sources))
        tgt = ctx.rows(list(targets))
        return structural_probabilities(ctx.table, src, tgt, self.column)


def build(args: str) -> StructuralModel:
    if args == "":
        return StructuralModel("structural", "length")
    if args == "words":
        return StructuralModel("structural:words", "words")
    raise UsageError(f"--nav 'structural:{args}': expected structural or structural:words")
