"""Hitting probabilities of a sub-stochastic walk (PRUM §2.3, Fig. 2).

``T[x, z]`` is the probability that a user at x moves to z in one step; a
row may sum to less than 1, the remainder being the probability of stopping
there.  The probability that a user starting at x *ever sees* y (within K
steps) is the hitting probability

    h_y(x) = T[x, y] + sum_{z != y} T[x, z] h_y(z),

the walk being absorbed at y: a path counts once however often it comes
back.  PRUM's Fig. 2 (ERRATA PRUM 7): x→y .5, x→z .3, z→y .12, y→z .8 gives
P(x → y) = .5 + .3 × .12 = .536 and P(x → z) = .3 + .5 × .8 = .7.

Only the part of the graph that can reach a target matters (within K
backward hops when K is given): the computation is restricted to it, so its
cost follows that neighbourhood, not the whole graph.

*  ``hops=K``: K rounds of dynamic programming, vectorised over targets.
*  ``hops=None``: exact.  With B = I − T on the neighbourhood, the expected
   numbers of visits N = B⁻¹ satisfy N[x, y] = h_y(x) N[y, y] (strong Markov
   property), so one linear system per target, all sharing B, gives
   h_y = N[:, y] / N[y, y].  B is singular only when a closed class of
   states keeps all its mass (rows summing to 1, no way out); such a class
   is entered and then every state of it is visited with probability 1, so
   its rows are made stopping (for targets outside it) and, for targets
   inside it, h is the probability of entering it (1 inside it).  Small
   systems are solved densely (LAPACK); large ones by LGMRES, a Krylov
   method (to a relative residual of 1e-10): sparse LU fills in badly on
   random-like link graphs.

A walk that starts on its target has hit it: the result is 1 where
``sources[i] == targets[j]`` (so the caller's "P(x → x) = 1" holds as well).

Examples
--------
>>> import numpy as np, scipy.sparse as sp
>>> # PRUM Fig. 2, nodes x = 0, y = 1, z = 2
>>> T = sp.csr_array((np.array([.5, .3, .8, .12]), ([0, 0, 1, 2], [1, 2, 2, 1])),
...                  shape=(3, 3))
>>> hitting_probabilities(T, np.array([0]), np.array([1, 2]), None).toarray().round(6)
array([[0.536, 0.7  ]])
>>> hitting_probabilities(T, np.array([0]), np.array([1, 2]), 1).toarray()
array([[0.5, 0.3]])
"""

from __future__ import annotations

import weakref

import numpy as np
import scipy.sparse as sp

#: Neighbourhoods up to this many states are solved densely (hops=None).
DENSE_MAX = 2500
#: Largest dense block of hitting probabilities held at once (states × targets).
BLOCK_MAX = 20_000_000
#: A closed class whose rows sum to at least 1 - ROW_TOL keeps all its mass.
ROW_TOL = 1e-12
#: Relative residual the Krylov solver must reach.
KRYLOV_RTOL = 1e-10

_REVERSE: tuple[weakref.ref[sp.csr_array], int, sp.csr_array] | None = None


def hitting_probabilities(T: sp.csr_array, sources: np.ndarray,  # noqa: N803 (paper's T)
                          targets: np.ndarray, hops: int | None) -> sp.csr_array:
    """P(a walk from ``sources[i]`` visits ``targets[j]`` within ``hops`` steps).

    Parameters
    ----------
    T : scipy.sparse array, shape (n, n)
        One-step transition probabilities, rows summing to at most 1 (the
        remainder is the probability of stopping).  Explicit zeros are not
        edges.
    sources, targets : array of int
        States (0 ≤ i < n); a negative entry stands for an unknown unit and
        gives a zero row (column).
    hops : int or None
        K ≥ 0, the largest number of steps; None for walks of any length.

    Returns
    -------
    scipy.sparse.csr_array, shape (len(sources), len(targets))
        Hitting probabilities; 1 where a source is its target.

    Examples
    --------
    A 2-cycle x ⇄ y with P(x→y) = .5, P(y→x) = .4: from x the walk never
    needs to come back to reach y, so h_y(x) = .5 for any K ≥ 1, and x is
    reached from y with .4.

    >>> import numpy as np, scipy.sparse as sp
    >>> T = sp.csr_array(np.array([[0, .5], [.4, 0]]))
    >>> hitting_probabilities(T, np.array([0, 1]), np.array([0, 1]), None).toarray()
    array([[1. , 0.5],
           [0.4, 1. ]])
    """
    trans = T if isinstance(T, sp.csr_array) else sp.csr_array(T)
    n = trans.shape[0]
    if trans.shape != (n, n):
        raise ValueError(f"T must be square, got shape {trans.shape}")
    if hops is not None and hops < 0:
        raise ValueError(f"hops must be >= 0 or None, got {hops}")
    src = np.asarray(sources, dtype=np.int64).ravel()
    tgt = np.asarray(targets, dtype=np.int64).ravel()
    if (src >= n).any() or (tgt >= n).any():
        raise ValueError(f"source or target beyond the {n} states of T")
    shape = (len(src), len(tgt))
    known = np.flatnonzero(tgt >= 0)
    if len(src) == 0 or len(known) == 0:
        return _with_self_pairs(sp.csr_array(shape), src, tgt)
    if hops == 1:  # one step: the transitions themselves
        rows = np.flatnonzero(src >= 0)
        one = sp.coo_array(trans[src[rows]][:, tgt[known]])
        return _with_self_pairs(sp.csr_array((np.clip(one.data, 0.0, 1.0),
                                              (rows[one.row], known[one.col])), shape=shape),
                                src, tgt)
    utgt, tinv = np.unique(tgt[known], return_inverse=True)
    vals = _unique_targets(trans, src, utgt, hops)  # (len(src), len(utgt)) sparse
    out = sp.csr_array(vals @ sp.csr_array(
        (np.ones(len(known)), (tinv, known)), shape=(len(utgt), shape[1])))
    return _with_self_pairs(out, src, tgt)


