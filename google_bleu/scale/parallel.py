"""Every core of one machine: GLEU statistics of chunks of segments in worker processes.

Corpus GLEU is ``sum(n_match) / sum(n_all)`` over per-segment rows, so a corpus split into
contiguous chunks of segments, each counted in its own process, and concatenated in order
gives exactly the rows of one process (``==``), and so exactly the same scores.

- :func:`parallel_stats`: the statistics of predictions and references held in memory,
  counted by ``jobs`` processes.
- :func:`file_stats`: the statistics of a hypothesis file against one or more reference
  files, read in chunks of lines and never whole, so memory grows only with the
  per-segment rows (4 int64 and the chosen reference = 40 bytes a segment), not with the text.
- :func:`count_lines`: the common line count of reference files (the usual one-line error
  when they differ), streamed the same way.

Workers are started with the ``spawn`` method (safe next to threads, torch and CUDA, and the
same on every platform); each gets the pickled :class:`~google_bleu.scorer.GLEU` once and
builds its tokenizer there. A tokenizer given as a callable must therefore pickle (a
module-level function does, a lambda does not) when ``jobs > 1``. Scripts that use
``jobs > 1`` need the usual ``if __name__ == "__main__":`` guard of ``spawn``.

Files are decoded with the command line's policy (sacrebleu's): UTF-8, split on ``\\n``
only, trailing whitespace stripped, and a byte-order mark at the start of a file kept as
part of line 1, with a warning.

Example:
    >>> from google_bleu import GLEU
    >>> scorer = GLEU()
    >>> predictions = ["the cat sat on the mat", "", "a b c"]
    >>> references = [["the cat ate the mat"], ["x"], ["a b c", "a b"]]
    >>> parallel_stats(scorer, predictions, references, jobs=1, chunk_size=2) == scorer.stats(predictions, references)
    True
    >>> resolve_jobs(0) >= 1
    True
"""

from __future__ import annotations

import ctypes
import io
import os
import pickle
import signal
import stat
import sys
import tempfile
import threading
import time
import traceback
import warnings
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, BinaryIO, Union

from ..scorer import GLEU, scorer_from_options
from ..stats import COLUMNS, GleuStats
from ..validation import check_bool, check_texts, describe, integer, lazy_module
from .lines import BOM, MAX_LINE_BYTES, LineError, bom_warning, lines_from_bytes, long_line_message

np = lazy_module("numpy")  # imported when a chunk is scored (a short input never needs it)

#: Segments per chunk of in-memory input: about 0.1 s of work, far above the cost of a hand-off.
DEFAULT_CHUNK_SIZE = 10_000
#: Lines per chunk read from files (each file's chunk is at most this many lines).
DEFAULT_CHUNK_LINES = 20_000
#: Chunks in flight per worker: enough to keep workers busy, few enough to bound memory.
CHUNKS_PER_WORKER = 2
#: The byte-order mark (U+FEFF) as UTF-8 bytes.
BOM_BYTES = b"\xef\xbb\xbf"

PathOrStream = Union[str, "os.PathLike[str]", BinaryIO]


def available_cores() -> int:
    """The CPU cores this process may run on (its affinity where the OS reports one)."""
    if hasattr(os, "process_cpu_count"):  # Python 3.13+
        return os.process_cpu_count() or 1
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def resolve_jobs(jobs: Any) -> int:
    """The number of worker processes for a ``jobs`` setting (``0``: every available core).

    Example:
        >>> resolve_jobs(2)
        2
        >>> resolve_jobs(-1)
        Traceback (most recent call last):
        ...
        ValueError: jobs must be 0 (all cores) or a positive integer, got -1
        >>> resolve_jobs("2")
        Traceback (most recent call last):
        ...
        TypeError: jobs must be an int, got str '2'
    """
    number = integer(jobs)
    if number is None:
        raise TypeError(f"jobs must be an int, got {describe(jobs)}")
    if number < 0:
        raise ValueError(f"jobs must be 0 (all cores) or a positive integer, got {jobs}")
    return available_cores() if number == 0 else number


def _check_positive(value: Any, name: str) -> int:
    number = integer(value)
    if number is None:
        raise TypeError(f"{name} must be an int, got {describe(value)}")
    if number < 1:
        raise ValueError(f"{name} must be a positive integer, got {value}")
    return number


def _check_scorer(scorer: Any, jobs: int) -> None:
    scorer_from_options(scorer)  # a GLEU
    if jobs > 1:
        try:
            pickle.dumps(scorer)
        except Exception as error:  # pickling raises several types (PicklingError, AttributeError, TypeError)
            raise TypeError(
                f"jobs={jobs} sends the scorer to worker processes, but its tokenizer does not pickle "
                f"({type(error).__name__}: {error}); use a tokenizer name or a module-level function"
            ) from None


# -- worker side ---------------------------------------------------------------------------
_WORKER_SCORER: Any = None
#: Seconds between a worker's checks that its parent is alive (where PR_SET_PDEATHSIG is missing).
PARENT_POLL_SECONDS = 0.5


