"""A TREC run read in slices by several processes is the run read whole.

:func:`read_trec_slice` and :func:`merge_run_slices` are compared with
:func:`read_trec_run` on files written here: topics interleaved (a topic in
every slice), tied scores (trec_eval's id order decides), both orders; and
every irregular file falls back to the careful reading, whose error names
the line.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from graphprum.errors import InputError
from graphprum.evaluation.options import EvalOptions
from graphprum.evaluation.reading import start_reading
from graphprum.io.runs import merge_run_slices, read_trec_run, read_trec_slice, trec_run_slices


def _random_run(path: Path, seed: int, lines: int = 600, bom: bool = False) -> Path:
    rng = random.Random(seed)
    rows = [(rng.choice(["1", "2", "3", "10", "7"]), f"d{i:04d}", rng.randint(1, 50),
             rng.choice([0.5, 1.0, 1.00000001, 2.25, rng.random()])) for i in range(lines)]
    text = "".join(f"{t} Q0 {d} {r} {s!r} tag\n" for t, d, r, s in rows)
    path.write_text(("\ufeff" if bom else "") + text, encoding="utf-8")
    return path


def _same(a, b) -> None:
    assert a.tag == b.tag and list(a.topics) == list(b.topics)
    for topic in b.topics:
        assert a.ranked(topic) == b.ranked(topic)
        assert a.topics[topic].scores.tolist() == b.topics[topic].scores.tolist()
        assert a.topics[topic].ranks.tolist() == b.topics[topic].ranks.tolist()


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("order", ["score", "rank"])
def test_slices_joined_are_the_run_read_whole(tmp_path: Path, seed: int, order: str) -> None:
    path = _random_run(tmp_path / "run", seed, bom=seed == 0)
    whole = read_trec_run(path, order=order)
    for parts in (2, 3, 5):
        slices = trec_run_slices(path, parts)
        assert slices is not None and len(slices) == parts
        assert slices[0][0] == 0 and slices[-1][1] == path.stat().st_size
        joined = merge_run_slices(path, [read_trec_slice(path, a, b, order) for a, b in slices],
                                  order)
        assert joined is not None
        _same(joined, whole)


def test_what_the_fast_reading_cannot_take_is_none(tmp_path: Path) -> None:
    def halves(text: str) -> list:
        path = tmp_path / "run"
        path.write_text(text)
        parts = [read_trec_slice(path, a, b) for a, b in trec_run_slices(path, 2)]
        assert len(parts) == 2 and None not in parts  # each slice alone is regular
        return [path, parts]

    # an id repeated across the slices; a second TAG in the second slice
    assert merge_run_slices(*halves("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n2 Q0 c 1 1 t\n1 Q0 a 3 0 t\n")) \
        is None
    assert merge_run_slices(*halves("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n2 Q0 c 1 1 t\n1 Q0 d 3 0 u\n")) \
        is None
    (tmp_path / "bad").write_text("1 Q0 a 1 2 t\n1 Q0 b x 1 t\n")
    assert read_trec_slice(tmp_path / "bad", 0, 26) is None


def _big(path: Path, extra: str = "") -> Path:
    with open(path, "w", encoding="utf-8") as f:
        for t in range(1, 31):
            for i in range(1200):
                f.write(f"{t} Q0 doc{t}-{i:05d} {i + 1} {1200 - i} sys\n")
        f.write(extra)
    return path


@pytest.mark.parametrize("extra, line, says", [
    ("1 Q0 doc1-00003 7 0.5 sys\n", 36001, "duplicate result 'doc1-00003'"),
    ("31 Q0 x 1 1 other\n", 36001, "expected one TAG per file"),
    ("31 Q0 x 1\n", 36001, "expected 6 fields"),
])
def test_errors_in_a_file_read_in_slices_name_the_line(tmp_path: Path, extra: str, line: int,
                                                        says: str) -> None:
    path = _big(tmp_path / "run", extra)
    with start_reading([(None, path)], EvalOptions(), jobs=3) as started:
        assert len(started._pieces) == 3  # read in three slices
        with pytest.raises(InputError) as err:
            started.result()
    assert err.value.line == line and says in str(err.value)


def test_a_big_file_read_in_slices_by_workers(tmp_path: Path) -> None:
    path = _big(tmp_path / "run")
    with start_reading([(None, path)], EvalOptions(order="rank"), jobs=2) as started:
        assert len(started._pieces) == 2
        (run,) = started.result()
    _same(run, read_trec_run(path, order="rank"))


def test_ids_to_normalise_are_read_whole(tmp_path: Path) -> None:
    """Whether a run's element ids are normalised depends on the first id of
    every topic in the file: a slice holding only positional ones would not
    know, so such a run is read whole (and equal to the careful reading)."""
    path = tmp_path / "run"
    path.write_text("1 Q0 d#/article[1]/sec[1] 1 2 t\n1 Q0 d#/article[1]/sec[2] 2 1 t\n"
                    "2 Q0 d#/article/sec 1 1 t\n2 Q0 d#/article/p 2 0 t\n")
    slices = trec_run_slices(path, 2)
    parts = [read_trec_slice(path, a, b) for a, b in slices]
    assert parts[0] is not None and parts[1] is None
    assert merge_run_slices(path, parts) is None
    assert read_trec_run(path).ranked("2") == ["d#/article[1]/sec[1]", "d#/article[1]/p[1]"]


def _reference_order(ids: list[str], scores: list[float]) -> list[int]:
    """trec_eval's order by numpy's lexsort: float32 score, then id, both descending."""
    import numpy as np

    with np.errstate(over="ignore"):
        s32 = np.asarray(scores, dtype=np.float64).astype(np.float32)
    rank_of_id = {u: k for k, u in enumerate(sorted(ids))}
    keys = np.array([rank_of_id[u] for u in ids])
    return np.lexsort((-keys, -s32)).tolist()


@pytest.mark.parametrize("seed", range(40))
def test_both_ways_to_find_trec_order_agree_with_a_sort(seed: int) -> None:
    """:func:`trec_order` tests whether a topic is in order with numpy where
    numpy is imported, with the standard library in the readers forked
    before it: both give the order of a plain sort by (float32 score, id)
    descending, on scores written in order, nearly in order, with ties,
    float32 ties (1.00000001) and values beyond float32 (infinite there)."""
    from graphprum.io import order

    rng = random.Random(seed)
    n = rng.choice([0, 1, 2, 5, 300])
    pool_ = [0.5, 1.0, 1.00000001, 2.25, 1e39, -1e39, float("inf"), 3.4028235e38]
    scores = [rng.choice(pool_) if rng.random() < 0.4 else rng.uniform(-5, 5) for _ in range(n)]
    ids = [f"d{rng.randrange(10 ** 6):06d}" for _ in range(n)]
    ids = list(dict.fromkeys(ids)) + [f"e{i}" for i in range(n - len(set(ids)))]
    if seed % 3 == 0:  # written in trec_eval's order already, as most runs are
        ids, scores = map(list, zip(*[(ids[i], scores[i])
                                      for i in _reference_order(ids, scores)], strict=True)) \
            if n else ([], [])
    expected = _reference_order(ids, scores)
    keys = order.float32_values(scores)
    pure = list(range(n)) if order.in_trec_order(ids, keys) else \
        sorted(range(n), key=lambda i: (keys[i], ids[i]), reverse=True)
    import numpy as np

    assert (order._in_order_numpy(np, ids, scores) is None) == order.in_trec_order(ids, keys)
    assert pure == expected
    assert order.trec_order(ids, scores) == expected


def test_the_readers_code_runs_without_numpy(tmp_path: Path) -> None:
    """What ``graphprum eval --jobs`` runs in the processes it forks before
    numpy is imported (finding the store, slicing and reading TREC text) does
    not import numpy; the run it reads is the careful reading's."""
    path = _random_run(tmp_path / "run", 3)
    probe = ("import sys, pickle\n"
             "import graphprum.store, graphprum.evaluation.reading, graphprum.pool\n"
             "from graphprum.io.trec_slices import read_slice, trec_run_slices\n"
             "graphprum.store.store_exists()\n"
             "parts = [read_slice(sys.argv[1], a, b) for a, b in trec_run_slices(sys.argv[1], 2)]\n"
             "assert 'numpy' not in sys.modules, 'numpy imported'\n"
             "sys.stdout.buffer.write(pickle.dumps(parts))\n")
    import pickle
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", probe, str(path)], capture_output=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr.decode()
    from graphprum.io.runs import run_of_slice

    parts = [run_of_slice(path, p) for p in pickle.loads(proc.stdout)]
    _same(merge_run_slices(path, parts), read_trec_run(path))
