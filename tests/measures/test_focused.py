"""iP[x] and MAiP (INEX 2007 focused measures, graphprum.measures.focused)
against an implementation by character sets: every retrieved and every
highlighted character a Python set element, precision and recall as
Fractions.  The paper's own worked example is not available offline (its
abstract only); the hand-computed case is in the module's docstring."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import graphprum
from graphprum.assessments import TopicAssessment, merge_ranges
from graphprum.measures.focused import (
    average_interpolated_precision,
    interpolated_precision,
    precision_recall,
)


def by_sets(results: list[tuple[int, int, int]], highlighted: dict[int, list[tuple[int, int]]]
            ) -> tuple[list[Fraction], list[Fraction]]:
    """P[r], R[r] of results (doc, start, end) over highlighted ranges, by sets."""
    lit = {(d, c) for d, ranges in highlighted.items() for a, b in ranges for c in range(a, b)}
    seen: set[tuple[int, int]] = set()
    read = relevant = 0
    precision, recall = [], []
    for d, a, b in results:
        new = {(d, c) for c in range(a, b)} - seen
        seen |= new
        read += len(new)
        relevant += len(new & lit)
        precision.append(Fraction(relevant, read) if read else Fraction(0))
        recall.append(Fraction(relevant, len(lit)) if lit else Fraction(0))
    return precision, recall


def ip_by_sets(precision: list[Fraction], recall: list[Fraction], x: Fraction,
               trel: int) -> Fraction:
    if not trel:
        return Fraction(0)
    reached = [p for p, r in zip(precision, recall, strict=True) if r >= x]
    return max(reached, default=Fraction(0))


ranges = st.tuples(st.integers(0, 2), st.integers(0, 40), st.integers(0, 12))


@settings(max_examples=300, deadline=None)
@given(st.lists(ranges, max_size=25), st.lists(ranges, max_size=8))
def test_ip_and_aip_equal_the_character_sets(results, lit):
    runs = [(d, a, a + n) for d, a, n in results]
    highlighted: dict[int, list[tuple[int, int]]] = {}
    for d, a, n in lit:
        if n:
            highlighted.setdefault(d, []).append((a, a + n))
    trel = len({(d, c) for d, rs in highlighted.items() for a, b in rs for c in range(a, b)})
    curve = precision_recall(np.array([d for d, _, _ in runs], np.int64),
                             np.array([[a, b] for _, a, b in runs], np.float64).reshape(-1, 2),
                             {d: merge_ranges(rs) for d, rs in highlighted.items()}, trel)
    precision, recall = by_sets(runs, highlighted)
    assert curve.precision().tolist() == pytest.approx([float(p) for p in precision],
                                                       abs=1e-12)
    levels = [ip_by_sets(precision, recall, Fraction(k, 100), trel) for k in range(101)]
    for k in (0, 1, 5, 10, 33, 50, 99, 100):
        assert interpolated_precision(curve, Fraction(k, 100)) == pytest.approx(
            float(levels[k]), abs=1e-12)
    assert average_interpolated_precision(curve) == pytest.approx(
        float(sum(levels) / 101), abs=1e-12)


def test_a_level_reached_exactly_is_credited():
    """R = 1/3 at rank 1: iP@(1/3) counts it (exact rationals, not floats)."""
    curve = precision_recall(np.zeros(2, np.int64), np.array([[0., 1.], [5., 8.]]),
                             {0: np.array([[0., 3.]])}, 3.0)
    assert interpolated_precision(curve, Fraction(1, 3)) == 1.0
    assert interpolated_precision(curve, Fraction(34, 100)) == 0.0
    assert average_interpolated_precision(precision_recall(
        np.zeros(0, np.int64), np.zeros((0, 2)), {}, 0.0)) == 0.0


def test_a_unit_run_is_read_as_its_spans(tmp_path: Path):
    """Elements as results: each its span of the document's text, nested
    ones sharing characters that count once (against the sets again)."""
    d = tmp_path / "c"
    d.mkdir()
    (d / "x.xml").write_text("<a><s><p>0123456789</p><p>abcdefghij</p></s><p>ABCDEFGHIJ</p></a>")
    (d / "y.xml").write_text("<b><p>klmnopqrst</p></b>")
    store = graphprum.open_store(tmp_path / "store")
    store.load_xml(d)
    units = {"x#/a[1]/s[1]": (0, 0, 20), "x#/a[1]/s[1]/p[2]": (0, 10, 20),
             "x#/a[1]/p[1]": (0, 20, 30), "y#/b[1]": (1, 0, 10), "y#/b[1]/p[1]": (1, 0, 10)}
    ranking = ["x#/a[1]/s[1]/p[2]", "y#/b[1]/p[1]", "x#/a[1]/s[1]", "x#/a[1]/p[1]", "y#/b[1]"]
    run = {"1": {u: float(len(ranking) - i) for i, u in enumerate(ranking)}}
    assessments = {"1": TopicAssessment("1", {"x": merge_ranges([(5, 15), (25, 27)]),
                                              "y": merge_ranges([(0, 4)])})}
    df = graphprum.evaluate(run, None, ["MAiP", "iP@0.3", "iP@0.75"], store=store,
                            passages=assessments)
    precision, recall = by_sets([units[u] for u in ranking],
                                {0: [(5, 15), (25, 27)], 1: [(0, 4)]})
    levels = [ip_by_sets(precision, recall, Fraction(k, 100), 16) for k in range(101)]
    got = df[df.topic == "1"].set_index("measure")["value"]
    assert got["MAiP"] == pytest.approx(float(sum(levels) / 101), abs=1e-12)
    assert got["iP@0.3"] == pytest.approx(float(levels[30]), abs=1e-12)
    assert got["iP@0.75"] == pytest.approx(float(levels[75]), abs=1e-12)
    assert 0 < got["MAiP"] < 1
