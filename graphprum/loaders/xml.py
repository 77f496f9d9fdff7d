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

#: Code points that ``str.split()`` treats as whitespace.
_WHITESPACE = np.array(
    [c for c in range(0x3001) if chr(c).isspace()], dtype=np.uint32
)


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
            raise InputError(f.path, None, f"document id {f.name!r} is also given by {seen[f.name]}")
        seen[f.name] = f.path
    return out


class _TagNames(dict):
    """Cache of lxml tag -> tag as written (prefix:local for namespaced tags)."""

    def name(self, el: etree._Element) -> str:
        tag = el.tag
        prefix = el.prefix
        local = tag.rpartition("}")[2]
        name = f"{prefix}:{local}" if prefix else local
        self[tag, prefix] = name
        return name


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
    pos: list[int] = []
    depth: list[int] = []
    rel: list[int] = []  # offset of an element's text within its parent's
    length: list[int] = []
    post: list[int] = []
    link_rows: list[tuple[int, str]] = []
    names = _TagNames()
    stack: list[tuple[int, dict[str, int], list[int], str]] = []
    n_post = 0
    link_tag = links.tag if links else None
    try:
        context = etree.iterparse(
            os.fspath(path), events=("start", "end"), load_dtd=False, no_network=True,
            huge_tree=True, remove_blank_text=False, resolve_entities="internal",
        )
        for event, el in context:
            if event == "start":
                row = len(tags)
                name_ = names.get((el.tag, el.prefix)) or names.name(el)
                if stack:
                    prow, counts, kids, ppath = stack[-1]
                    k = counts.get(name_, 0) + 1
                    counts[name_] = k
                    kids.append(row)
                    parent.append(prow)
                    depth.append(len(stack))
                else:
                    k = 1
                    ppath = ""
                    parent.append(-1)
                    depth.append(0)
                path_ = f"{ppath}/{name_}"
                tags.append(name_)
                paths.append(path_)
                pos.append(k)
                rel.append(0)
                length.append(0)
                post.append(0)
                stack.append((row, {}, [], path_))
                if name_ == link_tag:
                    target = el.get(links.attr)  # type: ignore[union-attr]
                    if target:
                        link_rows.append((row, target))
            else:
                row, _, kids, _ = stack.pop()
                text = el.text
                cur = len(text) if text else 0
                i = 0
                for child in el:
                    if child.tag.__class__ is str:
                        r = kids[i]
                        i += 1
                        rel[r] = cur
                        cur += length[r]
                    tail = child.tail
                    if tail:
                        cur += len(tail)
                length[row] = cur
                post[row] = n_post
                n_post += 1
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
    return _finish(name, os.fspath(path), tags, paths, parent, pos, depth, rel, length, post,
                   text, _link_targets(link_rows, path, root_dir))


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
            pos: list[int], depth: list[int], rel: list[int], length: list[int],
            post: list[int], text: str, links: list[tuple[int, str, str]]) -> ParsedDocument:
    """Vectorised second half: offsets, subtree sizes and word counts."""
    n = len(tags)
    parent_a = np.asarray(parent, dtype=np.int32)
    depth_a = np.asarray(depth, dtype=np.int16)
    rel_a = np.asarray(rel, dtype=np.int64)
    length_a = np.asarray(length, dtype=np.int64)
    post_a = np.asarray(post, dtype=np.int32)
    if length_a[0] != len(text):  # pragma: no cover - guards the offset arithmetic
        raise InputError(source, None, "internal error: text length mismatch")
    start = np.zeros(n, dtype=np.int64)
    order = np.argsort(depth_a, kind="stable")
    bounds = np.searchsorted(depth_a[order], np.arange(int(depth_a.max()) + 2))
    for d in range(1, len(bounds) - 1):
        rows = order[bounds[d]:bounds[d + 1]]
        start[rows] = start[parent_a[rows]] + rel_a[rows]
    # subtree size from pre/post: size = post - pre + depth-adjusted... use counts
    pre = np.arange(n, dtype=np.int64)
    # In preorder, the subtree of i is [i, i + size): size = post[i] - pre[i] + depth[i] + 1
    size = (post_a.astype(np.int64) - pre + depth_a.astype(np.int64) + 1).astype(np.int32)
    words = _word_counts(text, start, length_a)
    columns = {
        "kind": np.full(n, KIND_ELEMENT, dtype=np.int8),
        "parent": parent_a,
        "depth": depth_a,
        "post": post_a,
        "size": size,
        "pos": np.asarray(pos, dtype=np.int32),
        "start": start.astype(np.float64),
        "length": length_a.astype(np.float64),
        "words": words,
    }
    return ParsedDocument(name, source, KIND_ELEMENT, tags, paths, columns, links)


def _word_counts(text: str, start: np.ndarray, length: np.ndarray) -> np.ndarray:
    """Whitespace-separated tokens of ``text[start:start+length]`` for every span."""
    if not text:
        return np.zeros(len(start), dtype=np.int32)
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    space = np.isin(codes, _WHITESPACE)
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
