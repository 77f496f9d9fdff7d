"""The embedded store's document table (format 4): names and sources as
string columns, a name's document found through the stored hash index, an
older store refused with one line and left as it was."""

from __future__ import annotations

import hashlib
import json
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import graphprum.store.local.strings as strings
from graphprum.errors import InputError, StoreError
from graphprum.loading import load_web, load_xml
from graphprum.store.local import LocalStore
from graphprum.store.local.strings import (
    StringColumn,
    StringColumnWriter,
    StringIndex,
    string_hashes,
    write_string_index,
)
from graphprum.units import DOC_COLUMNS, DocTable

ROOT = Path(__file__).resolve().parents[2]
PLOS = ROOT / "examples" / "plos" / "articles"
SITE = ROOT / "examples" / "web" / "site"
DOC = "<article><title>T</title><p>one two</p></article>"


def _index(tmp: Path, names: list[str]) -> tuple[StringColumn, StringIndex]:
    with StringColumnWriter(tmp / "names") as w:
        w.extend(names)
    write_string_index(tmp / "names", string_hashes(names))
    column = StringColumn(tmp / "names")
    return column, StringIndex(column)


def _absent(names: list[str]) -> list[str]:
    """Strings near the names that are not among them: extended, cut, other case."""
    held = set(names)
    near = [v for n in names for v in (n + "x", n[:-1], n.upper(), n + "\udcff", "/" + n)]
    return [v for v in dict.fromkeys(near) if v not in held]


def _agrees(index: StringIndex, names: list[str]) -> None:
    """``index`` answers as the dict the store built before format 4 (the
    last row of a name: names here are distinct), for names it holds and
    names it does not."""
    expected = {n: i for i, n in enumerate(names)}
    absent = _absent(names)
    assert [index.get(n) for n in names] == [expected[n] for n in names]
    assert index.rows(names).tolist() == [expected[n] for n in names]
    assert [index.get(n) for n in absent] == [None] * len(absent)
    assert index.rows(absent).tolist() == [-1] * len(absent)
    assert all(n in index for n in names) and not any(n in index for n in absent)
    assert len(index) == len(names) and list(index) == names


# ------------------------------------------------------- a real collection
def test_the_index_of_a_real_collection_answers_as_the_names_do(tmp_path: Path) -> None:
    """PLOS articles and a web site loaded into one store (two generations:
    the second reuses the first one's hashes): every name leads to its
    document and back, the names are the files' (the loaders' naming), and
    near misses are not found."""
    store = LocalStore(tmp_path / "s")
    load_xml(store, [PLOS])
    load_web(store, SITE)
    docs = store.table().docs
    names = docs["name"].tolist()
    files = [p.stem for p in sorted(PLOS.glob("*.xml"))] + [
        p.relative_to(SITE).as_posix() for p in SITE.rglob("*") if p.suffix in (".html", ".htm")]
    assert sorted(names) == sorted(files) and len(set(names)) == len(names) > 100
    index = StringIndex(StringColumn(store.generation / "docs" / "names"))
    _agrees(index, names)
    table = store.table()
    assert [table.doc_index(n) for n in names] == list(range(len(names)))
    with pytest.raises(KeyError):
        table.doc_index(names[0] + "x")
    sources = docs["source"].tolist()
    assert all(Path(s).stem == Path(n).stem for s, n in zip(sources, names, strict=True))


def test_replacing_and_adding_documents_keeps_the_index_right(tmp_path: Path, write) -> None:
    """A load that replaces a document and adds others renumbers the
    documents; the index follows (old hashes carried over for the kept ones)."""
    for i in range(6):
        write(f"c/d{i}.xml", DOC)
    store = LocalStore(tmp_path / "s")
    load_xml(store, [tmp_path / "c"])
    write("c2/d2.xml", DOC.replace("one", "uno"))
    write("c2/née.xml", DOC)
    load_xml(store, [tmp_path / "c2"], replace=True)
    names = store.table().docs["name"].tolist()
    assert names == ["d0", "d1", "d3", "d4", "d5", "d2", "née"]
    _agrees(StringIndex(StringColumn(store.generation / "docs" / "names")), names)
    assert store.resolve(["d2#/article[1]/p[1]", "née#/article[1]", "d9#/article[1]"]).tolist() \
        == [17, 18, -1]  # five kept documents of three elements, then d2, then née
    assert store.texts(np.array([17]))[0] == "uno two"
    write("c3/née.xml", DOC)
    with pytest.raises(InputError, match="document 'née' is already stored"):
        load_xml(store, [tmp_path / "c3"])


def test_the_document_table_is_read_when_asked_and_whole(tmp_path: Path) -> None:
    """Names and sources are decoded at the first use of their column; the
    table still behaves as a DocTable (copy, records, frame, pickle)."""
    store = LocalStore(tmp_path / "s")
    load_xml(store, [PLOS])
    docs = store.table().docs
    assert "name" in docs and len(docs) == 9
    copy = DocTable(docs)  # DocTable's own constructor reads every column
    for c in DOC_COLUMNS:
        assert np.asarray(copy[c]).tolist() == np.asarray(docs[c]).tolist()
    assert [r["name"] for r in docs.records()] == docs["name"].tolist()
    assert docs.to_frame()["source"].tolist() == docs["source"].tolist()
    assert docs["name"].dtype == object and docs["first"].dtype == np.int64
    again = pickle.loads(pickle.dumps(docs))
    assert type(again) is DocTable and again["name"].tolist() == docs["name"].tolist()


