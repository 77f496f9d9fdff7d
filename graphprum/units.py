"""The unit data model: the in-memory unit table every store answers with, and
the parsed documents and batches every loader hands to a store.

A store holds *units* (XML elements, web pages, video segments) in rows.
The rows of one document are contiguous and in preorder, so the global row
number of a unit is its document's ``first`` row plus its local preorder
number, and containment is an interval test::

    a contains b  <=>  pre[a] <= pre[b] and post[b] <= post[a]  (same document)
                  <=>  a <= b < a + size[a]                     (global rows)

Both backends (``local`` and ``bolt``) hand measures and navigation models a
:class:`UnitTable`: plain numpy columns indexed by row, plus small
vocabularies.  Measures and models never talk to a backend directly.

Examples
--------
>>> import numpy as np
>>> t = UnitTable.from_tree(doc="d", tags=["a", "b", "c"], parents=[-1, 0, 1],
...                         lengths=[5, 3, 1])
>>> t.ids()
['d#/a[1]', 'd#/a[1]/b[1]', 'd#/a[1]/b[1]/c[1]']
>>> bool(t.contains(0, 2)), bool(t.contains(2, 0))
(True, False)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, overload

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

#: Unit kinds, stored as int8 in the ``kind`` column.
KIND_ELEMENT = 0
KIND_PAGE = 1
KIND_SEGMENT = 2
KIND_VIDEO = 3
KIND_NAMES = {KIND_ELEMENT: "element", KIND_PAGE: "page", KIND_SEGMENT: "segment",
              KIND_VIDEO: "video"}

#: Columns of a unit table, with their numpy dtypes.
UNIT_COLUMNS: dict[str, type] = {
    "doc": np.int32,  # index into UnitTable.docs
    "kind": np.int8,  # KIND_*
    "tag": np.int32,  # index into UnitTable.tags
    "path": np.int32,  # index into UnitTable.paths (label path /a/b/c)
    "depth": np.int16,  # root 0
    "parent": np.int32,  # global row of the parent, -1 for a root
    "post": np.int32,  # local postorder number (0-based)
    "size": np.int32,  # number of units in the subtree, itself included
    "pos": np.int32,  # 1-based position among same-tag siblings
    "start": np.float64,  # offset of the unit's text in the document text (chars, or s)
    "length": np.float64,  # characters of text content (or seconds)
    "words": np.int32,  # whitespace-separated tokens of the text content
}

#: Columns of the document table.
DOC_COLUMNS = ["name", "source", "kind", "length", "first", "count"]
#: Their numpy dtypes (names and sources are Python strings).
DOC_DTYPES: dict[str, Any] = {"name": object, "source": object, "kind": np.int8,
                              "length": np.float64, "first": np.int64, "count": np.int64}


class DocTable:
    """One row per document, as numpy columns (:data:`DOC_COLUMNS`).

    ``docs["first"]`` is a numpy array (names and sources are object
    arrays of str), ``len(docs)`` the number of documents.  Built from any
    mapping of column name to values (a dict of lists, a pandas DataFrame);
    :meth:`to_frame` gives a pandas DataFrame.

    Examples
    --------
    >>> docs = DocTable({"name": ["a", "b"], "first": [0, 3], "count": [3, 2]})
    >>> len(docs), docs["first"].tolist(), docs["name"][1], docs["kind"].tolist()
    (2, [0, 3], 'b', [0, 0])
    >>> next(docs.records())["count"]
    3
    """

    __slots__ = ("_columns",)

    def __init__(self, columns: Any) -> None:
        if isinstance(columns, DocTable):
            self._columns: dict[str, np.ndarray] = dict(columns._columns)
            return
        n = len(columns["name"])
        out = {}
        for c in DOC_COLUMNS:
            dtype = DOC_DTYPES[c]
            if c in columns:
                values = columns[c]
                if dtype is object:
                    arr = np.empty(n, dtype=object)
                    arr[:] = [str(v) for v in values]
                else:
                    arr = np.asarray(values, dtype=dtype)
            elif dtype is object:
                arr = np.empty(n, dtype=object)
                arr[:] = [""] * n
            else:
                arr = np.zeros(n, dtype=dtype)
            if len(arr) != n:
                raise ValueError(f"document column {c}: {len(arr)} values for {n} documents")
            out[c] = arr
        self._columns = out

    def __len__(self) -> int:
        return len(self._columns["name"])

    def __getitem__(self, column: str) -> np.ndarray:
        return self._columns[column]

    def __contains__(self, column: object) -> bool:
        return column in self._columns

    def __repr__(self) -> str:
        return f"DocTable({len(self)} documents)"

    def records(self) -> Any:
        """Every document as a dict of its columns (Python values), in order."""
        lists = {c: v.tolist() for c, v in self._columns.items()}
        for i in range(len(self)):
            yield {c: v[i] for c, v in lists.items()}

    def to_frame(self) -> pd.DataFrame:
        """The documents as a pandas DataFrame (columns :data:`DOC_COLUMNS`)."""
        import pandas as pd  # ~0.2 s of import: only for a DataFrame

        return pd.DataFrame({c: v for c, v in self._columns.items()})


@dataclass
class UnitTable:
    """Units as numpy columns indexed by global row.

    Attributes
    ----------
    columns : dict of str to numpy.ndarray
        One array per entry of :data:`UNIT_COLUMNS`, all of the same length.
    tags : list of str
        Tag vocabulary (``columns["tag"]`` indexes it).
    paths : list of str
        Label-path vocabulary (``columns["path"]`` indexes it).
    docs : DocTable
        One row per document, columns :data:`DOC_COLUMNS`; ``first`` is the
        global row of the document's root and ``count`` its number of units.
        Given as any mapping of columns (a dict, a pandas DataFrame), it is
        turned into a :class:`DocTable`.
    """

    columns: dict[str, np.ndarray]
    tags: list[str]
    paths: list[str]
    docs: DocTable
    _doc_index: Mapping[str, int] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.docs, DocTable):
            self.docs = DocTable(self.docs)

    def __len__(self) -> int:
        return len(self.columns["doc"])

    def __getattr__(self, name: str) -> np.ndarray:
        cols: dict[str, np.ndarray] | None = self.__dict__.get("columns")
        if cols is not None and name in cols:
            return cols[name]
        raise AttributeError(name)

    @property
    def pre(self) -> np.ndarray:
        """Local preorder number of every row (0 for a document root)."""
        first = self.docs["first"][self.columns["doc"]]
        out: np.ndarray = np.arange(len(self), dtype=np.int64) - first
        return out

    @property
    def end(self) -> np.ndarray:
        """End offset of every unit's text (``start + length``)."""
        out: np.ndarray = self.columns["start"] + self.columns["length"]
        return out

    def doc_index(self, name: str) -> int:
        """Index of the document called ``name`` (KeyError if absent)."""
        if self._doc_index is None:
            self._doc_index = {n: i for i, n in enumerate(self.docs["name"])}
        return self._doc_index[name]

    def doc_rows(self, name: str) -> range | None:
        """Rows of the document called ``name`` (None if absent)."""
        try:
            i = self.doc_index(name)
        except KeyError:
            return None
        first = int(self.docs["first"][i])
        return range(first, first + int(self.docs["count"][i]))

    def contains(self, a: int | np.ndarray, b: int | np.ndarray) -> np.ndarray:
        """Whether unit ``a`` contains unit ``b`` (a unit contains itself)."""
        a = np.asarray(a)
        b = np.asarray(b)
        out: np.ndarray = (a <= b) & (b < a + self.columns["size"][a])
        return out

    def xpath(self, row: int) -> str:
        """INEX-style positional path of ``row`` within its document."""
        steps = []
        tag, pos, parent = self.columns["tag"], self.columns["pos"], self.columns["parent"]
        while row >= 0:
            steps.append(f"{self.tags[tag[row]]}[{pos[row]}]")
            row = int(parent[row])
        return "/" + "/".join(reversed(steps))

    def ids(self, rows: Iterable[int] | None = None) -> list[str]:
        """Unit ids (DESIGN §1.1) of ``rows`` (all rows by default)."""
        if rows is None:
            rows = range(len(self))
        names = self.docs["name"]
        kinds = self.columns["kind"]
        docs = self.columns["doc"]
        out = []
        for r in rows:
            r = int(r)
            name = names[docs[r]]
            if kinds[r] == KIND_SEGMENT:
                out.append(f"{name}#{self.pre_of(r)}")
            elif kinds[r] in (KIND_PAGE, KIND_VIDEO):
                out.append(name)
            else:
                out.append(f"{name}#{self.xpath(r)}")
        return out

    def pre_of(self, row: int) -> int:
        """Local preorder number of one row."""
        return int(row - self.docs["first"][int(self.columns["doc"][row])])

    @classmethod
    def from_tree(
        cls,
        doc: str,
        tags: Sequence[str],
        parents: Sequence[int],
        lengths: Sequence[float] | None = None,
        words: Sequence[int] | None = None,
    ) -> UnitTable:
        """Build a one-document table from tags and parents given in preorder.

        Offsets are laid out as if each unit's own text came before its
        children's text; lengths default to 0. Meant for tests and examples.
        """
        n = len(tags)
        parent = np.asarray(parents, dtype=np.int32)
        length = np.zeros(n) if lengths is None else np.asarray(lengths, dtype=np.float64)
        children: list[list[int]] = [[] for _ in range(n)]
        for i, p in enumerate(parent):
            if p >= 0:
                children[p].append(i)
        depth = np.zeros(n, dtype=np.int16)
        pos = np.ones(n, dtype=np.int32)
        size = np.ones(n, dtype=np.int32)
        post = np.zeros(n, dtype=np.int32)
        start = np.zeros(n)
        for i in range(1, n):
            depth[i] = depth[parent[i]] + 1
            pos[i] = sum(1 for s in children[parent[i]] if s < i and tags[s] == tags[i]) + 1
        for i in range(n - 1, -1, -1):
            size[i] = 1 + sum(size[c] for c in children[i])
        counter = 0

        def visit(i: int) -> None:
            nonlocal counter
            for c in children[i]:
                visit(c)
            post[i] = counter
            counter += 1

        visit(0)
        for i in range(n):
            own = length[i] - sum(length[c] for c in children[i])
            cursor = start[i] + max(own, 0)
            for c in children[i]:
                start[c] = cursor
                cursor += length[c]
        tag_vocab = sorted(set(tags))
        label_paths: list[str] = []
        for i in range(n):
            label_paths.append(
                (label_paths[parent[i]] if parent[i] >= 0 else "") + "/" + tags[i]
            )
        path_vocab = sorted(set(label_paths))
        columns: dict[str, np.ndarray] = {
            "doc": np.zeros(n, dtype=np.int32),
            "kind": np.zeros(n, dtype=np.int8),
            "tag": np.array([tag_vocab.index(t) for t in tags], dtype=np.int32),
            "path": np.array([path_vocab.index(p) for p in label_paths], dtype=np.int32),
            "depth": depth,
            "parent": parent,
            "post": post,
            "size": size,
            "pos": pos,
            "start": start,
            "length": length,
            "words": np.zeros(n, dtype=np.int32) if words is None
            else np.asarray(words, dtype=np.int32),
        }
        docs = DocTable(
            {"name": [doc], "source": [""], "kind": [KIND_ELEMENT],
             "length": [float(length[0]) if n else 0.0], "first": [0], "count": [n]}
        )
        return cls(columns, tag_vocab, path_vocab, docs)


