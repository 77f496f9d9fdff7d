"""A Bolt store's units keep the number of links held in their subtree
(``Unit.held``, what ``cypher/nav/walk_degrees.cypher`` reads), right after
every way of writing LINK edges: GRAPH.BULK, CREATE and MERGE loads, a
pending link resolved by a later document, a link list, a replaced
document, a load that failed; and a store loaded before units kept it
(no ``Meta.held_load``) is read by counting and counted at its next load.

The expected counts are made independently of the store's Cypher: from
the link records (``PendingLink``: the unit holding each link and the
document it goes to), each link counted for its holder and every unit
whose id is a prefix of the holder's up to a ``/`` (the XPath steps above
it), when its target document is stored."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import pytest

from graphprum.cli.browse import info_rows
from graphprum.cli.load import resumed_message
from graphprum.loading import load_links, load_web, load_xml
from graphprum.navigation.base import parse_model
from graphprum.store.bolt import unwind_load
from graphprum.store.local import LocalStore
from graphprum.summaries.stored import build_stored
from tests.navigation.test_browse import DOCS
from tests.store.test_bolt import FALKORDB, WAYS, falkordb_uri, write_collection  # noqa: F401
from tests.support import EXAMPLES


def held(store) -> dict[str, int]:
    """Every unit's stored held count (0 where it has none), an integer."""
    out = dict(store.run("MATCH (u:Unit) RETURN u.uid, coalesce(u.held, 0)"))
    assert all(type(n) is int for n in out.values())
    return out


def by_prefix(holders: Iterable[str], units: Iterable[str]) -> dict[str, int]:
    """For every unit of ``units``: how many of ``holders`` (one per link)
    it is or holds by its id: the holder's id cut after one of its XPath
    steps (module notes)."""
    out: Counter[str] = Counter()
    for src in holders:
        name, sep, path = src.partition("#")
        steps = path.split("/")[1:] if sep else []
        out[src] += 1
        for k in range(1, len(steps)):
            out[name + "#/" + "/".join(steps[:k])] += 1
    return {u: out.get(u, 0) for u in units}


def counted(store, edges: bool = False) -> dict[str, int]:
    """The held counts made from the link records (module notes), or with
    ``edges`` from the LINK edges there are."""
    stored = {n for (n,) in store.run("MATCH (d:Document) WHERE d.complete "
                                      "RETURN d.name")}
    links = store.run("MATCH (s:Unit)-[l:LINK]->(t:Unit) RETURN s.uid, t.doc") if edges \
        else store.run("MATCH (p:PendingLink) WHERE p.complete RETURN p.src, p.target")
    return by_prefix([src for src, target in links if target in stored], held(store))


