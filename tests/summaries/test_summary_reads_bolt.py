"""A Bolt store reads its summaries in runs of partitions, edges and pairs a
row, as parallel lists (``summary/read_partitions.cypher``,
``read_edges.cypher``, ``page_determined.cypher``): every row stays within
the byte budget asked (FalkorDB never answers a record over 64 KiB), counted
here with PackStream's own sizes (UTF-8 strings, headers), and what is read
equals the embedded store's summaries and explorer counts, whatever the
budget, also for tags and documents named outside ASCII."""

from __future__ import annotations

import numpy as np
import pytest

from graphprum.loading import load_xml
from graphprum.store.bolt import summaries as bolt_summaries
from graphprum.store.local import LocalStore
from graphprum.summaries.axpre import build_summary
from graphprum.summaries.explore import EXPLORE_AXPRES, server_counts, table_counts
from graphprum.summaries.stored import build_stored, stored_summary
from tests.support import REPO

pytestmark = pytest.mark.bolt
PLOS = REPO / "examples" / "plos"
#: The budget the store asks for (the tests set others).
BUDGET = bolt_summaries.REPLY_BYTES
RUNS = ("summary/read_partitions", "summary/read_edges", "summary/page_determined")


def packed(value: object) -> int:
    """Bytes of ``value`` in PackStream v1, the values of a Bolt message."""
    def header(n: int) -> int:
        return 1 if n < 16 else 2 if n < 2 ** 8 else 3 if n < 2 ** 16 else 5

    if value is None or isinstance(value, bool):
        return 1
    if isinstance(value, int):
        return next(size for size, bound in ((1, 0), (2, 2 ** 7), (3, 2 ** 15), (5, 2 ** 31),
                                             (9, 2 ** 63))
                    if (-16 <= value < 128 if bound == 0 else -bound <= value < bound))
    if isinstance(value, float):
        return 9
    if isinstance(value, str):
        n = len(value.encode("utf-8"))
        return header(n) + n
    if isinstance(value, list | tuple):
        return header(len(value)) + sum(packed(v) for v in value)
    raise TypeError(value)


def test_packed_sizes_are_packstreams():
    """Sizes of the PackStream specification's own examples."""
    assert [packed(v) for v in (1, -16, -17, 127, 128, 2 ** 31, 1.5, None)] == \
        [1, 1, 2, 1, 3, 9, 9, 1]
    assert packed("a") == 2 and packed("é") == 3 and packed("x" * 16) == 18
    assert packed([1, 2, 3]) == 4 and packed(["日本"]) == 8


def _wide_collection(directory):
    """Three documents whose names and tags are long CJK words (3 bytes a
    character in UTF-8): a partition's key and samples take ~3,000 bytes."""
    a, b, c, d = ("".join(chr(0x4E00 + 97 * i + j) for j in range(30)) for i in range(4))
    body = (f"<{a}><{b}><{c}>本文</{c}><{c}/></{b}><{b}><{c}><{d}/><{d}/></{c}></{b}>"
            f"<{d}><{c}/></{d}></{a}>")
    directory.mkdir()
    for name in ("一", "二", "三"):
        (directory / f"{'長い名前の文書' * 3}{name}.xml").write_text(body, encoding="utf-8")
    return directory


def _read_rows(bolt, monkeypatch) -> dict[str, list[tuple[object, ...]]]:
    """The rows of the summaries' run reads of ``bolt`` from now on, by query."""
    rows: dict[str, list[tuple[object, ...]]] = {name: [] for name in RUNS}
    read = bolt.conn.read

    def recorded(name, **kw):
        found = read(name, **kw)
        rows.get(name, []).extend(found)
        return found

    monkeypatch.setattr(bolt.conn, "read", recorded)
    return rows


def _same_summaries(bolt, local) -> tuple[dict, dict]:
    """The explorer's summaries of both stores (built in each), checked equal."""
    for axpre in EXPLORE_AXPRES:
        build_stored(bolt, axpre)
    theirs = {a: stored_summary(bolt, a) for a in EXPLORE_AXPRES}
    mine = {a: build_summary(local.table(), a) for a in EXPLORE_AXPRES}
    for a in EXPLORE_AXPRES:
        for part in ("partitions", "edges"):
            got, want = getattr(theirs[a], part), getattr(mine[a], part)
            assert got.columns.tolist() == want.columns.tolist(), (a, part)
            for column in want.columns:
                assert got[column].tolist() == want[column].tolist(), (a, part, column)
        assert np.allclose(theirs[a].pi, mine[a].pi, rtol=1e-12, atol=0), a
    assert server_counts(bolt, theirs) == table_counts(local.table(), mine)
    return theirs, mine


def _stores(tmp_path, bolt_store, paths):
    local = LocalStore(tmp_path / "local")
    load_xml(local, paths)
    bolt = bolt_store()
    load_xml(bolt, paths)
    return bolt, local


def test_wide_partitions_are_read_within_the_budget(tmp_path, bolt_store, monkeypatch):
    """Rows of partitions whose strings are 3 bytes a character stay within
    a budget of two such partitions (the width of a character counted as 1
    byte puts 4 in a row: over), and read what the embedded store holds."""
    budget = 6000
    bolt, local = _stores(tmp_path, bolt_store, [_wide_collection(tmp_path / "wide")])
    monkeypatch.setattr(bolt_summaries, "REPLY_BYTES", budget)
    rows = _read_rows(bolt, monkeypatch)
    _same_summaries(bolt, local)
    widest = max(packed([column[j] for column in row])
                 for row in rows["summary/read_partitions"] for j in range(len(row[0])))
    assert widest > budget / 3
    for name, found in rows.items():  # a RECORD message: 2 bytes, then its fields' list
        assert found and max(2 + packed(list(row)) for row in found) <= budget, name
    assert len(rows["summary/read_partitions"]) > 10  # runs of one or two partitions


@pytest.mark.parametrize("budget", [6000, BUDGET])
def test_plos_summaries_are_read_in_few_rows(tmp_path, bolt_store, monkeypatch, budget):
    bolt, local = _stores(tmp_path, bolt_store, [PLOS / "articles"])
    monkeypatch.setattr(bolt_summaries, "REPLY_BYTES", budget)
    rows = _read_rows(bolt, monkeypatch)
    theirs, _ = _same_summaries(bolt, local)
    for name, found in rows.items():
        assert max(2 + packed(list(row)) for row in found) <= budget, name
    if budget < BUDGET:
        return
    # built, then read back: rows of runs, at least ten partitions or edges a row
    partitions = sum(len(s.partitions) for s in theirs.values())
    edges = sum(len(s.edges) for s in theirs.values())
    assert 10 <= len(rows["summary/read_partitions"]) <= 2 * partitions / 10
    assert 10 <= len(rows["summary/read_edges"]) <= 2 * edges / 10
    assert 1 <= len(rows["summary/page_determined"]) <= len(theirs["p*|c"].partitions) / 10