@dataclass
class ParsedDocument:
    """One document as a loader hands it to a store.

    Units are in preorder; ``parent`` holds *local* rows (-1 for the root).
    A video is a root unit of kind KIND_VIDEO (id = its name) whose children
    are its segments (kind KIND_SEGMENT, ids ``VIDEO#N``, N = local preorder
    row, i.e. 1-based time order).  A web page loaded without ``--elements``
    is one unit of kind KIND_PAGE.

    Attributes
    ----------
    name : str
        Document id (DESIGN §1.1): XML path without extension, page path, video id.
    source : str
        The file it came from.
    kind : int
        KIND_ELEMENT for XML (and pages loaded with elements), KIND_PAGE, KIND_VIDEO.
    tags, paths : list of str
        Tag and label path of every unit.
    columns : dict of str to numpy.ndarray
        ``parent`` (local), ``depth``, ``post``, ``size``, ``pos``, ``start``,
        ``length``, ``words`` and ``kind`` per unit (UNIT_COLUMNS dtypes).
    links : list of tuple
        ``(local_row, target, anchor_text)`` LINK edges held by the unit of
        that row; the target is a document name, or ``name#fragment`` for
        the element of it that the fragment names; stores resolve it.
    texts : list of str, optional
        Every unit's text snippet (:func:`text_snippet` of its text content,
        a page's title, a cue's text); None when the loader has none.
    attributes : list of tuple
        ``(local_row, {name: value})`` for the units that have attributes
        (XML attributes as written, ``prefix:name`` for namespaced ones).
    """

    name: str
    source: str
    kind: int
    tags: list[str]
    paths: list[str]
    columns: dict[str, np.ndarray]
    links: list[tuple[int, str, str]] = field(default_factory=list)
    texts: list[str] | None = None
    attributes: list[tuple[int, dict[str, str]]] = field(default_factory=list)

    @property
    def length(self) -> float:
        """Length of the document (its root's length)."""
        return float(self.columns["length"][0]) if len(self.tags) else 0.0