def test_resolving_ids_decodes_no_column_of_names(tmp_path: Path, monkeypatch) -> None:
    """What an evaluation asks of a freshly opened store (rows of ids, kinds)
    reads no whole column of names: each name is found through the index."""
    store = LocalStore(tmp_path / "s")
    load_xml(store, [PLOS])
    docs = store.table().docs
    names, first = docs["name"].tolist(), docs["first"].tolist()
    store.release()

    def refuse(self: StringColumn, *args: object) -> list[str]:
        raise AssertionError(f"{self.path}: a whole column decoded")

    monkeypatch.setattr(StringColumn, "all", refuse)
    monkeypatch.setattr(StringColumn, "slice", refuse)
    fresh = LocalStore(tmp_path / "s")
    ids = [f"{names[5]}#/article[1]", f"{names[0]}#/article[1]", "nope#/article[1]"]
    assert fresh.resolve(ids).tolist() == [first[5], first[0], -1]
    assert fresh.kinds(ids).tolist() == [0, 0, -1]


# ---------------------------------------------------------- generated names
#: Any character (lone surrogates and controls included), and often a few
#: that make names share prefixes; each name's first half joins them.
CHARS = st.one_of(st.characters(categories=("L", "M", "N", "P", "S", "Z", "C")),
                  st.sampled_from("a/é\udcff日0\r"))
NAMES = st.lists(st.text(CHARS, max_size=10), max_size=40).map(
    lambda ns: list(dict.fromkeys(ns + [n[:len(n) // 2] for n in ns])))


@settings(max_examples=60, deadline=None)
@given(names=NAMES)
def test_generated_names_round_trip_through_the_index(tmp_path_factory, names) -> None:
    """Any distinct names (non-ASCII, lone surrogates, the empty name,
    names that are prefixes of others)."""
    _, index = _index(tmp_path_factory.mktemp("i"), names)
    _agrees(index, names)


def test_names_that_are_prefixes_of_each_other(tmp_path: Path) -> None:
    names = ["a", "ab", "abc", "a/b", "a/b/c", "", "é", "éé", "e\u0301", "000/1", "000/10",
             "000/100", "\udcff", "\udcff\udcfe", "x\r\ny", "日本", "日本語"]
    _, index = _index(tmp_path, names)
    _agrees(index, names)
    assert index.get("abcd") is None and index.get("0") is None and index.get("日") is None


def test_colliding_hashes_are_told_apart_by_their_bytes(tmp_path: Path, monkeypatch) -> None:
    """Every string given the same hash: the look-up compares bytes."""
    monkeypatch.setattr(strings, "_digest", lambda data: b"\x07" * 8)
    names = ["b", "a", "ab", "é", ""]
    _, index = _index(tmp_path, names)
    assert len(set(index.hashes.tolist())) == 1
    _agrees(index, names)


def test_the_hash_is_blake2b_of_the_utf8_bytes() -> None:
    """The stored hash is defined by its bytes (a store read on another
    machine finds the same names): BLAKE2b-64, little-endian."""
    for name in ("000/0", "é", "\udcff", ""):
        data = name.encode("utf-8", "surrogatepass")
        want = int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")
        assert string_hashes([name]).tolist() == [want]


# ------------------------------------------------- older and damaged stores
def _files(path: Path) -> dict[str, bytes]:
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*"))
            if p.is_file()}


def _as_format_3(store_dir: Path) -> None:
    """Make a store look as graphprum wrote format 3: names and sources as
    JSON arrays, no index, version 3 in the manifest."""
    manifest = json.loads((store_dir / "manifest.json").read_text())
    docs = store_dir / manifest["generation"] / "docs"
    for column in ("names", "sources"):
        values = StringColumn(docs / column).all()
        (docs / f"{column}.json").write_text(json.dumps(values))
        for suffix in (".bin", ".npy", ".hash.npy", ".order.npy"):
            (docs / f"{column}{suffix}").unlink(missing_ok=True)
    manifest["version"] = 3
    (store_dir / "manifest.json").write_text(json.dumps(manifest))


def test_a_format_3_store_is_refused_with_one_line_and_left_alone(tmp_path: Path) -> None:
    """Every reader and writer, the command line included: one line naming
    the manifest, the version and what to do; not a byte of it changed."""
    store_dir = tmp_path / "old"
    load_xml(LocalStore(store_dir), [PLOS])
    _as_format_3(store_dir)
    before = _files(store_dir)
    message = "store format version 3 is not supported (this graphprum reads version 4)"
    for action in (lambda s: s.table(), lambda s: s.info(), lambda s: load_web(s, SITE)):
        with pytest.raises(StoreError, match=message.replace("(", r"\(").replace(")", r"\)")):
            action(LocalStore(store_dir))
    run = ROOT / "examples" / "plos" / "run-bm25.txt"
    proc = subprocess.run(
        [sys.executable, "-c", "import sys; from graphprum.cli import main; "
         "sys.argv[0] = 'graphprum'; sys.exit(main())", "--store", str(store_dir), "eval",
         str(run), "--qrels", str(ROOT / "examples/plos/qrels.txt"), "--nav", "structural"],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()]
    assert message in proc.stderr and "load the collection again into a new store" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert _files(store_dir) == before


@pytest.mark.parametrize("damage", ["names.hash.npy", "names.order.npy", "names.bin"])
def test_a_damaged_document_index_is_one_error_and_nothing_is_written(
        tmp_path: Path, damage: str) -> None:
    store_dir = tmp_path / "s"
    load_xml(LocalStore(store_dir), [PLOS])
    gen = LocalStore(store_dir).generation
    assert gen is not None
    victim = gen / "docs" / damage
    victim.write_bytes(victim.read_bytes()[:-8])
    before = _files(store_dir)
    with pytest.raises(StoreError, match="store generation is damaged"):
        LocalStore(store_dir).table()
    with pytest.raises(StoreError):
        load_web(LocalStore(store_dir), SITE)
    assert _files(store_dir) == before
