"""The one worker pool of ``--jobs``: a function over items in forked processes.

:func:`fork_map` calls ``func(item)`` for every item in ``jobs`` processes,
this one and ``jobs - 1`` made by ``fork``, and returns the results in item
order (``eval``'s topics); :func:`fork_start` runs ``func`` in forked workers
while the caller goes on with other work (``eval``'s run files);
:func:`fork_imap` yields the results in item order as they come, a few items
ahead of the consumer at most (``load``'s XML files).  The workers
inherit the parent's memory (a store's memory-mapped columns, the
evaluation job, the modules already imported): nothing is sent to them.
Each takes the next item from a counter they share, as soon as it is free
(so a slow topic holds up no other), and writes every result back on a pipe
of its own as one pickled frame.  In :func:`fork_map` the parent takes items
too, from the other end (the last item first: the workers start with the
first, the biggest where the caller puts it first, and the parent's items
are short) and reads the frames that have come after each of its own (a
worker never waits on a full pipe for longer than one item of the
parent's); elsewhere it only waits on the pipes, collects the frames and
reports progress.  No pool of threads, no task messages, no process kept
alive after the call.

A :class:`~graphprum.errors.GraphprumError` raised in a worker is raised
again in the parent as the same error (same class, same message; an
:class:`~graphprum.errors.InputError` keeps its file and line), without a
worker's traceback around it; any other exception is raised again as
itself, the worker's traceback added as a note.  After an error no item
after it is started, and the items before it are done (a worker's error
stops every process: the items before it were taken already), so the error
raised is that of the first item that fails, as in one process.

Examples
--------
>>> fork_map(lambda x: x * x, [1, 2, 3], jobs=2)
[1, 4, 9]
>>> from graphprum.errors import InputError
>>> def bad(x: int) -> int:
...     raise InputError("run.txt", x, "no")
>>> fork_map(bad, [7, 8], jobs=2)
Traceback (most recent call last):
...
graphprum.errors.InputError: run.txt:7: no
"""

from __future__ import annotations

import contextlib
import gc
import math
import os
import pickle
import struct
import time
from collections.abc import Callable, Iterator, MutableMapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from graphprum.errors import GraphprumError, WorkerError

T = TypeVar("T")
R = TypeVar("R")

#: A frame on a worker's pipe: its length (8 bytes), then the pickled
#: ``(item index, result)``.
_HEADER = struct.Struct("<Q")


@dataclass(frozen=True)
class _Raised:
    """A user's error raised in a worker (pickled as itself)."""

    error: GraphprumError


@dataclass(frozen=True)
class _Failed:
    """Any other exception raised in a worker, with the worker's traceback."""

    error: BaseException
    trace: str


