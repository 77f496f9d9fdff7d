"""String columns: one string per row (text snippets, attribute names and
values, document names and sources), stored as a UTF-8 blob and an offsets
array, so a row is read without reading the others and every string
round-trips exactly (lone surrogates of undecodable file names and ``\\r``
included); and a column's index of its strings (:class:`StringIndex`: the
row of a string from stored hashes, nothing decoded but the rows it finds).

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
>>> write_string_index(d / "t", string_hashes(col.all()))
>>> index = StringIndex(col)
>>> index["élan"], index.get("b"), index.rows(["\\udcff", "x", "a\\rb"]).tolist()
(3, None, [2, -1, 0])
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import BinaryIO, TypeVar, overload

import numpy as np

_ERRORS = "surrogatepass"
_T = TypeVar("_T")


#: Rows copied at a time (bounded memory, whatever the column's size).
COPY_BLOCK = 1 << 16
#: Bytes read at a time.
READ_BLOCK = 1 << 22


class StringColumnWriter:
    """Appends strings to ``PATH.bin`` and their end offsets to ``PATH.off``
    (raw int64); :meth:`close` turns the offsets into ``PATH.npy``.

    Memory stays bounded by what one call appends: offsets go to their file
    as they come, and rows copied from another column are read in blocks.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._blob = open(path.with_suffix(".bin"), "wb")  # noqa: SIM115 - closed in close
        self._off = open(path.with_suffix(".off"), "w+b")  # noqa: SIM115 - closed in close
        self._size = 0
        self.count = 0

    def _ends(self, lengths: np.ndarray) -> None:
        ends = self._size + np.cumsum(lengths, dtype=np.int64)
        self._off.write(ends.data)
        self._size = int(ends[-1]) if len(ends) else self._size
        self.count += len(lengths)

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
        self._blob.write(data)
        self._ends(lengths)

    def extend_from(self, column: StringColumn, rows: np.ndarray | slice) -> None:
        """Append rows of another column without decoding them, a block of
        rows at a time; runs of consecutive rows are copied as one range of
        bytes, read from the file in blocks."""
        n = len(column)
        if not n:
            return
        if isinstance(rows, slice) and rows.step in (None, 1):
            lo, hi, _ = rows.indices(n)
            blocks = ((a, np.arange(a, min(hi, a + COPY_BLOCK))) for a in range(lo, hi, COPY_BLOCK))
        else:
            idx = np.arange(n)[rows]
            blocks = ((a, idx[a:a + COPY_BLOCK]) for a in range(0, len(idx), COPY_BLOCK))
        with open(column.path.with_suffix(".bin"), "rb") as src:
            for _, block in blocks:
                if not len(block):
                    continue
                ends = np.asarray(column.ends[block], dtype=np.int64)
                before = np.asarray(column.ends[np.maximum(block - 1, 0)], dtype=np.int64)
                start = np.where(block > 0, before, 0)
                breaks = np.flatnonzero(start[1:] != ends[:-1]) + 1
                first = np.concatenate(([0], breaks))
                last = np.concatenate((breaks, [len(block)])) - 1
                for a, b in zip(start[first].tolist(), ends[last].tolist(), strict=True):
                    _copy_bytes(src, self._blob, a, b)
                self._ends(ends - start)

    def close(self) -> None:
        """Finish the files."""
        self._blob.close()
        self._off.flush()
        self._off.seek(0)
        with open(self.path.with_suffix(".npy"), "wb") as out:
            np.lib.format.write_array_header_1_0(out, {
                "descr": np.lib.format.dtype_to_descr(np.dtype(np.int64)),
                "fortran_order": False, "shape": (self.count,)})
            _copy_bytes(self._off, out, 0, 8 * self.count)
        self._off.close()
        self.path.with_suffix(".off").unlink()

    def abandon(self) -> None:
        """Close the files without finishing them (the caller removes them)."""
        self._blob.close()
        self._off.close()

    def __enter__(self) -> StringColumnWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        if exc[0] is None:
            self.close()
        else:
            self.abandon()


def _copy_bytes(src: BinaryIO, dst: BinaryIO, a: int, b: int) -> None:
    """Copy bytes ``a`` to ``b`` of ``src`` to the end of ``dst``, in blocks."""
    src.seek(a)
    while a < b:
        data = src.read(min(READ_BLOCK, b - a))
        if not data:
            raise ValueError(f"{src.name}: shorter than its offsets say")
        dst.write(data)
        a += len(data)


class StringColumn:
    """A string column written by :class:`StringColumnWriter` (memory-mapped)."""

    def __init__(self, path: Path) -> None:
        self.path = path
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
        """The strings of rows ``lo`` to ``hi``, the bytes decoded at once.

        When no string holds a newline (snippets never do: whitespace is
        collapsed), one is put between rows and the text is split at them;
        else the text is cut at character offsets (a UTF-8 continuation
        byte starts no character).

        >>> import tempfile, pathlib
        >>> d = pathlib.Path(tempfile.mkdtemp())
        >>> with StringColumnWriter(d / "t") as w:
        ...     w.extend(["ab", "é", "", "cd"])
        ...     w.extend(["x\\ny"])
        >>> col = StringColumn(d / "t")
        >>> col.slice(1, 4), col.slice(3, 5)
        (['é', '', 'cd'], ['cd', 'x\\ny'])
        """
        hi = min(hi, len(self))
        if hi <= lo:
            return []
        ends = np.asarray(self.ends[lo:hi], dtype=np.int64)
        begin = int(self.ends[lo - 1]) if lo > 0 else 0
        blob = np.asarray(self.blob[begin:int(ends[-1])])
        ends = ends - begin
        if not (blob == 10).any():
            return np.insert(blob, ends[:-1], 10).tobytes().decode("utf-8", _ERRORS).split("\n")
        text = blob.tobytes().decode("utf-8", _ERRORS)
        if len(text) != len(blob):  # not ASCII: byte offsets to character offsets
            continuation = np.concatenate(([0], np.cumsum((blob & 0xC0) == 0x80)))
            ends = ends - continuation[ends]
        cuts = ends.tolist()
        starts = [0, *cuts[:-1]]
        return [text[a:b] for a, b in zip(starts, cuts, strict=True)]


