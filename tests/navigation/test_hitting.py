"""Hitting probabilities (PRUM §2.3, Fig. 2; ERRATA PRUM 7) against independent computations."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import graphprum.navigation.hitting as hitting
from graphprum.navigation.hitting import backward_neighbourhood, hitting_probabilities

X, Y, Z = 0, 1, 2


def fig2() -> sp.csr_array:
    # PRUM Fig. 2: x→y .5, x→z .3, z→y .12, y→z .8
    rows, cols, vals = [X, X, Z, Y], [Y, Z, Y, Z], [.5, .3, .12, .8]
    return sp.csr_array((vals, (rows, cols)), shape=(3, 3))


def h(t, sources, targets, hops):
    return hitting_probabilities(t, np.array(sources), np.array(targets), hops).toarray()


def test_fig2_unbounded():
    p = h(fig2(), [X], [Y, Z], None)
    assert p[0] == pytest.approx([.536, .7])  # ERRATA PRUM 7


def test_fig2_hops():
    t = fig2()
    # one step: only the direct transitions
    assert h(t, [X, Y, Z], [X, Y, Z], 1) == pytest.approx(
        np.array([[1, .5, .3], [0, 1, .8], [0, .12, 1]]))
    # two steps: x→z→y adds .3 × .12, x→y→z adds .5 × .8; y→z→y and z→y→z are
    # returns to the start (already 1); nothing leads to x
    assert h(t, [X, Y, Z], [X, Y, Z], 2) == pytest.approx(
        np.array([[1, .536, .7], [0, 1, .8], [0, .12, 1]]))
    # zero steps: only the start is seen
    assert h(t, [X, Y], [X, Y], 0) == pytest.approx(np.eye(2))


def test_two_cycle_geometric_series():
    # x ⇄ y with x→y a = .5, y→x b = .6, and x→z c = .3 (z is the target).
    # Reaching z takes 2k+1 steps after k round trips: sum_k (ab)^k c.
    a, b, c = .5, .6, .3
    t = sp.csr_array(([a, c, b], ([X, X, Y], [Y, Z, X])), shape=(3, 3))
    exact = c / (1 - a * b)
    assert h(t, [X], [Z], None)[0, 0] == pytest.approx(exact)
    assert h(t, [Y], [Z], None)[0, 0] == pytest.approx(b * exact)
    for k in range(0, 8):
        by_k = sum((a * b) ** i * c for i in range(0, k) if 2 * i + 1 <= k)
        assert h(t, [X], [Z], k)[0, 0] == pytest.approx(by_k), k
    # hitting y from x: the first step either goes there or never will
    assert h(t, [X], [Y], None)[0, 0] == pytest.approx(a)


def test_dangling_unknown_and_unreachable():
    # 0 → 1 (.4), 1 → 2 (1.0); 2 is dangling (stops); 3 isolated
    t = sp.csr_array(([.4, 1.0], ([0, 1], [1, 2])), shape=(4, 4))
    p = h(t, [0, 1, 2, 3, -1], [2, 0, 3, -1], None)
    assert p == pytest.approx(np.array([
        [.4, 1, 0, 0],
        [1, 0, 0, 0],
        [1, 0, 0, 0],
        [0, 0, 1, 0],
        [0, 0, 0, 0],
    ]))
    # repeated ids give repeated rows and columns
    assert h(t, [0, 0], [2, 2], 2) == pytest.approx(np.full((2, 2), .4))
    assert hitting_probabilities(t, np.array([], dtype=int), np.array([1]), None).shape == (0, 1)


def test_closed_classes():
    # w → x .5, w → s .2; x ⇄ y with probability 1 (a closed class keeping its
    # mass); s dangling.  From w: x and y are each reached with .5, s with .2.
    w, x, y, s = 0, 1, 2, 3
    t = sp.csr_array(([.5, .2, 1.0, 1.0], ([w, w, x, y], [x, s, y, x])), shape=(4, 4))
    p = h(t, [w, x, y, s], [x, y, s], None)
    assert p == pytest.approx(np.array([[.5, .5, .2], [1, 1, 0], [1, 1, 0], [0, 0, 1]]))
    # a self-loop with probability 1 is a closed class of one state
    t = sp.csr_array(([.3, 1.0], ([0, 1], [1, 1])), shape=(2, 2))
    assert h(t, [0], [1], None)[0, 0] == pytest.approx(.3)


def test_backward_neighbourhood_bounded():
    # chain 0 → 1 → 2 → 3 → 4
    t = sp.csr_array((np.ones(4), (np.arange(4), np.arange(1, 5))), shape=(5, 5))
    rev = sp.csr_array(t.T)
    assert backward_neighbourhood(rev, np.array([4]), 2).tolist() == [2, 3, 4]
    assert backward_neighbourhood(rev, np.array([4, 1]), 1).tolist() == [0, 1, 3, 4]
    assert backward_neighbourhood(rev, np.array([4]), None).tolist() == [0, 1, 2, 3, 4]


def test_rows_summing_above_one_rejected():
    t = sp.csr_array(np.array([[0, .7, .6], [0, 0, 0], [0, 0, 0]]))
    with pytest.raises(ValueError, match="sum to"):
        h(t, [0], [1, 2], None)


# ---------------------------------------------------------------- oracles

def enumerate_walks(t: np.ndarray, x: int, y: int, k: int) -> float:
    """Sum of the probabilities of all paths from x that first reach y within k steps."""
    if x == y:
        return 1.0
    total = 0.0
    stack = [(x, 1.0, 0)]
    while stack:
        node, p, depth = stack.pop()
        if depth == k:
            continue
        for nxt in np.flatnonzero(t[node]):
            q = p * t[node, nxt]
            if nxt == y:
                total += q
            else:
                stack.append((int(nxt), q, depth + 1))
    return total


def power_limit(t: np.ndarray, x: int, y: int) -> float:
    """lim_K P(at y after K steps) in the chain where y absorbs, by repeated squaring."""
    if x == y:
        return 1.0
    a = t.copy()
    a[y] = 0.0
    a[y, y] = 1.0
    for _ in range(24):  # a^(2^24): far past any transient on a few states
        a = a @ a
    return float(a[x, y])


@st.composite
def random_walks(draw, max_n: int = 6):
    n = draw(st.integers(2, max_n))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    t = np.where(rng.random((n, n)) < draw(st.floats(0.15, 0.6)), rng.random((n, n)), 0.0)
    # rows sum to 1 (keep all mass) or to a random total below 1
    totals = np.where(rng.random(n) < 0.4, 1.0, rng.random(n))
    sums = t.sum(axis=1)
    t = np.where(sums[:, None] > 0, t / np.where(sums > 0, sums, 1)[:, None] * totals[:, None], 0)
    return t


@settings(max_examples=60, deadline=None)
@given(random_walks(), st.integers(0, 5))
def test_bounded_against_path_enumeration(t, k):
    n = len(t)
    got = h(sp.csr_array(t), list(range(n)), list(range(n)), k)
    want = np.array([[enumerate_walks(t, x, y, k) for y in range(n)] for x in range(n)])
    np.testing.assert_allclose(got, want, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(random_walks())
def test_unbounded_against_matrix_power(t):
    n = len(t)
    got = h(sp.csr_array(t), list(range(n)), list(range(n)), None)
    want = np.array([[power_limit(t, x, y) for y in range(n)] for x in range(n)])
    np.testing.assert_allclose(got, want, atol=1e-8)


def test_krylov_path_matches_dense(monkeypatch):
    # a random graph of 400 states, some rows keeping all their mass
    rng = np.random.default_rng(7)
    n = 400
    r, c = rng.integers(0, n, 1600), rng.integers(0, n, 1600)
    t = sp.csr_array((np.ones(len(r)), (r, c)), shape=(n, n))
    t.sum_duplicates()
    deg = np.asarray(t.sum(axis=1)).ravel()
    scale = np.where(deg > 0, np.where(rng.random(n) < 0.5, 1.0, 0.9) / np.maximum(deg, 1), 0)
    t = sp.csr_array(sp.diags_array(scale) @ t)
    src, tgt = np.arange(0, n, 7), np.arange(3, 60, 5)
    dense = hitting_probabilities(t, src, tgt, None).toarray()
    monkeypatch.setattr(hitting, "DENSE_MAX", 10)
    krylov = hitting_probabilities(t, src, tgt, None).toarray()
    np.testing.assert_allclose(krylov, dense, atol=1e-9)
    # and a 40-step walk is already close to the unbounded one
    assert np.abs(hitting_probabilities(t, src, tgt, 40).toarray() - dense).max() < 0.05


def test_monte_carlo_fig2():
    # simulate users on Fig. 2: the share reaching y and z from x
    rng = np.random.default_rng(1)
    t = fig2().toarray()
    n_users, seen_y, seen_z = 20000, 0, 0
    for _ in range(n_users):
        node, visited = X, set()
        while True:
            u, acc, nxt = rng.random(), 0.0, None
            for j in np.flatnonzero(t[node]):
                acc += t[node, j]
                if u < acc:
                    nxt = int(j)
                    break
            if nxt is None or nxt in visited:
                break
            visited.add(nxt)
            node = nxt
        seen_y += Y in visited
        seen_z += Z in visited
    p = h(fig2(), [X], [Y, Z], None)[0]
    assert abs(seen_y / n_users - p[0]) < 4 * np.sqrt(.25 / n_users)
    assert abs(seen_z / n_users - p[1]) < 4 * np.sqrt(.25 / n_users)
