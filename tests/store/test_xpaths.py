"""The element-path look-up tables of the table stores (``TableStore._xpaths``).

Each document's table maps every element's positional path to its row
within the document, made row by row, parents first; checked against
``UnitTable.xpath``, which walks up the parents, on random collections
(empty documents among them), and by hand for a row that is not an element.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from graphprum.store.tables import TableStore
from graphprum.units import KIND_ELEMENT, KIND_PAGE, UNIT_COLUMNS, UnitTable

TAGS = ["article", "sec", "p", "title", "fig"]


class _Store(TableStore):
    def __init__(self, table: UnitTable) -> None:
        super().__init__()
        self._table = table

    def table(self) -> UnitTable:
        return self._table


def _document(rng: random.Random, n: int) -> tuple[list[int], list[int], list[int]]:
    """Tags, positions and local parents (-1: root) of a random tree of ``n``
    units, parents before their children."""
    parent = [-1] + [rng.randrange(i) for i in range(1, n)]
    tag = [0] + [rng.randrange(1, len(TAGS)) for _ in range(1, n)]
    pos, seen = [1] * n, {}
    for i in range(1, n):
        key = (parent[i], tag[i])
        seen[key] = pos[i] = seen.get(key, 0) + 1
    return tag, pos, parent


def _table(rng: random.Random, sizes: list[int]) -> UnitTable:
    columns: dict[str, list[int]] = {"tag": [], "pos": [], "parent": [], "doc": []}
    first = []
    for d, n in enumerate(sizes):
        first.append(len(columns["tag"]))
        tag, pos, parent = _document(rng, n) if n else ([], [], [])
        columns["tag"] += tag
        columns["pos"] += pos
        columns["parent"] += [p + first[-1] if p >= 0 else -1 for p in parent]
        columns["doc"] += [d] * n
    rows = len(columns["tag"])
    arrays = {c: np.zeros(rows, dtype=t) for c, t in UNIT_COLUMNS.items()}
    for c, values in columns.items():
        arrays[c] = np.asarray(values, dtype=UNIT_COLUMNS[c])
    arrays["kind"][:] = KIND_ELEMENT
    docs = {"name": [f"d{d}" for d in range(len(sizes))], "source": [""] * len(sizes),
            "kind": np.full(len(sizes), KIND_ELEMENT), "length": np.zeros(len(sizes)),
            "first": np.asarray(first, dtype=np.int64), "count": np.asarray(sizes)}
    return UnitTable(arrays, TAGS, ["/"] * len(TAGS), docs)


@pytest.mark.parametrize("seed", range(6))
def test_every_element_path_maps_to_its_row(seed: int) -> None:
    rng = random.Random(seed)
    n = 17
    sizes = [rng.choice([0, 1, 2, 5, 40]) for _ in range(n)]
    table = _table(rng, sizes)
    store = _Store(table)
    first = table.docs["first"]
    for d in rng.sample(range(n), n):  # documents in any order
        expected = {table.xpath(r): r - int(first[d])
                    for r in range(int(first[d]), int(first[d]) + sizes[d])}
        assert store._xpaths(d) == expected
    rows = [r for r in range(len(table))]
    assert store.resolve(table.ids(rows)).tolist() == rows


def test_rows_that_are_not_elements_have_no_path() -> None:
    """A page row inside a document: not in the table, and its children are
    read as roots."""
    table = _table(random.Random(1), [3, 3])
    table.columns["parent"][:] = [-1, 0, 1, -1, 3, 4]
    table.columns["kind"][4] = KIND_PAGE
    store = _Store(table)
    assert store._xpaths(0) == {"/article[1]": 0, "/article[1]/" + TAGS[table.columns["tag"][1]]
                                + "[1]": 1, table.xpath(2): 2}
    tag5 = TAGS[table.columns["tag"][5]]
    assert store._xpaths(1) == {"/article[1]": 0, f"/{tag5}[{table.columns['pos'][5]}]": 2}
