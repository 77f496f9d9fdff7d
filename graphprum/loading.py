"""The one path from a source of documents to a store, for every backend.

Each function here reads one kind of source with its loader
(:mod:`graphprum.loaders`) and hands the stream of parsed documents to
``store.load_documents``, which writes it all or nothing.  Loaders know no
store and stores know no loader, so every source kind loads into every
backend (memory, embedded, Bolt) through the same code.

Examples
--------
>>> import tempfile, pathlib
>>> from graphprum.store.memory import MemoryStore
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "x.xml").write_text("<a><b>hi</b><b/></a>")
>>> store = MemoryStore()
>>> load_xml(store, [d / "x.xml"]).elements
3
>>> store.resolve(["x#/a[1]/b[2]"]).tolist()
[2]
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from graphprum.errors import InputError, UsageError
from graphprum.loaders.linklist import read_link_list
from graphprum.loaders.video import read_videos
from graphprum.loaders.xml_links import LinkCounts, LinkRules
from graphprum.store.base import Store
from graphprum.units import DocumentBatch, LoadReport, ParsedDocument
from graphprum.workers import cpu_count

PathLike = str | os.PathLike[str]

#: Parsing workers of ``load_xml`` by default at most: this process turns
#: their batches into the store's columns, about a fifth of the work of a
#: load, so more workers than about four wait for it (and each holds its
#: own ~150 MB).
AUTO_MAX_PARSERS = 4


def as_store(store: object) -> Store:
    """``store`` itself, or the store a :class:`~graphprum.collection.Collection`
    (what :func:`graphprum.open_store` returns) holds.

    >>> import tempfile
    >>> from graphprum.store.local import LocalStore
    >>> s = LocalStore(tempfile.mkdtemp() + "/s")
    >>> as_store(s) is s
    True
    """
    if isinstance(store, Store):
        return store
    inner = getattr(store, "store", None)
    if isinstance(inner, Store):
        return inner
    raise UsageError(f"expected a store (graphprum.open_store), got {type(store).__name__}")


def as_paths(paths: PathLike | Iterable[PathLike]) -> list[PathLike]:
    """One path (never its characters) or several, as a list.

    >>> as_paths("a/b"), as_paths(["a", "b"])
    (['a/b'], ['a', 'b'])
    """
    if isinstance(paths, str | os.PathLike):
        return [paths]
    return list(paths)


def load_xml(store: Store, paths: PathLike | Iterable[PathLike], *,
             links: str | Sequence[str] | None = None,
             replace: bool = False, skip_bad: bool = False,
             on_file: Callable[[Any, int], None] | None = None,
             jobs: int | str | None = None, globs: Iterable[str] = ("*.xml",),
             follow_symlinks: bool = False) -> LoadReport:
    """Load XML files and directories (recursively ``*.xml``) into ``store``.

    Parameters
    ----------
    store : Store
        Any backend (or the Collection :func:`graphprum.open_store` gives).
    paths : path-like or iterable of path-like
        Files or directories.
    links : str or list of str, optional
        ``TAG@ATTR`` (one or several): those elements become LINK edges to
        the target document (or the element its fragment names).  The
        report's ``links_matched`` says how many elements each
        matched, and the store's link statistics count the links not
        stored (to a place in their own document only, leaving the root).
    replace : bool
        Replace documents whose id is already stored (else an error).
    skip_bad : bool
        Skip files that are not well-formed and list them in the report.
    on_file : callable, optional
        Called as ``on_file(xml_file, n_elements)`` after each file.
    jobs : int or "auto", optional
        Processes that parse the files (default ``"auto"``, also None: one
        per CPU, at most :data:`AUTO_MAX_PARSERS`); they are used only when
        the files hold at least
        :data:`~graphprum.loaders.xml_batches.PARALLEL_MIN_BYTES` of XML.  The store
        gets the same bytes whatever the number.
    globs : iterable of str
        Which files of a directory are documents (``fnmatch`` patterns of
        their names; ids drop the extension).
    follow_symlinks : bool
        Also load symbolic links to files outside a loaded directory (else
        skipped, as FIFOs and devices are: the report's ``skipped`` lists
        them).
    """
    from graphprum.loaders.xml_batches import xml_documents  # lxml: XML loads only
    store = as_store(store)
    paths = as_paths(paths)
    if jobs is None or jobs == "auto":
        jobs = min(cpu_count(), AUTO_MAX_PARSERS)
    elif isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise UsageError(f"jobs must be a positive integer or 'auto', got {jobs!r}")
    specs = [links] if isinstance(links, str) else list(links or [])
    counts = LinkCounts()
    docs, skipped = xml_documents(paths, specs, skip_bad, on_file, batches=True, jobs=jobs,
                                  link_counts=counts,
                                  globs=[globs] if isinstance(globs, str) else list(globs),
                                  follow_symlinks=follow_symlinks)
    stats: dict[str, int] = {}

    def batches() -> Iterator[Any]:
        yield from refuse_files_stored_under_other_ids(store, docs)
        if specs:  # read by the store once the documents are in
            stats.update(links_within_document=counts.within_document,
                         links_leaving_root=counts.leaving_root)

    with contextlib.closing(docs):  # an error in the store ends the parsing workers too
        report = store.load_documents(batches(), replace=replace,
                                      description={"kind": "xml",
                                                   "paths": [str(p) for p in paths],
                                                   "links": specs or None},
                                      link_stats=stats)
    report.skipped = skipped
    rules = LinkRules.of(specs)
    if rules is not None:
        report.links_matched = {s: counts.matched.get(s, 0) for s in map(str, rules.specs)}
        report.extra.update(stats)
    return report


def refuse_files_stored_under_other_ids(store: Store, docs: Iterable[Any]) -> Iterator[Any]:
    """``docs`` (documents or batches of them) as they come, an InputError
    at a file the store holds already under another id: the same directory
    given from another level (its parent, say) would store the collection a
    second time, the ids prefixed by the directory's name."""
    stored: dict[str, str] | None = None
    for doc in docs:
        if stored is None:  # sources as given then, read from here (where loads are run)
            table = store.documents()
            stored = {os.path.abspath(s): n for s, n in zip(table["source"], table["name"],
                                                             strict=True) if s}
        if stored:
            pairs = zip(doc.names, doc.sources, strict=True) if isinstance(doc, DocumentBatch) \
                else [(doc.name, doc.source)]
            for name, source in pairs:
                was = stored.get(os.path.abspath(source))
                if was is not None and was != name:
                    raise InputError(source, None, f"this file is stored already, as document "
                                     f"{was!r}; loaded as {name!r} it would be stored twice: "
                                     f"load the directory it was loaded from (ids are "
                                     f"paths relative to the directory given)")
        yield doc


