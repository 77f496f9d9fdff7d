"""Stream a web site (a directory of HTML files) as :class:`ParsedDocument` records.

Every ``.html``/``.htm`` file under the root (extension matched without
regard to case) is one page; its id is its POSIX path relative to the root,
extension kept (DESIGN §1.1): ``library/os.html``.  Pages are parsed with
libxml2's forgiving HTML parser (the one ``lxml.html`` uses, without its
Python element classes), so broken markup never stops a load.  The
character encoding is a byte-order mark, else a ``<meta>`` charset
declaration in the first 4 KiB, else UTF-8.

Links
-----
``<a href>`` and ``<area href>`` are resolved as a browser resolves them:
against the page's URL, or against the first ``<base href>`` of the page;
``.`` and ``..`` segments are removed, fragments and queries stripped,
percent-escapes decoded (UTF-8), ``\\`` read as ``/``, a path starting with
``/`` taken from the site root, and a directory (trailing ``/``, or a name
that is a directory on disk) replaced by its ``index.html`` (or
``index.htm``).  A resolved link is *stored* as a LINK edge, with its
multiplicity and its anchor text (the ``<a>`` text content, whitespace runs
collapsed to one space; for ``<area>`` the ``alt`` attribute), only when it
leads to another page of the site.  Everything else is counted in
:class:`SiteStats` and not stored:

- ``external``: another scheme (``http:``, ``mailto:``, ``javascript:``,
  ...), a network path ``//host/...``, or any relative link under an
  external ``<base href>``;
- ``outside``: a relative path whose ``..`` segments climb above the site
  root (the loaded directory may be part of a larger site); a path from the
  root stays in it, as in a browser (``/../x`` is ``/x``);
- ``missing``: a path inside the site where no file is;
- ``non_page``: an existing file that is not a page (an image, a PDF);
- ``same_page``: a link back to the page itself (``#sec``, ``?q``, ``""``,
  or its own file name) -- in-page navigation, not a move to another unit.

Units
-----
Without ``elements`` a page is one unit of kind KIND_PAGE (tag ``page``,
label path ``/page``), whose ``length`` is the number of characters of the
page's text content ``''.join(root.itertext())`` (DESIGN §1.2: all text,
``<script>``/``<style>`` text included, comments excluded) and ``words`` its
whitespace-separated tokens; its links leave from local row 0.

With ``elements`` the page's element tree is stored as for XML (kind
KIND_ELEMENT; ids ``PAGE#XPATH`` with every step positional among same-tag
siblings, comments and PIs not counted; ``start``/``length`` offsets in the
page's text content).  A link is held by the row of its ``<a>``/``<area>``
element (and so by every element around it: a unit's out-links are the
links in its subtree, the root's all the page's) and arrives at the target
page's root element, or at the element its ``#fragment`` names (``id``, or
``name`` of an ``<a>``; the target is stored as ``page.html#fragment`` and
resolved by the store).  Tag names are as lxml.html reports them (lower
case).

Examples
--------
>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> (d / "lib").mkdir()
>>> _ = (d / "index.html").write_text(
...     '<p>See <a href="lib/os.html#x">os</a>, <a href="lib/">lib</a>, '
...     '<a href="http://python.org">py</a>, <a href="gone.html">?</a>')
>>> _ = (d / "lib" / "index.html").write_text("<title>Lib</title>")
>>> _ = (d / "lib" / "os.html").write_text("<p>The os module <a href=../index.html>up")
>>> site = load_site(d)
>>> [(doc.name, doc.links) for doc in site]  # doctest: +NORMALIZE_WHITESPACE
[('index.html', [(0, 'lib/os.html', 'os'), (0, 'lib/index.html', 'lib')]),
 ('lib/index.html', []),
 ('lib/os.html', [(0, 'index.html', 'up')])]
>>> site.stats.pages, site.stats.links, site.stats.external, site.stats.missing
(3, 3, 1, 1)
>>> doc = next(iter(load_site(d, elements=True)))
>>> doc.name, doc.tags
('index.html', ['html', 'body', 'p', 'a', 'a', 'a', 'a'])
>>> doc.links  # held by the <a> rows; the fragment names an element of os.html
[(3, 'lib/os.html#x', 'os'), (4, 'lib/index.html', 'lib')]
"""