@dataclass
class DocumentBatch:
    """Several documents handed to a store at once, their units concatenated.

    Loaders of many small files (XML articles) produce batches so that the
    vectorised work and the store's bookkeeping cost once per batch rather
    than once per document.  Rows are *batch-local*: document ``i`` holds
    rows ``firsts[i] : firsts[i] + counts[i]`` and ``parent`` points to
    batch rows (-1 for a root); ``links`` rows are batch rows too.  Tags and
    label paths are codes into the batch's own vocabularies.

    Examples
    --------
    >>> doc = ParsedDocument("d", "d.xml", KIND_ELEMENT, ["a", "b"], ["/a", "/a/b"],
    ...                      {"parent": np.array([-1, 0], np.int32)})
    >>> batch = DocumentBatch.of([doc, doc])
    >>> batch.columns["parent"].tolist(), batch.firsts.tolist(), batch.tags
    ([-1, 0, -1, 2], [0, 2], ['a', 'b', 'a', 'b'])
    >>> [d.columns["parent"].tolist() for d in batch.documents()]
    [[-1, 0], [-1, 0]]
    """

    names: list[str]
    sources: list[str]
    kinds: list[int]
    counts: np.ndarray
    tag_codes: np.ndarray
    tag_vocab: list[str]
    path_codes: np.ndarray
    path_vocab: list[str]
    columns: dict[str, np.ndarray]
    links: list[tuple[int, str, str]] = field(default_factory=list)
    texts: list[str] | None = None
    attributes: list[tuple[int, dict[str, str]]] = field(default_factory=list)

    def __len__(self) -> int:
        """Number of units."""
        return len(self.tag_codes)

    @property
    def tags(self) -> list[str]:
        """Tag of every unit."""
        vocab = self.tag_vocab
        return [vocab[c] for c in self.tag_codes.tolist()]

    @property
    def paths(self) -> list[str]:
        """Label path of every unit."""
        vocab = self.path_vocab
        return [vocab[c] for c in self.path_codes.tolist()]

    @property
    def firsts(self) -> np.ndarray:
        """Batch row of every document's root."""
        return np.concatenate(([0], np.cumsum(self.counts)[:-1])).astype(np.int64) \
            if len(self.counts) else np.zeros(0, np.int64)

    @classmethod
    def of(cls, docs: Sequence[ParsedDocument]) -> DocumentBatch:
        """Concatenate parsed documents into one batch (columns of a single
        document are not copied)."""
        counts = np.array([len(d.tags) for d in docs], dtype=np.int64)
        firsts = np.concatenate(([0], np.cumsum(counts)[:-1])) if len(docs) else counts
        tag_codes, tag_vocab = encode_vocabulary([t for d in docs for t in d.tags])
        path_codes, path_vocab = encode_vocabulary([p for d in docs for p in d.paths])
        if len(docs) == 1:
            columns = docs[0].columns
        else:
            columns = {}
            for c in docs[0].columns if docs else ():
                parts = [np.asarray(d.columns[c]) for d in docs]
                if c == "parent":
                    parts = [np.where(p >= 0, p + f, -1)
                             for p, f in zip(parts, firsts, strict=True)]
                columns[c] = np.concatenate(parts)
        texts = None
        if any(d.texts is not None for d in docs):
            texts = [s for d in docs for s in (d.texts or [""] * len(d.tags))]
        return cls([d.name for d in docs], [d.source for d in docs], [d.kind for d in docs],
                   counts, tag_codes, tag_vocab, path_codes, path_vocab, columns,
                   [(int(f) + r, t, a) for d, f in zip(docs, firsts, strict=True)
                    for r, t, a in d.links], texts,
                   [(int(f) + r, a) for d, f in zip(docs, firsts, strict=True)
                    for r, a in d.attributes])

    def documents(self) -> Iterable[ParsedDocument]:
        """Split the batch back into its documents (local rows)."""
        firsts = self.firsts
        ends = firsts + self.counts
        tags, paths = self.tags, self.paths
        links_of: dict[int, list[tuple[int, str, str]]] = {}
        doc_of_link = np.searchsorted(ends, [r for r, _, _ in self.links], side="right")
        for (row, target, anchor), d in zip(self.links, doc_of_link.tolist(), strict=True):
            links_of.setdefault(d, []).append((row - int(firsts[d]), target, anchor))
        attrs_of: dict[int, list[tuple[int, dict[str, str]]]] = {}
        doc_of_attrs = np.searchsorted(ends, [r for r, _ in self.attributes], side="right")
        for (row, attrs), d in zip(self.attributes, doc_of_attrs.tolist(), strict=True):
            attrs_of.setdefault(d, []).append((row - int(firsts[d]), attrs))
        for i, name in enumerate(self.names):
            a, b = int(firsts[i]), int(ends[i])
            cols = {c: v[a:b] for c, v in self.columns.items()}
            if "parent" in cols:
                p = cols["parent"]
                cols["parent"] = np.where(p >= 0, p - a, -1).astype(p.dtype)
            yield ParsedDocument(name, self.sources[i], self.kinds[i], tags[a:b], paths[a:b],
                                 cols, links_of.get(i, []),
                                 None if self.texts is None else self.texts[a:b],
                                 attrs_of.get(i, []))