def cpu_count() -> int:
    """CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


#: The variables that size the BLAS thread pools of numpy and scipy (OpenBLAS,
#: or an MKL or OpenMP build): one set by the user is left as it is.
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS")


def single_blas_thread(environ: MutableMapping[str, str] | None = None) -> bool:
    """Before numpy is imported: one OpenBLAS thread in every process of an
    evaluation (``OPENBLAS_NUM_THREADS=1``), unless the user set one of
    :data:`BLAS_THREAD_VARIABLES`; whether it was set (not once numpy is
    imported: OpenBLAS reads it when it is loaded).

    An idle OpenBLAS thread keeps spinning for a while after each call:
    with every CPU busy evaluating topics (``--jobs``) those threads take
    CPU time from the processes (``eval --jobs 2`` on 2 CPUs: 3% slower).
    The count is the same whatever ``--jobs`` says, because OpenBLAS may
    split a long dot product between its threads, and the sum's rounding
    follows the split: every ``--jobs`` gives the same table, to the last bit.
    graphprum's BLAS calls are small; they lose nothing.

    >>> env = {"OMP_NUM_THREADS": "4"}
    >>> single_blas_thread(env), env
    (False, {'OMP_NUM_THREADS': '4'})
    """
    import sys

    environ = os.environ if environ is None else environ
    if "numpy" in sys.modules or any(name in environ for name in BLAS_THREAD_VARIABLES):
        return False
    environ["OPENBLAS_NUM_THREADS"] = "1"
    return True


def can_fork() -> bool:
    """Whether this platform can ``fork`` (not Windows)."""
    return hasattr(os, "fork")


def fork_map(func: Callable[[T], R], items: Sequence[T], jobs: int,
             done: Callable[[int], None] | None = None) -> list[R]:
    """``[func(x) for x in items]`` in ``jobs`` processes: this one and
    ``jobs - 1`` forked workers (see the module notes).

    The parent takes items as a worker does, from the other end: with
    ``jobs=2`` one process is forked, not two beside an idle parent (on 2
    CPUs ``eval --jobs 2`` is 2.5% faster so, paired runs: the parent's items
    pay no fork and no copy-on-write).
    ``done(i)`` is called in the parent as the result of ``items[i]``
    arrives.  One job, fewer than two items, or no ``fork`` on this
    platform: everything runs here, in order.
    """
    if jobs <= 1 or len(items) < 2 or not can_fork():
        out: list[R] = []
        for i, x in enumerate(items):
            out.append(func(x))
            if done is not None:
                done(i)
        return out
    shared = _Shared(len(items))
    try:
        workers = _start(func, items, min(jobs, len(items)) - 1, shared=shared)
        with Forked[R](workers, len(items)) as forked:
            return forked.wait(done, helping=(func, items, shared))
    finally:
        shared.lock.close()


class Forked(Generic[R]):
    """``func`` over items, under way in forked workers (:func:`fork_start`).

    :meth:`wait` collects the results; leaving a ``with`` block without
    waiting (an error in the parent) ends the workers, as :meth:`cancel` does.
    """

    def __init__(self, workers: dict[int, int], n: int) -> None:
        self._workers = workers  # read end of a worker's pipe -> its pid
        self._n = n
        self._open = True

    def wait(self, done: Callable[[int], None] | None = None,
             helping: tuple[Callable[[Any], R], Sequence[Any], _Shared] | None = None
             ) -> list[R]:
        """The results in item order, once every worker has sent its own;
        a worker's error is raised here (module notes).  ``done(i)`` is
        called as the result of item ``i`` arrives.  With ``helping``
        (``func``, the items and the workers' counter) this process takes
        items too, from the end (:func:`fork_map`)."""
        try:
            results = (_collect(self._workers, done) if helping is None else
                       _collect_helping(self._workers, *helping, done))
        except BaseException:
            self.cancel()
            raise
        self._open = False
        _end(self._workers, stop=False)
        gc.unfreeze()
        errors = sorted((i, r) for i, r in results.items() if isinstance(r, _Raised | _Failed))
        if errors:
            _raise(errors[0][1])
        if len(results) < self._n:
            raise WorkerError(f"a worker process of --jobs ended without its results "
                              f"({self._n - len(results)} of {self._n} missing): killed, "
                              f"or out of memory? (--jobs 1 works in one process)")
        return [results[i] for i in range(self._n)]  # type: ignore[misc]

    def cancel(self) -> None:
        """End the workers still running and forget their results."""
        if self._open:
            self._open = False
            _end(self._workers, stop=True)
            gc.unfreeze()

    def __enter__(self) -> Forked[R]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.cancel()


def fork_start(func: Callable[[T], R], items: Sequence[T], jobs: int) -> Forked[R]:
    """Start ``func`` over ``items`` in ``min(jobs, len(items))`` forked workers
    (at least one) and return at once: the parent goes on with other work
    while they run, and collects their results with :meth:`Forked.wait`.

    >>> with fork_start(lambda x: x + 1, [1, 2, 3], jobs=1) as forked:
    ...     forked.wait()
    [2, 3, 4]
    """
    return Forked(_start(func, items, jobs), len(items))


def fork_imap(func: Callable[[T], R], items: Sequence[T], jobs: int,
              window: int | None = None) -> Iterator[R]:
    """``map(func, items)`` in ``jobs`` forked processes: the results in
    item order, each as soon as it and those before it have come; no worker
    starts an item more than ``window`` (default ``2 * jobs``) ahead of the
    one the consumer takes next, so memory stays bounded when the consumer
    is slower.  A worker's error is raised where its item's result would
    have been yielded (module notes); closing the generator early ends the
    workers.  One job, fewer than two items or no ``fork``: computed here,
    one item at a time.

    >>> list(fork_imap(lambda x: x * 10, range(5), jobs=2, window=1))
    [0, 10, 20, 30, 40]
    """
    if jobs <= 1 or len(items) < 2 or not can_fork():
        yield from map(func, items)
        return
    window = max(1, window if window is not None else 2 * jobs)
    delivered = _shared_ints(1)  # results the consumer has taken
    workers = _start(func, items, jobs, (delivered, window))
    n = len(items)
    pending: dict[int, object] = {}
    ahead = 0  # the next item to yield
    finished = False
    try:
        for i, result in _frames(workers):
            pending[i] = result
            while ahead in pending:
                result = pending.pop(ahead)
                if isinstance(result, _Raised | _Failed):
                    _raise(result)
                ahead += 1
                delivered[0] = ahead
                yield result  # type: ignore[misc]
        if ahead < n:
            raise WorkerError(f"a worker process of --jobs ended without its results "
                              f"({n - ahead} of {n} missing): killed, or out of memory? "
                              f"(--jobs 1 works in one process)")
        finished = True
    finally:
        _end(workers, stop=not finished)
        gc.unfreeze()


def _shared_ints(n: int) -> memoryview:
    """``n`` 64-bit integers (0) in memory shared with the processes forked
    after this call (an anonymous shared mapping)."""
    import mmap

    return memoryview(mmap.mmap(-1, 8 * max(n, 1))).cast("q")


class _PipeLock:
    """A lock shared with the processes forked after it is made: a pipe that
    holds one byte while the lock is free; taking the lock is reading that
    byte (one process gets it), releasing it is writing it back.  A process
    killed while holding it keeps the byte, as it would keep a semaphore:
    the parent's waits are bounded and watch the workers meanwhile
    (:meth:`_Shared.take_back`).  Made with two pipe ends and no module of
    ``multiprocessing`` (7 ms of imports before ``eval --jobs`` can fork).
    """

    def __init__(self) -> None:
        self._read, self._write = os.pipe()
        os.set_blocking(self._read, False)
        os.write(self._write, b"\0")

    def acquire(self, timeout: float | None = None) -> bool:
        """Take the lock, waiting up to ``timeout`` seconds (None: as long as
        it takes); whether it was taken."""
        import select

        deadline = None if timeout is None else time.monotonic() + timeout
        waiting = select.poll()  # (not select.select: it takes no descriptor >= 1024)
        waiting.register(self._read, select.POLLIN)
        while True:
            with contextlib.suppress(BlockingIOError):  # another process was first
                if os.read(self._read, 1):
                    return True
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return False
            waiting.poll(None if left is None else max(1, math.ceil(left * 1000)))

    def release(self) -> None:
        """Give the lock back."""
        os.write(self._write, b"\0")

    def close(self) -> None:
        """Close this process's ends of the pipe."""
        for fd in (self._read, self._write):
            with contextlib.suppress(OSError):
                os.close(fd)

    def __enter__(self) -> _PipeLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


class _Shared:
    """The items not yet taken, :attr:`front` up to :attr:`back` (excluded),
    shared by the processes of one call, and the lock around taking one:
    workers take the front item, the parent of :func:`fork_map` the back one."""

    def __init__(self, n: int) -> None:
        self._ints = _shared_ints(2)
        self._ints[1] = n
        self.lock = _PipeLock()

    @property
    def front(self) -> int:
        """The first item not taken."""
        return int(self._ints[0])

    @front.setter
    def front(self, value: int) -> None:
        self._ints[0] = value

    @property
    def back(self) -> int:
        """One past the last item not taken."""
        return int(self._ints[1])

    @back.setter
    def back(self, value: int) -> None:
        self._ints[1] = value

    def take_back(self, drain: Callable[[], None]) -> int | None:
        """The index of the last item not taken, counted as taken; None when
        all are.  ``drain()`` is called while the lock is busy: a worker
        killed while holding it would hold it forever, and reading its
        closed pipe is what tells (:class:`WorkerError`)."""
        with self._locked(drain):
            j = self.back - 1
            if j < self.front:
                return None
            self.back = j
            return j

    @contextlib.contextmanager
    def _locked(self, drain: Callable[[], None]) -> Iterator[None]:
        while not self.lock.acquire(timeout=0.05):
            drain()
        try:
            yield
        finally:
            self.lock.release()


def _start(func: Callable[[T], R], items: Sequence[T], jobs: int,
           window: tuple[Any, int] | None = None,
           shared: _Shared | None = None) -> dict[int, int]:
    """Fork ``min(jobs, len(items))`` workers (at least one) over ``items``;
    the read end of each one's pipe -> its pid.  ``window`` is a shared
    count of the results the parent has taken and how far ahead of it a
    worker may start an item; ``shared``, the counter the workers take
    items from (a new one by default)."""
    n = len(items)
    own = shared is None  # the workers' alone: this process needs no lock
    shared = shared if shared is not None else _Shared(n)
    workers: dict[int, int] = {}  # read end of a worker's pipe -> its pid
    # the objects the workers inherit leave the garbage collector's view: its
    # passes would write to every one of them and so copy their pages into
    # each worker (copy-on-write); the parent takes them back once the workers
    # are done (:meth:`Forked.wait`, :meth:`Forked.cancel`, :func:`fork_imap`).
    gc.freeze()
    try:
        for _ in range(max(1, min(jobs, n))):
            read_end, write_end = os.pipe()
            _widen(write_end)
            parent = os.getpid()
            pid = os.fork()
            if pid == 0:  # the worker
                _die_with(parent)
                os.close(read_end)
                for fd in workers:
                    os.close(fd)
                _work(func, items, shared, write_end, window)  # never returns
            os.close(write_end)
            workers[read_end] = pid
    except BaseException:
        _end(workers, stop=True)
        gc.unfreeze()
        raise
    finally:
        if own:
            shared.lock.close()
    return workers


def _widen(fd: int) -> None:
    """Give a worker's pipe a 1 MB buffer where Linux allows (64 KB by
    default): a big result (a run read in a worker) then crosses in fewer
    turns between the two processes."""
    import fcntl

    with contextlib.suppress(OSError, AttributeError):
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, 1 << 20)


