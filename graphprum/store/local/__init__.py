"""The embedded store (the default): a directory holding numpy columns for the
evaluator and a LadybugDB property graph for Cypher, written one atomic
generation at a time.  See :mod:`graphprum.store.local.store`."""

from graphprum.store.local.store import FORMAT, FORMAT_VERSION, LocalStore

__all__ = ["FORMAT", "FORMAT_VERSION", "LocalStore"]