def _die_with_parent(parent: int) -> None:
    """Ends this worker when the process that started it ends, however it ends (SIGKILL too).

    On Linux the kernel sends SIGKILL at the parent's death (``prctl(PR_SET_PDEATHSIG)``);
    everywhere, a daemon thread checks ``os.getppid()`` (a dead parent's children are
    reparented). With the workers gone, multiprocessing's resource tracker sees its pipe
    close, removes the pool's named semaphores and exits too.
    """
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the parent died before the line above
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(PARENT_POLL_SECONDS)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="google-bleu-parent-watch", daemon=True).start()


def _init_worker(scorer: Any, parent: int | None = None) -> None:
    # The scorer itself arrives pickled (a named tokenizer pickles as its name, a callable as
    # itself), never a scorer rebuilt from a name that a user's tokenizer may also carry.
    global _WORKER_SCORER
    _WORKER_SCORER = scorer
    # Ctrl-C reaches the whole process group: the parent stops the workers, so they do not
    # print a KeyboardInterrupt traceback each.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):  # the parent blocked them while it started us
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _DEFERRED)
    if parent is not None:
        _die_with_parent(parent)


#: The signals the command line turns into exceptions (Ctrl-C, and SIGTERM).
_DEFERRED = {signal.SIGINT, signal.SIGTERM}


@contextmanager
def _signals_deferred() -> Iterator[None]:
    """Holds SIGINT and SIGTERM back while the executor creates processes, queues and their
    named semaphores: an exception raised in there (the command line turns both signals into
    exceptions) could leave a semaphore unregistered, the executor half started, or a worker
    spawned whose start-up data was never written (it prints "EOFError: Ran out of input").
    A signal that arrives is delivered, and its exception raised, when the block ends.

    Two holds, because Python runs a signal's handler in the main thread whichever thread the
    signal reaches: the main thread's mask keeps the signal from it (and the workers spawned
    here inherit that mask, so a Ctrl-C cannot strike one still importing), and the handlers
    are swapped for one that notes the signal, for a signal that reaches another thread
    (numpy's BLAS threads, any thread of the program).
    """
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        yield
        return
    # multiprocessing starts its resource tracker on first use and then unblocks SIGINT and
    # SIGTERM (CPython's bpo-33613 code), which would end the deferral inside the block.
    # Started here, it is running already when the executor needs it.
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()
    caught: list[int] = []
    handlers = {}
    for signum in _DEFERRED:
        handler = signal.getsignal(signum)
        if handler is not None and handler is not signal.SIG_IGN:  # None: set outside Python
            handlers[signum] = signal.signal(signum, lambda signum, frame: caught.append(signum))
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _DEFERRED)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)  # a pending signal is noted here
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
        for signum in dict.fromkeys(caught):
            signal.raise_signal(signum)  # through the handler restored


#: Columns a worker sends back per segment: the statistics row, then the chosen reference.
_WIDTH = len(COLUMNS) + 1


def _rows(scorer: Any, predictions: list[str], references: list[list[str]]) -> np.ndarray:
    stats = scorer.stats(predictions, references)
    return np.column_stack((stats.rows, stats.reference_index))


def _stats(table: np.ndarray, scorer: Any) -> GleuStats:
    """Rows and chosen references from the workers' tables, checked as statistics from outside."""
    return GleuStats(table[:, : len(COLUMNS)], scorer.min_len, scorer.max_len, table[:, len(COLUMNS)])


def _worker_rows(predictions: list[str], references: list[list[str]]) -> np.ndarray:
    return _rows(_WORKER_SCORER, predictions, references)


def decode_block(data: bytes, name: str, first_line: int = 1) -> list[str]:
    """Lines of a block of whole lines, by the shared line policy (:mod:`google_bleu.scale.lines`);
    error messages number lines from ``first_line``.

    Example:
        >>> decode_block(b"a b \\r\\n\\xef\\xbb\\xbfc\\n", "x.txt")
        ['a b', '\\ufeffc']
        >>> decode_block(b"ok\\n\\xff\\n", "x.txt", first_line=41)
        Traceback (most recent call last):
        ...
        google_bleu.scale.lines.LineError: x.txt: line 42 is not valid UTF-8 (invalid start byte at byte 0)
    """
    return lines_from_bytes(data, name, first_line)


def _split_tabs(lines: list[str], num_refs: int, name: str, first_line: int) -> list[list[str]]:
    columns = []
    for number, line in enumerate(lines, first_line):
        fields = line.split("\t")
        if len(fields) != num_refs:
            raise LineError(f"{name}: line {number} has {len(fields)} tab-separated references, expected {num_refs} (-nr)")
        columns.append(fields)
    return columns