def _work(func: Callable[[T], R], items: Sequence[T], shared: _Shared,
          fd: int, window: tuple[Any, int] | None = None) -> None:
    """A worker: take items until none is left, send each result; then exit.
    With a ``window`` (see :func:`_start`) an item too far ahead of the
    parent waits until the parent has taken more results."""
    status = 0
    parent = os.getppid()
    try:
        try:
            while True:
                with shared.lock:
                    i = shared.front
                    if i >= shared.back:
                        break
                    wait = window is not None and i >= window[0][0] + window[1]
                    if not wait:
                        shared.front = i + 1
                if wait:
                    if os.getppid() != parent:  # the parent is gone: nobody takes more
                        break
                    time.sleep(0.002)
                    continue
                result: object
                try:
                    result = func(items[i])
                except GraphprumError as exc:
                    result = _Raised(exc)
                except BaseException as exc:  # sent to the parent as it is
                    import traceback

                    result = _Failed(exc, traceback.format_exc())
                if isinstance(result, _Raised | _Failed):
                    with shared.lock:  # nobody starts another item
                        shared.front = shared.back
                _send(fd, _payload(i, result))
        finally:
            os.close(fd)
    except BaseException:  # a worker never returns into the caller's code
        status = 1
    finally:
        os._exit(status)