def encode_vocabulary(values: list[str]) -> tuple[np.ndarray, list[str]]:
    """Codes of ``values`` into a vocabulary in first-seen order.

    >>> encode_vocabulary(["b", "a", "b"])
    (array([0, 1, 0], dtype=int32), ['b', 'a'])
    """
    ids: dict[str, int] = {}
    codes = np.fromiter((ids.setdefault(v, len(ids)) for v in values), dtype=np.int32,
                        count=len(values))
    return codes, list(ids)


#: Characters of a unit's text content kept as its ``text`` property.
SNIPPET_CHARS = 100


def text_snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    """The ``text`` property of a unit: its text content with every run of
    whitespace made one space, stripped, cut to ``limit`` characters.

    >>> text_snippet("  Materials and\\n   methods ")
    'Materials and methods'
    >>> text_snippet("abcdef", 4)
    'abcd'
    """
    return " ".join(text[: 4 * limit + 64].split())[:limit]


class Names(Sequence[str]):
    """Ids held by pyarrow (a column of a link list's chunk: ``load_documents``'
    ``link_pairs``): a sequence of ``str`` (made when asked for), and
    :attr:`arrow` (a ``pyarrow.StringArray``, or a ``ChunkedArray`` of
    them: slices of the CSV reader's batches) for a store that reads the
    column in C, with no Python string for millions of ids.

    >>> import pyarrow as pa
    >>> n = Names(pa.array(["a.html", "b.html", "a.html"]))
    >>> len(n), n[1], list(n[1:]), n.tolist()
    (3, 'b.html', ['b.html', 'a.html'], ['a.html', 'b.html', 'a.html'])
    """

    def __init__(self, arrow: Any) -> None:
        self.arrow = arrow

    def __len__(self) -> int:
        return len(self.arrow)

    @overload
    def __getitem__(self, i: int) -> str: ...

    @overload
    def __getitem__(self, i: slice) -> Names: ...

    def __getitem__(self, i: int | slice) -> str | Names:
        if isinstance(i, slice):
            return Names(self.arrow[i])
        return str(self.arrow[i].as_py())

    def __iter__(self) -> Iterator[str]:
        return iter(self.tolist())

    def tolist(self) -> list[str]:
        """The ids as Python strings."""
        return list(self.arrow.to_pylist())


