"""The ``classical`` navigation model: a user reaches only what is shown.

P(x -> y) = 1 if x = y, else 0 (DESIGN §1.5).  The diagonal is added by
:func:`graphprum.navigation.base.combine`, so this model's own matrix is empty.

>>> from graphprum.navigation.base import combine, parse_model
>>> m = parse_model("classical")
>>> combine([m], ["a", "b"], ["b", "c"], None).toarray().tolist()
[[0.0, 0.0], [1.0, 0.0]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import scipy.sparse as sp

from graphprum.errors import UsageError
from graphprum.navigation.base import register_model


class ClassicalModel:
    """P(x -> y) = [x = y]; needs no store."""

    spec = "classical"
    needs_store = False

    def matrix(self, sources: Sequence[str], targets: Sequence[str], ctx: Any) -> sp.csr_array:
        """An empty matrix: only the diagonal (added by ``combine``) is non-zero."""
        return sp.csr_array((len(sources), len(targets)))


def _factory(args: str) -> ClassicalModel:
    if args:
        raise UsageError(f"--nav classical takes no arguments, got {args!r}")
    return ClassicalModel()


register_model("classical", _factory)