def files(root: Path, docs: dict[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in docs.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


#: A fourth document: two links in one paragraph (multiplicity), one to a
#: document of the collection, one to b twice, one that dangles.
D = ('<doc><sec><p><link ref="a.xml">A</link> <link ref="b.xml">B</link>'
     '<link ref="b.xml#s1">B1</link></p></sec><sec><link ref="gone.xml">?</link></sec></doc>')


@pytest.mark.parametrize("way", list(WAYS))
def test_every_way_of_loading_stores_the_held_links(tmp_path, bolt_store, monkeypatch,
                                                    way) -> None:
    if not FALKORDB and way not in ("bolt", "merge-bolt"):
        pytest.skip("bulk loads and Redis writes are FalkorDB's")
    for k, v in WAYS[way].items():
        monkeypatch.setenv(k, v)
    bolt = bolt_store()
    load_xml(bolt, [files(tmp_path / "c", {**DOCS, "d.xml": D})], links="link@ref")
    want = counted(bolt)
    assert held(bolt) == want
    assert want["d#/doc[1]"] == 3 and want["d#/doc[1]/sec[1]/p[1]"] == 3
    assert want["a#/doc[1]"] == want["b#/doc[1]"] == 1 and want["c#/doc[1]"] == 0
    assert bolt.reads.meta()["held"]
    # the units of a store's embedded graph hold the same counts
    local = LocalStore(tmp_path / "s")
    load_xml(local, [tmp_path / "c"], links="link@ref")
    assert {r["u.uid"]: r["h"] for r in local.query(
        "MATCH (u:Unit) RETURN u.uid, coalesce(u.held, 0) AS h")} == want


def test_a_later_document_resolves_pending_links(tmp_path, bolt_store) -> None:
    bolt = bolt_store()
    load_xml(bolt, [files(tmp_path / "a", {"a.xml": DOCS["a.xml"], "d.xml": D})],
             links="link@ref")
    assert held(bolt)["a#/doc[1]"] == 0 and held(bolt)["d#/doc[1]"] == 1  # d -> a only
    load_xml(bolt, [files(tmp_path / "b", {"b.xml": DOCS["b.xml"]})], links="link@ref")
    got = held(bolt)
    assert got == counted(bolt)
    assert got["a#/doc[1]/sec[1]/p[1]"] == 1 and got["d#/doc[1]"] == 3  # a -> b, d -> b twice
    assert got["b#/doc[1]"] == 0  # c.xml is not stored yet


def test_replacing_documents_counts_again(tmp_path, bolt_store) -> None:
    """b replaced by a version with two links in another place, c (the
    target of b's link) and a (linked from d) replaced: the counts of the
    documents linking into the replaced ones are made again too."""
    bolt = bolt_store()
    load_xml(bolt, [files(tmp_path / "c", {**DOCS, "d.xml": D})], links="link@ref")
    new_b = ('<doc><sec id="s1"><p><link ref="a.xml">A</link></p></sec>'
             '<sec><link ref="c.xml">C</link></sec></doc>')
    new_c = '<doc><p>no section t now</p></doc>'
    load_xml(bolt, [files(tmp_path / "r", {"b.xml": new_b, "c.xml": new_c,
                                           "a.xml": DOCS["a.xml"].replace("more", "else")})],
             links="link@ref", replace=True)
    got = held(bolt)
    assert got == counted(bolt)
    assert got["b#/doc[1]"] == 2 and got["b#/doc[1]/sec[1]"] == 1 and got["d#/doc[1]"] == 3
    assert bolt.reads.meta()["held"]


def test_a_link_list_counts_its_pages(tmp_path, bolt_store) -> None:
    bolt = bolt_store()
    load_web(bolt, EXAMPLES / "web" / "site")
    pages = sorted(u for u in held(bolt))
    (tmp_path / "l.tsv").write_text(f"{pages[0]}\t{pages[1]}\n{pages[0]}\t{pages[1]}\n"
                                    f"{pages[1]}\tnew.html\n", encoding="utf-8")
    before = held(bolt)
    load_links(bolt, tmp_path / "l.tsv")
    got = held(bolt)
    assert got == counted(bolt)
    assert got[pages[0]] == before[pages[0]] + 2 and got[pages[1]] == before[pages[1]] + 1
    assert got["new.html"] == 0


def test_a_failed_load_leaves_right_counts(tmp_path, bolt_store, monkeypatch) -> None:
    """A load that fails while it writes is removed (its documents were
    incomplete: no LINK edge touches them) and the counts stay right; one
    that fails while it makes its documents visible leaves the store saying
    its counts may be wrong (reads count per query meanwhile, as before)
    until the next load counts them all again."""
    monkeypatch.setenv("GRAPHPRUM_BOLT_BULK", "0")
    bolt = bolt_store()
    load_xml(bolt, [files(tmp_path / "a", {"a.xml": DOCS["a.xml"], "d.xml": D})],
             links="link@ref")
    replaced = {"a.xml": DOCS["a.xml"].replace("more", "else")}
    for step, after in (("_queue_documents", False), ("_complete", True)):
        real = getattr(unwind_load.UnwindLoads, step)

        def failing(self, *args, real=real, after=after, **kwargs):
            if after:
                real(self, *args, **kwargs)
            raise RuntimeError("killed")

        monkeypatch.setattr(unwind_load.UnwindLoads, step, failing)
        with pytest.raises(RuntimeError):
            load_xml(bolt, [files(tmp_path / step, {"b.xml": DOCS["b.xml"], **replaced})],
                     links="link@ref", replace=True)
        monkeypatch.setattr(unwind_load.UnwindLoads, step, real)
        assert bolt.reads.meta()["held"] == (not after)
        if not after:
            assert held(bolt) == counted(bolt, edges=True) == counted(bolt)
    load_xml(bolt, [files(tmp_path / "c", {"c.xml": DOCS["c.xml"]})], links="link@ref")
    assert held(bolt) == counted(bolt, edges=True) and bolt.reads.meta()["held"]


def edges(store) -> Counter[tuple[str, str]]:
    """The LINK edges there are, as (holder id, arrival id) with multiplicity."""
    return Counter(tuple(r) for r in store.run(
        "MATCH (s:Unit)-[l:LINK]->(t:Unit) RETURN s.uid, t.uid"))


@pytest.mark.parametrize("then", ["resume", "next load"])
def test_a_load_killed_once_its_documents_are_visible_is_finished(tmp_path, bolt_store,
                                                                  monkeypatch, then) -> None:
    """A load killed after it made its documents visible and before it made
    their LINK edges: the next load (or ``load --resume``) makes them, so the
    store holds the LINK edges, held counts and load count of the same loads
    run to their end on the embedded store, its stale summary is dropped, and
    the next load's links take a link order (lseq) of their own."""
    monkeypatch.setenv("GRAPHPRUM_BOLT_BULK", "0")
    first = files(tmp_path / "first", {"a.xml": DOCS["a.xml"], "d.xml": D})
    killed = files(tmp_path / "killed", {"b.xml": DOCS["b.xml"],
                                         "a.xml": DOCS["a.xml"].replace("more", "else")})
    last = files(tmp_path / "last", {"c.xml": DOCS["c.xml"]})
    bolt, local = bolt_store(), LocalStore(tmp_path / "s")
    load_xml(bolt, [first], links="link@ref")
    build_stored(bolt, "p*")
    real = unwind_load.UnwindLoads._complete

    def completes_then_dies(self, *args, **kwargs):
        real(self, *args, **kwargs)
        raise RuntimeError("killed")

    monkeypatch.setattr(unwind_load.UnwindLoads, "_complete", completes_then_dies)
    with pytest.raises(RuntimeError):
        load_xml(bolt, [killed], links="link@ref", replace=True)
    monkeypatch.setattr(unwind_load.UnwindLoads, "_complete", real)
    assert counted(bolt, edges=True) != counted(bolt)  # d -> b and a -> b are not made yet
    # every document is visible: info says a load is left to finish (before:
    # nothing told, and --resume printed 'nothing removed')
    info = bolt.info()
    assert (info["incomplete_documents"], info["interrupted_loads"]) == (0, 1)
    assert "interrupted load" in dict(info_rows(info))
    for root in [first, killed] + ([last] if then == "next load" else []):
        load_xml(local, [root], links="link@ref", replace=True)
    if then == "resume":
        done = bolt.resume_loads()
        fields = ("kind", "documents", "units", "replaced")
        assert done.removed == 0 and done.finished is not None
        assert {k: done.finished[k] for k in fields} == \
            {k: local.info()["loads"][1][k] for k in fields}
        assert resumed_message(done).startswith("finished the interrupted load: xml, 2 documents")
    else:
        load_xml(bolt, [last], links="link@ref")
    assert bolt.info()["interrupted_loads"] == 0
    want = Counter(tuple(r.values()) for r in local.query(
        "MATCH (s:Unit)-[l:LINK]->(t:Unit) RETURN s.uid, t.uid"))
    assert edges(bolt) == want and sum(want.values()) == (4 if then == "resume" else 5)
    assert held(bolt) == counted(bolt, edges=True) == counted(bolt)
    meta = bolt.reads.meta()
    assert meta["held"] and not meta["interrupted"]
    assert meta["load_count"] == (2 if then == "resume" else 3)
    assert bolt.summary_names() == []
    lseqs = [n for (n,) in bolt.run("MATCH (p:PendingLink) RETURN p.lseq")]
    assert len(lseqs) == len(set(lseqs))


def test_a_store_loaded_before_held_counts_is_read_and_upgraded(tmp_path, bolt_store) -> None:
    """Without ``Meta.held_load`` (an earlier graphprum's store) the walk
    counts per query (``walk_degrees_scan``) and gives the embedded store's
    numbers; ``load --resume`` stores the counts."""
    root = files(tmp_path / "c", {**DOCS, "d.xml": D})
    bolt, local = bolt_store(), LocalStore(tmp_path / "s")
    for s in (bolt, local):
        load_xml(s, [root], links="link@ref")
    bolt.run("MATCH (u:Unit) SET u.held = null", write=True)
    bolt.run("MATCH (m:Meta) SET m.held_load = null", write=True)
    bolt.reads.invalidate()
    assert not bolt.reads.meta()["held"]
    units = local.table().ids()

    class Ctx:
        def __init__(self, store) -> None:
            self.store = store

    model = parse_model("browse:hops=2")
    assert model.matrix(units, units, Ctx(bolt)).toarray() == \
        pytest.approx(model.matrix(units, units, Ctx(local)).toarray(), abs=1e-12)
    bolt.resume_loads()
    assert bolt.reads.meta()["held"] and held(bolt) == counted(bolt)
    assert held(bolt)["d#/doc[1]"] == 3


def test_the_tricky_collection(tmp_path, bolt_store) -> None:
    """The tricky collection of the Bolt tests (links by ref@to, unicode
    names, quotes), loaded in bulk."""
    bolt = bolt_store()
    load_xml(bolt, [write_collection(tmp_path / "t")], links="ref@to")
    assert held(bolt) == counted(bolt) and any(held(bolt).values())
