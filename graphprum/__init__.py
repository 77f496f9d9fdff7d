"""graphprum: user-model evaluation of retrieval over connected collections.

The collection is loaded as a property graph (an embedded directory store by
default, or Neo4j/FalkorDB over Bolt); navigation probabilities and AxPRE
summaries are derived from it; PRUM, EPRUM, SR/SRP, the INEX 2006 measures
and the T2I measures are computed over submitted runs.

>>> import graphprum
>>> graphprum.__version__
'0.1.0'
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("graphprum")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.1.0"

__all__ = ["__version__", "evaluate", "open_store"]


def open_store(location: str | None = None, *, create: bool = True):
    """Open the store at ``location``: a directory (embedded) or a ``bolt://`` URI.

    ``None`` uses ``$GRAPHPRUM_STORE`` or ``./graphprum-store``.
    """
    from graphprum.store import open_store as _open

    return _open(location, create=create)


# The function shadows the submodule of the same name on purpose: the API is
# ``graphprum.evaluate(...)`` (DESIGN §1.8); ``from graphprum.evaluate import X``
# still reaches the module through sys.modules.
from graphprum.evaluate import evaluate  # noqa: E402