def _die_with(parent: int) -> None:
    """In a new worker: be ended (SIGKILL) when the parent ends, however it
    ends (Linux), and leave at once if it has ended already; a worker left
    running would keep the store's lock it inherited."""
    import ctypes
    import signal

    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:
        os._exit(1)


def _send(fd: int, payload: bytes) -> None:
    """Write one frame, its header then ``payload`` (not joined into one
    more copy of a payload of megabytes), however many writes it takes."""
    parts = [memoryview(_HEADER.pack(len(payload))), memoryview(payload)]
    while parts:
        written = os.writev(fd, parts)
        while parts and written >= len(parts[0]):
            written -= len(parts[0])
            parts.pop(0)
        if parts and written:
            parts[0] = parts[0][written:]


def _payload(i: int, result: object) -> bytes:
    """Item ``i``'s result pickled; a result or an exception that does not
    pickle is sent as a RuntimeError that says so."""
    try:
        return pickle.dumps((i, result), pickle.HIGHEST_PROTOCOL)
    except Exception as exc:
        if isinstance(result, _Raised | _Failed):
            text = f"{type(result.error).__name__}: {result.error}"
            trace = getattr(result, "trace", "")
        else:
            text = (f"the result of a worker process of --jobs cannot be sent back "
                    f"({type(exc).__name__}: {exc})")
            trace = ""
        return pickle.dumps((i, _Failed(RuntimeError(text), trace)))


