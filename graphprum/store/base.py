"""The store protocol: what every backend answers.

The unit data model it speaks (:class:`~graphprum.units.UnitTable`,
:class:`~graphprum.units.ParsedDocument`, :class:`~graphprum.units.DocumentBatch`)
lives in :mod:`graphprum.units`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import pandas as pd

from graphprum.units import UnitTable


@runtime_checkable
class Store(Protocol):
    """What every backend answers. Rows are global row numbers (int64).

    Unknown ids resolve to -1.  ``table()`` returns the whole collection as a
    :class:`UnitTable` (the local store memory-maps it; the Bolt store fetches
    it), ``links()`` the LINK edges as global rows.
    """

    location: str

    def table(self) -> UnitTable: ...

    def resolve(self, ids: Sequence[str]) -> np.ndarray: ...

    def links(self) -> pd.DataFrame: ...

    def info(self) -> dict: ...

    def close(self) -> None: ...