def _block_stats(
    scorer: Any, hypotheses: bytes, references: list[bytes], names: list[str], first_line: int, num_refs: int = 1
) -> GleuStats:
    predictions = decode_block(hypotheses, names[0], first_line)
    columns = [decode_block(block, name, first_line) for block, name in zip(references, names[1:])]
    if num_refs > 1:
        return scorer.stats(predictions, _split_tabs(columns[0], num_refs, names[1], first_line))
    return scorer.stats(predictions, [list(refs) for refs in zip(*columns)])


def _worker_block_rows(
    hypotheses: bytes, references: list[bytes], names: list[str], first_line: int, num_refs: int = 1
) -> np.ndarray:
    stats = _block_stats(_WORKER_SCORER, hypotheses, references, names, first_line, num_refs)
    return np.column_stack((stats.rows, stats.reference_index))


# -- the pool ------------------------------------------------------------------------------
Task = tuple[Callable[..., Any], Callable[..., Any], tuple]  # the rows and stats functions, and their arguments


class WorkerError(RuntimeError):
    """A worker process ended while it had work (killed by a signal, e.g. by the out-of-memory killer)."""


class RemoteTraceback(Exception):
    """The traceback of an exception raised in a worker, as text (the ``__cause__`` of the
    exception re-raised here, as :mod:`concurrent.futures` shows it)."""

    def __str__(self) -> str:
        return self.args[0]


def _reply(error: BaseException) -> bytes:
    """An exception raised in a worker, pickled for this process (as a ``RuntimeError`` with
    its text when the exception itself does not pickle)."""
    text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    try:
        return pickle.dumps((False, error, text))
    except Exception:  # an exception's arguments may not pickle (any type)
        return pickle.dumps((False, RuntimeError(f"{type(error).__name__}: {error}"), text))