def _collect(workers: dict[int, int],
             done: Callable[[int], None] | None) -> dict[int, object]:
    """Read every worker's frames until all pipes close; results by item index."""
    results: dict[int, object] = {}
    for i, result in _frames(workers):
        results[i] = result
        if done is not None:
            done(i)
    return results


def _collect_helping(workers: dict[int, int], func: Callable[[Any], object],
                     items: Sequence[Any], shared: _Shared,
                     done: Callable[[int], None] | None) -> dict[int, object]:
    """Take items here beside the workers, the last first, reading the
    frames that have come after each; then the workers' last frames.
    Results by item index (an error here is kept as a worker's would be;
    the items before it are still done, those after it are all taken)."""
    results: dict[int, object] = {}

    def keep(i: int, result: object) -> None:
        results[i] = result
        if done is not None:
            done(i)

    with _Inbox(workers) as inbox:
        def drain() -> None:
            for j, got in inbox.take(0.0):
                keep(j, got)

        while (i := shared.take_back(drain)) is not None:
            result: object
            try:
                result = func(items[i])
            except GraphprumError as exc:
                result = _Raised(exc)
            except Exception as exc:  # raised again as itself, its traceback on it
                result = _Failed(exc, "")
            keep(i, result)  # after an error here, the items before it are still done
            drain()
        while inbox:
            for j, got in inbox.take(None):
                keep(j, got)
    return results


def _frames(workers: dict[int, int]) -> Iterator[tuple[int, object]]:
    """``(item index, result)`` of every frame the workers send, as each
    comes in, until all their pipes close (:class:`_Inbox`)."""
    with _Inbox(workers) as inbox:
        while inbox:
            yield from inbox.take(None)


