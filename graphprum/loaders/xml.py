"""Stream XML documents into :class:`~graphprum.units.DocumentBatch` records.

One file is one document.  Files are streamed through lxml's event-driven
*parser target* interface (libxml2 SAX: lxml calls ``start``/``end``/``data``
as it parses, and no tree or element object is ever built, unlike
``iterparse``), into batches of about :data:`BATCH_UNITS` units whose
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
import fnmatch
import os
from collections import Counter
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, BinaryIO

import numpy as np
from lxml import etree

from graphprum.errors import InputError, UsageError
from graphprum.loaders.files import Listing, Skipped, open_regular, scan, size_of, too_big
from graphprum.loaders.names import check_document_id, utf8_path
from graphprum.units import KIND_ELEMENT, SNIPPET_CHARS, DocumentBatch, ParsedDocument
from graphprum.workers import can_fork, ordered_map

#: How every XML file is parsed: no DTD loading and no network, internal
#: entities resolved, no libxml2 size limits.
PARSER_OPTIONS = {"load_dtd": False, "no_network": True, "huge_tree": True,
                  "resolve_entities": "internal"}

#: The namespace the ``xml`` prefix is bound to without a declaration.
XML_NAMESPACE = "http://www.w3.org/XML/1998/namespace"

#: Lookup table: is code point c whitespace for ``str.split()``? (none above U+3000)
_IS_SPACE = np.array([chr(c).isspace() for c in range(0x3002)], dtype=bool)


@dataclass(frozen=True)
class LinkSpec:
    """Elements that become LINK edges: ``TAG@ATTR`` (``--links``).

    The tag is matched as written (``link``, ``xl:link``) or, in Clark
    notation, by its namespace (``{http://projectmallard.org/1.0/}link``,
    whatever prefix the files use); the attribute is named as lxml names it,
    in Clark notation when namespaced
    (``collectionlink@{http://www.w3.org/1999/xlink}href``).

    >>> LinkSpec.parse("collectionlink@{http://www.w3.org/1999/xlink}href").attr
    '{http://www.w3.org/1999/xlink}href'
    >>> LinkSpec.parse("{urn:x@y}link@xref")
    LinkSpec(tag='{urn:x@y}link', attr='xref')
    """

    tag: str
    attr: str

    @classmethod
    def parse(cls, text: str) -> LinkSpec:
        skip = text.find("}") + 1 if text.startswith("{") else 0  # a namespace may hold '@'
        at = text.find("@", skip)
        tag, attr = (text[:at], text[at + 1:]) if at >= 0 else (text, "")
        if not tag or not attr or (skip and not tag[skip:]):
            raise UsageError(f"--links {text!r}: expected TAG@ATTR, e.g. link@href")
        return cls(tag, attr)

    def __str__(self) -> str:
        return f"{self.tag}@{self.attr}"


@dataclass
class LinkCounts:
    """What the links of a load came to: elements each ``--links`` spec
    matched (with a non-empty attribute), and the links not kept: to a
    fragment of their own document only (``#id``), or leaving the loaded
    root."""

    matched: dict[str, int] = field(default_factory=dict)
    within_document: int = 0
    leaving_root: int = 0

    def add(self, other: LinkCounts) -> None:
        """Count ``other``'s links too."""
        for k, v in other.matched.items():
            self.matched[k] = self.matched.get(k, 0) + v
        self.within_document += other.within_document
        self.leaving_root += other.leaving_root


@dataclass
class LinkRules:
    """How an XML load finds links: the ``--links`` specs, and the
    documents of the load, so that a target may name a document by its id
    (Mallard's ``xref="page-id"``, Wikipedia's ``12345.xml`` in another
    directory) as well as by a path.

    Examples
    --------
    >>> rules = LinkRules.of(["link@xref", "gui@xref"],
    ...                      [XmlFile(Path("h/a.page"), "a", Path("h")),
    ...                       XmlFile(Path("h/sub/b.page"), "sub/b", Path("h"))])
    >>> [str(s) for s in rules.specs], rules.by_id["b"]
    (['link@xref', 'gui@xref'], 'sub/b')
    """

    specs: tuple[LinkSpec, ...]
    names: frozenset[str] = frozenset()
    by_id: dict[str, str | None] = field(default_factory=dict)

    @classmethod
    def of(cls, specs: str | Sequence[str] | LinkSpec | None,
           files: Sequence[XmlFile] = ()) -> LinkRules | None:
        """The rules of ``--links`` values for a load of ``files`` (None: no links)."""
        if specs is None or isinstance(specs, LinkSpec):
            parsed: tuple[LinkSpec, ...] = () if specs is None else (specs,)
        else:
            parsed = tuple(dict.fromkeys(LinkSpec.parse(t) for t in
                                         ([specs] if isinstance(specs, str) else specs)))
        if not parsed:
            return None
        by_id: dict[str, str | None] = {}
        for f in files:  # a document's id: its name's last step, with or without extension
            last = f.name.rsplit("/", 1)[-1]
            for key in dict.fromkeys([last, last.rsplit(".", 1)[0] if "." in last else last]):
                by_id[key] = f.name if by_id.get(key, f.name) == f.name else None
        return cls(parsed, frozenset(f.name for f in files), by_id)

    def attributes(self, raw: str, written: str) -> tuple[tuple[int, str], ...]:
        """(spec number, attribute) of the specs an element matches, by its
        tag as lxml gives it (Clark notation) and as written."""
        return tuple((k, s.attr) for k, s in enumerate(self.specs)
                     if s.tag == (raw if s.tag[0] == "{" else written))


@dataclass
class XmlFile:
    """A file to load and the document id it gets."""

    path: Path
    name: str
    root: Path


#: Which files of a loaded directory are documents, by default.
GLOB = "*.xml"


def find_xml_files(paths: Iterable[str | os.PathLike[str]], globs: Sequence[str] = (GLOB,),
                   follow_symlinks: bool = False, skipped: list[Skipped] | None = None,
                   passed_over: list[str] | None = None) -> list[XmlFile]:
    """Files to load with their document ids, in a stable order.

    A directory is searched recursively for files whose name matches one
    of ``globs`` (``*.xml``; ``fnmatch`` patterns, case-sensitive) and is
    the root its files' ids are relative to (path without extension); only
    regular files inside it are taken, symbolic links to files outside it
    only with ``follow_symlinks``
    (:func:`graphprum.loaders.files.scan`); what is passed over is added
    to ``skipped``; a note per kind of XML document that ``globs`` leave
    out of a directory (``*.page`` beside ``*.xml``) to ``passed_over``.
    A file given directly gets its stem as id.
    Raises InputError for a path that does not exist or is not a regular
    file or directory, a directory with no matching file (naming what it
    holds instead), or a file name that is not UTF-8.
    """
    out: list[XmlFile] = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            found = _xml_files_under(path, globs, follow_symlinks, skipped, passed_over)
            out.extend(XmlFile(path / rel, _document_id(rel), path) for rel in found)
        elif path.is_file():
            out.append(XmlFile(path, path.stem, path.parent))
        elif path.exists():
            raise InputError(path, None, "not a regular file or directory")
        else:
            raise InputError(path, None, "no such file or directory")
    seen: dict[str, Path] = {}
    for f in out:
        utf8_path(f.path)  # the id and the stored source are text
        check_document_id(f.path, None, f.name)
        if f.name in seen:
            raise InputError(f.path, None,
                             f"document id {f.name!r} is also given by {seen[f.name]}")
        seen[f.name] = f.path
    return out


def _document_id(relative: str) -> str:
    """The id of a file found under a loaded directory: its path without
    its extension (a name that is only an extension, ``.xml``, is kept).

    >>> _document_id("a/b.xml"), _document_id("a/.xml"), _document_id("help/net.page")
    ('a/b', 'a/.xml', 'help/net')
    """
    return os.path.splitext(relative)[0]


def _xml_files_under(root: Path, globs: Sequence[str], follow_symlinks: bool,
                     skipped: list[Skipped] | None, passed_over: list[str] | None) -> list[str]:
    """Paths (relative, ``/``-separated) of the files under ``root`` whose
    names match ``globs``, sorted component by component (the order of
    sorted ``Path`` objects); InputError when there is none, naming what
    the directory holds instead."""
    def wanted(name: str) -> bool:
        return any(fnmatch.fnmatchcase(name, g) for g in globs)

    listing = scan(root, wanted, follow_symlinks)
    if skipped is not None:
        skipped.extend(listing.skipped)
    found = sorted(tuple(rel.split("/")) for rel in listing.files if wanted(rel.rsplit("/")[-1]))
    if not found:
        raise InputError(root, None, _nothing_matched(listing, globs))
    if passed_over is not None:
        passed_over.extend(_documents_passed_over(root, listing, globs))
    return ["/".join(parts) for parts in found]


#: Extensions of XML documents that the default ``*.xml`` passes over:
#: Mallard help pages, XHTML, DocBook, DITA, TEI, PubMed Central's JATS.
OTHER_XML = (".page", ".xhtml", ".docbook", ".dbk", ".dita", ".tei", ".nxml")


def _documents_passed_over(root: Path, listing: Listing, globs: Sequence[str]) -> list[str]:
    """One note per kind of XML document (:data:`OTHER_XML`) that ``globs``
    leave out of ``root`` (a GNOME help directory holds one ``legal.xml``
    beside its ``*.page`` files).

    >>> _documents_passed_over(
    ...     Path("help"), Listing(files=["legal.xml", "a.page", "b/c.page", "d.png"]), ["*.xml"])
    ["help: 2 *.page files not loaded (not *.xml): give --glob '*.page' to load them"]
    """
    suffixes = Counter(os.path.splitext(rel)[1] for rel in listing.files)
    patterns = " or ".join(globs)
    return [f"{root}: {suffixes[s]} *{s} file{'s' if suffixes[s] > 1 else ''} not loaded "
            f"(not {patterns}): give --glob '*{s}' to load them"
            for s in OTHER_XML if suffixes[s] and not any(fnmatch.fnmatchcase(f"x{s}", g)
                                                          for g in globs)]


def _nothing_matched(listing: Listing, globs: Sequence[str]) -> str:
    """Why a directory gave no file: what it holds instead, what was skipped.

    >>> _nothing_matched(Listing(files=["a.page", "b.page", "c.png", "README"]), ["*.xml"])
    "directory holds no *.xml file; it holds 2 *.page, 1 *.png, 1 other: \
give --glob '*.page' to load those"
    """
    patterns = " or ".join(globs)
    message = f"directory holds no {patterns} file"
    suffixes = Counter(os.path.splitext(rel.rsplit("/")[-1])[1] or "" for rel in listing.files)
    if suffixes:
        kinds = sorted(suffixes.items(), key=lambda kv: (kv[0] == "", -kv[1], kv[0]))
        message += "; it holds " + ", ".join(
            f"{n} *{suffix}" if suffix else f"{n} other" for suffix, n in kinds[:4])
        if kinds[0][0]:
            message += f": give --glob '*{kinds[0][0]}' to load those"
    if listing.skipped:
        first = listing.skipped[0]
        message += (f"; skipped {len(listing.skipped)} (e.g. {Path(first.path).name}: "
                    f"{first.message})")
    return message


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
    raw = _RawBatch(links if isinstance(links, LinkRules | None) else LinkRules.of(links))
    raw.parse(path, name, root_dir)
    return next(iter(raw.finished().documents()))


class _RawBatch:
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
        self.sources.append(os.fspath(path))
        self.firsts.append(first)
        self.text_chunks.append(n_chunks)
        self.link_rows.extend(_link_targets(self._link_found[n_found:], path, root_dir,
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
        words = _word_counts(text, begin, length)
        texts = _snippets(text, begin, length)
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
            "pos": _sibling_positions(siblings_of, tag_codes),
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
    """The one-line error for a file that is not well-formed XML."""
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


def _link_targets(link_rows: list[tuple[int, str, int]], path: str | os.PathLike[str],
                  root_dir: Path | None, rules: LinkRules | None = None,
                  counts: LinkCounts | None = None) -> list[tuple[int, str, str]]:
    """Turn link attribute values into targets ``doc`` or ``doc#fragment``.

    A value is a path relative to the file (``../b.xml#s2``: the document
    ``b`` of the load, its element with id ``s2``); when no document of the
    load has that path and the value holds no ``/``, it may name a document
    of the load by its id (its last step, with or without extension:
    Mallard's ``xref="display-brightness"``), when only one has it.  A
    value that is only a fragment (``#s2``, a place in its own document) or
    whose path leaves the loaded root is counted in ``counts`` and dropped.
    """
    if not link_rows:
        return []
    # where the file stands in the collection, symbolic links not resolved:
    # a link to a file elsewhere links from the link's place, as its id does
    here = Path(os.path.abspath(path)).parent
    root = Path(os.path.abspath(root_dir)) if root_dir is not None else here
    counts = counts if counts is not None else LinkCounts()
    out = []
    for row, value, spec in link_rows:
        if rules is not None:
            key = str(rules.specs[spec])
            counts.matched[key] = counts.matched.get(key, 0) + 1
        target, _, fragment = value.partition("#")
        if not target:
            counts.within_document += 1
            continue
        resolved = Path(os.path.normpath(here / target))
        try:
            name: str | None = str(PurePosixPath(resolved.relative_to(root).as_posix())
                                   .with_suffix(""))
        except ValueError:
            name = None  # leaves the loaded root
        if rules is not None and name not in rules.names and "/" not in target:
            by_id = rules.by_id.get(target) or rules.by_id.get(target.rsplit(".", 1)[0])
            name = by_id or name
        if name is None:
            counts.leaving_root += 1
            continue
        out.append((row, f"{name}#{fragment}" if fragment else name, ""))
    return out


def _sibling_positions(parent: np.ndarray, tag_codes: np.ndarray) -> np.ndarray:
    """1-based position of every element among its same-tag siblings.

    >>> _sibling_positions(np.array([-1, 0, 0, 0]), np.array([0, 1, 2, 1])).tolist()
    [1, 1, 1, 2]
    """
    n = len(tag_codes)
    if n == 1:
        return np.ones(1, dtype=np.int32)
    tag_codes = np.asarray(tag_codes, dtype=np.int64)
    order = np.lexsort((np.arange(n), tag_codes, parent))  # by parent, tag, preorder
    key_p = parent[order]
    key_t = tag_codes[order]
    new_group = np.ones(n, dtype=bool)
    new_group[1:] = (key_p[1:] != key_p[:-1]) | (key_t[1:] != key_t[:-1])
    idx = np.arange(n)
    group_start = np.maximum.accumulate(np.where(new_group, idx, 0))
    pos = np.empty(n, dtype=np.int32)
    pos[order] = idx - group_start + 1
    return pos


def _snippets(text: str, start: np.ndarray, length: np.ndarray) -> list[str]:
    """:func:`~graphprum.units.text_snippet` of every unit's span of ``text``.

    ``text_snippet`` collapses the first ``4 * SNIPPET_CHARS + 64``
    characters of a span; collapsing a shorter prefix of the span gives a
    prefix of that, so when the prefix already yields ``SNIPPET_CHARS``
    characters it is the snippet.  Only spans whose first
    :data:`_SNIPPET_PREFIX` characters are mostly whitespace are collapsed
    again from their full cut.

    >>> _snippets("a  b c", np.array([0, 3]), np.array([6, 0]))
    ['a b c', '']
    >>> text = "x" + " " * 200 + "y" * 300
    >>> [(s[:3], len(s)) for s in _snippets(text, np.array([0, 150]), np.array([501, 351]))]
    [('x y', 100), ('yyy', 100)]
    """
    limit, cut, prefix = SNIPPET_CHARS, 4 * SNIPPET_CHARS + 64, _SNIPPET_PREFIX
    begins, lengths = start.tolist(), length.tolist()
    out = [" ".join(text[b:b + (n if n < prefix else prefix)].split())[:limit]
           for b, n in zip(begins, lengths, strict=True)]
    short = np.fromiter(map(len, out), dtype=np.int64, count=len(out)) < limit
    for k in np.flatnonzero(short & (np.asarray(length) > prefix)).tolist():
        b = begins[k]
        out[k] = " ".join(text[b:b + min(lengths[k], cut)].split())[:limit]
    return out


#: Characters of a span collapsed first for its snippet (see :func:`_snippets`).
_SNIPPET_PREFIX = SNIPPET_CHARS + 28


def _word_counts(text: str, start: np.ndarray, length: np.ndarray) -> np.ndarray:
    """Whitespace-separated tokens of ``text[start:start+length]`` for every span.

    About 10 bytes of temporary memory per character of ``text``.

    >>> _word_counts("ab cd  e", np.array([0, 1, 3, 5]), np.array([8, 3, 2, 3])).tolist()
    [3, 2, 1, 1]
    """
    if not text:
        return np.zeros(len(start), dtype=np.int32)
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    space = _IS_SPACE.take(codes, mode="clip")  # code points past the table are not spaces
    del codes
    token_start = ~space
    token_start[1:] &= space[:-1]
    starts_before = np.cumsum(token_start, dtype=np.int64 if len(text) >= 2**31 else np.int32)
    del token_start

    def tokens_before(k: np.ndarray) -> np.ndarray:  # token starts in text[:k]
        return np.where(k > 0, starts_before[np.maximum(k - 1, 0)], 0)

    end = start + length
    counts: np.ndarray = (tokens_before(end) - tokens_before(start)).astype(np.int64)
    # a token that began before the span but continues into it counts once more
    inside = (length > 0) & (start > 0)
    s = start[inside]
    cont = ~space[s] & ~space[s - 1]
    counts[np.flatnonzero(inside)[cont]] += 1
    return counts.astype(np.int32)


#: Units per batch: large enough to amortise numpy calls, small enough for memory.
BATCH_UNITS = 1 << 14


def xml_documents(paths: Iterable[str | os.PathLike[str]],
                  links: str | Sequence[str] | None = None,
                  skip_bad: bool = False, on_file: Callable[[XmlFile, int], None] | None = None,
                  batches: bool = False, jobs: int = 1, link_counts: LinkCounts | None = None,
                  globs: Sequence[str] = (GLOB,), follow_symlinks: bool = False,
                  ) -> tuple[Generator[ParsedDocument] | Generator[DocumentBatch],
                             list[Skipped]]:
    """The documents of ``paths`` (files or directories) for a store's
    ``load_xml``, and the list of files skipped: those a directory holds
    that are not loaded (:func:`find_xml_files`, at once), and with
    ``skip_bad`` those that are not well-formed (as they are parsed).

    ``links`` are ``TAG@ATTR`` specs (one or several: an element matching
    any of them is a link, once per spec it matches); what they found is
    added to ``link_counts`` as the documents are read.

    With ``batches`` the iterator yields :class:`DocumentBatch` records of
    about :data:`BATCH_UNITS` units instead of single documents.  Paths are
    checked before anything is parsed (InputError for a missing path or a
    directory with no matching file).  ``jobs`` > 1: files are parsed in
    that many worker processes when there are enough of them
    (:func:`iter_xml_batches`).
    """
    LinkRules.of(links)  # a bad spec is refused before the paths are looked at
    skipped: list[Skipped] = []
    files = find_xml_files(paths, globs, follow_symlinks, skipped)
    rules = LinkRules.of(links, files)
    found = iter_xml_batches(files, rules, skip_bad=skip_bad, skipped=skipped, on_file=on_file,
                             jobs=jobs, link_counts=link_counts)
    if not batches:
        return (doc for batch in found for doc in batch.documents()), skipped
    return found, skipped


def iter_xml_batches(files: list[XmlFile], links: LinkRules | LinkSpec | None = None,
                     skip_bad: bool = False, skipped: list[Skipped] | None = None,
                     on_file: Callable[[XmlFile, int], None] | None = None,
                     batch_units: int = BATCH_UNITS, jobs: int = 1,
                     link_counts: LinkCounts | None = None) -> Generator[DocumentBatch]:
    """Parse ``files`` in order into batches; with ``skip_bad``, collect bad
    files in ``skipped`` and go on; what the links came to is added to
    ``link_counts``.

    With ``jobs`` > 1 and at least :data:`PARALLEL_MIN_BYTES` of XML, runs
    of consecutive files (:func:`file_pieces`) are parsed in ``jobs``
    forked workers (:func:`graphprum.workers.ordered_map`) and their batches
    come back pickled, in file order: the same documents, the same errors
    (the first bad file in file order), ``on_file`` called for the same
    files in the same order; only where batches end differs, which no store
    sees.
    """
    if isinstance(links, LinkSpec):
        links = LinkRules.of(links, files)
    counts = link_counts if link_counts is not None else LinkCounts()
    pieces = file_pieces(files, jobs)
    if pieces is None:
        parsed = _parse_files(files, links, skip_bad, batch_units, on_file,
                              skipped if skipped is not None else [], counts)
        yield from parsed.batches
        if parsed.error is not None:
            raise parsed.error
        return
    here = [_parsed_here(piece) for piece in pieces]

    def parse(_: None, k: int) -> _ParsedFiles | None:
        if here[k]:
            return None
        parsed = _parse_files(pieces[k], links, skip_bad, batch_units)
        parsed.batches = list(parsed.batches)
        return parsed

    with contextlib.closing(ordered_map(parse, None, range(len(pieces)), jobs)) as results:
        for piece, given in zip(pieces, results, strict=True):
            if given is None:  # one big file: its batches one at a time, as with one job
                parsed = _parse_files(piece, links, skip_bad, batch_units, on_file,
                                      skipped if skipped is not None else [], counts)
                yield from parsed.batches
            else:
                parsed = given
                if on_file:
                    for f, count in zip(piece, parsed.counts, strict=False):
                        on_file(f, count)
                if skipped is not None:
                    skipped.extend(parsed.skipped)
                counts.add(parsed.link_counts)
                yield from parsed.batches
            if parsed.error is not None:
                raise parsed.error


#: Parse in worker processes only above this much XML in all (forking and
#: sending the batches back cost more than they save on less).
PARALLEL_MIN_BYTES = 8 << 20
#: XML bytes per piece of work given to a worker (at most).
PIECE_BYTES = 4 << 20


def file_pieces(files: list[XmlFile], jobs: int) -> list[list[XmlFile]] | None:
    """Runs of consecutive files of about the same size in bytes, at least
    four per worker and at most :data:`PIECE_BYTES` each (a bigger file is
    a piece of its own); None when the files are parsed here: one job, no
    ``fork`` on this platform, or less than :data:`PARALLEL_MIN_BYTES` in all.
    """
    if jobs <= 1 or len(files) < 2:
        return None
    if not can_fork():
        return None
    sizes = []
    for f in files:
        try:
            sizes.append(f.path.stat().st_size)
        except OSError:
            sizes.append(0)  # the parse names the problem
    total = sum(sizes)
    if total < PARALLEL_MIN_BYTES:
        return None
    target = max(1, min(PIECE_BYTES, total // (4 * jobs)))
    pieces: list[list[XmlFile]] = [[]]
    held = 0
    for f, size in zip(files, sizes, strict=True):
        if pieces[-1] and held + size > target:
            pieces.append([])
            held = 0
        pieces[-1].append(f)
        held += size
    return pieces


def _parsed_here(piece: list[XmlFile]) -> bool:
    """Whether a piece is one file bigger than :data:`PIECE_BYTES`, parsed
    by the loading process itself: a worker sends a piece's batches back
    all at once, which for one big file would hold its whole parse in
    memory twice (the worker's pickle and the parent's copy), where one
    process holds a batch at a time."""
    try:
        return len(piece) == 1 and piece[0].path.stat().st_size > PIECE_BYTES
    except OSError:
        return True  # the parse here names the problem


@dataclass
class _ParsedFiles:
    """What parsing a run of files gives: its batches, the elements of each
    file parsed (0 for a file skipped), the files skipped, and the error
    that stopped it (a bad file without ``skip_bad``)."""

    batches: Iterator[DocumentBatch] | list[DocumentBatch]
    counts: list[int]
    skipped: list[Skipped]
    error: InputError | None = None
    link_counts: LinkCounts = field(default_factory=LinkCounts)


def _parse_files(files: list[XmlFile], links: LinkRules | None, skip_bad: bool,
                 batch_units: int, on_file: Callable[[XmlFile, int], None] | None = None,
                 skipped: list[Skipped] | None = None,
                 link_counts: LinkCounts | None = None) -> _ParsedFiles:
    """Parse ``files`` in order into batches (lazily: ``batches`` is a
    generator, the other fields fill as it runs; files skipped are added
    to ``skipped``, and the links' counts to ``link_counts``, when given)."""
    out = _ParsedFiles(iter(()), [], skipped if skipped is not None else [],
                       link_counts=link_counts if link_counts is not None else LinkCounts())

    def new_batch() -> _RawBatch:
        raw = _RawBatch(links)
        raw.link_counts = out.link_counts
        return raw

    def batches() -> Iterator[DocumentBatch]:
        raw = new_batch()
        try:
            for f in files:
                try:
                    count = raw.parse(f.path, f.name, f.root)
                except InputError as exc:
                    if not skip_bad:
                        out.error = exc
                        return
                    out.skipped.append(Skipped(exc.path, exc.line, exc.message))
                    count = 0
                out.counts.append(count)
                if on_file:
                    on_file(f, count)
                if len(raw) >= batch_units:
                    yield raw.finished()
                    raw = new_batch()
            if raw.names:
                yield raw.finished()
        finally:
            raw.close()

    out.batches = batches()
    return out
