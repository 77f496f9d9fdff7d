"""Document ids and sources made from file names must be UTF-8 text.

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
"""

from __future__ import annotations

import os

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