def _serve(connection: Any, scorer: Any, parent: int) -> None:
    """A worker's life: tasks in, rows (or the task's exception) out, one at a time, until
    the pool closes its end of the connection."""
    _init_worker(scorer, parent)
    while True:
        try:
            function, args = pickle.loads(connection.recv_bytes())
        except (EOFError, OSError):  # the pool closed: this worker's work is done
            return
        try:
            data = pickle.dumps((True, function(*args), None), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as error:
            data = _reply(error)
        try:
            connection.send_bytes(data)
        except OSError:  # the pool is gone
            return


class _Worker:
    """One worker process and this process's end of its connection (a socket pair).

    The worker's end is held by the worker alone: this process closes its copy as soon as
    the worker has started. So when the worker dies, however and whenever (even in the
    middle of writing a result), this end reads as end of file: nothing here can wait for
    the rest of a message that will never come.
    """

    def __init__(self, context: Any, scorer: Any) -> None:
        here, there = context.Pipe(duplex=True)
        self.process = context.Process(
            target=_serve, args=(there, scorer, os.getpid()), name="google-bleu-worker", daemon=True
        )
        try:
            self.process.start()
        except BaseException:
            here.close()
            raise
        finally:
            there.close()
        self.connection = here
        #: The index of the task it holds (None: idle).
        self.task: int | None = None

    def kill(self) -> None:
        try:
            self.process.kill()
        except (OSError, ValueError, AttributeError):  # already gone, or already closed
            pass
        self.connection.close()

    def stop(self, timeout: float) -> None:
        """Waits up to ``timeout`` seconds for the process to end, kills it if it has not, and
        releases what it held here."""
        try:
            self.process.join(timeout)
            if self.process.is_alive():
                self.process.kill()
                self.process.join(timeout)
            self.process.close()
        except (OSError, ValueError, AssertionError):  # already closed, or still alive after a kill
            pass
        self.connection.close()


class WorkerPool:
    """Worker processes for a whole run, shared by every call given it.

    Processes start as tasks need them, at most ``jobs`` and at most the cores this process
    may run on (:func:`available_cores`); with one, the work is done in this process and
    none starts. Each worker holds one task at a time, sent and answered over its own socket
    pair; this process reads only from the worker whose answer is ready, in the calling
    thread, and starts no thread of its own. So Ctrl-C or a signal turned into an exception
    interrupts any wait, and a worker killed while it writes a result is an end of file here,
    never a message waited for: the call raises :class:`WorkerError`.

    The processes stop at :meth:`close` or at the end of a ``with`` block; a block or a
    :meth:`run` left by an exception (Ctrl-C, a signal turned into an exception, an input
    error, a caller that stops iterating) kills them instead of waiting for their chunks,
    and a later call starts fresh ones. Each worker also ends by itself when this process
    dies, even by SIGKILL (:func:`_die_with_parent`), so none outlives it.

    Example:
        >>> from google_bleu import GLEU
        >>> with WorkerPool(GLEU(), jobs=1) as pool:
        ...     parallel_stats(pool.scorer, ["a b"], [["a b"]], pool=pool).rows.tolist()
        [[3, 3, 3, 3]]
    """

    def __init__(self, scorer: Any, jobs: int = 1) -> None:
        self.jobs = resolve_jobs(jobs)
        _check_scorer(scorer, self.jobs)
        self.scorer = scorer
        #: The most worker processes this pool starts: more than the usable cores only adds
        #: processes that wait for a core, each with its own chunks of text in memory.
        self.processes = min(self.jobs, available_cores())
        self._workers: list[_Worker] = []

    def _spawn(self) -> _Worker:
        import multiprocessing

        with _signals_deferred():
            worker = _Worker(multiprocessing.get_context("spawn"), self.scorer)
            self._workers.append(worker)
        return worker

    def _receive(self, worker: _Worker) -> tuple[int, np.ndarray]:
        """The answer of a worker that has one ready (or has died)."""
        index, worker.task = worker.task, None
        try:
            ok, value, text = pickle.loads(worker.connection.recv_bytes())
        except (EOFError, OSError):
            raise WorkerError(
                "a worker process ended unexpectedly (killed by a signal, or out of memory); "
                "retry with fewer --jobs or jobs=1"
            ) from None
        if not ok:
            raise value from RemoteTraceback(text)
        return index, value

    def run(self, tasks: Iterator[Task]) -> Iterator[np.ndarray]:
        """Rows of each task, in order. The input is consumed lazily: one task per worker
        in flight, and the next one read (and pickled) while they work."""
        if self.processes == 1:
            for local, _, args in tasks:
                yield local(self.scorer, *args)
            return
        from multiprocessing.connection import wait

        # Workers still holding a task of a call that was abandoned: their answers are not ours.
        for worker in [worker for worker in self._workers if worker.task is not None]:
            self._workers.remove(worker)
            worker.kill()
            worker.stop(10)
        done: dict[int, np.ndarray] = {}
        staged: deque[tuple[int, bytes]] = deque()
        count = returned = 0
        finished = False
        try:
            while True:
                idle = [worker for worker in self._workers if worker.task is None]
                # Tasks for every worker that can take one now (idle, or still to start), and one more.
                while not finished and len(staged) <= len(idle) + self.processes - len(self._workers):
                    try:
                        _, remote, args = next(tasks)
                    except StopIteration:
                        finished = True
                    else:
                        staged.append((count, pickle.dumps((remote, args), protocol=pickle.HIGHEST_PROTOCOL)))
                        count += 1
                # Start every worker needed before sending to any: a send waits until its
                # worker has started (a fresh interpreter), and they start side by side.
                while len(staged) > len(idle) and len(self._workers) < self.processes:
                    idle.append(self._spawn())
                for worker in idle:
                    if not staged:
                        break
                    worker.task, data = staged.popleft()
                    try:
                        worker.connection.send_bytes(data)
                    except OSError:  # it died before reading: its answer is the end of file
                        pass
                busy = {worker.connection: worker for worker in self._workers if worker.task is not None}
                if not busy:
                    return
                for connection in wait(list(busy)):
                    index, rows = self._receive(busy[connection])
                    done[index] = rows
                while returned in done:
                    yield done.pop(returned)
                    returned += 1
        except BaseException:
            self.close(kill=True)
            raise

    def close(self, kill: bool = False) -> None:
        """Stops the workers (``kill``: at once, without waiting for their chunks).

        Without ``kill``, each worker reads the end of its connection and exits; one that
        has not within a few seconds is killed.
        """
        workers, self._workers = self._workers, []
        if kill and workers:
            # No signal turned into an exception may leave a worker unkilled.
            with _signals_deferred():
                for worker in workers:
                    worker.kill()
        else:
            for worker in workers:
                worker.connection.close()
        for worker in workers:
            worker.stop(10 if kill else 5)

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, kind: Any, error: Any, trace: Any) -> None:
        self.close(kill=kind is not None)


def _pool(scorer: Any, jobs: int, pool: WorkerPool | None) -> tuple[WorkerPool, bool]:
    """The pool to use and whether this call owns it (and so closes it)."""
    if pool is None:
        return WorkerPool(scorer, jobs), True
    if not isinstance(pool, WorkerPool):
        raise TypeError(f"pool must be a WorkerPool, got {describe(pool)}")
    if scorer is not pool.scorer and scorer != pool.scorer:
        raise ValueError(f"pool was made for another scorer: {pool.scorer!r}, got {scorer!r}")
    return pool, False


def _run(scorer: Any, jobs: int, tasks: Iterator[Task], pool: WorkerPool | None = None) -> Iterator[np.ndarray]:
    """Rows of each task, in order, by ``pool`` (or a pool of ``jobs`` processes for this call)."""
    pool, owned = _pool(scorer, jobs, pool)
    if not owned:
        yield from pool.run(tasks)
        return
    with pool:
        yield from pool.run(tasks)


def _concatenate(parts: list[np.ndarray], scorer: Any) -> GleuStats:
    return _stats(np.concatenate(parts) if parts else np.zeros((0, _WIDTH), np.int64), scorer)


