"""The ``classical`` navigation model (DESIGN §1.5; PRUM §2.2, "no browsing").

The user does not browse: P(x → y) is 1 if x = y and 0 otherwise, which
makes PRUM coincide with precision and recall (PRUM Appendix B).  The
matrix returned here is all zeros: :func:`graphprum.navigation.base.combine`
adds P = 1 on every pair whose source is its target.

Examples
--------
>>> from graphprum.navigation.base import combine
>>> m = ClassicalModel()
>>> m.matrix(["a", "b"], ["b", "c"], None).nnz
0
>>> combine([m], ["a", "b"], ["b", "c"], None).toarray().tolist()
[[0.0, 0.0], [1.0, 0.0]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from graphprum.errors import UsageError

if TYPE_CHECKING:
    import scipy.sparse as sp

    from graphprum.context import TopicContext


class ClassicalModel:
    """No navigation: only the unit itself is seen (added by ``combine``)."""

    spec = "classical"
    needs_store = False
    browses = False

    def matrix(self, sources: Sequence[str], targets: Sequence[str],
               ctx: TopicContext | None) -> sp.csr_array:
        """An all-zero (len(sources), len(targets)) array."""
        import scipy.sparse as sp  # rarely needed: a classical eval imports no scipy

        return sp.csr_array((len(sources), len(targets)))


def build(args: str) -> ClassicalModel:
    if args:
        raise UsageError(f"--nav 'classical:{args}': classical takes no arguments")
    return ClassicalModel()