def _with_self_pairs(out: sp.csr_array, src: np.ndarray, tgt: np.ndarray) -> sp.csr_array:
    """``out`` with 1 where the source is the target (a walk starts by seeing it)."""
    order = np.argsort(tgt, kind="stable")
    lo = np.searchsorted(tgt[order], src, side="left")
    hi = np.searchsorted(tgt[order], src, side="right")
    keep = (hi > lo) & (src >= 0)
    rows = np.repeat(np.flatnonzero(keep), (hi - lo)[keep])
    cols = order[_ranges(lo[keep], hi[keep])]
    if len(rows):
        same = sp.csr_array((np.ones(len(rows)), (rows, cols)), shape=out.shape)
        out = sp.csr_array(out.maximum(same))
    out.eliminate_zeros()
    return out


def _unique_targets(trans: sp.csr_array, src: np.ndarray, utgt: np.ndarray,
                    hops: int | None) -> sp.csr_array:
    """Hitting probabilities for distinct, known targets; sources may be < 0."""
    rev = _reverse(trans)
    nodes = backward_neighbourhood(rev, utgt, hops)
    if len(nodes) * len(utgt) > BLOCK_MAX and len(utgt) > 1:
        half = len(utgt) // 2
        return sp.csr_array(sp.hstack([_unique_targets(trans, src, utgt[:half], hops),
                                       _unique_targets(trans, src, utgt[half:], hops)]))
    sub = sp.csr_array(trans[nodes][:, nodes])
    sub.sum_duplicates()
    sub.eliminate_zeros()
    rowsum = np.asarray(sub.sum(axis=1)).ravel()
    if (rowsum > 1 + 1e-9).any():
        i = int(nodes[np.argmax(rowsum)])
        raise ValueError(f"transitions from state {i} sum to {rowsum.max()!r} > 1")
    ty = np.searchsorted(nodes, utgt)
    h = _unbounded(sub, rowsum, ty) if hops is None else _bounded(sub, ty, hops)
    si = _position(nodes, src)
    rows = np.flatnonzero(si >= 0)
    block = np.clip(h[si[rows]], 0.0, 1.0)
    r, c = np.nonzero(block)
    return sp.csr_array((block[r, c], (rows[r], c)), shape=(len(src), len(utgt)))


def _bounded(sub: sp.csr_array, ty: np.ndarray, hops: int) -> np.ndarray:
    """K-step DP: h_k = T[:, y] + T h_{k-1} with h_{k-1}(y) = 0 (absorbing y)."""
    m = len(ty)
    cols = np.arange(m)
    direct = sub[:, ty].toarray()
    h = np.zeros((sub.shape[0], m))
    for _ in range(hops):
        h[ty, cols] = 0.0
        h = direct + sub @ h
    return h


def _unbounded(sub: sp.csr_array, rowsum: np.ndarray, ty: np.ndarray) -> np.ndarray:
    """Exact hitting probabilities via expected visits N = (I - T)^-1 (module notes)."""
    n, m = sub.shape[0], len(ty)
    closed = _closed_states(sub, rowsum)
    cls = closed[ty] >= 0
    if (closed >= 0).any():
        keep = (closed < 0).astype(np.float64)
        sub = sp.csr_array(sp.diags_array(keep) @ sub)
    # one right-hand side per open target, one per closed class holding targets
    classes, cinv = np.unique(closed[ty[cls]], return_inverse=True)
    rhs = np.zeros((n, m + len(classes)))
    open_j = np.flatnonzero(~cls)
    rhs[ty[open_j], open_j] = 1.0
    for k, c in enumerate(classes):
        rhs[closed == c, m + k] = 1.0
    x = _solve(sp.csr_array(sp.eye_array(n, format="csr") - sub), rhs)
    h = np.zeros((n, m))
    diag = x[ty[open_j], open_j]
    h[:, open_j] = x[:, open_j] / diag
    for j, k in zip(np.flatnonzero(cls), cinv, strict=True):
        h[:, j] = x[:, m + k]
        h[closed == classes[k], j] = 1.0
    return h


