"""Summary views: rows, JSON, DOT, PNG (SR Fig. 2 p* summary)."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from test_summaries_support import book_table

from graphprum.summaries.axpre import build_summary
from graphprum.summaries.render import table_rows, to_dot, to_json, to_png


@pytest.fixture(scope="module")
def pstar():
    return build_summary(book_table(), "p*", "count")


def test_rows(pstar):
    rows = table_rows(pstar)
    assert [r["sid"] for r in rows] == [f"S{i}" for i in range(1, 8)]
    assert [r["extent"] for r in rows] == [1, 1, 3, 6, 2, 1, 3]
    assert rows[3]["key"] == "/book/fm/description/name"
    assert sum(r["pi"] for r in rows) == pytest.approx(1.0)
    assert rows[2]["pi"] == pytest.approx(11 / 32)


def test_json(pstar):
    data = json.loads(to_json(pstar))
    assert data["axpre"] == "p*" and data["weight"] == "count"
    assert len(data["partitions"]) == 7
    pairs = {(e["src"], e["dst"]): e["count"] for e in data["edges"]}
    assert pairs == {("S1", "S2"): 1, ("S2", "S3"): 3, ("S3", "S4"): 6, ("S3", "S5"): 2,
                     ("S1", "S6"): 1, ("S6", "S7"): 3}


def test_dot(pstar):
    dot = to_dot(pstar)
    assert dot.startswith('digraph "p*" {') and dot.rstrip().endswith("}")
    assert set(re.findall(r"^\s+(S\d+) \[label=", dot, re.M)) == {f"S{i}" for i in range(1, 8)}
    assert len(re.findall(r"->", dot)) == 6
    assert 'S3 -> S4 [label="6", penwidth=6.00]' in dot
    # quotes and backslashes in keys are escaped
    s = build_summary(book_table(), "c")
    s.partitions.loc[0, "key"] = 'a"b\\c'
    assert 'a\\"b\\\\c' in to_dot(s)


def test_png(pstar, tmp_path):
    import matplotlib.image

    out = tmp_path / "s.png"
    assert to_png(pstar, out) == [f"S{i}" for i in range(1, 8)]
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    image = matplotlib.image.imread(out)
    assert image.shape[0] > 300 and image.shape[1] > 300
    assert np.unique(image.reshape(-1, image.shape[2]), axis=0).shape[0] > 10  # not blank
    drawn = to_png(pstar, tmp_path / "top.png", max_nodes=3)
    # π = (2, 4, 11, 6, 2, 4, 3)/32: S3, S4, then the first of the tie S2/S6
    assert drawn == ["S2", "S3", "S4"]