def parallel_stats(
    scorer: Any,
    predictions: Sequence[str],
    references: Sequence[str | Sequence[str]],
    jobs: int = 1,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    pool: WorkerPool | None = None,
) -> GleuStats:
    """Per-segment statistics counted by ``jobs`` processes, identical to ``scorer.stats``.

    Args:
        scorer: The :class:`~google_bleu.scorer.GLEU` whose settings count every chunk.
        predictions: One string per segment.
        references: Per segment a string or a non-empty list of strings.
        jobs: Worker processes (``0``: every available core; ``1``: this process only).
        chunk_size: Segments per chunk handed to a worker.
        pool: A :class:`WorkerPool` to use (its ``jobs``) instead of starting one for this call.

    Returns:
        The rows of all segments, in input order (``== scorer.stats(predictions, references)``).

    Raises:
        TypeError, ValueError: For bad input, before any worker starts.
    """
    jobs = resolve_jobs(jobs)
    chunk_size = _check_positive(chunk_size, "chunk_size")
    if isinstance(pool, WorkerPool):
        jobs = pool.jobs
    _check_scorer(scorer, jobs)
    predictions, references = check_texts(predictions, references)
    if jobs == 1 or len(predictions) <= chunk_size:
        return scorer.stats(predictions, references)
    bounds = range(0, len(predictions), chunk_size)
    tasks = (
        (_rows, _worker_rows, (predictions[start : start + chunk_size], references[start : start + chunk_size]))
        for start in bounds
    )
    return _concatenate(list(_run(scorer, min(jobs, len(bounds)), tasks, pool)), scorer)


# -- files ---------------------------------------------------------------------------------
class _LineFile:
    """One input file read a chunk of whole lines at a time."""

    def __init__(self, source: PathOrStream, name: str | None) -> None:
        if isinstance(source, (str, os.PathLike)):
            self.name = name if name is not None else os.fspath(source)
            try:
                self.handle: BinaryIO = open(source, "rb")  # noqa: SIM115 - closed by close()
            except OSError as error:
                raise FileError(f"cannot read {self.name}: {error.strerror or error}") from None
            self.owned = True
        elif isinstance(source, io.TextIOBase):
            raise TypeError(f"{name or getattr(source, 'name', 'stream')} must be opened in binary mode ('rb'), got a text stream")
        elif hasattr(source, "read") and hasattr(source, "readline"):
            self.name = name if name is not None else str(getattr(source, "name", "stream"))
            self.handle, self.owned = source, False
        else:
            raise TypeError(f"files must be paths or binary streams, got {describe(source)}")
        self.lines = 0
        self.first = True

    def read(self, count: int) -> list[bytes]:
        lines: list[bytes] = []
        readline = self.handle.readline
        try:
            for _ in range(count):
                # At most one byte past the limit, so a line without end costs bounded memory.
                line = readline(MAX_LINE_BYTES + 1)
                if not line:
                    break
                if not lines and not isinstance(line, bytes):
                    raise TypeError(f"{self.name} must be opened in binary mode ('rb'), got text lines")
                if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
                    raise LineError(long_line_message(self.name, self.lines + len(lines) + 1))
                lines.append(line)
        except OSError as error:
            raise FileError(f"cannot read {self.name}: {error.strerror or error}") from None
        self.lines += len(lines)
        return lines

    def starts_with_bom(self, lines: list[bytes]) -> bool:
        first, self.first = self.first, False
        return first and bool(lines) and lines[0].startswith(BOM_BYTES)

    def count_ahead(self) -> int | None:
        """Lines of a regular file, counted without decoding (None for a stream); the position is kept.

        Only a regular file (or bytes already read into memory or a spool) has an end to
        count to: a device such as ``/dev/zero`` also says it can seek, and never ends.
        """
        if not isinstance(self.handle, (io.BytesIO, Spool)):
            try:
                if not stat.S_ISREG(os.fstat(self.handle.fileno()).st_mode):
                    return None
            except (OSError, AttributeError, ValueError, TypeError):  # no file descriptor
                return None
        try:
            if not self.handle.seekable():
                return None
            position = self.handle.tell()
            count, last = 0, b"\n"
            while True:
                block = self.handle.read(1 << 20)
                if not block:
                    break
                count += block.count(b"\n")
                last = block[-1:]
            self.handle.seek(position)
        except (OSError, AttributeError, ValueError, TypeError):
            return None
        return count + (last != b"\n")

    def count_rest(self) -> int:
        while True:
            lines = self.read(DEFAULT_CHUNK_LINES)
            if not lines:
                return self.lines

    def close(self) -> None:
        if self.owned:
            self.handle.close()


def bom_message(name: str) -> str:
    """The warning for a file that starts with a byte-order mark (the shared line policy's)."""
    return bom_warning([BOM], name)


def _warner(warn: Callable[[str], None] | None) -> Callable[[str], None]:
    if warn is None:
        return lambda message: warnings.warn(message, UnicodeWarning, stacklevel=4)
    if not callable(warn):
        raise TypeError(f"warn must be a callable taking the message, got {describe(warn)}")
    return warn