def _closed_states(sub: sp.csr_array, rowsum: np.ndarray) -> np.ndarray:
    """Label of the closed, mass-keeping class of every state; -1 for the others."""
    # walks of any length only: csgraph imports scipy.sparse.linalg (75 ms)
    from scipy.sparse.csgraph import connected_components

    _, label = connected_components(sub, directed=True, connection="strong")
    coo = sub.tocoo()
    leaves = np.zeros(label.max() + 1, dtype=bool)
    leaves[label[coo.row[label[coo.row] != label[coo.col]]]] = True
    leaks = np.zeros_like(leaves)
    np.logical_or.at(leaks, label, rowsum < 1.0 - ROW_TOL)
    closed = ~leaves & ~leaks
    return np.where(closed[label], label, -1)


def _solve(a: sp.csr_array, rhs: np.ndarray) -> np.ndarray:
    """Solve a @ x = rhs (a nonsingular, I - substochastic)."""
    if a.shape[0] <= DENSE_MAX:
        return np.linalg.solve(a.toarray(), rhs)
    import scipy.sparse.linalg as sla  # walks of any length on large graphs only (70 ms)

    out = np.empty_like(rhs)
    for j in range(rhs.shape[1]):
        b = rhs[:, j]
        x, info = sla.lgmres(a, b, x0=b, rtol=KRYLOV_RTOL, atol=0.0, maxiter=1000)
        if info != 0:
            raise RuntimeError(f"hitting probabilities: LGMRES did not converge ({info})")
        out[:, j] = x
    return out


def backward_neighbourhood(rev: sp.csr_array, targets: np.ndarray,
                           hops: int | None) -> np.ndarray:
    """Sorted states that reach one of ``targets`` within ``hops`` steps (targets included).

    ``rev`` is the reversed graph: ``rev[y]`` lists the states with a
    transition into y.  Breadth-first, vectorised per level.

    >>> import numpy as np, scipy.sparse as sp
    >>> T = sp.csr_array(np.array([[0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0], [1, 0, 0, 0]]))
    >>> rev = sp.csr_array(T.T)
    >>> backward_neighbourhood(rev, np.array([2]), 1).tolist()
    [1, 2]
    >>> backward_neighbourhood(rev, np.array([2]), None).tolist()
    [0, 1, 2, 3]
    """
    seen = np.zeros(rev.shape[0], dtype=bool)
    frontier = np.unique(np.asarray(targets, dtype=np.int64))
    seen[frontier] = True
    levels = [frontier]
    depth = 0
    indptr, indices = rev.indptr, rev.indices
    while len(frontier) and (hops is None or depth < hops):
        nb = indices[_ranges(indptr[frontier], indptr[frontier + 1])]
        nb = np.unique(nb[~seen[nb]])
        seen[nb] = True
        levels.append(nb)
        frontier = nb
        depth += 1
    return np.sort(np.concatenate(levels)).astype(np.int64)


def _reverse(trans: sp.csr_array) -> sp.csr_array:
    """The reversed edge structure of T (explicit zeros dropped), cached for the last T."""
    global _REVERSE
    if _REVERSE is not None and _REVERSE[1] == trans.nnz and _REVERSE[0]() is trans:
        return _REVERSE[2]
    coo = trans.tocoo()
    nz = coo.data != 0
    rev = sp.csr_array((np.ones(int(nz.sum()), dtype=np.int8), (coo.col[nz], coo.row[nz])),
                       shape=trans.shape)
    _REVERSE = (weakref.ref(trans), trans.nnz, rev)
    return rev


def _position(nodes: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Index of each row in sorted ``nodes``; -1 where absent or negative."""
    j = np.searchsorted(nodes, rows)
    j[j >= len(nodes)] = 0
    return np.where((rows >= 0) & (nodes[j] == rows), j, -1)


def _ranges(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Concatenation of ``arange(lo[i], hi[i])`` for all i, without a Python loop.

    >>> _ranges(np.array([0, 5, 9]), np.array([2, 5, 11])).tolist()
    [0, 1, 9, 10]
    """
    counts = (hi - lo).astype(np.int64)
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.repeat(lo.astype(np.int64) - (np.cumsum(counts) - counts), counts)
    return starts + np.arange(total, dtype=np.int64)
