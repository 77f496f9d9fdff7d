"""What several benchmark scripts share: timing a call, writing a random TREC run and qrels."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path


def best(fn: Callable[[], object], repeat: int) -> float:
    """The shortest of ``repeat`` timings of ``fn()``, in seconds."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def write_trec_files(dirpath: Path, topics: int, results: int, seed: int,
                     grades: Sequence[int] = (0, 1, 1, 2, 3)) -> tuple[Path, Path]:
    """``run.txt`` (``results`` per topic, scores falling) and ``qrels.txt``
    (60 judged ids per topic, REL drawn from ``grades``) in ``dirpath``."""
    rng = random.Random(seed)
    run, qrels = dirpath / "run.txt", dirpath / "qrels.txt"
    with open(run, "w") as r, open(qrels, "w") as q:
        for t in range(topics):
            docs = [f"d{t}-{i}" for i in range(results * 2)]
            for i, d in enumerate(rng.sample(docs, results)):
                r.write(f"{t} Q0 {d} {i + 1} {results - i + rng.random():.6f} bench\n")
            for d in rng.sample(docs, 60):
                q.write(f"{t} 0 {d} {rng.choice(list(grades))}\n")
    return run, qrels
