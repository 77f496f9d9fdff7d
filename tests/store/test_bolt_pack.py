"""Packed unit batches of the Bolt store (graphprum.store.bolt.pack), without a
server: the records are checked against the ids, label paths and parents
computed directly, on random trees and batch limits."""

from __future__ import annotations

import numpy as np
import pytest

from graphprum.errors import InputError
from graphprum.store.bolt.connection import cypher, query_bytes
from graphprum.store.bolt.pack import (
    SEPARATORS,
    pack_units,
    separators,
    spliced_size,
    unit_ids,
)
from graphprum.units import KIND_PAGE, KIND_SEGMENT, KIND_VIDEO, ParsedDocument, UnitTable


def random_document(rng: np.random.Generator, name: str, n: int) -> ParsedDocument:
    """A random tree of ``n`` element units in preorder, with tags from a
    small vocabulary (so sibling positions repeat) and fractional lengths."""
    parent = [-1]
    for i in range(1, n):
        parent.append(int(rng.integers(max(0, i - 4), i)))  # deep and bushy mixes
    tags = [str(rng.choice(["a", "b", "sec", "p'q", "é"])) for _ in range(n)]
    t = UnitTable.from_tree(name, tags, parent, lengths=rng.random(n) * 10)
    paths = []
    for i, p in enumerate(parent):
        paths.append((paths[p] if p >= 0 else "") + "/" + tags[i])
    cols = {c: t.columns[c] for c in ("parent", "depth", "post", "size", "pos",
                                       "start", "length", "words", "kind")}
    return ParsedDocument(name, "", 0, tags, paths, cols)


def mixed_documents(rng) -> list[ParsedDocument]:
    docs = [random_document(rng, f"dir/doc {k}\\'s", int(rng.integers(1, 60))) for k in range(8)]
    # a video with segments and a page: ids not derivable from the parent's
    cols = {"parent": np.array([-1, 0, 0, 0], np.int32), "depth": np.array([0, 1, 1, 1]),
            "post": np.array([3, 0, 1, 2]), "size": np.array([4, 1, 1, 1]),
            "pos": np.array([1, 1, 2, 3]), "start": np.array([0.0, 0.0, 1.5, 3.25]),
            "length": np.array([4.75, 1.5, 1.75, 1.5]), "words": np.array([6, 2, 2, 2]),
            "kind": np.array([KIND_VIDEO] + [KIND_SEGMENT] * 3, np.int8)}
    docs.append(ParsedDocument("film", "", KIND_VIDEO, ["video"] + ["segment"] * 3,
                               ["/video"] + ["/video/segment"] * 3, cols))
    one = np.ones(1, np.int32)
    page = {"parent": np.array([-1], np.int32), "depth": np.zeros(1), "post": np.zeros(1),
            "size": one, "pos": one, "start": np.zeros(1), "length": np.zeros(1),
            "words": np.zeros(1), "kind": np.array([KIND_PAGE], np.int8)}
    docs.append(ParsedDocument("http://x/y", "", KIND_PAGE, ["page"], ["/page"], page))
    return docs


def check_batches(docs, batches) -> None:
    """Every unit written exactly once, with its own id, path, document and
    numbers, and the id of its parent (which an earlier record carries)."""
    expected = {}
    for seq, doc in enumerate(docs, start=1):
        ids = unit_ids(doc)
        for i, uid in enumerate(ids):
            p = int(doc.columns["parent"][i])
            expected[uid] = (doc.name, seq, doc.paths[i], i, p, ids[p] if p >= 0 else "")
    written: list[str] = []
    for b in batches:
        for rec in b.records:
            f = rec.split(b.fs)
            parent, uid, path = f[0], f[1], f[2]
            name, seq, want_path, pre, ppre, parent_id = expected[uid]
            assert path == want_path
            assert (b.docs[int(f[3])], b.seqs[int(f[3])]) == (name, seq)
            assert (int(f[8]), int(f[9])) == (pre, ppre)
            assert parent == parent_id
            assert not parent or parent in written  # the query finds it by its id
            written.append(uid)
    assert sorted(written) == sorted(expected)


@pytest.mark.parametrize("max_units", [1, 2, 3, 7, 50, 10_000])
def test_records_carry_ids_paths_and_parents(max_units):
    rng = np.random.default_rng(max_units)
    docs = mixed_documents(rng)
    batches = list(pack_units([(d, s) for s, d in enumerate(docs, start=1)],
                              max_units=max_units, max_bytes=None))
    check_batches(docs, batches)
    assert all(len(b.records) <= max_units for b in batches)


@pytest.mark.parametrize("max_bytes", [300, 900, 2900])
def test_batches_fit_the_byte_budget(max_bytes):
    """The estimate used to cut batches bounds the real size of the literals sent."""
    rng = np.random.default_rng(max_bytes)
    docs = mixed_documents(rng)
    batches = list(pack_units([(d, s) for s, d in enumerate(docs, start=1)],
                              max_units=10_000, max_bytes=max_bytes))
    check_batches(docs, batches)
    text = cypher("load/units")
    empty = query_bytes(text, {"data": "", "rs": "\x1e", "fs": "\x1f", "docs": [], "seqs": []})
    for b in batches:
        real = query_bytes(text, b.params()) - empty
        assert len(b.records) == 1 or real <= max_bytes


def test_separators_avoid_the_documents_characters():
    rng = np.random.default_rng(5)
    doc = random_document(rng, "odd\x1ename\x1d", 5)
    rs, fs = separators([doc])
    assert {rs, fs}.isdisjoint("\x1e\x1d") and rs != fs
    batches = list(pack_units([(doc, 1)], max_units=3, max_bytes=None, rs=rs, fs=fs))
    check_batches([doc], batches)
    with pytest.raises(ValueError, match="separator"):
        list(pack_units([(doc, 1)], max_units=3, max_bytes=None))
    tagged = random_document(rng, "plain", 3)
    tagged.tags[1] = "b\x1ec"  # the default record separator inside a tag
    with pytest.raises(ValueError, match="separator"):
        list(pack_units([(tagged, 1)], max_units=3, max_bytes=None))
    everything = random_document(rng, SEPARATORS[:-1], 2)
    with pytest.raises(InputError, match="control character"):
        separators([everything])


def read_number(text: str) -> float:
    """What cypher/load/units.cypher makes of a number field, in Python."""
    if "p" in text:
        m, e = text.split("p")
        return int(m) * 2.0 ** int(e)
    return float(int(text))


def test_floats_travel_exactly():
    rng = np.random.default_rng(9)
    doc = random_document(rng, "f", 30)
    doc.columns["start"][:3] = [1e-300, -2.5e300, 2.0**60 + 2**8]
    [b] = pack_units([(doc, 1)], max_units=100, max_bytes=None)
    starts = [read_number(r.split(b.fs)[12]) for r in b.records]
    lengths = [read_number(r.split(b.fs)[13]) for r in b.records]
    assert starts == doc.columns["start"].tolist()
    assert lengths == doc.columns["length"].tolist()


def test_spliced_size_is_the_size_of_the_literal_sent():
    """The literal the store writes (cypher_literal): strings quoted with ' and
    \\ escaped, lists and maps with ', ' separators, floats exact, odd keys
    backquoted; its size is what the batching budgets count."""
    value = {"a": ["x'y", 3, 2.5, None, True], "b": {"c": "é"}, "k k": 1e-7}
    rendered = "{a: ['x\\'y', 3, 2.5, null, true], b: {c: 'é'}, `k k`: 1e-07}"
    assert spliced_size(value) == len(rendered.encode("utf-8"))
