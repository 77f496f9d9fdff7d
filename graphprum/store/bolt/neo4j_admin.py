"""A collection as the CSV files of ``neo4j-admin database import full``.

Neo4j's own bulk path builds a database from CSV files while the database
is offline, far faster than any load over Bolt: the way to put tens of
millions of units into Neo4j.  :func:`export_neo4j_admin` writes the graph
a Bolt store holds (:mod:`graphprum.store.bolt.store`), read from any
store document by document (``Store.iter_documents``), so that the
imported database *is* a graphprum Bolt store: every document complete,
the link records and the ``Meta`` node with it.  One file per label and
per relationship type, each with its header line (Neo4j 5's header format:
``name:type``, ``:ID(space)``, ``:LABEL``, ``:START_ID(space)``,
``:END_ID(space)``, ``:TYPE``; arrays ``long[]`` separated by ``;``)::

    documents.csv   name:ID(Document),:LABEL,source,kind:long,...
    units.csv       uid:ID(Unit),:LABEL,doc,tag,path,kind:long,...
    attributes.csv  nid:ID(Attribute),:LABEL,name,value
    links.csv       key:ID(PendingLink),:LABEL,...   every link as loaded
    meta.csv        key:ID(Meta),:LABEL,format,loads,link_stats,load_count:long,held_load:long
    root.csv, child.csv, has_attribute.csv, link.csv
                    :START_ID(...),:END_ID(...),:TYPE[,properties]

Strings are always quoted (leading and trailing spaces kept whatever
``--trim-strings`` says, ``"`` doubled) and a missing value is an empty
unquoted field (no property); numbers are bare, floats written exactly
(``repr``).  A quoted string may hold a line break, hence
``--multiline-fields=true`` in :func:`import_command`.  The client holds
one document at a time, the names and root ids of the documents, the ids
of the elements a link's fragment can name, and the ids of the Attribute
nodes written (shared by many documents); LINK edges go to the target
document's root, or the element the link's fragment names, as a Bolt load
makes them, from a temporary file of the links written once every root is
known.  Every unit
carries its ``held`` count (:func:`held_links`: the links it holds to the
stored documents, asked of the store first), and the ``Meta`` node says the
counts are right (``held_load``), as after a Bolt load.

Examples
--------
>>> csv_line(["a b", 3, 0.1, None, True, [1, 2], 'a "b" c'])
'"a b",3,0.1,,true,1;2,"a ""b"" c"\\n'
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Container, Iterable, Sequence
from pathlib import Path
from typing import IO, Any

import numpy as np

from graphprum.errors import UsageError
from graphprum.store.base import Store
from graphprum.store.bolt.connection import FORMAT
from graphprum.store.bolt.load_records import LoadDocument, digest
from graphprum.store.bolt.pack import attribute_nid
from graphprum.store.linkgraph import named_rows
from graphprum.units import ParsedDocument

#: Node files: label, file name, header (the ``:ID`` column first, then
#: ``:LABEL``, then the properties).
NODE_FILES = {
    "Document": ("documents.csv", ["name:ID(Document)", ":LABEL", "source", "kind:long",
                                   "length:double", "count:long", "seq:long", "digest",
                                   "kind_counts:long[]", "complete:boolean"]),
    "Unit": ("units.csv", ["uid:ID(Unit)", ":LABEL", "doc", "tag", "path", "kind:long",
                           "depth:long", "pre:long", "post:long", "size:long", "pos:long",
                           "start:double", "length:double", "words:long", "text",
                           "attributes", "seq:long", "ppre:long", "held:long"]),
    "Attribute": ("attributes.csv", ["nid:ID(Attribute)", ":LABEL", "name", "value"]),
    "PendingLink": ("links.csv", ["key:ID(PendingLink)", ":LABEL", "load", "complete:boolean",
                                  "pair:boolean", "src", "src_doc", "src_pre:long", "target",
                                  "anchor", "lseq:long", "fragment"]),
    "Meta": ("meta.csv", ["key:ID(Meta)", ":LABEL", "format", "loads", "link_stats",
                          "load_count:long", "held_load:long"]),
}
#: Relationship files: type, file name, header.
RELATIONSHIP_FILES = {
    "ROOT": ("root.csv", [":START_ID(Document)", ":END_ID(Unit)", ":TYPE"]),
    "CHILD": ("child.csv", [":START_ID(Unit)", ":END_ID(Unit)", ":TYPE"]),
    "HAS_ATTRIBUTE": ("has_attribute.csv", [":START_ID(Unit)", ":END_ID(Attribute)",
                                            ":TYPE"]),
    "LINK": ("link.csv", [":START_ID(Unit)", ":END_ID(Unit)", ":TYPE", "key", "anchor",
                          "lseq:long"]),
}
#: The ``load`` of the link records of an export.
LOAD = "neo4j-admin"


def _field(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return '"' + value.replace('"', '""') + '"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ";".join(_field(v) for v in value)
    if isinstance(value, float):
        return repr(value)
    return str(int(value))


def csv_line(values: Sequence[Any]) -> str:
    """One CSV line in the form the importer reads (see the module notes)."""
    return ",".join(_field(v) for v in values) + "\n"


def import_command(directory: Path, database: str = "neo4j") -> str:
    """The ``neo4j-admin`` command line that imports the files of ``directory``."""
    files = [f"--nodes={directory / name}" for name, _ in NODE_FILES.values()]
    files += [f"--relationships={directory / name}" for name, _ in RELATIONSHIP_FILES.values()]
    return (f"neo4j-admin database import full {database} --multiline-fields=true "
            + " ".join(files))


def held_links(doc: ParsedDocument, targets: Container[str]) -> np.ndarray:
    """The number of links held in every unit's subtree (``Unit.held``) of
    ``doc``: its links to documents ``targets`` (those that become LINK
    edges), multiplicity counted.

    >>> from graphprum.units import UnitTable
    >>> t = UnitTable.from_tree("d", ["a", "b", "c", "b"], [-1, 0, 1, 0])
    >>> doc = ParsedDocument("d", "d.xml", 0, t.tags, t.paths, t.columns,
    ...                      links=[(2, "e", ""), (2, "e#x", ""), (3, "gone", "")])
    >>> held_links(doc, {"e"}).tolist()
    [2, 2, 2, 0]
    """
    size = np.asarray(doc.columns["size"], dtype=np.int64)
    rows = [row for row, target, _ in doc.links if target.partition("#")[0] in targets]
    below = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=len(size)))])
    return np.asarray(below[np.arange(len(size)) + size] - below[:-1], dtype=np.int64)


def _unit_rows(d: LoadDocument, targets: Container[str]) -> Iterable[list[Any]]:
    """The Unit nodes of a document (the properties of a Bolt load)."""
    doc = d.doc
    cols = {c: np.asarray(doc.columns[c]).tolist() for c in
            ("kind", "depth", "post", "size", "pos", "start", "length", "words", "parent")}
    texts = doc.texts if doc.texts is not None else [""] * len(d.ids)
    held = held_links(doc, targets).tolist()
    for i, uid in enumerate(d.ids):
        yield [uid, "Unit", doc.name, doc.tags[i], doc.paths[i], cols["kind"][i],
               cols["depth"][i], i, cols["post"][i], cols["size"][i], cols["pos"][i],
               float(cols["start"][i]), float(cols["length"][i]), cols["words"][i], texts[i],
               d.attrs[i] or None, d.seq, cols["parent"][i], held[i] or None]


def export_neo4j_admin(store: Store, directory: str | os.PathLike[str], *,
                       on_document: Callable[[int], None] | None = None) -> dict[str, int]:
    """Write the collection of ``store`` as ``neo4j-admin`` CSV files into
    ``directory`` (created; it must hold none of them yet); the number of
    nodes and relationships written per label and type.

    ``on_document(n_units)`` is called after each document.
    """
    out = Path(directory)
    names = [name for name, _ in [*NODE_FILES.values(), *RELATIONSHIP_FILES.values()]]
    if out.exists() and not out.is_dir():
        raise UsageError(f"{out}: not a directory")
    there = [n for n in names if (out / n).exists()]
    if there:
        raise UsageError(f"{out / there[0]}: exists already; export into a new directory")
    out.mkdir(parents=True, exist_ok=True)
    counts = dict.fromkeys([*NODE_FILES, *RELATIONSHIP_FILES], 0)
    files: dict[str, IO[str]] = {}
    try:
        for kind, (name, header) in [*NODE_FILES.items(), *RELATIONSHIP_FILES.items()]:
            files[kind] = (out / name).open("w", encoding="utf-8", newline="")
            files[kind].write(",".join(header) + "\n")

        def write(kind: str, row: Sequence[Any]) -> None:
            files[kind].write(csv_line(row))
            counts[kind] += 1

        listed = store.documents()
        targets = set(listed["name"][listed["count"] > 0].tolist())  # those with a root
        _write_documents(store.iter_documents(), targets, write, on_document)
        meta = {"format": FORMAT, "loads": json.dumps([{
            "kind": "neo4j-admin", "paths": [store.location], "documents": counts["Document"],
            "units": counts["Unit"], "replaced": 0}]),
            "link_stats": json.dumps(store.info().get("link_stats") or {}),
            "load_count": 1, "held_load": 1}
        write("Meta", ["graphprum", "Meta", *meta.values()])
    finally:
        for f in files.values():
            f.close()
    return counts


def _write_documents(docs: Iterable[ParsedDocument], targets: Container[str],
                     write: Callable[[str, Sequence[Any]], None],
                     on_document: Callable[[int], None] | None) -> None:
    """Every document's nodes and relationships, then the LINK edges (to
    the documents ``targets``: every exported document that has units)."""
    roots: dict[str, str] = {}
    named: dict[tuple[str, str], str] = {}  # (document, fragment) -> the first element it names
    attributes: set[str] = set()
    lseq = 10**9  # the link order of a first load (load/meta's load_count 1)
    with tempfile.TemporaryFile("w+", encoding="utf-8") as pending:
        for seq, doc in enumerate(docs, 1):
            d = LoadDocument(doc, seq, lseq)
            lseq += len(doc.links)
            row = d.row(digest(doc), complete=True)
            write("Document", [doc.name, "Document", row["source"], row["kind"], row["length"],
                               row["count"], seq, row["digest"], row["kind_counts"], True])
            for unit in _unit_rows(d, targets):
                write("Unit", unit)
            if d.ids:
                roots[doc.name] = d.ids[0]
                write("ROOT", [doc.name, d.ids[0], "ROOT"])
            for child, parent in enumerate(np.asarray(doc.columns["parent"]).tolist()):
                if parent >= 0:
                    write("CHILD", [d.ids[parent], d.ids[child], "CHILD"])
            for value, r in named_rows(doc.tags, doc.attributes).items():
                named[(doc.name, value)] = d.ids[r]
            for r, values in doc.attributes:
                for name, value in values.items():
                    nid = attribute_nid(name, value)
                    if nid not in attributes:
                        attributes.add(nid)
                        write("Attribute", [nid, "Attribute", name, value])
                    write("HAS_ATTRIBUTE", [d.ids[r], nid, "HAS_ATTRIBUTE"])
            for link in d.links(LOAD, complete=True):
                write("PendingLink", [link["key"], "PendingLink", LOAD, True, False,
                                      link["src"], link["src_doc"], link["src_pre"],
                                      link["target"], link["anchor"], link["lseq"],
                                      link["fragment"]])
                pending.write(json.dumps([link["src"], link["target"], link["fragment"],
                                          link["key"], link["anchor"], link["lseq"]]) + "\n")
            if on_document is not None:
                on_document(len(d.ids))
        pending.seek(0)
        for line in pending:
            src, target, fragment, key, anchor, n = json.loads(line)
            if target in targets:  # the element the fragment names, else the root
                arrival = named.get((target, fragment), roots[target]) if fragment \
                    else roots[target]
                write("LINK", [src, arrival, "LINK", key, anchor, n])
