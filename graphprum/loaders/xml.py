"""Stream XML documents into :class:`~graphprum.units.DocumentBatch` records.

One file is one document.  Files are streamed through lxml's event-driven
*parser target* interface (libxml2 SAX: lxml calls ``start``/``end``/``data``
as it parses, and no tree or element object is ever built, unlike
``iterparse``), into batches of about
:data:`~graphprum.loaders.xml_batches.BATCH_UNITS` units whose
arithmetic is vectorised once per batch.  Memory is bounded by one batch
(or the largest document), never by the collection.  For every element the
loader records (DESIGN §1.1–1.2):

- its positional INEX step ``tag[k]`` (k counted among same-tag siblings;
  namespaced tags keep the prefix as written, e.g. ``dc:title``; comments and
  processing instructions are not units and not counted);
- parent, depth, pre/post order and subtree size (containment is an interval
  test);
- ``start``/``length``: offsets of its text content in the document's text
  content, the concatenation of all text nodes in document order (comments
  and PIs excluded, their tails included, CDATA and resolved entities
  included) -- exactly ``''.join(root.itertext())``;
- ``words``: whitespace-separated tokens of its text content, counted on the
  element's own span of the document text (so ``a<b>c</b>d`` is one word).

Examples
--------
>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "x.xml").write_text("<a>one <b>two</b><b>three four</b></a>")
>>> doc = parse_xml_file(d / "x.xml", "x")
>>> doc.tags, doc.columns["pos"].tolist()
(['a', 'b', 'b'], [1, 1, 2])
>>> doc.columns["start"].tolist(), doc.columns["length"].tolist()
([0.0, 4.0, 7.0], [17.0, 3.0, 10.0])
>>> doc.columns["words"].tolist()  # "one twothree four"
[3, 1, 2]
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
from lxml import etree

from graphprum.errors import InputError
from graphprum.loaders.files import open_regular, size_of, too_big
from graphprum.loaders.spans import sibling_positions, snippets, word_counts
from graphprum.loaders.xml_links import LinkCounts, LinkRules, LinkSpec, link_targets
from graphprum.units import KIND_ELEMENT, DocumentBatch, ParsedDocument

#: How every XML file is parsed: no DTD loading and no network, internal
#: entities resolved, no libxml2 size limits.
PARSER_OPTIONS = {"load_dtd": False, "no_network": True, "huge_tree": True,
                  "resolve_entities": "internal"}

#: The namespace the ``xml`` prefix is bound to without a declaration.
XML_NAMESPACE = "http://www.w3.org/XML/1998/namespace"


def text_content(path: str | os.PathLike[str]) -> str:
    """A document's text content as loading measured it (``start``/``length``
    are offsets in it): ``''.join(root.itertext())`` under :data:`PARSER_OPTIONS`.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.xml"
    >>> _ = p.write_text("<a>one <b>tw&#233;</b><!-- c -->!</a>", encoding="utf-8")
    >>> text_content(p)
    'one twé!'
    """
    return "".join(_parse_tree(path).itertext())


def _parse_tree(path: str | os.PathLike[str]) -> etree._Element:
    """The root element of a file parsed into a tree, read as loading reads
    it (a regular file, by us, never gunzipped)."""
    with open_regular(path) as f:
        return etree.parse(_Unnamed(f), etree.XMLParser(**PARSER_OPTIONS)).getroot()


class _Unnamed:
    """A file seen only through its ``read``: lxml reading a file object
    that has a name (or given a ``base_url``) reports a file's encoding
    errors as an OSError without their line."""

    __slots__ = ("read",)

    def __init__(self, f: BinaryIO) -> None:
        self.read = f.read


def parse_xml_file(path: str | os.PathLike[str], name: str,
                   links: LinkSpec | LinkRules | None = None,
                   root_dir: Path | None = None) -> ParsedDocument:
    """Parse one XML file into a :class:`ParsedDocument` (see module docstring).

    Parameters
    ----------
    path : path-like
        The XML file.
    name : str
        Its document id.
    links : LinkSpec or LinkRules, optional
        Elements that are links; their targets (file paths relative to the
        file, or absolute within ``root_dir``) become document ids.
    root_dir : Path, optional
        The loaded root, to turn link targets into document ids.

    Raises
    ------
    InputError
        The file is not well-formed XML (names the line) or cannot be read.
    """
    raw = RawBatch(links if isinstance(links, LinkRules | None) else LinkRules.of(links))
    raw.parse(path, name, root_dir)
    return next(iter(raw.finished().documents()))


class RawBatch:
    """Documents parsed into growing Python lists, finished as one batch.

    One parser serves the whole batch.  Its *target* callbacks (lxml calls
    ``start``, ``end`` and ``data`` from C; no element objects are built)
    record per element only its tag code and two events: the chunk number
    at its start (``n``) and at its end (``~n``); text nodes are kept as
    chunks (``data`` is the chunk list's own ``append``).  Everything else
    is derived once per batch by :meth:`finish`, vectorised: the tree (each
    end event matched to its start, level by level), character offsets (one
    cumulative sum over chunk lengths), depth and postorder, label paths
    (level by level over (parent path, tag) pairs), sibling positions and
    word counts.  Namespace declarations arrive as ``start_ns``/``end_ns``
    events (rare), which change the prefixes in scope; tags and attribute
    names are qualified once per scope (memoised).  The batch text is the
    documents' texts joined by one space, so no word runs across documents.
    """

    def __init__(self, links: LinkRules | None = None) -> None:
        self.links = links
        self.link_counts = LinkCounts()
        self.tag_ids: dict[str, int] = {}
        self.tag_vocab: list[str] = []
        self.tags: list[int] = []  # tag code of every element
        self.events: list[int] = []  # chunk number n at a start, ~n at an end
        self.chunks: list[str] = []
        self.names: list[str] = []
        self.sources: list[str] = []
        self.firsts: list[int] = []
        self.text_chunks: list[int] = []  # chunk number where each document starts
        self.link_rows: list[tuple[int, str, str]] = []
        self.attributes: list[tuple[int, dict[str, str]]] = []
        self._link_found: list[tuple[int, str, int]] = []  # row, target, spec
        self._scopes = _NamespaceScopes()
        self._parser, self._release = self._make_parser()

    def __len__(self) -> int:
        return len(self.tags)

    def _make_parser(self) -> tuple[etree.XMLParser, Callable[[], None]]:
        tags, tag_ids, tag_vocab, events, chunks = \
            self.tags, self.tag_ids, self.tag_vocab, self.events, self.chunks
        scopes, link_found, attributes = self._scopes, self._link_found, self.attributes
        rules = self.links

        def new_tag(tag: str) -> int:
            """The code of a tag as lxml gives it (Clark notation), the first
            time it is seen in the current namespace scope."""
            name = scopes.qualify(tag) if tag[0] == "{" else tag
            code = tag_ids.get(name)
            if code is None:
                code = tag_ids[name] = len(tag_vocab)
                tag_vocab.append(name)
            return code

        def link_attributes(tag: str) -> tuple[tuple[int, str], ...]:
            """The link specs a tag (as lxml gives it) matches in the current scope."""
            assert rules is not None
            return rules.attributes(tag, scopes.qualify(tag) if tag[0] == "{" else tag)

        def qualified_keys(keys: tuple[str, ...]) -> tuple[str, ...] | None:
            """Attribute names as written (None when none is namespaced)."""
            if not any(k[0] == "{" for k in keys):
                return None
            return tuple(scopes.qualify(k) if k[0] == "{" else k for k in keys)

        # memos of qualified names, one pair per prefix map (documents of a
        # collection mostly declare the same namespaces)
        memos: dict[tuple[tuple[str, str], ...], tuple[_Memo, _Memo, _Memo]] = {}
        codes: _Memo = _Memo(new_tag)
        attr_names: _Memo = _Memo(qualified_keys)
        link_attrs: _Memo = _Memo(link_attributes)

        def scope_changed(key: tuple[tuple[str, str], ...]) -> None:
            nonlocal codes, attr_names, link_attrs
            memo = memos.get(key)
            if memo is None:
                memo = memos[key] = (_Memo(new_tag), _Memo(qualified_keys),
                                     _Memo(link_attributes))
            codes, attr_names, link_attrs = memo

        scopes.on_change = scope_changed
        scope_changed(tuple(scopes.maps[-1].items()))

        def on_start(tag: str, attrib: dict[str, str]) -> None:
            code = codes[tag]
            tags.append(code)
            events.append(len(chunks))
            if attrib:
                names = attr_names[tuple(attrib)]
                attributes.append((len(tags) - 1, attrib if names is None else
                                   dict(zip(names, attrib.values(), strict=True))))
            if rules is not None:
                for k, name in link_attrs[tag]:  # attributes in Clark notation
                    target = attrib.get(name)
                    if target:
                        link_found.append((len(tags) - 1, target, k))

        def on_end(tag: str) -> None:
            events.append(~len(chunks))

        def release() -> None:
            # lxml's parser context is a reference cycle that keeps these
            # callbacks alive until the cyclic collector runs; empty their
            # cells so they do not keep the batch alive until then
            nonlocal tags, tag_ids, tag_vocab, events, chunks, scopes, link_found
            nonlocal attributes, codes, attr_names, link_attrs, memos
            tags = tag_ids = tag_vocab = events = chunks = None  # type: ignore
            scopes = link_found = attributes = codes = attr_names = memos = None  # type: ignore
            link_attrs = None  # type: ignore

        target = _Target(on_start, on_end, chunks.append, scopes.start_ns, scopes.end_ns)
        return etree.XMLParser(target=target, **PARSER_OPTIONS), release

    def parse(self, path: str | os.PathLike[str], name: str,
              root_dir: Path | None = None) -> int:
        """Append one file's elements; returns their number.

        On error nothing of the file is kept and InputError is raised.
        """
        first, n_chunks, n_found = len(self.tags), len(self.chunks), len(self._link_found)
        n_attrs, n_events = len(self.attributes), len(self.events)
        try:
            # streamed from the file (never the whole file in memory as
            # bytes), read by us: libxml2 reading a file by name reports
            # encoding errors without a line (so does lxml given a file
            # with a name), and silently gunzips
            with open_regular(path) as f:
                try:
                    etree.parse(_Unnamed(f), self._parser)
                except MemoryError:
                    raise too_big(path) from None
                except OSError as exc:
                    raise InputError(path, None, f"cannot read: {exc.strerror or exc}") \
                        from None
            # the target interface stops only on fatal errors; the tree
            # parser also rejects namespace errors and undefined entities
            errors = self._parser.error_log.filter_from_errors()
            if errors:
                raise _syntax_error(path, errors[0].line, errors[0].message)
            if len(self.tags) == first:
                raise InputError(path, None, "no root element")
            if self._scopes.ambiguous:
                self._rename_from_tree(path, first, n_found)
        except etree.XMLSyntaxError as exc:
            self._truncate(first, n_chunks, n_found, n_attrs, n_events)
            raise _syntax_error(path, exc.lineno, exc.msg or str(exc)) from None
        except BaseException:
            self._truncate(first, n_chunks, n_found, n_attrs, n_events)
            raise
        self._scopes.reset()
        self.chunks.append(" ")  # documents never share a word
        self.names.append(name)
        self.sources.append(os.path.abspath(path))  # a load from elsewhere finds it
        self.firsts.append(first)
        self.text_chunks.append(n_chunks)
        self.link_rows.extend(link_targets(self._link_found[n_found:], path, root_dir,
                                            self.links, self.link_counts))
        return len(self.tags) - first

    def _truncate(self, first: int, n_chunks: int, n_found: int, n_attrs: int,
                  n_events: int) -> None:
        del self.tags[first:]
        del self.events[n_events:]
        del self.chunks[n_chunks:]
        del self._link_found[n_found:]
        del self.attributes[n_attrs:]
        self._scopes.reset()

    def _rename_from_tree(self, path: str | os.PathLike[str], first: int,
                          n_found: int) -> None:
        """Tags as written when one namespace is bound to several prefixes
        (the parser target only sees URIs): read them, and the link
        elements, from the tree."""
        names: dict[str, str] = {}
        root = _parse_tree(path)
        links = self.links
        del self._link_found[n_found:]
        for i, el in enumerate(root.iter(tag=etree.Element), start=first):
            tag = _tag_name(el, names)
            if tag not in self.tag_ids:
                self.tag_ids[tag] = len(self.tag_vocab)
                self.tag_vocab.append(tag)
            self.tags[i] = self.tag_ids[tag]
            if links is not None:
                for k, attr in links.attributes(el.tag, tag):
                    if target := el.get(attr):
                        self._link_found.append((i, target, k))

    def close(self) -> None:
        """Drop the parser (its callbacks no longer hold the batch's lists)."""
        if self._parser is not None:
            self._release()
            self._parser = None

    def finished(self) -> DocumentBatch:
        """:meth:`finish`, a MemoryError made an InputError naming the
        batch's largest file (a document too large to load)."""
        try:
            return self.finish()
        except MemoryError:
            raise too_big(max(self.sources, key=size_of)) from None

    def finish(self) -> DocumentBatch:
        """The batch as numpy columns.  The batch cannot parse more files afterwards."""
        self.close()
        n = len(self.tags)
        counts = np.diff(np.append(np.asarray(self.firsts, dtype=np.int64), n))
        start_chunk, end_chunk, parent, depth, size = _tree_from_events(self.events)
        rows = np.arange(n, dtype=np.int64)
        # tag codes of the units kept (a skipped file may have added tags)
        # numbered in order of first appearance among them, as the label paths
        # are, so that the codes do not depend on where batches end
        tag_codes: np.ndarray
        used, first, tag_codes = np.unique(np.asarray(self.tags, dtype=np.int32),
                                           return_index=True, return_inverse=True)
        first_seen = np.argsort(first, kind="stable")
        renumber = np.empty(len(used), dtype=np.int32)
        renumber[first_seen] = np.arange(len(used), dtype=np.int32)
        tag_vocab = [self.tag_vocab[c] for c in used[first_seen].tolist()]
        tag_codes = renumber[tag_codes.reshape(-1)]
        path_codes, path_vocab = _label_paths(parent, depth, tag_codes, tag_vocab)
        # character offset of every chunk number
        chunk_lengths = np.fromiter(map(len, self.chunks), dtype=np.int64,
                                    count=len(self.chunks))
        offset = np.concatenate(([0], np.cumsum(chunk_lengths)))
        begin = offset[start_chunk]
        length = offset[end_chunk] - begin
        doc_of_row = np.repeat(np.arange(len(counts)), counts)
        firsts = np.asarray(self.firsts, dtype=np.int64)
        pre = rows - firsts[doc_of_row]
        # nodes finished before i: those before it in preorder that are not
        # its ancestors (pre - depth) plus its descendants (size - 1)
        post = (pre - depth + size - 1).astype(np.int32)
        text = "".join(self.chunks)
        words = word_counts(text, begin, length)
        texts = snippets(text, begin, length)
        self.chunks.clear()  # the parser's cycle still holds the list's append
        self.events.clear()
        doc_text_start = offset[np.asarray(self.text_chunks, dtype=np.int64)]
        # roots are grouped per document for the sibling positions
        siblings_of = np.where(parent >= 0, parent, -1 - doc_of_row)
        columns = {
            "kind": np.full(n, KIND_ELEMENT, dtype=np.int8),
            "parent": parent,
            "depth": depth,
            "post": post,
            "size": size.astype(np.int32),
            "pos": sibling_positions(siblings_of, tag_codes),
            "start": (begin - doc_text_start[doc_of_row]).astype(np.float64),
            "length": length.astype(np.float64),
            "words": words,
        }
        return DocumentBatch(self.names, self.sources, [KIND_ELEMENT] * len(counts), counts,
                             tag_codes, tag_vocab, path_codes, path_vocab, columns,
                             self.link_rows, texts, self.attributes)


def _tree_from_events(events: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                  np.ndarray, np.ndarray]:
    """Chunk numbers at the start and end of every element, its parent,
    depth and subtree size, from the batch's events (``n`` at an element's
    start, ``~n`` at its end, documents one after another).

    An element's end is the first later event that brings the nesting level
    back to its own: at each depth, starts and ends alternate, so the k-th
    start at depth d ends at the k-th end at depth d.  Its parent is the
    last element before it one level up.

    >>> start, end, parent, depth, size = _tree_from_events([0, 0, ~1, 1, ~2, ~2, 2, ~3])
    >>> start.tolist(), end.tolist(), parent.tolist(), depth.tolist(), size.tolist()
    ([0, 0, 1, 2], [2, 1, 2, 3], [-1, 0, 0, -1], [0, 1, 1, 0], [3, 1, 1, 1])
    """
    ev = np.asarray(events, dtype=np.int64)
    is_start = ev >= 0
    chunk = np.where(is_start, ev, ~ev)
    level = np.cumsum(np.where(is_start, 1, -1))  # nesting level after each event
    starts = np.flatnonzero(is_start)
    ends = np.flatnonzero(~is_start)
    n = len(starts)
    depth = level[starts] - 1
    end_depth = level[ends]
    by_depth = np.argsort(depth, kind="stable")  # rows by (depth, row)
    end_of = np.empty(n, dtype=np.int64)
    end_of[by_depth] = ends[np.argsort(end_depth, kind="stable")]
    started = np.cumsum(is_start)  # elements started up to each event
    rows = np.arange(n, dtype=np.int64)
    size = started[end_of] - rows
    # the last row one level up: search (depth - 1, row) among the sorted (depth, row)
    keys = depth[by_depth] * n + by_depth
    above = np.searchsorted(keys, (depth - 1) * n + rows) - 1
    parent = np.where(depth > 0, by_depth[np.maximum(above, 0)], -1).astype(np.int32)
    return chunk[starts], chunk[end_of], parent, depth.astype(np.int16), size


def _label_paths(parent: np.ndarray, depth: np.ndarray, tag_codes: np.ndarray,
                 tag_vocab: list[str]) -> tuple[np.ndarray, list[str]]:
    """Label path codes and vocabulary, level by level: the path of a unit is
    its parent's path plus its tag, so each level needs only the distinct
    (parent path, tag) pairs.  Paths are then numbered in order of first
    appearance in the units (as tags are), so that the store's codes do not
    depend on where batches end (``load xml --jobs`` ends them elsewhere).

    >>> codes, vocab = _label_paths(np.array([-1, 0, 0, 2]), np.array([0, 1, 1, 2]),
    ...                             np.array([0, 1, 1, 0]), ["a", "b"])
    >>> [vocab[c] for c in codes]
    ['/a', '/a/b', '/a/b', '/a/b/a']
    """
    n = len(parent)
    codes = np.empty(n, dtype=np.int32)
    vocab: list[str] = []
    order = np.argsort(depth, kind="stable")
    bounds = np.searchsorted(depth[order], np.arange(int(depth.max()) + 2 if n else 1))
    n_tags = max(len(tag_vocab), 1)
    for level in range(len(bounds) - 1):
        rows = order[bounds[level]:bounds[level + 1]]
        parent_code = codes[parent[rows]].astype(np.int64) if level else \
            np.full(len(rows), -1, dtype=np.int64)
        keys, inverse = np.unique((parent_code + 1) * n_tags + tag_codes[rows],
                                  return_inverse=True)
        new = np.arange(len(vocab), len(vocab) + len(keys), dtype=np.int32)
        for key in keys.tolist():
            above, tag = divmod(key, n_tags)
            vocab.append((vocab[above - 1] if above else "") + "/" + tag_vocab[tag])
        codes[rows] = new[inverse.reshape(-1)]
    if n:
        first_seen = np.argsort(np.unique(codes, return_index=True)[1], kind="stable")
        renumber = np.empty(len(vocab), dtype=np.int32)
        renumber[first_seen] = np.arange(len(vocab), dtype=np.int32)
        codes = renumber[codes]
        vocab = [vocab[i] for i in first_seen.tolist()]
    return codes, vocab


def _syntax_error(path: str | os.PathLike[str], line: int | None, message: str) -> InputError:
    """The one-line error for a file that is not well-formed XML (or a
    gzip file: lxml reads its first byte as text)."""
    if line in (None, 1):
        with contextlib.suppress(OSError), open(path, "rb") as fh:
            if fh.read(2) == b"\x1f\x8b":
                return InputError(path, None, "compressed with gzip: gunzip it first")
    message = message.strip()
    message = message.rsplit(", line ", 1)[0] if ", line " in message else message
    return InputError(path, line or None, f"not well-formed XML: {message}")


class _Target:
    """The parser target lxml calls."""

    __slots__ = ("data", "end", "end_ns", "start", "start_ns")

    def __init__(self, start: Callable[..., Any], end: Callable[..., Any],
                 data: Callable[..., Any], start_ns: Callable[..., Any],
                 end_ns: Callable[..., Any]) -> None:
        self.start, self.end, self.data = start, end, data
        self.start_ns, self.end_ns = start_ns, end_ns

    def close(self) -> None:
        return None


class _Memo(dict[Any, Any]):
    """A dict that computes (and keeps) the value of a missing key.

    >>> m = _Memo(str.upper)
    >>> m["a"], dict(m)
    ('A', {'a': 'A'})
    """

    def __init__(self, compute: Callable[[Any], Any]) -> None:
        super().__init__()
        self.compute = compute

    def __missing__(self, key: Any) -> Any:
        value = self[key] = self.compute(key)
        return value


class _NamespaceScopes:
    """The namespace prefixes in scope in the file being parsed, to write
    namespaced tags as ``prefix:local``.

    lxml calls :meth:`start_ns` for every declaration before the start of
    the element that makes it, and :meth:`end_ns` for each after its end;
    every declaration pushes a prefix map and every end pops one.
    ``on_change`` is called with the new map's items whenever it changes
    (the parser keeps memos of qualified names per map).
    """

    def __init__(self) -> None:
        self.maps: list[dict[str, str]] = [{"xml": XML_NAMESPACE}]
        self.ambiguous = False
        self.on_change: Callable[[tuple[tuple[str, str], ...]], None] = lambda key: None

    def reset(self) -> None:
        """Forget the file (after an error, or before the next one)."""
        if len(self.maps) > 1:
            del self.maps[1:]
            self.on_change(tuple(self.maps[-1].items()))
        self.ambiguous = False

    def start_ns(self, prefix: str | None, uri: str) -> None:
        by_prefix = {p: u for p, u in self.maps[-1].items() if p != (prefix or "")}
        if uri:
            by_prefix[prefix or ""] = uri
        if len(set(by_prefix.values())) < len(by_prefix):
            # one URI, several prefixes: read from the tree (checked per
            # declaration, so at times where not needed: the tree is exact)
            self.ambiguous = True
        self.maps.append(by_prefix)
        self.on_change(tuple(by_prefix.items()))

    def end_ns(self, prefix: str | None) -> None:
        self.maps.pop()
        self.on_change(tuple(self.maps[-1].items()))

    def qualify(self, tag: str) -> str:
        uri, _, local = tag[1:].partition("}")
        for prefix, bound in self.maps[-1].items():
            if bound == uri:
                return f"{prefix}:{local}" if prefix else local
        return local


def _tag_name(el: etree._Element, names: dict[str, str]) -> str:
    """Tag as written: ``prefix:local`` for namespaced tags (cached when unambiguous)."""
    tag: str = el.tag
    if tag[0] != "{":
        names[tag] = tag
        return tag
    prefix = el.prefix
    local = tag.rpartition("}")[2]
    # A namespaced tag is not cached: one URI may be written with several prefixes.
    return f"{prefix}:{local}" if prefix else local
