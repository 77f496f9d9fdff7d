"""String columns: one string per unit row (text snippets, attributes as
JSON), stored as a UTF-8 blob and an offsets array, so a row is read without
reading the others and every string round-trips exactly (lone surrogates of
undecodable file names and ``\\r`` included).

Examples
--------
>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> with StringColumnWriter(d / "t") as w:
...     w.extend(["a\\rb", "", "\\udcff"])
...     w.extend(["élan"])
>>> col = StringColumn(d / "t")
>>> len(col), col[[3, 0]], col.all() == ["a\\rb", "", "\\udcff", "élan"]
(4, ['élan', 'a\\rb'], True)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

_ERRORS = "surrogatepass"


class StringColumnWriter:
    """Appends strings to ``PATH.bin`` and their end offsets to ``PATH.off``
    (raw int64); :meth:`close` turns the offsets into ``PATH.npy``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._blob = open(path.with_suffix(".bin"), "wb")  # noqa: SIM115 - closed in close
        self._ends: list[np.ndarray] = []
        self._size = 0
        self.count = 0

    def extend(self, values: Iterable[str]) -> None:
        """Append ``values`` in order (encoded at once when they are ASCII)."""
        values = values if isinstance(values, list) else list(values)
        if not values:
            return
        joined = "".join(values)
        data = joined.encode("utf-8", _ERRORS)
        if len(data) == len(joined):  # ASCII: a string's bytes are its characters
            lengths = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
        else:
            encoded = [v.encode("utf-8", _ERRORS) for v in values]
            lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(values))
        self._ends.append(self._size + np.cumsum(lengths))
        self._size += int(lengths.sum())
        self._blob.write(data)
        self.count += len(values)

    def extend_from(self, column: StringColumn, rows: np.ndarray | slice) -> None:
        """Append rows of another column without decoding them; runs of
        consecutive rows are copied as one block."""
        ends = np.asarray(column.ends, dtype=np.int64)
        start = np.concatenate(([0], ends[:-1])) if len(ends) else ends
        idx = np.arange(len(ends))[rows]
        if len(idx) == 0:
            return
        lo, hi = start[idx], ends[idx]
        blob = np.asarray(column.blob)
        # blocks of rows whose bytes are contiguous in the source
        breaks = np.flatnonzero(lo[1:] != hi[:-1]) + 1
        first = np.concatenate(([0], breaks))
        last = np.concatenate((breaks, [len(idx)])) - 1
        for a, b in zip(lo[first].tolist(), hi[last].tolist(), strict=True):
            self._blob.write(blob[a:b].tobytes())
        self._ends.append(self._size + np.cumsum(hi - lo))
        self._size += int((hi - lo).sum())
        self.count += len(idx)

    def close(self) -> None:
        """Finish the files."""
        self._blob.close()
        ends = np.concatenate(self._ends) if self._ends else np.zeros(0, np.int64)
        np.save(self.path.with_suffix(".npy"), ends.astype(np.int64))

    def __enter__(self) -> StringColumnWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        if exc[0] is None:
            self.close()
        else:
            self._blob.close()


class StringColumn:
    """A string column written by :class:`StringColumnWriter` (memory-mapped)."""

    def __init__(self, path: Path) -> None:
        self.ends = np.load(path.with_suffix(".npy"), mmap_mode="r")
        size = int(self.ends[-1]) if len(self.ends) else 0
        self.blob = np.memmap(path.with_suffix(".bin"), dtype=np.uint8, mode="r") \
            if size else np.zeros(0, np.uint8)
        if len(self.blob) != size:
            raise ValueError(f"{path}: string column of {len(self.blob)} bytes, "
                             f"offsets say {size}")

    def __len__(self) -> int:
        return len(self.ends)

    def __getitem__(self, rows: Sequence[int] | np.ndarray) -> list[str]:
        ends = self.ends
        out = []
        for r in np.asarray(rows, dtype=np.int64).tolist():
            a = int(ends[r - 1]) if r > 0 else 0
            out.append(bytes(self.blob[a:int(ends[r])]).decode("utf-8", _ERRORS))
        return out

    def all(self) -> list[str]:
        """Every string, in row order."""
        return self.slice(0, len(self))

    def slice(self, lo: int, hi: int) -> list[str]:
        """The strings of rows ``lo`` to ``hi`` (the bytes decoded at once
        and cut at character offsets: a UTF-8 continuation byte starts no
        character).

        >>> import tempfile, pathlib
        >>> d = pathlib.Path(tempfile.mkdtemp())
        >>> with StringColumnWriter(d / "t") as w:
        ...     w.extend(["ab", "é", "", "cd"])
        >>> StringColumn(d / "t").slice(1, 4)
        ['é', '', 'cd']
        """
        hi = min(hi, len(self))
        if hi <= lo:
            return []
        ends = np.asarray(self.ends[lo:hi], dtype=np.int64)
        begin = int(self.ends[lo - 1]) if lo > 0 else 0
        blob = np.asarray(self.blob[begin:int(ends[-1])])
        text = blob.tobytes().decode("utf-8", _ERRORS)
        ends = ends - begin
        if len(text) != len(blob):  # not ASCII: byte offsets to character offsets
            continuation = np.concatenate(([0], np.cumsum((blob & 0xC0) == 0x80)))
            ends = ends - continuation[ends]
        cuts = ends.tolist()
        starts = [0, *cuts[:-1]]
        return [text[a:b] for a, b in zip(starts, cuts, strict=True)]
