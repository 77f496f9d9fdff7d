"""Arrow columns to numpy arrays and back, by their buffers.

pyarrow imports pandas (0.4 s and 40 MB, more than a small ``graphprum
eval`` takes in all) the first time it converts to or from numpy or Python
objects (``Array.to_numpy``, ``pyarrow.array``).  The readers of runs
(:mod:`graphprum.io.run_columns`, :mod:`graphprum.io.ranking`) keep to Arrow's
compute functions and convert here instead, sharing the buffers where
they can.  Strings that are not valid UTF-8 (lone surrogates of an
in-memory id) become a binary column, which sorts in the same order
(UTF-8's byte order is the order of code points).

pyarrow allocates from the C library's allocator here (its system pool,
made the default pool when this module is imported), which :func:`release`
hands back to the system: the allocator pyarrow picks itself (mimalloc)
keeps what reading a run frees, 60 MB of a million lines' 220 MB peak
(bench/run_memory.py), resident for the whole evaluation.

Examples
--------
>>> import numpy as np
>>> to_numpy(from_numpy(np.array([3, 1, 2])))
array([3, 1, 2])
>>> to_numpy(from_numpy(np.array([True, False, True])))
array([ True, False,  True])
>>> from_strings(["b", "é"]).to_pylist()
['b', 'é']
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

__all__ = ["from_numpy", "from_strings", "release", "to_numpy"]

pa.set_memory_pool(pa.system_memory_pool())


def release() -> None:
    """Hand the memory pyarrow holds free back to the system (module notes)."""
    pa.default_memory_pool().release_unused()


def to_numpy(array: pa.Array) -> np.ndarray:
    """The values of a numeric or boolean Arrow array without nulls (shared
    with it, read-only, except booleans, which Arrow packs in bits)."""
    if pa.types.is_boolean(array.type):
        bits = np.frombuffer(array.buffers()[1], np.uint8)
        return np.unpackbits(bits, bitorder="little")[array.offset:array.offset + len(array)] \
            .astype(bool)
    dtype = np.dtype(array.type.to_pandas_dtype())
    return np.frombuffer(array.buffers()[1], dtype, len(array), array.offset * dtype.itemsize)


def from_numpy(values: np.ndarray) -> pa.Array:
    """A numeric or boolean numpy array as an Arrow array (shared, booleans packed)."""
    if values.dtype == bool:
        bits = np.packbits(values, bitorder="little")
        return pa.Array.from_buffers(pa.bool_(), len(values), [None, pa.py_buffer(bits)])
    values = np.ascontiguousarray(values)
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values),
                                 [None, pa.py_buffer(values)])


def from_strings(texts: Sequence[str]) -> pa.Array:
    """Python strings as an Arrow string column (binary when one is not valid UTF-8)."""
    try:
        raw = [t.encode("utf-8") for t in texts]
        kind = pa.large_string()
    except UnicodeEncodeError:
        raw = [t.encode("utf-8", "surrogatepass") for t in texts]
        kind = pa.large_binary()
    offsets = np.zeros(len(raw) + 1, np.int64)
    np.cumsum([len(b) for b in raw], out=offsets[1:])
    return pa.Array.from_buffers(kind, len(raw), [None, pa.py_buffer(offsets),
                                                  pa.py_buffer(b"".join(raw))])
