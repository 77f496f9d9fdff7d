"""Document ids made from file names: UTF-8 text without ``#``; directories
walked for them must all be readable.

Python keeps the bytes of a file name that are not valid UTF-8 as lone
surrogates (``surrogateescape``); such a name cannot become an id (ids are
UTF-8 text in run and qrels files, and in both stores).  Loaders refuse the
file with one line naming it, before anything is parsed or stored.

Examples
--------
>>> utf8_path("docs/a.xml")
'docs/a.xml'
>>> bad = b"docs/caf\\xe9.xml".decode("utf-8", "surrogateescape")
>>> try:
...     utf8_path(bad)
... except InputError as exc:
...     print(exc)
docs/caf\\xe9.xml: the file name is not valid UTF-8 (ids are UTF-8 text): rename the file

A ``#`` in a document id would be read as the start of the path inside the
document (``DOC#XPATH``, ``VIDEO#N``), so a run naming that document's units
would silently miss them; such a file is refused too
(:func:`check_document_id`).  A directory that cannot be read while looking
for files is an error, not a silent gap (:func:`walk_error`).
"""

from __future__ import annotations

import os
from typing import NoReturn

from graphprum.errors import InputError


def utf8_path(path: str | os.PathLike[str]) -> str:
    """``path`` as text; InputError when it holds bytes that are not UTF-8."""
    text = os.fspath(path)
    if isinstance(text, bytes):
        try:
            return text.decode("utf-8")
        except UnicodeDecodeError:
            text = text.decode("utf-8", "surrogateescape")
    else:
        try:
            text.encode("utf-8")
            return text
        except UnicodeEncodeError:
            pass
    raise InputError(text, None, "the file name is not valid UTF-8 (ids are UTF-8 text): "
                                 "rename the file")


def check_document_id(path: str | os.PathLike[str], line: int | None, name: str,
                      what: str = "document id") -> None:
    """InputError when ``name`` cannot be a document id: it holds ``#``,
    which separates a document from the unit inside it in every unit id.

    >>> check_document_id("c/a.xml", None, "a")
    >>> try:
    ...     check_document_id("c/C#.xml", None, "C#")
    ... except InputError as exc:
    ...     print(str(exc).replace(", which", ",\\nwhich"))
    c/C#.xml: document id 'C#' holds '#',
    which separates a document from the unit inside it in unit ids (DOC#XPATH): rename the file
    """
    if "#" in name:
        raise InputError(path, line, f"{what} {name!r} holds '#', which separates a document "
                                     f"from the unit inside it in unit ids (DOC#XPATH): "
                                     f"rename the file")


def walk_error(exc: OSError) -> NoReturn:
    """``os.walk``'s ``onerror``: a directory that cannot be listed is an
    InputError naming it (its files would otherwise be left out silently).

    >>> import tempfile
    >>> gone = os.path.join(tempfile.mkdtemp(), "gone")
    >>> try:
    ...     list(os.walk(gone, onerror=walk_error))
    ... except InputError as exc:
    ...     print(str(exc).endswith("gone: cannot read the directory: No such file or directory"))
    True
    """
    raise InputError(exc.filename or "?", None,
                     f"cannot read the directory: {exc.strerror or exc}") from None