def _open_all(sources: Sequence[tuple[PathOrStream, str | None]]) -> list[_LineFile]:
    files: list[_LineFile] = []
    try:
        for source, name in sources:
            files.append(_LineFile(source, name))
    except BaseException:
        for file in files:
            file.close()
        raise
    return files


class FileError(ValueError):
    """An input file that cannot be scored: unreadable, or of another length than the others."""


def _mismatch(files: list[_LineFile]) -> ValueError:
    """The usual one-line error for files of different lengths (references first)."""
    counts = [file.count_rest() for file in files]
    hypotheses, references = (files[0], counts[0]), list(zip(files[1:], counts[1:]))
    first, first_count = references[0]
    for file, count in references[1:]:
        if count != first_count:
            return FileError(f"{first.name} has {first_count} lines but {file.name} has {count}")
    return FileError(f"{hypotheses[0].name} has {hypotheses[1]} lines but {first.name} has {first_count}")


def _check_references(references: Any) -> list[PathOrStream]:
    if isinstance(references, (str, os.PathLike)) or hasattr(references, "read"):
        return [references]
    if not isinstance(references, Sequence) or not references:
        raise TypeError(f"references must be a path or a non-empty list of paths, got {describe(references)}")
    return list(references)


def count_lines(references: Any, warn: Callable[[str], None] | None = None) -> int:
    """The line count shared by reference files, streamed (never read whole).

    Args:
        references: A path or a list of paths (several files = several references).
        warn: Called with the message for each file that starts with a byte-order mark
            (default: a ``UnicodeWarning``).

    Raises:
        ValueError: ``"A has N lines but B has M"`` when the files differ in length, or a
            file cannot be read.
    """
    sources = _check_references(references)
    warn = _warner(warn)
    files = _open_all([(source, None) for source in sources])
    try:
        for file in files:
            lines = file.read(DEFAULT_CHUNK_LINES)
            if file.starts_with_bom(lines):
                warn(bom_message(file.name))
            file.count_rest()
        for file in files[1:]:
            if file.lines != files[0].lines:
                raise FileError(f"{files[0].name} has {files[0].lines} lines but {file.name} has {file.lines}")
        return files[0].lines
    finally:
        for file in files:
            file.close()


class _System:
    """The statistics of one system as its chunks come back: in this process a chunk's own
    :class:`GleuStats` (a short file's never needs numpy), from a worker its table of rows
    and chosen references, checked as statistics from outside. When the hypothesis file is
    regular and long, its lines are counted first and the rows go into one array of the
    final size, so memory holds 40 bytes a segment, not twice that."""

    def __init__(self) -> None:
        self.rows: np.ndarray | None = None
        self.filled = 0
        self.parts: list[GleuStats] = []
        self.tasks: int | None = None  # known once the files are read to their end
        self.received = 0

    def reserve(self, lines: int | None) -> None:
        if lines is not None and lines >= DEFAULT_CHUNK_LINES:
            self.rows = np.empty((lines, _WIDTH), np.int64)

    def add(self, part: GleuStats | np.ndarray, scorer: Any) -> None:
        self.received += 1
        if self.rows is not None and not self.parts and self.filled + len(part) <= len(self.rows):
            end = self.filled + len(part)
            if isinstance(part, GleuStats):
                self.rows[self.filled : end, : len(COLUMNS)] = part.rows
                self.rows[self.filled : end, len(COLUMNS)] = part.reference_index
            else:
                self.rows[self.filled : end] = part
            self.filled = end
        else:  # short, a stream, or a file that grew while it was read
            self.parts.append(part if isinstance(part, GleuStats) else _stats(part, scorer))

    def done(self) -> bool:
        return self.tasks is not None and self.received == self.tasks

    def stats(self, scorer: Any) -> GleuStats:
        if self.rows is not None:
            rows = self.rows if self.filled == len(self.rows) else self.rows[: self.filled].copy()
            self.parts.insert(0, _stats(rows, scorer))
        if len(self.parts) == 1:
            return self.parts[0]
        if not self.parts:
            return GleuStats.trusted([], scorer.min_len, scorer.max_len, [])
        return GleuStats.concatenate(self.parts)


def _check_num_refs(num_refs: Any, n_files: int) -> int:
    num_refs = _check_positive(num_refs, "num_refs")
    if num_refs > 1 and n_files != 1:
        raise ValueError(f"num_refs={num_refs} reads the references tab-separated from one file, got {n_files} files")
    return num_refs


def _rewindable(source: Any) -> tuple[Any, int | None]:
    """A reference source every system can read from its start, and that start (None: a path)."""
    if isinstance(source, (str, os.PathLike)) or not hasattr(source, "read"):
        return source, None
    try:
        if source.seekable() and not _endless(source):
            return source, source.tell()
    except (OSError, AttributeError, ValueError):
        pass
    return spool(source, str(getattr(source, "name", "stream"))), 0