@dataclass
class LoadReport:
    """What a load did: documents and units added, documents replaced, links
    stored, files skipped (``--skip-bad``), loader statistics, and the
    elements each ``--links`` spec matched."""

    documents: int = 0
    elements: int = 0
    seconds: float = 0.0
    replaced: int = 0
    links: int = 0
    skipped: list[Any] = field(default_factory=list)
    extra: dict[str, int] = field(default_factory=dict)
    links_matched: dict[str, int] = field(default_factory=dict)

    @property
    def rate(self) -> float:
        """Units per second."""
        return self.elements / self.seconds if self.seconds > 0 else float("inf")


def page_units(names: Sequence[str]) -> DocumentBatch:
    """Pages known only from a link list: one unit of length 0 each.

    >>> page_units(["a.html", "b.html"]).names
    ['a.html', 'b.html']
    """
    n = len(names)
    ones = np.ones(n, np.int32)
    cols: dict[str, np.ndarray] = {
        "kind": np.full(n, KIND_PAGE, np.int8), "parent": np.full(n, -1, np.int32),
        "depth": np.zeros(n, np.int16), "post": np.zeros(n, np.int32), "size": ones,
        "pos": ones, "start": np.zeros(n), "length": np.zeros(n),
        "words": np.zeros(n, np.int32)}
    zeros = np.zeros(n, np.int32)
    return DocumentBatch(list(names), [""] * n, [KIND_PAGE] * n, np.ones(n, np.int64),
                         zeros, ["page"], zeros, ["/page"], cols)
