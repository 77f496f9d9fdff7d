"""Stream XML documents into :class:`~graphprum.store.base.ParsedDocument` records.

One file is one document.  Each file is read with ``lxml.etree.iterparse``
(start and end events), so memory is bounded by the largest document, never
by the collection.  For every element the loader records (DESIGN §1.1–1.2):

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

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import numpy as np
from lxml import etree

from graphprum.errors import InputError, UsageError
from graphprum.store.base import KIND_ELEMENT, ParsedDocument

#: Lookup table: is code point c whitespace for ``str.split()``? (none above U+3000)
_IS_SPACE = np.array([chr(c).isspace() for c in range(0x3002)], dtype=bool)


@dataclass(frozen=True)
class LinkSpec:
    """Elements that become LINK edges: ``TAG@ATTR`` (``--links``).

    The attribute may be namespaced in Clark notation,
    ``collectionlink@{http://www.w3.org/1999/xlink}href``.

    >>> LinkSpec.parse("collectionlink@{http://www.w3.org/1999/xlink}href").attr
    '{http://www.w3.org/1999/xlink}href'
    """

    tag: str
    attr: str

    @classmethod
    def parse(cls, text: str) -> LinkSpec:
        tag, sep, attr = text.partition("@")
        if not sep or not tag or not attr:
            raise UsageError(f"--links {text!r}: expected TAG@ATTR, e.g. link@href")
        return cls(tag, attr)


@dataclass
class XmlFile:
    """A file to load and the document id it gets."""

    path: Path
    name: str
    root: Path


@dataclass
class Skipped:
    """A file skipped with ``--skip-bad`` and why."""

    path: str
    line: int | None
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}" if self.line else \
            f"{self.path}: {self.message}"


def find_xml_files(paths: Iterable[str | os.PathLike[str]]) -> list[XmlFile]:
    """Files to load with their document ids, in a stable order.

    A directory is searched recursively for ``*.xml`` and is the root its
    files' ids are relative to; a file given directly gets its stem as id.
    Raises InputError for a path that does not exist or a directory with no
    XML file.
    """
    out: list[XmlFile] = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            found = sorted(path.rglob("*.xml"))
            if not found:
                raise InputError(path, None, "directory holds no *.xml file")
            for f in found:
                rel = PurePosixPath(f.relative_to(path).as_posix())
                out.append(XmlFile(f, str(rel.with_suffix("")), path))
        elif path.is_file():
            out.append(XmlFile(path, path.stem, path.parent))
        elif path.exists():
            raise InputError(path, None, "not a regular file or directory")
        else:
            raise InputError(path, None, "no such file or directory")
    seen: dict[str, Path] = {}
    for f in out:
        if f.name in seen:
            raise InputError(f.path, None,
                             f"document id {f.name!r} is also given by {seen[f.name]}")
        seen[f.name] = f.path
    return out


def parse_xml_file(path: str | os.PathLike[str], name: str,
                   links: LinkSpec | None = None, root_dir: Path | None = None) -> ParsedDocument:
    """Parse one XML file into a :class:`ParsedDocument` (see module docstring).

    Parameters
    ----------
    path : path-like
        The XML file.
    name : str
        Its document id.
    links : LinkSpec, optional
        Elements that are links; their targets (file paths relative to the
        file, or absolute within ``root_dir``) become document ids.
    root_dir : Path, optional
        The loaded root, to turn link targets into document ids.

    Raises
    ------
    InputError
        The file is not well-formed XML (names the line) or cannot be read.
    """
    tags: list[str] = []
    paths: list[str] = []
    parent: list[int] = []
    depth: list[int] = []
    start: list[int] = []
    end: list[int] = []
    size: list[int] = []
    link_rows: list[tuple[int, str]] = []
    names: dict[str, str] = {}
    stack: list[int] = []
    path_stack: list[str] = [""]
    link_tag = links.tag if links else None
    # A text cursor: the text between two consecutive events is the .text of
    # the element whose start came before, or the .tail of the element,
    # comment or PI that ended/occurred before.  All of it has been parsed
    # when the later event is reported, so offsets need no child iteration.
    cursor = 0
    prev = None
    prev_was_start = False
    try:
        context = etree.iterparse(
            os.fspath(path), events=("start", "end", "comment", "pi"), load_dtd=False,
            no_network=True, huge_tree=True, resolve_entities="internal",
        )
        for event, el in context:
            if prev is not None:
                text = prev.text if prev_was_start else prev.tail
                if text:
                    cursor += len(text)
            prev = el
            if event == "start":
                tag = el.tag
                name_ = names.get(tag)
                if name_ is None:
                    name_ = _tag_name(el, names)
                row = len(tags)
                parent.append(stack[-1] if stack else -1)
                depth.append(len(stack))
                path_ = path_stack[-1] + "/" + name_
                tags.append(name_)
                paths.append(path_)
                start.append(cursor)
                end.append(0)
                size.append(0)
                stack.append(row)
                path_stack.append(path_)
                prev_was_start = True
                if name_ == link_tag:
                    target = el.get(links.attr)  # type: ignore[union-attr]
                    if target:
                        link_rows.append((row, target))
            elif event == "end":
                row = stack.pop()
                path_stack.pop()
                end[row] = cursor
                size[row] = len(tags) - row
                prev_was_start = False
            else:
                prev_was_start = False
        root = context.root
    except etree.XMLSyntaxError as exc:
        line = exc.lineno if exc.lineno else None
        msg = (exc.msg or str(exc)).strip()
        msg = msg.rsplit(", line ", 1)[0] if ", line " in msg else msg
        raise InputError(path, line, f"not well-formed XML: {msg}") from None
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror or exc}") from None
    if root is None or not tags:
        raise InputError(path, None, "no root element")
    text = "".join(root.itertext())
    return _finish(name, os.fspath(path), tags, paths, parent, depth, start, end, size,
                   text, _link_targets(link_rows, path, root_dir))


def _tag_name(el: etree._Element, names: dict[str, str]) -> str:
    """Tag as written: ``prefix:local`` for namespaced tags (cached when unambiguous)."""
    tag = el.tag
    if tag[0] != "{":
        names[tag] = tag
        return tag
    prefix = el.prefix
    local = tag.rpartition("}")[2]
    # A namespaced tag is not cached: one URI may be written with several prefixes.
    return f"{prefix}:{local}" if prefix else local


def _link_targets(link_rows: list[tuple[int, str]], path: str | os.PathLike[str],
                  root_dir: Path | None) -> list[tuple[int, str, str]]:
    """Turn link attribute values into target document ids."""
    if not link_rows:
        return []
    here = Path(path).resolve().parent
    root = (root_dir if root_dir is not None else here).resolve()
    out = []
    for row, target in link_rows:
        target = target.split("#", 1)[0]
        if not target:
            continue
        resolved = Path(os.path.normpath(here / target))
        try:
            rel = PurePosixPath(resolved.relative_to(root).as_posix())
        except ValueError:
            continue  # leaves the loaded root
        out.append((row, str(rel.with_suffix("")), ""))
    return out


def _finish(name: str, source: str, tags: list[str], paths: list[str], parent: list[int],
            depth: list[int], start: list[int], end: list[int], size: list[int], text: str,
            links: list[tuple[int, str, str]]) -> ParsedDocument:
    """Vectorised second half: positions, postorder and word counts."""
    n = len(tags)
    parent_a = np.asarray(parent, dtype=np.int32)
    depth_a = np.asarray(depth, dtype=np.int16)
    start_a = np.asarray(start, dtype=np.int64)
    length_a = np.asarray(end, dtype=np.int64) - start_a
    size_a = np.asarray(size, dtype=np.int32)
    if length_a[0] != len(text):  # pragma: no cover - guards the offset arithmetic
        raise InputError(source, None, "internal error: text length mismatch")
    pre = np.arange(n, dtype=np.int64)
    # nodes finished before i: those before it in preorder that are not its
    # ancestors (pre - depth) plus its descendants (size - 1)
    post_a = (pre - depth_a + size_a - 1).astype(np.int32)
    words = _word_counts(text, start_a, length_a)
    columns = {
        "kind": np.full(n, KIND_ELEMENT, dtype=np.int8),
        "parent": parent_a,
        "depth": depth_a,
        "post": post_a,
        "size": size_a,
        "pos": _sibling_positions(parent_a, tags),
        "start": start_a.astype(np.float64),
        "length": length_a.astype(np.float64),
        "words": words,
    }
    return ParsedDocument(name, source, KIND_ELEMENT, tags, paths, columns, links)


def _sibling_positions(parent: np.ndarray, tags: list[str]) -> np.ndarray:
    """1-based position of every element among its same-tag siblings."""
    n = len(tags)
    if n == 1:
        return np.ones(1, dtype=np.int32)
    codes: dict[str, int] = {}
    tag_codes = np.array([codes.setdefault(t, len(codes)) for t in tags], dtype=np.int64)
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


def _word_counts(text: str, start: np.ndarray, length: np.ndarray) -> np.ndarray:
    """Whitespace-separated tokens of ``text[start:start+length]`` for every span."""
    if not text:
        return np.zeros(len(start), dtype=np.int32)
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    space = _IS_SPACE[np.minimum(codes, 0x3001)]
    token_start = ~space
    token_start[1:] &= space[:-1]
    prefix = np.concatenate(([0], np.cumsum(token_start, dtype=np.int64)))
    end = start + length
    counts = prefix[end] - prefix[start]
    # a token that began before the span but continues into it counts once more
    inside = (length > 0) & (start > 0)
    s = start[inside]
    cont = ~space[s] & ~space[s - 1]
    counts[np.flatnonzero(inside)[cont]] += 1
    return counts.astype(np.int32)


def xml_documents(paths: Iterable[str | os.PathLike[str]], links: str | None = None,
                  skip_bad: bool = False, on_file: Callable[[XmlFile, int], None] | None = None,
                  ) -> tuple[Iterator[ParsedDocument], list[Skipped]]:
    """The documents of ``paths`` (files or directories) for a store's
    ``load_xml``, and the list that collects files skipped with ``skip_bad``.

    Paths are checked before anything is parsed (InputError for a missing
    path or a directory with no XML file).
    """
    spec = LinkSpec.parse(links) if links else None
    files = find_xml_files(paths)
    skipped: list[Skipped] = []
    return iter_xml_documents(files, spec, skip_bad=skip_bad, skipped=skipped,
                              on_file=on_file), skipped


def iter_xml_documents(files: list[XmlFile], links: LinkSpec | None = None,
                       skip_bad: bool = False,
                       skipped: list[Skipped] | None = None,
                       on_file: Callable[[XmlFile, int], None] | None = None,
                       ) -> Iterator[ParsedDocument]:
    """Parse ``files`` one by one; with ``skip_bad``, collect bad ones in ``skipped``."""
    for f in files:
        try:
            doc = parse_xml_file(f.path, f.name, links, f.root)
        except InputError as exc:
            if not skip_bad:
                raise
            if skipped is not None:
                skipped.append(Skipped(exc.path, exc.line, exc.message))
            if on_file:
                on_file(f, 0)
            continue
        if on_file:
            on_file(f, len(doc.tags))
        yield doc