def _endless(source: Any) -> bool:
    """Whether a stream that says it can seek is a device (``/dev/zero``), not a file."""
    if isinstance(source, (io.BytesIO, Spool)):  # in memory (a spool's fileno would move it to disk)
        return False
    try:
        return not stat.S_ISREG(os.fstat(source.fileno()).st_mode)
    except (OSError, AttributeError, ValueError, TypeError):  # no file descriptor: in memory
        return False


#: Bytes of a spooled stream kept in memory; beyond them it goes to an unnamed temporary file.
SPOOL_MEMORY = 16 << 20


class Spool(tempfile.SpooledTemporaryFile):
    """A stream read once to its end (a pipe cannot be read twice), kept so that it can be
    read again: in memory up to :data:`SPOOL_MEMORY` bytes, beyond that in a temporary file
    that has no name on disk, so it goes when this process ends, however it ends. ``name``
    is the stream's, for messages."""

    def __init__(self, name: str) -> None:
        super().__init__(max_size=SPOOL_MEMORY)
        self._label = name

    @property
    def name(self) -> str:  # type: ignore[override]
        return self._label


def spool(stream: Any, name: str) -> Spool:
    """Reads ``stream`` (binary) to its end into a :class:`Spool`, positioned at its start.

    Memory stays bounded whatever the stream holds, and a stream with a line longer than
    :data:`~google_bleu.scale.lines.MAX_LINE_BYTES` (``/dev/zero``) is refused after that
    many bytes, as the line reader refuses it.

    Raises:
        LineError: A line longer than ``MAX_LINE_BYTES``.
        FileError: The stream cannot be read.
        TypeError: A text stream.
    """
    copy = Spool(name)
    try:
        lines = run = 0  # whole lines so far, and bytes since the last line break
        while True:
            try:
                block = stream.read(SPOOL_BLOCK)
            except OSError as error:
                raise FileError(f"cannot read {name}: {error.strerror or error}") from None
            if not block:
                break
            if not isinstance(block, bytes):
                raise TypeError(f"{name} must be opened in binary mode ('rb'), got a text stream")
            # A block is shorter than the limit, so only a line that began in an earlier
            # block can pass it: the bytes before this block's first break end that line,
            # and those after its last break carry on.
            first = block.find(b"\n")
            if first < 0:
                run += len(block)
            elif run + first > MAX_LINE_BYTES:
                raise LineError(long_line_message(name, lines + 1))
            else:
                run = len(block) - block.rfind(b"\n") - 1
            lines += block.count(b"\n")
            if run > MAX_LINE_BYTES:
                raise LineError(long_line_message(name, lines + 1))
            copy.write(block)
        copy.seek(0)
    except BaseException:
        copy.close()
        raise
    return copy


#: Bytes read from a stream at a time by :func:`spool` (less than ``MAX_LINE_BYTES``).
SPOOL_BLOCK = 1 << 20


def files_stats(
    hypotheses: Sequence[PathOrStream],
    references: Any,
    scorer: Any = None,
    jobs: int = 1,
    chunk_lines: int = DEFAULT_CHUNK_LINES,
    warn: Callable[[str], None] | None = None,
    warn_references: bool = True,
    names: Sequence[str | None] | None = None,
    pool: WorkerPool | None = None,
    num_refs: int = 1,
) -> Iterator[GleuStats]:
    """The statistics of several hypothesis files (systems) against the same references,
    one :class:`~google_bleu.stats.GleuStats` per system in order, as each is complete.

    The chunks of every system go through one pool, so workers stay busy across systems
    (many small files) and within a system (one large file). Arguments are those of
    :func:`file_stats`; ``names`` gives each system's name in messages, ``pool`` a
    :class:`WorkerPool` to use (else one of ``jobs`` processes for this call).

    Example:
        >>> import os, tempfile
        >>> folder = tempfile.mkdtemp()
        >>> paths = [os.path.join(folder, name) for name in ("ref.txt", "a.txt", "b.txt")]
        >>> for path, text in zip(paths, ["the cat\\n", "the cat\\n", "a dog\\n"]):
        ...     _ = open(path, "w", encoding="utf-8").write(text)
        >>> [stats.rows.tolist() for stats in files_stats(paths[1:], paths[0])]
        [[[3, 3, 3, 3]], [[0, 3, 3, 3]]]
    """
    jobs = resolve_jobs(jobs)
    chunk_lines = _check_positive(chunk_lines, "chunk_lines")
    if scorer is None:
        scorer = pool.scorer if isinstance(pool, WorkerPool) else GLEU()
    _check_scorer(scorer, jobs)
    check_bool(warn_references, "warn_references")
    if isinstance(hypotheses, (str, os.PathLike)) or hasattr(hypotheses, "read") or not isinstance(hypotheses, Sequence):
        raise TypeError(f"hypotheses must be a list of paths or binary streams, got {describe(hypotheses)}")
    names = [None] * len(hypotheses) if names is None else list(names)
    if len(names) != len(hypotheses):
        raise ValueError(f"got {len(names)} names for {len(hypotheses)} hypothesis files")
    sources = _check_references(references)
    num_refs = _check_num_refs(num_refs, len(sources))
    warn = _warner(warn)
    pool, owned = _pool(scorer, jobs, pool)
    systems = [_System() for _ in hypotheses]
    # Every system reads the references again: a stream is rewound to where it started,
    # and one that cannot seek (a pipe) is read once into memory (a pipe cannot be read twice).
    starts = [_rewindable(source) if len(hypotheses) > 1 else (source, None) for source in sources]
    sources = [source for source, _ in starts]

    def system_tasks(index: int) -> Iterator[Task]:
        for source, start in starts:
            if start is not None:
                source.seek(start)
        files = _open_all([(hypotheses[index], names[index]), *((source, None) for source in sources)])
        file_names = [file.name for file in files]
        try:
            systems[index].reserve(files[0].count_ahead())
            while True:
                first_line = files[0].lines + 1
                chunks = [file.read(chunk_lines) for file in files]
                for position, (file, lines) in enumerate(zip(files, chunks)):
                    if file.starts_with_bom(lines) and (position == 0 or warn_references):
                        warn(bom_message(file.name))
                if len({len(lines) for lines in chunks}) > 1:
                    raise _mismatch(files)
                if not chunks[0]:
                    return
                blocks = [b"".join(lines) for lines in chunks]
                yield _block_stats, _worker_block_rows, (blocks[0], blocks[1:], file_names, first_line, num_refs)
        finally:
            for file in files:
                file.close()

    def all_tasks() -> Iterator[Task]:
        for index, system in enumerate(systems):
            count = 0
            for task in system_tasks(index):
                count += 1
                yield task
            system.tasks = count

    tasks = all_tasks()
    current = 0
    try:
        for part in pool.run(tasks):
            # Results come in order: this part belongs to the first system not yet complete.
            while systems[current].done():
                yield systems[current].stats(scorer)
                systems[current] = _System()  # its rows are the caller's now
                current += 1
            systems[current].add(part, scorer)
        for system in systems[current:]:
            yield system.stats(scorer)
    except BaseException:
        if owned:
            pool.close(kill=True)
        raise
    finally:
        tasks.close()
        if owned:
            pool.close()


