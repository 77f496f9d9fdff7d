"""Which files an XML load reads and the document ids they get: the files
of a directory whose names match ``--glob`` (``*.xml`` by default), ids
relative to it; what the directory holds instead when nothing matches.

>>> import tempfile
>>> d = Path(tempfile.mkdtemp())
>>> (d / "sub").mkdir()
>>> _ = (d / "sub" / "b.xml").write_text("<b/>"), (d / "a.xml").write_text("<a/>")
>>> [f.name for f in find_xml_files([d])]
['a', 'sub/b']
"""

from __future__ import annotations

import fnmatch
import os
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from graphprum.errors import InputError
from graphprum.loaders.files import Listing, Skipped, scan
from graphprum.loaders.names import check_document_id, utf8_path


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