# ------------------------------------------------------------------ index
def string_hashes(values: Iterable[str]) -> np.ndarray:
    """The 64-bit BLAKE2b hash of every string's UTF-8 bytes (as the column
    stores them), as :class:`StringIndex` looks strings up.

    >>> h = string_hashes(["a", "é", "a"])
    >>> h.dtype, bool(h[0] == h[2]), bool(h[0] == h[1])
    (dtype('uint64'), True, False)
    """
    values = values if isinstance(values, list) else list(values)
    digest = _digest
    out = np.empty(len(values), np.uint64)
    for a in range(0, len(values), COPY_BLOCK):  # a block of digests at a time: bounded memory
        out[a:a + COPY_BLOCK] = np.frombuffer(b"".join([
            digest(v.encode("utf-8", _ERRORS)) for v in values[a:a + COPY_BLOCK]]), dtype="<u8")
    return out


def _digest(data: bytes) -> bytes:
    """The 8 bytes of BLAKE2b-64 of ``data`` (read as a little-endian uint64)."""
    return hashlib.blake2b(data, digest_size=8).digest()


def _index_paths(path: Path) -> tuple[Path, Path]:
    return path.with_name(f"{path.name}.hash.npy"), path.with_name(f"{path.name}.order.npy")


def write_string_index(path: Path, hashes: np.ndarray) -> None:
    """Write the index of column ``path`` from the :func:`string_hashes` of
    its rows: ``PATH.hash.npy`` (the hashes, ascending) and
    ``PATH.order.npy`` (the row of each)."""
    order = np.argsort(hashes, kind="stable")
    hash_path, order_path = _index_paths(path)
    for target, values in ((hash_path, np.asarray(hashes, dtype=np.uint64)[order]),
                           (order_path, order.astype(np.int64))):
        with open(target, "wb") as f:
            np.save(f, values, allow_pickle=False)


class StringIndex(Mapping[str, int]):
    """String -> row of a :class:`StringColumn` (the first row holding it),
    from the index :func:`write_string_index` wrote beside it.

    A look-up hashes the string, finds its hash by binary search in the
    memory-mapped hashes and compares the bytes of the rows found, so
    opening costs nothing and a look-up reads one row; strings looked up
    are remembered (up to :attr:`MEMO` of them).
    """

    #: Strings whose row :meth:`get` keeps (then it starts again).
    MEMO = 200_000

    def __init__(self, column: StringColumn) -> None:
        self.column = column
        hash_path, order_path = _index_paths(column.path)
        # plain views of the maps: indexing a memmap costs more than reading its rows
        self.hashes = np.asarray(np.load(hash_path, mmap_mode="r"))
        self.order = np.asarray(np.load(order_path, mmap_mode="r"))
        if not (len(self.hashes) == len(self.order) == len(column)):
            raise ValueError(f"{column.path}: index of {len(self.hashes)} hashes and "
                             f"{len(self.order)} rows for {len(column)} strings")
        self._ends = np.asarray(column.ends)
        self._blob = np.asarray(column.blob)
        self._memo: dict[str, int] = {}

    def _find(self, data: bytes, h: int, i: int) -> int:
        """Row holding ``data`` (of hash ``h``, found at or after position
        ``i`` of the sorted hashes), -1 if none."""
        hashes, order, ends = self.hashes, self.order, self._ends
        while i < len(hashes) and hashes[i] == h:  # several only when hashes collide
            row = int(order[i])
            if self._blob[int(ends[row - 1]) if row > 0 else 0:int(ends[row])].tobytes() == data:
                return row
            i += 1
        return -1

    def rows(self, keys: Sequence[str]) -> np.ndarray:
        """The row of every key, -1 for a key the column does not hold."""
        wanted = string_hashes(keys)
        at = np.searchsorted(self.hashes, wanted).tolist()
        find = self._find
        return np.fromiter((find(k.encode("utf-8", _ERRORS), h, i) for k, h, i in
                            zip(keys, wanted.tolist(), at, strict=True)),
                           dtype=np.int64, count=len(keys))

    def row_hashes(self) -> np.ndarray:
        """The :func:`string_hashes` of the column's rows, in row order."""
        out = np.empty(len(self.hashes), dtype=np.uint64)
        out[np.asarray(self.order)] = self.hashes
        return out

    @overload
    def get(self, key: str, /) -> int | None: ...

    @overload
    def get(self, key: str, default: int, /) -> int: ...

    @overload
    def get(self, key: str, default: _T, /) -> int | _T: ...

    def get(self, key: str, default: object = None) -> object:
        """Row of ``key`` (``default`` when the column does not hold it)."""
        row = self._memo.get(key)
        if row is None:
            data = key.encode("utf-8", _ERRORS)
            h = int.from_bytes(_digest(data), "little")
            row = self._find(data, h, int(self.hashes.searchsorted(np.uint64(h))))
            if len(self._memo) >= self.MEMO:
                self._memo.clear()
            self._memo[key] = row
        return row if row >= 0 else default

    def __getitem__(self, key: str) -> int:
        row = self.get(key)
        if row is None:
            raise KeyError(key)
        return row

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    def __len__(self) -> int:
        return len(self.column)

    def __iter__(self) -> Iterator[str]:
        return iter(self.column.all())