def file_stats(
    hypotheses: PathOrStream,
    references: Any,
    scorer: Any = None,
    jobs: int = 1,
    chunk_lines: int = DEFAULT_CHUNK_LINES,
    warn: Callable[[str], None] | None = None,
    warn_references: bool = True,
    name: str | None = None,
    pool: WorkerPool | None = None,
    num_refs: int = 1,
) -> GleuStats:
    """Per-segment statistics of a hypothesis file against reference files, streamed.

    The files are read ``chunk_lines`` lines at a time, so memory holds the per-segment
    rows (40 bytes a segment) plus about ``jobs * 2`` chunks of text, never a whole file.
    Line ``i`` of every reference file is a reference of line ``i`` of the hypotheses.

    Args:
        hypotheses: A path, or a binary stream such as ``sys.stdin.buffer``.
        references: A path or a list of paths / binary streams (several = several references).
        scorer: The :class:`~google_bleu.scorer.GLEU` (default: ``GLEU()``).
        jobs: Worker processes (``0``: every available core; ``1``: this process only).
        chunk_lines: Lines per chunk.
        warn: Called with the message for each file that starts with a byte-order mark
            (default: a ``UnicodeWarning``).
        warn_references: Also warn for the reference files (off when :func:`count_lines`
            already did).
        name: The hypotheses' name in messages (default: the path, or the stream's name).
        pool: A :class:`WorkerPool` to use instead of starting one for this call.
        num_refs: References per line of the one reference file, tab-separated
            (sacrebleu's ``-nr``); 1 reads each line as one reference.

    Returns:
        The rows of all segments, in order (``==`` the statistics of the whole files read at once).

    Raises:
        ValueError: ``"HYP has N lines but REF has M"`` (or between references) when the
            files differ in length, a file that cannot be read, a line that is not UTF-8.
        TypeError: For bad arguments.

    Example:
        >>> import os, tempfile
        >>> from google_bleu import GLEU
        >>> folder = tempfile.mkdtemp()
        >>> hyp, ref = os.path.join(folder, "hyp.txt"), os.path.join(folder, "ref.txt")
        >>> _ = open(hyp, "w", encoding="utf-8").write("the cat sat on the mat\\nok\\n")
        >>> _ = open(ref, "w", encoding="utf-8").write("the cat ate the mat\\nok\\n")
        >>> file_stats(hyp, [ref], GLEU()).rows.tolist()
        [[6, 18, 14, 18], [1, 1, 1, 1]]
    """
    if isinstance(hypotheses, Sequence) and not isinstance(hypotheses, (str, bytes)):
        raise TypeError(f"hypotheses must be a path or a binary stream, got {describe(hypotheses)}")
    (stats,) = files_stats(
        [hypotheses], references, scorer, jobs, chunk_lines, warn, warn_references, [name], pool, num_refs
    )
    return stats