class _Inbox:
    """The workers' pipes, read a frame at a time as they come.

    A frame is read straight into its worker's buffer, which grows to the
    biggest frame and is used again for the next: no copy of the frame,
    and no fresh memory for each (a new buffer of a few MB is mapped, and
    faulted in page by page, every time: 0.4 million page faults and 3 s
    of system time in the parent of a 5-million-element ``load xml``).
    A pipe that closes is its worker's end: the worker is reaped then
    (:func:`_reap`: WorkerError if it died).  True while a pipe is open."""

    def __init__(self, workers: dict[int, int]) -> None:
        import selectors

        self._workers = workers
        self._receivers = {fd: _Receiver(fd) for fd in workers}
        self._selector = selectors.DefaultSelector()
        for fd in workers:
            self._selector.register(fd, selectors.EVENT_READ)
        self._open = len(workers)

    def __bool__(self) -> bool:
        return self._open > 0

    def take(self, timeout: float | None) -> Iterator[tuple[int, object]]:
        """``(item index, result)`` of each frame completed by what the
        pipes hold, as it is read, waiting up to ``timeout`` seconds (None:
        until something comes) for the first; nothing when nothing came."""
        while self._open:
            events = self._selector.select(timeout)
            if not events:
                break
            for key, _ in events:
                fd = int(key.fd)
                payload = self._receivers[fd].read()
                if payload is None:  # the pipe closed
                    self._selector.unregister(fd)
                    self._open -= 1
                    _reap(self._workers[fd])
                elif payload:
                    yield pickle.loads(payload)
            # then only what has come already, but a frame begun is read to
            # its end: its worker is writing it (a big result crosses the
            # pipe now, not a part after each of the parent's items)
            timeout = None if any(r.partial for r in self._receivers.values()) else 0.0

    def __enter__(self) -> _Inbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self._selector.close()


class _Receiver:
    """One worker's pipe, read a frame at a time (:func:`_frames`)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.header = bytearray(_HEADER.size)
        self.buffer = bytearray(1 << 16)
        self.size: int | None = None  # the payload's, once its header is read
        self.have = 0

    @property
    def partial(self) -> bool:
        """Whether part of a frame has been read, and not the rest."""
        return self.size is not None or self.have > 0

    def read(self) -> memoryview | None:
        """Read what the pipe holds, up to the end of the current part of
        a frame: the payload when this completes one (valid until the next
        call), b"" when not yet, None when the pipe closed."""
        if self.size is None:
            view = memoryview(self.header)[self.have:]
        else:
            view = memoryview(self.buffer)[self.have:self.size]
        got = os.readv(self.fd, [view])
        if not got:
            self.size, self.have = None, 0  # a frame cut short is no frame
            return None
        self.have += got
        if self.size is None:
            if self.have < _HEADER.size:
                return memoryview(b"")
            (self.size,) = _HEADER.unpack(self.header)
            self.have = 0
            if self.size > len(self.buffer):
                self.buffer = bytearray(max(self.size, 2 * len(self.buffer)))
            return memoryview(b"")
        if self.have < self.size:
            return memoryview(b"")
        payload = memoryview(self.buffer)[:self.size]
        self.size, self.have = None, 0
        return payload


def _reap(pid: int) -> None:
    """Wait for a worker that closed its pipe (it closes it as it exits);
    WorkerError when it died (a signal, the out-of-memory killer) rather
    than ending its loop: its items will never come, and the others may be
    waiting for the parent to take them (:func:`fork_imap`)."""
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:  # reaped already
        return
    if os.WIFSIGNALED(status) or os.waitstatus_to_exitcode(status) != 0:
        import signal

        how = (f"killed by {signal.Signals(os.WTERMSIG(status)).name}"
               if os.WIFSIGNALED(status) else f"exit status {os.WEXITSTATUS(status)}")
        raise WorkerError(f"a worker process of --jobs died ({how}) without its results: "
                          f"out of memory? (--jobs 1 works in one process)")


def _end(workers: dict[int, int], stop: bool) -> None:
    """Close the pipes and reap the workers; with ``stop`` (the parent is
    leaving on an error or an interrupt) end those still running first
    (SIGKILL: a worker has nothing to clean up, it leaves with ``os._exit``,
    and a handler it inherited may ignore SIGTERM)."""
    import signal

    for fd, pid in workers.items():
        with contextlib.suppress(OSError):
            os.close(fd)
        try:
            if stop and os.waitpid(pid, os.WNOHANG)[0] == 0:
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ChildProcessError, ProcessLookupError):
            pass


def _raise(failure: _Raised | _Failed) -> None:
    """Raise a worker's error in the parent (module notes)."""
    if isinstance(failure, _Raised):
        raise failure.error from None
    error = failure.error
    if failure.trace:
        error.add_note("in a worker process of --jobs:\n" + failure.trace.rstrip())
    raise error
