"""Steady-state probabilities of a summary graph (SR §5.1, eq. 8).

Symmetric weights (a time-reversible walk, w(S,T) = w(T,S)) give eq. 8
directly::

    π(S) = Σ_T w(S,T) / Σ_{T,U} w(T,U)

:func:`symmetric_pi` takes each listed edge weight in both directions.  On a
disconnected summary this is still a stationary distribution (each connected
part weighted by its share of the total weight); a partition without any
edge gets π = 0, and a summary without edges gets π = 0 everywhere.

Directed weights (a weights file ``SRC DST W``) define the walk
``P(S -> T) = W(S,T) / Σ_U W(S,U)``; :func:`walk_pi` returns its stationary
distribution, found by one sparse linear solve on its single closed
communicating class.  Partitions without any weight get π = 0, transient
ones (which the walk leaves for good) get π = 0.  A partition with incoming
but no outgoing weight (absorbing), or a walk with several closed classes
(no unique stationary distribution), is a :class:`UsageError`.

Examples
--------
SR Table 1 (ERRATA SR 4): the row sums over the total 76.

>>> src = [0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 3, 3]
>>> dst = [1, 2, 3, 4, 5, 6, 3, 5, 6, 4, 5, 6]
>>> w = [1, 1, 3, 3, 6, 2, 3, 6, 2, 3, 6, 2]
>>> (symmetric_pi(src, dst, w, 7) * 76).round(9).tolist()
[16.0, 12.0, 4.0, 14.0, 6.0, 18.0, 6.0]

A directed 3-cycle with one chord:

>>> walk_pi([0, 1, 2, 0], [1, 2, 0, 2], [1, 1, 1, 1], 3).round(6).tolist()
[0.4, 0.2, 0.4]
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import spsolve

from graphprum.errors import InputError, UsageError
from graphprum.io.lines import read_lines

ArrayLike = np.ndarray | Sequence[float]


def symmetric_pi(src: ArrayLike, dst: ArrayLike, w: ArrayLike, n: int) -> np.ndarray:
    """SR eq. 8 over ``n`` partitions, each weight counted in both directions.

    A self-loop (src == dst) counts twice towards its partition, as the
    symmetric matrix entry w(S,S) + w(S,S) would.
    """
    src = np.asarray(src, dtype=np.int64)
    dst = np.asarray(dst, dtype=np.int64)
    w = np.asarray(w, dtype=np.float64)
    if len(w) and (np.any(w < 0) or not np.all(np.isfinite(w))):
        raise UsageError("summary weights must be finite and >= 0")
    total = np.bincount(src, weights=w, minlength=n) + np.bincount(dst, weights=w, minlength=n)
    norm = total.sum()
    return total / norm if norm > 0 else np.zeros(n)


def walk_pi(src: ArrayLike, dst: ArrayLike, w: ArrayLike, n: int,
            names: Sequence[str] | None = None, source: str = "weights") -> np.ndarray:
    """Stationary distribution of the walk with directed weights (see module notes).

    Parameters
    ----------
    src, dst, w : array-like
        Directed weights W(src -> dst) >= 0 (repeated pairs add up).
    n : int
        Number of partitions.
    names : sequence of str, optional
        Partition names for messages (``S1``, ``S2``, ... by default).
    source : str
        What the weights came from, for messages.
    """
    src = np.asarray(src, dtype=np.int64)
    dst = np.asarray(dst, dtype=np.int64)
    w = np.asarray(w, dtype=np.float64)
    if len(w) and (np.any(w < 0) or not np.all(np.isfinite(w))):
        raise UsageError(f"{source}: weights must be finite and >= 0")
    names = list(names) if names is not None else [f"S{i + 1}" for i in range(n)]
    keep = w > 0
    src, dst, w = src[keep], dst[keep], w[keep]
    pi = np.zeros(n)
    if len(w) == 0:
        return pi
    mat = sp.csr_array((w, (src, dst)), shape=(n, n))
    out = np.asarray(mat.sum(axis=1)).ravel()
    inn = np.asarray(mat.sum(axis=0)).ravel()
    absorbing = np.flatnonzero((out == 0) & (inn > 0))
    if len(absorbing):
        listed = ", ".join(names[i] for i in absorbing[:5])
        raise UsageError(f"{source}: partition(s) {listed} have incoming but no outgoing "
                         f"weight (absorbing): the walk has no proper steady state")
    _, comp = connected_components(mat, directed=True, connection="strong")
    active = out > 0
    leaks = np.zeros(comp.max() + 1, dtype=bool)
    cross = comp[src] != comp[dst]
    leaks[comp[src[cross]]] = True
    closed = np.unique(comp[active & ~leaks[comp]])
    if len(closed) != 1:
        examples = ", ".join(names[int(np.flatnonzero(comp == c)[0])] for c in closed[:5])
        raise UsageError(f"{source}: the summary walk splits into {len(closed)} closed "
                         f"classes (containing {examples}); its stationary distribution "
                         f"is not unique")
    members = np.flatnonzero(comp == closed[0])
    sub = mat[members][:, members]
    p = sp.diags(1.0 / out[members]) @ sub  # row-stochastic on the closed class
    k = len(members)
    a = sp.lil_matrix((p.T - sp.identity(k)).tocsr())
    a[k - 1, :] = np.ones(k)
    b = np.zeros(k)
    b[k - 1] = 1.0
    x = np.atleast_1d(spsolve(sp.csc_matrix(a), b)) if k > 1 else np.ones(1)
    x = np.clip(x, 0.0, None)
    pi[members] = x / x.sum()
    return pi


def read_weights(path: str | os.PathLike[str], n: int) -> tuple[np.ndarray, np.ndarray,
                                                                 np.ndarray]:
    """Read a weights file: ``SRC DST W`` lines, SRC/DST partition ids ``S1``..``Sn``.

    Raises InputError naming the file and line of a malformed line, an
    unknown partition or a negative weight.
    """
    src: list[int] = []
    dst: list[int] = []
    w: list[float] = []

    def sid(text: str, line: int) -> int:
        if text[:1] in ("S", "s") and text[1:].isdigit() and 1 <= int(text[1:]) <= n:
            return int(text[1:]) - 1
        raise InputError(path, line, f"unknown partition {text!r}; expected S1..S{n}")

    for line, fields in read_lines(path):
        if len(fields) != 3:
            raise InputError(path, line, f"expected 3 fields SRC DST W, got {len(fields)}")
        try:
            value = float(fields[2])
        except ValueError:
            raise InputError(path, line, f"weight {fields[2]!r} is not a number") from None
        if not (value >= 0 and np.isfinite(value)):
            raise InputError(path, line, f"weight {fields[2]!r} must be finite and >= 0")
        src.append(sid(fields[0], line))
        dst.append(sid(fields[1], line))
        w.append(value)
    return (np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64),
            np.asarray(w, dtype=np.float64))