from __future__ import annotations

import codecs
import gc
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from urllib.parse import unquote

import numpy as np
from lxml import etree

from graphprum.errors import InputError
from graphprum.loaders.files import read_bytes
from graphprum.loaders.spans import sibling_positions, word_counts
from graphprum.loaders.web_links import (
    URL_SPACE,
    LinkResolver,
    SiteIndex,
)
from graphprum.units import (
    KIND_ELEMENT,
    KIND_PAGE,
    ParsedDocument,
    encode_vocabulary,
    text_snippet,
)

_META_CHARSET = re.compile(
    rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_\-:.]+)""", re.IGNORECASE)


@dataclass
class SiteStats:
    """What a site load found (shown by ``info``).

    Attributes
    ----------
    pages : int
        Pages loaded.
    units : int
        Units stored (pages, or elements with ``elements=True``).
    links : int
        LINK edges stored (to another page of the site, multiplicity kept).
    external, outside, missing, non_page, same_page : int
        Links counted and not stored (see the module notes).
    links_by_page : dict of str to int
        Stored links leaving each page (pages with none are absent).
    """

    pages: int = 0
    units: int = 0
    links: int = 0
    external: int = 0
    outside: int = 0
    missing: int = 0
    non_page: int = 0
    same_page: int = 0
    links_by_page: dict[str, int] = field(default_factory=dict)

    @property
    def dropped(self) -> int:
        """Links found and not stored."""
        return self.external + self.outside + self.missing + self.non_page + self.same_page



def _encoding(data: bytes) -> str:
    """BOM, else <meta charset> in the first 4 KiB, else UTF-8."""
    if data.startswith(b"\xef\xbb\xbf"):
        return "utf-8"
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    m = _META_CHARSET.search(data[:4096])
    if m:
        name = m.group(1).decode("ascii", "replace").lower()
        try:
            return codecs.lookup(name).name
        except LookupError:
            pass
    return "utf-8"


_PARSERS: dict[str, etree.HTMLParser] = {}
#: Deepest element nesting libxml2 parses with ``huge_tree`` (without it, 256:
#: a page of 255 nested ``<div>`` lost all its text).  Deeper pages are
#: refused rather than loaded with their content cut.
MAX_DEPTH = 2048


def parse_html(data: bytes, source: str | os.PathLike[str] = "<html>") -> etree._Element:
    """The root ``<html>`` element of a page (empty pages give an empty ``<html>``).

    The parser forgives broken markup; it stops only at a resource limit
    (nesting deeper than :data:`MAX_DEPTH`), and then the page is refused:
    InputError naming ``source`` and the line, never a page cut short.

    >>> deep = b"<div>" * 2100 + b"text"
    >>> try:
    ...     parse_html(deep, "deep.html")
    ... except InputError as exc:
    ...     print(str(exc)[:57])
    deep.html:1: nesting deeper than 2048 elements (libxml2's
    """
    enc = _encoding(data)
    parser = _PARSERS.get(enc)
    if parser is None:
        parser = _PARSERS[enc] = etree.HTMLParser(encoding=enc, huge_tree=True)
    # lxml.html's parser, without its Python element-class lookup (3x slower)
    try:
        root = etree.fromstring(data, parser)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError):
        root = None
    fatal = [e for e in parser.error_log if e.level_name == "FATAL"]
    if fatal:
        what = f"nesting deeper than {MAX_DEPTH} elements (libxml2's limit)" \
            if fatal[0].type_name == "ERR_RESOURCE_LIMIT" else f"cannot be parsed: " \
            f"{' '.join(fatal[0].message.split())[:100]}"
        raise InputError(source, fatal[0].line or None, f"{what}; refused rather than loaded "
                                                        f"with its content cut")
    return root if root is not None else etree.fromstring(b"<html></html>", parser)


def _anchor(el: etree._Element, text: str | None = None) -> str:
    """Anchor text of a link element, whitespace runs collapsed."""
    if el.tag == "area":
        return " ".join((el.get("alt") or "").split())
    if text is None:
        text = _text_of(el)
    return " ".join(text.split())


def _text_of(el: etree._Element) -> str:
    """``''.join(el.itertext())`` without the tail, serialised in C (faster)."""
    return str(etree.tostring(el, method="text", encoding=str, with_tail=False))


def _base_href(root: etree._Element) -> str | None:
    for base in root.iter("base"):
        href = base.get("href")
        if href is not None:
            return str(href)
    return None


def _collect(resolver: LinkResolver, row: int, el: etree._Element, text: str | None,
             links: list[tuple[int, str, str]], stats: SiteStats,
             fragments: bool = False) -> None:
    """Add the link of ``el`` (or count it, not stored); with ``fragments``
    its target keeps the ``#fragment`` that names an element of the page."""
    href = el.get("href")
    if href is None:
        return
    target = resolver.resolve(href)
    if target[0] == "\0":
        name = target[1:]
        setattr(stats, name, getattr(stats, name) + 1)
        return
    fragment = href.strip(URL_SPACE).partition("#")[2] if fragments else ""
    links.append((row, f"{target}#{unquote(fragment)}" if fragment else target,
                  _anchor(el, text)))


def parse_page(path: str | os.PathLike[str], page: str, index: SiteIndex,
               elements: bool = False, stats: SiteStats | None = None) -> ParsedDocument:
    """Parse one page into a :class:`ParsedDocument` (see the module notes).

    Parameters
    ----------
    path : path-like
        The HTML file.
    page : str
        Its page id (path relative to the site root).
    index : SiteIndex
        The site's files, to resolve links.
    elements : bool
        Store the element tree instead of one page unit.
    stats : SiteStats, optional
        Updated with the link counts and the page's units.
    """
    if stats is None:
        stats = SiteStats()
    root = parse_html(read_bytes(path), path)
    resolver = LinkResolver(index, page, _base_href(root))
    links: list[tuple[int, str, str]] = []
    if elements:
        doc = _element_document(root, page, os.path.abspath(path), resolver, links, stats)
    else:
        text = _text_of(root)
        for el in root.iter("a", "area"):
            _collect(resolver, 0, el, None, links, stats)
        columns: dict[str, np.ndarray] = {
            "kind": np.full(1, KIND_PAGE, dtype=np.int8),
            "parent": np.full(1, -1, dtype=np.int32),
            "depth": np.zeros(1, dtype=np.int16),
            "post": np.zeros(1, dtype=np.int32),
            "size": np.ones(1, dtype=np.int32),
            "pos": np.ones(1, dtype=np.int32),
            "start": np.zeros(1),
            "length": np.full(1, float(len(text))),
            "words": np.full(1, len(text.split()), dtype=np.int32),
        }
        title = root.find(".//title")
        doc = ParsedDocument(page, os.path.abspath(path), KIND_PAGE, ["page"], ["/page"],
                             columns, links,
                             texts=[text_snippet(_text_of(title)) if title is not None else ""])
    stats.pages += 1
    stats.units += len(doc.tags)
    stats.links += len(links)
    if links:
        stats.links_by_page[page] = len(links)
    return doc


def _element_document(root: etree._Element, page: str, source: str,
                      resolver: LinkResolver, links: list[tuple[int, str, str]],
                      stats: SiteStats) -> ParsedDocument:
    """The element tree of a page, offsets by a text cursor over a tree walk."""
    tags: list[str] = []
    paths: list[str] = []
    parent: list[int] = []
    depth: list[int] = []
    start: list[int] = []
    end: list[int] = []
    size: list[int] = []
    link_rows: list[tuple[int, etree._Element]] = []
    attributes: list[tuple[int, dict[str, str]]] = []
    stack: list[int] = []
    path_stack = [""]
    cursor = 0
    prev = None
    prev_was_start = False
    for event, el in etree.iterwalk(root, events=("start", "end", "comment", "pi")):
        if prev is not None:
            text = prev.text if prev_was_start else prev.tail
            if text:
                cursor += len(text)
        prev = el
        if event == "start":
            tag = el.tag
            row = len(tags)
            parent.append(stack[-1] if stack else -1)
            depth.append(len(stack))
            label = path_stack[-1] + "/" + tag
            tags.append(tag)
            paths.append(label)
            start.append(cursor)
            end.append(0)
            size.append(0)
            stack.append(row)
            path_stack.append(label)
            prev_was_start = True
            if len(el.attrib):  # items(): el.attrib[name] fails on a control character
                attributes.append((row, dict(el.items())))
            if tag == "a" or tag == "area":
                link_rows.append((row, el))
        elif event == "end":
            row = stack.pop()
            path_stack.pop()
            end[row] = cursor
            size[row] = len(tags) - row
            prev_was_start = False
        else:
            prev_was_start = False
    text = "".join(root.itertext())
    n = len(tags)
    start_a = np.asarray(start, dtype=np.int64)
    length_a = np.asarray(end, dtype=np.int64) - start_a
    if length_a[0] != len(text):  # pragma: no cover - guards the offset arithmetic
        raise InputError(source, None, "internal error: text length mismatch")
    for row, el in link_rows:
        s = int(start_a[row])
        _collect(resolver, row, el, text[s:s + int(length_a[row])], links, stats, True)
    parent_a = np.asarray(parent, dtype=np.int32)
    depth_a = np.asarray(depth, dtype=np.int16)
    size_a = np.asarray(size, dtype=np.int32)
    post_a = (np.arange(n, dtype=np.int64) - depth_a + size_a - 1).astype(np.int32)
    columns: dict[str, np.ndarray] = {
        "kind": np.full(n, KIND_ELEMENT, dtype=np.int8),
        "parent": parent_a,
        "depth": depth_a,
        "post": post_a,
        "size": size_a,
        "pos": sibling_positions(parent_a, encode_vocabulary(tags)[0]),
        "start": start_a.astype(np.float64),
        "length": length_a.astype(np.float64),
        "words": word_counts(text, start_a, length_a),
    }
    texts = [text_snippet(text[s:s + n]) if n else ""
             for s, n in zip(start_a.tolist(), length_a.tolist(), strict=True)]
    return ParsedDocument(page, source, KIND_ELEMENT, tags, paths, columns, links, texts,
                          attributes)


class SiteLoad:
    """Iterator over a site's pages; :attr:`stats` fills in as pages are read.

    Returned by :func:`load_site`.
    """

    def __init__(self, root: str | os.PathLike[str], elements: bool = False,
                 progress: Callable[[str, int], None] | None = None,
                 follow_symlinks: bool = False, stored: Iterable[str] = ()) -> None:
        self.index = SiteIndex.scan(root, follow_symlinks)
        for page in stored:  # a page of the store is a page of the site
            self.index.files.add(page)
            parts = page.split("/")[:-1]
            self.index.dirs.update("/".join(parts[:i]) for i in range(1, len(parts) + 1))
        self.elements = elements
        self.progress = progress
        self.stats = SiteStats()
        self._it = self._pages()

    def _pages(self) -> Iterator[ParsedDocument]:
        root = self.index.root
        for page in self.index.pages:
            paused = gc.isenabled()
            gc.disable()  # a page makes many small objects and no cycles
            try:
                doc = parse_page(root / page, page, self.index, self.elements, self.stats)
            finally:
                if paused:
                    gc.enable()
            if self.progress is not None:
                self.progress(page, len(doc.tags))
            yield doc

    def __iter__(self) -> SiteLoad:
        return self

    def __next__(self) -> ParsedDocument:
        return next(self._it)


def load_site(root: str | os.PathLike[str], elements: bool = False,
              progress: Callable[[str, int], None] | None = None,
              follow_symlinks: bool = False, stored: Iterable[str] = ()) -> SiteLoad:
    """Pages of the site under ``root``, one :class:`ParsedDocument` each.

    Parameters
    ----------
    root : path-like
        The site's root directory (page ids are relative to it).
    elements : bool
        Store each page's element tree (``load web --elements``).
    progress : callable, optional
        Called as ``progress(page_id, units)`` after each page.
    follow_symlinks : bool
        Also load symbolic links to pages outside ``root`` (else skipped
        with a note in ``index.skipped``, as FIFOs and devices are).
    stored : iterable of str
        Ids of the pages a store holds already: links lead to them as to
        pages under ``root`` (``load web DIR --replace`` of a changed page
        keeps its links to the pages it did not bring again).

    Returns
    -------
    SiteLoad
        An iterator of ParsedDocument (pages in sorted path order) whose
        ``stats`` (:class:`SiteStats`) is complete once it is exhausted.

    Raises
    ------
    InputError
        ``root`` is not a directory or holds no page; a page cannot be read.
    """
    return SiteLoad(root, elements, progress, follow_symlinks, stored)
