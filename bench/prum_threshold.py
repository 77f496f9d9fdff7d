"""Where should PRUM switch from the exact law of F_i to its normal approximation?

For growing numbers m of ideal units seen with 0 < P < 1, builds a synthetic
topic (t = m ideal units, o = 2m ranks, each rank reaching 1-3 random ideal
units with probabilities uniform in (0.05, 0.95), so that the uncertain set
grows to about m), and times eq. 5 with the exact law (characteristic
function + FFT) and with the normal approximation forced on every rank
(threshold 0).  Prints one JSON line per m: timings (best of 3, seconds),
the largest error of precision over r and the error of the 11-level mean.

Usage: python bench/prum_threshold.py [--max-m 3200]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import scipy.sparse as sp

from graphprum.measures.prum import precision_at_recall, prum_mean


def topic(m: int, rng: np.random.Generator) -> sp.csr_array:
    o = 2 * m
    per_row = rng.integers(1, 4, size=o)
    rows = np.repeat(np.arange(o), per_row)
    cols = rng.integers(0, m, size=len(rows))
    vals = rng.uniform(0.05, 0.95, size=len(rows))
    mat = sp.coo_array((vals, (rows, cols)), shape=(o, m)).tocsr()
    mat.data = np.minimum(mat.data, 0.95)  # duplicates summed: keep them uncertain
    return sp.csr_array(mat)


def best_of(fn, n: int = 3) -> float:
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return min(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-m", type=int, default=3200)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    m = 25
    while m <= args.max_m:
        nav = topic(m, rng)
        u = 100.0 * m
        exact = precision_at_recall(nav, u, normal_threshold=10**9)
        approx = precision_at_recall(nav, u, normal_threshold=0)
        def run(threshold: int, nav: sp.csr_array = nav, u: float = u) -> None:
            precision_at_recall(nav, u, normal_threshold=threshold)

        print(json.dumps({
            "m": m, "entries": int(nav.nnz),
            "exact_s": best_of(lambda: run(10**9)),
            "normal_s": best_of(lambda: run(0)),
            "max_abs_err": float(np.max(np.abs(exact - approx))),
            "mean_err": abs(prum_mean(exact) - prum_mean(approx)),
        }), flush=True)
        m *= 2


if __name__ == "__main__":
    main()
