"""The pages of a web site and where their links lead: the site's files
(:class:`SiteIndex`) and an ``href`` resolved as a browser resolves it
(:class:`LinkResolver`; the rules are in :mod:`graphprum.loaders.web`'s
notes), to a page id or to why the link is not stored.

>>> idx = SiteIndex(Path("."), ["a.html", "d/index.html"], {"a.html", "d/index.html"}, {"", "d"})
>>> r = LinkResolver(idx, "a.html")
>>> r.resolve("d/"), r.resolve("mailto:x@y") == EXTERNAL
('d/index.html', True)
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

from graphprum.errors import InputError
from graphprum.loaders.files import Skipped, scan
from graphprum.loaders.names import check_document_id, utf8_path

#: File name extensions of pages (compared in lower case).
PAGE_SUFFIXES = (".html", ".htm")
#: Names tried, in order, for a link to a directory.
INDEX_NAMES = ("index.html", "index.htm")

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
_TAB_NL = str.maketrans("", "", "\t\n\r")
#: ASCII whitespace a browser strips around a URL.
URL_SPACE = "\t\n\x0c\r "


@dataclass
class SiteIndex:
    """The files of a site: page ids, every file and every directory (POSIX, relative)."""

    root: Path
    pages: list[str]
    files: set[str]
    dirs: set[str]
    #: Resolved hrefs per page directory (filled by :class:`LinkResolver`).
    cache: dict[tuple[str, ...], dict[str, str]] = field(default_factory=dict)

    #: Pages not loaded (not regular files, symbolic links leaving the root).
    skipped: list[Skipped] = field(default_factory=list)

    @classmethod
    def scan(cls, root: str | os.PathLike[str], follow_symlinks: bool = False) -> SiteIndex:
        """Walk ``root`` once (:func:`graphprum.loaders.files.scan`: only
        regular files inside it, symbolic links to files outside it only
        with ``follow_symlinks``, symlinked directories not followed)."""
        root_p = Path(root)
        if not root_p.is_dir():
            what = "not a directory" if root_p.exists() else "no such directory"
            raise InputError(root_p, None, what)
        listing = scan(root_p, is_page, follow_symlinks)
        pages = []
        for rel in listing.files:
            if is_page(rel):
                path = os.path.join(root_p, rel)
                utf8_path(path)  # page ids and sources are text
                check_document_id(path, None, rel, "page id")
                pages.append(rel)
        if not pages:
            raise InputError(root_p, None, "directory holds no .html/.htm file" + (
                f" (skipped {len(listing.skipped)}: {listing.skipped[0]})"
                if listing.skipped else ""))
        return cls(root_p, sorted(pages), set(listing.files), {"", *listing.dirs},
                   skipped=listing.skipped)


def is_page(name: str) -> bool:
    """Whether a file is a page, by its name.

    >>> is_page("a/Index.HTM"), is_page("a.html.bak")
    (True, False)
    """
    return name.lower().endswith(PAGE_SUFFIXES)


#: Outcome of resolving one href: a page id, or one of these markers.
EXTERNAL, OUTSIDE, MISSING, NON_PAGE, SAME_PAGE = (
    "\0external", "\0outside", "\0missing", "\0non_page", "\0same_page")


def _segments(path: str) -> list[str]:
    """Percent-decoded path segments of a URL path (no leading '/')."""
    return [unquote(s) for s in path.split("/")]


def _resolve_dots(base_dir: list[str], rel: list[str], clamp: bool = False
                  ) -> list[str] | None:
    """RFC 3986 merge + remove_dot_segments; None when '..' climbs above the
    root (with ``clamp``, as for a path from the root, it stays there, as a
    browser's ``/../x`` is ``/x``).

    ``base_dir`` holds directory segments, ``rel`` the reference's segments
    (already percent-decoded, so ``%2e%2e`` counts as ``..`` as in browsers);
    the result's last item is the file name ('' for a directory).

    >>> _resolve_dots(["a", "b"], ["..", ".", "c.html"])
    ['a', 'c.html']
    >>> _resolve_dots(["a"], ["..", ".."]) is None
    True
    >>> _resolve_dots([], ["..", "sub", "s.html"], clamp=True)
    ['sub', 's.html']
    """
    out = list(base_dir)
    last = len(rel) - 1
    for i, seg in enumerate(rel):
        if seg == ".":
            if i == last:
                out.append("")
        elif seg == "..":
            if not out:
                if not clamp:
                    return None
            else:
                out.pop()
            if i == last:
                out.append("")
        else:
            out.append(seg)
    return out


class LinkResolver:
    """Resolve hrefs of one page to page ids of the site (see the module notes).

    >>> idx = SiteIndex(Path("."), ["a/b.html", "a/index.html", "c d.html"],
    ...                 {"a/b.html", "a/index.html", "c d.html", "a/x.png"}, {"", "a"})
    >>> r = LinkResolver(idx, "a/b.html")
    >>> [r.resolve(h) for h in ["./", "../c%20d.html?q#f", "x.png", "../../z"]]
    ['a/index.html', 'c d.html', '\\x00non_page', '\\x00outside']
    """

    def __init__(self, index: SiteIndex, page: str, base_href: str | None = None) -> None:
        self.index = index
        self.page = page
        here = page.split("/")[:-1]
        self.base_dir: list[str] | None = here  # None: external base
        self.base_file = page.rsplit("/", 1)[-1]
        self.base_outside = False
        if base_href is not None:
            kind, segs = self._resolve_path(base_href)
            if kind is EXTERNAL:
                self.base_dir = None
            elif kind is OUTSIDE:
                self.base_dir = None
                self.base_outside = True
            elif segs is not None:
                self.base_dir, self.base_file = segs[:-1], segs[-1]
        # Targets of hrefs depend on the base only, except hrefs without a path
        # (``#x``, ``?q``, ``""``), which name the base itself: those are not cached
        # across pages.  ``base_key`` is None when the page has a <base>.
        self.base_key = tuple(here) if base_href is None else None
        if self.base_key is not None:
            self.cache = index.cache.setdefault(self.base_key, {})
        else:
            self.cache = {}

    def _resolve_path(self, href: str) -> tuple[str | None, list[str] | None]:
        """(marker or None, segments) of ``href`` against the current base."""
        href = href.strip(URL_SPACE).translate(_TAB_NL).replace("\\", "/")
        if _SCHEME.match(href) or href.startswith("//"):
            return EXTERNAL, None
        if self.base_dir is None:
            return (OUTSIDE if self.base_outside else EXTERNAL), None
        path = href.split("#", 1)[0].split("?", 1)[0]
        if not path:
            return None, [*self.base_dir, self.base_file]
        if path.startswith("/"):  # from the site root, which '..' does not leave
            segs = _resolve_dots([], _segments(path[1:]), clamp=True)
        else:
            segs = _resolve_dots(self.base_dir, _segments(path))
        if segs is None:
            return OUTSIDE, None
        return None, segs

    def resolve(self, href: str) -> str:
        """Page id ``href`` leads to, or EXTERNAL/OUTSIDE/MISSING/NON_PAGE/SAME_PAGE."""
        head = href.lstrip(URL_SPACE)[:1]
        if head in ("", "#", "?"):  # no path: the base itself
            if self.base_key is not None:
                return SAME_PAGE
            target = self._target(href)
            return SAME_PAGE if target == self.page else target
        cache = self.cache
        known = cache.get(href)
        if known is None:
            known = cache[href] = self._target(href)
        return SAME_PAGE if known == self.page else known

    def _target(self, href: str) -> str:
        """The file ``href`` leads to (index file for a directory), or a marker."""
        marker, segs = self._resolve_path(href)
        if marker is not None:
            return marker
        assert segs is not None
        if any("/" in s for s in segs):
            return MISSING  # an encoded '/' inside a name: no such file
        target = "/".join(segs)
        index = self.index
        if segs[-1] == "" or (target.rstrip("/") in index.dirs and target not in index.files):
            folder = target.rstrip("/")
            prefix = folder + "/" if folder else ""
            for name in INDEX_NAMES:
                if prefix + name in index.files:
                    target = prefix + name
                    break
            else:
                return MISSING
        if target not in index.files:
            return MISSING
        if not target.lower().endswith(PAGE_SUFFIXES):
            return NON_PAGE
        return target
