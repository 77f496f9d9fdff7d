"""Packed unit batches for the Bolt store: many units per query, few bytes each.

A list of maps (one per unit, every key repeated) is a long literal for the
server to parse, and FalkorDB takes parameters only as literals in the
query text (:mod:`graphprum.store.cypher_literal`).  So units travel as one
string parameter, ``$data``: records separated by ``$rs``, fields by ``$fs``
(control characters that no document of the load contains), split apart by
the query itself (``cypher/load/units.cypher``):

======  ==================================================================
field   content
======  ==================================================================
0       the id of the unit's parent, or empty for a root
1       the unit's id
2       its label path
3       index of its document in ``$docs`` / ``$seqs``
4..14   tag, pos, kind, depth, pre, ppre, post, size, start, length, words
15      the text snippet
16      the attributes as JSON (:func:`attribute_json`), or empty
======  ==================================================================

Numbers are decimal integers; a float that is not one is written ``MpE``
(M * 2^E, :func:`float_text`), which the query reads back exactly
(FalkorDB reads a string with ``toFloat`` as a 32-bit float).  Records are
in preorder within each document and the query finds a parent by its id,
created earlier in the same query or by an earlier batch, so every CHILD
edge is made with its child and a batch needs nothing of the others.  (An
earlier format derived ids from the parent's record to save bytes under
FalkorDB's 4 KB limit on spliced parameters, which the store no longer
meets: FalkorDB gets no parameters; but the derivation's ``reduce`` copied
its list at every record, quadratic in the batch size.)

Examples
--------
>>> import numpy as np
>>> from graphprum.units import ParsedDocument, UnitTable
>>> t = UnitTable.from_tree("d", ["a", "b", "b"], [-1, 0, 0])
>>> cols = {c: t.columns[c] for c in ("parent", "depth", "post", "size", "pos",
...                                   "start", "length", "words", "kind")}
>>> doc = ParsedDocument("d", "", 0, ["a", "b", "b"], ["/a", "/a/b", "/a/b"], cols)
>>> first, second = pack_units([(doc, 1)], max_units=2, max_bytes=None, fs="|", rs=";")
>>> first.records
['|d#/a[1]|/a|0|a|1|0|0|0|-1|2|3|0|0|0||', 'd#/a[1]|d#/a[1]/b[1]|/a/b|0|b|1|0|1|1|0|0|1|0|0|0||']
>>> second.records
['d#/a[1]|d#/a[1]/b[2]|/a/b|0|b|2|0|1|2|0|1|1|0|0|0||']
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from graphprum.errors import InputError
from graphprum.store.cypher_literal import literal_size
from graphprum.units import KIND_PAGE, KIND_SEGMENT, KIND_VIDEO, ParsedDocument

#: Control characters tried, in order, as record and field separators.
SEPARATORS = "\x1e\x1f\x1d\x1c\x1b\x1a\x19\x18\x17\x16\x15\x14\x13\x12\x11\x10\x0f\x0e"
_TAIL = ("pos", "kind", "depth", "pre", "ppre", "post", "size", "start", "length", "words")


def attribute_nid(name: str, value: str) -> str:
    """The key of an Attribute node (its ``nid`` on both stores).

    >>> attribute_nid("sec-type", "methods")
    'sec-type=methods'
    """
    return f"{name}={value}"


def spliced_size(value: object) -> int:
    """Bytes ``value`` takes as a Cypher literal in the query text FalkorDB
    receives (:func:`~graphprum.store.cypher_literal.literal_size`).

    >>> spliced_size(["ab", 12, None, {"k": 1.5}])  # ['ab', 12, null, {k: 1.5}]
    26
    """
    return literal_size(value)


def _number(value: float) -> str:
    """Text of an int or float that the load query reads back exactly
    (:func:`float_text` for floats).

    >>> [_number(3), _number(2.0), _number(0.1)]
    ['3', '2', '7205759403792794p-56']
    """
    if isinstance(value, float):
        return float_text(value)
    return str(value)


def float_text(value: float) -> str:
    """A float as text that Cypher turns back into the same double without
    ``toFloat`` on a string (FalkorDB 4.16 reads such a string as a 32-bit
    float): an integer when it is one, else ``MpE`` for M * 2^E with M an
    integer of at most 53 bits, read by ``toInteger(M) * 2.0 ^ toInteger(E)``.

    >>> float_text(12.0), float_text(0.5), float_text(2.0**60)
    ('12', '4503599627370496p-53', '4503599627370496p8')
    >>> m, e = float_text(0.1).split("p"); int(m) * 2.0 ** int(e) == 0.1
    True
    """
    if not math.isfinite(value):
        raise ValueError(f"{value} cannot be stored")
    if value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    mantissa, exponent = math.frexp(value)
    return f"{int(mantissa * 2**53)}p{exponent - 53}"


def unit_ids(doc: ParsedDocument) -> list[str]:
    """Ids (DESIGN §1.1) of a parsed document's units, in preorder.

    >>> import numpy as np
    >>> from graphprum.units import UnitTable
    >>> t = UnitTable.from_tree("d", ["a", "b", "b"], [-1, 0, 0])
    >>> d = ParsedDocument("d", "", 0, ["a", "b", "b"], ["/a", "/a/b", "/a/b"],
    ...                    {"parent": t.parent, "pos": t.pos,
    ...                     "kind": np.zeros(3, np.int8)})
    >>> unit_ids(d)
    ['d#/a[1]', 'd#/a[1]/b[1]', 'd#/a[1]/b[2]']
    """
    parent = doc.columns["parent"].tolist()
    pos = doc.columns["pos"].tolist()
    kind = doc.columns["kind"].tolist()
    xp: list[str] = []
    out: list[str] = []
    for i, tag in enumerate(doc.tags):
        k = kind[i]
        if k in (KIND_PAGE, KIND_VIDEO):
            xp.append("")
            out.append(doc.name)
        elif k == KIND_SEGMENT:
            xp.append("")
            out.append(f"{doc.name}#{i}")
        else:
            p = parent[i]
            path = (xp[p] if p >= 0 else "") + f"/{tag}[{pos[i]}]"
            xp.append(path)
            out.append(f"{doc.name}#{path}")
    return out



def separators_of(texts: Iterable[str], count: int = 2) -> tuple[str, ...]:
    """The first ``count`` of :data:`SEPARATORS` that no string of ``texts`` holds.

    >>> separators_of(["a\\x1eb"])
    ('\\x1f', '\\x1d')
    """
    used: set[str] = set()
    for text in texts:
        used.update(c for c in SEPARATORS if c in text)
    free = [c for c in SEPARATORS if c not in used]
    if len(free) < count:
        raise InputError("input", None, "the documents use every control character the "
                         "Bolt store could separate records with")
    return tuple(free[:count])


def separators(docs: Iterable[ParsedDocument], count: int = 2) -> tuple[str, ...]:
    """Record and field separators (``count`` in all): the first of
    :data:`SEPARATORS` that no document name, tag, label path, text or attribute of ``docs``
    contains (ids are made of names, tags, ``#/[]`` and digits).

    >>> separators([])
    ('\\x1e', '\\x1f')
    """
    return separators_of((_document_text(doc) for doc in docs), count)


def _document_text(doc: ParsedDocument) -> str:
    """Every string of ``doc`` that a packed record carries, joined."""
    return (doc.name + "".join(doc.tags) + "".join(doc.paths) + "".join(doc.texts or ())
            + "".join(k + v for _, a in doc.attributes for k, v in a.items()))


def attribute_json(doc: ParsedDocument) -> list[str]:
    """The ``attributes`` property of every unit of ``doc``: its attributes
    as compact JSON (what the embedded store writes), "" for none.

    >>> d = ParsedDocument("d", "", 0, ["a", "b"], ["/a", "/a/b"], {},
    ...                    attributes=[(1, {"id": "x", "é": "1"})])
    >>> attribute_json(d)
    ['', '{"id":"x","é":"1"}']
    """
    out = [""] * len(doc.tags)
    for row, attrs in doc.attributes:
        if attrs:
            out[row] = json.dumps(attrs, ensure_ascii=False, separators=(",", ":"))
    return out


def _column_text(values: np.ndarray) -> list[str]:
    """Text of a numeric column: integers as they are, floats by
    :func:`float_text`.

    >>> _column_text(np.array([2.0, 0.5]))
    ['2', '4503599627370496p-53']
    """
    if values.dtype.kind == "f":
        if np.all(np.isfinite(values)) and np.all(values == np.floor(values)) \
                and np.all(np.abs(values) < 2**53):
            return [str(v) for v in values.astype(np.int64).tolist()]
        return [_number(v) for v in values.tolist()]
    return [str(v) for v in values.tolist()]


def _tails(doc: ParsedDocument, fs: str, attrs: list[str] | None = None) -> list[str]:
    """Fields 4..16 of every unit of ``doc``, joined with ``fs``."""
    n = len(doc.tags)
    cols = doc.columns
    text = {c: _column_text(np.asarray(cols[c])) for c in _TAIL if c not in ("pre", "ppre")}
    text["pre"] = [str(i) for i in range(n)]
    text["ppre"] = [str(p) for p in cols["parent"].tolist()]
    texts = doc.texts if doc.texts is not None else [""] * n
    attrs = attrs if attrs is not None else attribute_json(doc)
    return [fs.join(f) for f in zip(doc.tags, *(text[c] for c in _TAIL), texts, attrs,
                                    strict=True)]


@dataclass
class PackedBatch:
    """One ``load/units`` query's worth of units.

    Attributes
    ----------
    records : list of str
        The records, fields joined with ``fs`` (see the module docstring).
    docs, seqs : list
        Documents referred to by field 3, with their load sequence numbers.
    rs, fs : str
        Record and field separators.
    size : int
        Estimated bytes of the spliced ``$data``, ``$docs`` and ``$seqs``.
    """

    rs: str
    fs: str
    records: list[str] = field(default_factory=list)
    docs: list[str] = field(default_factory=list)
    seqs: list[int] = field(default_factory=list)
    size: int = 0

    def params(self) -> dict[str, Any]:
        """Parameters of ``load/units``: ``data``, ``rs``, ``fs``, ``docs``, ``seqs``."""
        return {"data": self.rs.join(self.records), "rs": self.rs, "fs": self.fs,
                "docs": list(self.docs), "seqs": list(self.seqs)}


def _cost(text: str) -> int:
    """Spliced bytes of ``text`` (UTF-8, with ``'`` and ``\\`` escaped, as
    :func:`~graphprum.store.cypher_literal.cypher_literal` writes strings)."""
    n = len(text) if text.isascii() else len(text.encode("utf-8"))
    return n + text.count("'") + text.count("\\")


def pack_units(docs: Iterable[tuple[Any, ...]], *, max_units: int, max_bytes: int | None,
               rs: str = "\x1e", fs: str = "\x1f") -> Iterator[PackedBatch]:
    """Split documents into :class:`PackedBatch` es of at most ``max_units``
    records and, when given, about ``max_bytes`` bytes of ``$data``,
    ``$docs`` and ``$seqs`` as literals.  A document may span batches.

    ``docs`` yields ``(document, seq)``, or ``(document, seq, ids)`` or
    ``(document, seq, ids, attributes)`` when the ids (:func:`unit_ids`) and
    attribute JSON (:func:`attribute_json`) are at hand.  ``rs`` and ``fs``
    must not occur in any document (:func:`separators`).
    """
    batch = PackedBatch(rs, fs)
    for doc, seq, *known in docs:
        text = _document_text(doc)
        if fs in text or rs in text:
            raise ValueError(f"{doc.name!r} contains a separator; see separators()")
        ids = known[0] if known else unit_ids(doc)
        tails = _tails(doc, fs, known[1] if len(known) > 1 else None)
        parent = doc.columns["parent"].tolist()
        doc_index = -1
        for i in range(len(ids)):
            p = parent[i]
            record = fs.join((ids[p] if p >= 0 else "", ids[i], doc.paths[i],
                              str(max(doc_index, 0)), tails[i]))
            cost = _cost(record) + 1 + (0 if doc_index >= 0 else _cost(doc.name) + 24)
            if batch.records and (len(batch.records) >= max_units or (
                    max_bytes is not None and batch.size + cost > max_bytes)):
                yield batch
                batch, doc_index = PackedBatch(rs, fs), -1
                cost += _cost(doc.name) + 24
            if doc_index < 0:
                doc_index = len(batch.docs)
                batch.docs.append(doc.name)
                batch.seqs.append(seq)
                record = fs.join((ids[p] if p >= 0 else "", ids[i], doc.paths[i],
                                  str(doc_index), tails[i]))
            batch.records.append(record)
            batch.size += cost
    if batch.records:
        yield batch


@dataclass
class NewBatch:
    """One ``load/units_create`` query's worth of units of a load into an
    empty store (:func:`pack_new_units`).

    Attributes
    ----------
    records : list of str
        The records (see :func:`pack_new_units`).
    docs, seqs : list
        Documents referred to by field 3, with their load sequence numbers.
    parents, paths : dict
        Parent ids and label paths referred to by fields 0 and 2, each with
        its index.
    size : int
        Estimated bytes of the spliced parameters.
    """

    rs: str
    fs: str
    ns: str
    records: list[str] = field(default_factory=list)
    docs: list[str] = field(default_factory=list)
    seqs: list[int] = field(default_factory=list)
    parents: dict[str, int] = field(default_factory=dict)
    paths: dict[str, int] = field(default_factory=dict)
    size: int = 0

    def params(self) -> dict[str, Any]:
        """Parameters of ``load/units_create``."""
        return {"data": self.rs.join(self.records), "rs": self.rs, "fs": self.fs,
                "ns": self.ns, "docs": list(self.docs), "seqs": list(self.seqs),
                "parents": list(self.parents), "paths": list(self.paths)}

    def index(self, table: dict[str, int], value: str) -> str:
        """The index of ``value`` in ``table`` (added, and counted, when new)."""
        found = table.get(value)
        if found is None:
            found = table[value] = len(table)
            self.size += _cost(value) + 4
        return str(found)


def pack_new_units(docs: Iterable[tuple[ParsedDocument, int, list[str], list[str]]], *,
                   max_units: int, max_bytes: int | None, rs: str, fs: str,
                   ns: str) -> Iterator[NewBatch]:
    """Split documents into :class:`NewBatch` es of at most ``max_units``
    records and, when given, about ``max_bytes`` bytes of parameters, for
    units created in an empty store (``cypher/load/units_create.cypher``).

    ``docs`` yields ``(document, seq, ids, attributes)`` (:func:`unit_ids`,
    :func:`attribute_json`); ``rs``, ``fs`` and ``ns`` occur in no document
    (:func:`separators`).  A record is the one of :func:`pack_units` with
    the long strings said once per batch: field 0 is the index of the
    parent's id in ``$parents`` (empty for a root), field 1 the unit's id,
    left empty when it is the parent's id with ``/tag[pos]`` after it (an
    element's), field 2 the index of the label path in ``$paths``; field 17
    lists the ``nid`` of the unit's Attribute nodes, joined with ``ns``.
    About a third of the bytes of :func:`pack_units` on the PLOS articles,
    and FalkorDB's Bolt port spends its time reading bytes.

    >>> import numpy as np
    >>> from graphprum.units import UnitTable
    >>> t = UnitTable.from_tree("d", ["a", "b", "b"], [-1, 0, 0])
    >>> cols = {c: t.columns[c] for c in ("parent", "depth", "post", "size", "pos",
    ...                                   "start", "length", "words", "kind")}
    >>> doc = ParsedDocument("d", "", 0, ["a", "b", "b"], ["/a", "/a/b", "/a/b"], cols,
    ...                      attributes=[(2, {"n": "1"})])
    >>> batch, = pack_new_units([(doc, 1, unit_ids(doc), attribute_json(doc))],
    ...                         max_units=9, max_bytes=None, rs=";", fs="|", ns="+")
    >>> batch.records
    ['|d#/a[1]|0|0|a|1|0|0|0|-1|2|3|0|0|0|||', '0||1|0|b|1|0|1|1|0|0|1|0|0|0|||', \
'0||1|0|b|2|0|1|2|0|1|1|0|0|0||{"n":"1"}|n=1']
    >>> batch.params()["parents"], batch.params()["paths"]
    (['d#/a[1]'], ['/a', '/a/b'])
    """
    batch = NewBatch(rs, fs, ns)
    for doc, seq, ids, attrs in docs:
        text = _document_text(doc)
        if any(c in text for c in (rs, fs, ns)):
            raise ValueError(f"{doc.name!r} contains a separator; see separators()")
        tails = _tails(doc, fs, attrs)
        nids = dict(doc.attributes)
        parent = doc.columns["parent"].tolist()
        pos = doc.columns["pos"].tolist()
        doc_index = ""
        for i, uid in enumerate(ids):
            p = parent[i]
            derived = p >= 0 and uid == f"{ids[p]}/{doc.tags[i]}[{pos[i]}]"
            names = ns.join(attribute_nid(k, v) for k, v in nids.get(i, {}).items())
            most = (_cost(tails[i]) + _cost(names) + _cost(doc.paths[i]) + _cost(doc.name)
                    + (_cost(ids[p]) if p >= 0 else 0) + (0 if derived else _cost(uid)) + 60)
            if batch.records and (len(batch.records) >= max_units or (
                    max_bytes is not None and batch.size + most > max_bytes)):
                yield batch
                batch, doc_index = NewBatch(rs, fs, ns), ""
            if not doc_index:
                doc_index = str(len(batch.docs))
                batch.docs.append(doc.name)
                batch.seqs.append(seq)
                batch.size += _cost(doc.name) + 24
            record = fs.join((batch.index(batch.parents, ids[p]) if p >= 0 else "",
                              "" if derived else uid, batch.index(batch.paths, doc.paths[i]),
                              doc_index, tails[i], names))
            batch.records.append(record)
            batch.size += _cost(record) + 1
    if batch.records:
        yield batch
