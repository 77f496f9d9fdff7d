"""Stores: the embedded directory store (default) and the Bolt store.

>>> import tempfile
>>> type(open_store(tempfile.mkdtemp() + "/s")).__name__
'LocalStore'
"""

from __future__ import annotations

import os

from graphprum.errors import StoreError, UsageError, printable
from graphprum.store.base import Store
from graphprum.store.local import LocalStore
from graphprum.store.uri import is_uri, looks_like_bolt, parse_store_uri
from graphprum.units import UnitTable

DEFAULT_STORE = "graphprum-store"

__all__ = ["DEFAULT_STORE", "Store", "UnitTable", "default_location", "open_store",
           "store_exists"]


def default_location(location: str | os.PathLike[str] | None = None) -> str:
    """``location``, or ``$GRAPHPRUM_STORE``, or ``./graphprum-store``; a
    leading ``~`` of a directory is the home directory, as in a shell
    (LadybugDB expands it itself, so the columns and the graph would part
    ways otherwise)."""
    if location is None:
        location = os.environ.get("GRAPHPRUM_STORE") or DEFAULT_STORE
    text = os.fspath(location)
    return text if is_uri(text) else os.path.expanduser(text)


def store_exists(location: str | os.PathLike[str] | None = None) -> bool:
    """Whether ``location`` (see :func:`default_location`) is a server URI or
    an embedded store that holds a collection."""
    text = default_location(location)
    return is_uri(text) or os.path.exists(os.path.join(text, "manifest.json"))


def open_store(location: str | os.PathLike[str] | None = None, *, create: bool = True,
               wait: float = 0.0) -> Store:
    """Open a store: ``bolt://``/``neo4j://`` URIs (any case, ``+s``/``+ssc``
    too; see :mod:`graphprum.store.uri`) go to the Bolt backend, a location
    with any other ``scheme://`` is refused, anything else is an embedded
    store directory (a leading ``~`` is the home directory, as in a shell).

    ``None`` means ``$GRAPHPRUM_STORE`` or ``./graphprum-store``; ``wait``:
    seconds an embedded store's write waits for another writer.
    """
    text = default_location(location)
    if looks_like_bolt(text):  # shown by its scheme only: the rest may hold a password
        scheme = text.split(":", 1)[0]
        raise UsageError(f"{printable(scheme)}:...: a Bolt URI needs '//' after the scheme "
                         f"(bolt://HOST:PORT); for a directory, begin its name with ./")
    if is_uri(text):
        uri = parse_store_uri(text)  # UsageError for unknown schemes, bad ports ...
        from graphprum.store.bolt import BoltStore  # 20 modules, ~9 ms: bolt:// URIs only

        return BoltStore(uri)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # LadybugDB takes its path as UTF-8 text
        raise StoreError(f"{printable(text)}: the store's directory name is not valid UTF-8; "
                         f"choose another name") from None
    return LocalStore(text, create=create, wait=wait)
