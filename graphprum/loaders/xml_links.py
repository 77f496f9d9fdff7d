"""How an XML load finds its links: ``--links TAG@ATTR`` specs, the
targets they name (a path relative to the file, or a document's id), and
the counts of links not kept.

>>> rules = LinkRules.of("link@xref", [XmlFile(Path("h/a.page"), "a", Path("h")),
...                                    XmlFile(Path("h/b.page"), "b", Path("h"))])
>>> link_targets([(0, "b#s2", 0), (1, "#top", 0)], "h/a.page", Path("h"), rules)
[(0, 'b#s2', '')]
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from graphprum.errors import UsageError
from graphprum.loaders.xml_files import XmlFile


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


def link_targets(link_rows: list[tuple[int, str, int]], path: str | os.PathLike[str],
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