def load_web(store: Store, root: PathLike, *, elements: bool = False, replace: bool = False,
             on_file: Callable[[str, int], None] | None = None,
             follow_symlinks: bool = False) -> LoadReport:
    """Load an HTML site: one page unit per ``.html``/``.htm`` file (or its
    element tree with ``elements``) and LINK edges between pages.

    Links leaving the site or pointing to missing files are counted (in the
    report's ``extra`` and the store's ``info``) but not stored.  Pages that
    are not regular files, or symbolic links leaving ``root`` (unless
    ``follow_symlinks``), are skipped and listed in the report's ``skipped``.
    """
    from graphprum.loaders.web import load_site  # lxml: web loads only
    from graphprum.loaders.web_links import is_page

    store = as_store(store)
    stored = [n for n in store.documents()["name"] if is_page(n)] if store.count_units() else []
    site = load_site(root, elements=elements,
                     progress=(lambda page, n: on_file(page, n)) if on_file else None,
                     follow_symlinks=follow_symlinks, stored=stored)
    stats: dict[str, int] = {}

    def pages() -> Iterator[ParsedDocument]:
        yield from refuse_files_stored_under_other_ids(store, site)
        stats.update(external_links=site.stats.external,
                     links_leaving_root=site.stats.outside,
                     links_to_missing_files=site.stats.missing,
                     links_to_non_pages=site.stats.non_page,
                     links_within_page=site.stats.same_page)

    report = store.load_documents(pages(), replace=replace,
                                  description={"kind": "web", "paths": [str(root)],
                                               "elements": elements},
                                  link_stats=stats)
    report.extra = dict(stats)
    report.skipped = list(site.index.skipped)
    return report


def load_links(store: Store, path: PathLike) -> LoadReport:
    """Load a link list ``FROM<TAB>TO``; pages not yet stored become page units.

    A list whose content was loaded into the store before (the same SHA-256,
    as the store's load history records it; a Bolt store keeps its recent
    loads) is refused, its links would count twice, unless a load since
    replaced documents (and may have taken the links away)."""
    store = as_store(store)
    try:
        with open(path, "rb") as fh:  # read into one buffer: no page faults per block
            sha = hashlib.file_digest(fh, "sha256").hexdigest()
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror or exc}") from None
    loads = store.info().get("loads", [])
    same = [i for i, e in enumerate(loads) if e.get("kind") == "links" and e.get("sha256") == sha]
    # a load that replaced documents since may have taken the list's links away
    if same and not any(e.get("replaced") for e in loads[same[-1] + 1:]):
        raise InputError(path, None, f"this link list was loaded into the store already "
                                     f"({loads[same[-1]].get('time', 'earlier')}): its links "
                                     f"would count twice; nothing to do: they are in "
                                     f"the store")
    return store.load_documents([], link_pairs=read_link_list(path),
                                description={"kind": "links", "paths": [str(path)],
                                             "sha256": sha})


def load_video(store: Store, paths: PathLike | Iterable[PathLike], *, replace: bool = False,
               ) -> LoadReport:
    """Load segment tables (``VIDEO N START END``) and ``.srt``/``.vtt`` files.

    The files (small: a film's subtitles are a few hundred kB) are all read
    before the store is written to, so that a bad one leaves it as it was,
    its directory's entries and times included."""
    store = as_store(store)
    paths = as_paths(paths)
    return store.load_documents(list(read_videos(paths)), replace=replace,
                                description={"kind": "video", "paths": [str(p) for p in paths]})


def copy_store(src: Store, dst: Store, *, replace: bool = False) -> LoadReport:
    """Copy every document (with its links, texts and attributes) of ``src``
    into ``dst``, and the counts of the links its loads found and did not
    store (``info``'s "links not stored"); returns the destination's load
    report."""
    src, dst = as_store(src), as_store(dst)
    stats = {k: v for k, v in src.info().get("link_stats", {}).items() if isinstance(v, int)}
    return dst.load_documents(src.iter_documents(), replace=replace,
                              description={"kind": "copy", "paths": [src.location]},
                              link_stats=stats)
