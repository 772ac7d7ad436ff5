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

import io
import itertools
import os
import pickle
import warnings
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, BinaryIO, Union

import numpy as np

from ..scorer import GLEU
from ..stats import COLUMNS, GleuStats
from ..validation import check_texts, describe
from .lines import BOM, bom_warning, lines_from_bytes

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
    if isinstance(jobs, bool) or not isinstance(jobs, (int, np.integer)):
        raise TypeError(f"jobs must be an int, got {describe(jobs)}")
    if jobs < 0:
        raise ValueError(f"jobs must be 0 (all cores) or a positive integer, got {jobs}")
    return available_cores() if jobs == 0 else int(jobs)


def _check_positive(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {describe(value)}")
    if value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value}")
    return int(value)


def _check_scorer(scorer: Any, jobs: int) -> None:
    if not isinstance(scorer, GLEU):
        raise TypeError(f"scorer must be a GLEU, got {describe(scorer)}")
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


def _init_worker(scorer: Any) -> None:
    # The scorer itself arrives pickled (a named tokenizer pickles as its name, a callable as
    # itself), never a scorer rebuilt from a name that a user's tokenizer may also carry.
    global _WORKER_SCORER
    _WORKER_SCORER = scorer


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


def _block_rows(
    scorer: Any, hypotheses: bytes, references: list[bytes], names: list[str], first_line: int
) -> np.ndarray:
    predictions = decode_block(hypotheses, names[0], first_line)
    columns = [decode_block(block, name, first_line) for block, name in zip(references, names[1:])]
    return _rows(scorer, predictions, [list(refs) for refs in zip(*columns)])


def _worker_block_rows(hypotheses: bytes, references: list[bytes], names: list[str], first_line: int) -> np.ndarray:
    return _block_rows(_WORKER_SCORER, hypotheses, references, names, first_line)


# -- the pool ------------------------------------------------------------------------------
def _run(scorer: Any, jobs: int, tasks: Iterator[tuple[Callable[..., np.ndarray], Callable[..., np.ndarray], tuple]]):
    """Rows of each task, in order: in this process for ``jobs == 1``, else in a spawn pool.

    Each task is ``(local_function, worker_function, args)``; at most
    ``jobs * CHUNKS_PER_WORKER`` tasks are in flight, so the input is consumed lazily.
    """
    if jobs == 1:
        for local, _, args in tasks:
            yield local(scorer, *args)
        return
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    initargs = (scorer,)
    pending: deque[Future] = deque()
    with ProcessPoolExecutor(jobs, mp_context=context, initializer=_init_worker, initargs=initargs) as pool:
        try:
            for _, remote, args in tasks:
                pending.append(pool.submit(remote, *args))
                if len(pending) >= jobs * CHUNKS_PER_WORKER:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()


def _concatenate(parts: list[np.ndarray], scorer: Any) -> GleuStats:
    return _stats(np.concatenate(parts) if parts else np.zeros((0, _WIDTH), np.int64), scorer)


def parallel_stats(
    scorer: Any,
    predictions: Sequence[str],
    references: Sequence[str | Sequence[str]],
    jobs: int = 1,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
) -> GleuStats:
    """Per-segment statistics counted by ``jobs`` processes, identical to ``scorer.stats``.

    Args:
        scorer: The :class:`~google_bleu.scorer.GLEU` whose settings count every chunk.
        predictions: One string per segment.
        references: Per segment a string or a non-empty list of strings.
        jobs: Worker processes (``0``: every available core; ``1``: this process only).
        chunk_size: Segments per chunk handed to a worker.

    Returns:
        The rows of all segments, in input order (``== scorer.stats(predictions, references)``).

    Raises:
        TypeError, ValueError: For bad input, before any worker starts.
    """
    jobs = resolve_jobs(jobs)
    chunk_size = _check_positive(chunk_size, "chunk_size")
    _check_scorer(scorer, jobs)
    predictions, references = check_texts(predictions, references)
    if jobs == 1 or len(predictions) <= chunk_size:
        return scorer.stats(predictions, references)
    bounds = range(0, len(predictions), chunk_size)
    tasks = (
        (_rows, _worker_rows, (predictions[start : start + chunk_size], references[start : start + chunk_size]))
        for start in bounds
    )
    return _concatenate(list(_run(scorer, min(jobs, len(bounds)), tasks)), scorer)


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
        try:
            lines = list(itertools.islice(self.handle, count))
        except OSError as error:
            raise FileError(f"cannot read {self.name}: {error.strerror or error}") from None
        if lines and not isinstance(lines[0], bytes):
            raise TypeError(f"{self.name} must be opened in binary mode ('rb'), got text lines")
        self.lines += len(lines)
        return lines

    def starts_with_bom(self, lines: list[bytes]) -> bool:
        first, self.first = self.first, False
        return first and bool(lines) and lines[0].startswith(BOM_BYTES)

    def count_ahead(self) -> int | None:
        """Lines of a regular file, counted without decoding (None for a stream); the position is kept."""
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


def file_stats(
    hypotheses: PathOrStream,
    references: Any,
    scorer: Any = None,
    jobs: int = 1,
    chunk_lines: int = DEFAULT_CHUNK_LINES,
    warn: Callable[[str], None] | None = None,
    warn_references: bool = True,
    name: str | None = None,
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
    jobs = resolve_jobs(jobs)
    chunk_lines = _check_positive(chunk_lines, "chunk_lines")
    if scorer is None:
        scorer = GLEU()
    _check_scorer(scorer, jobs)
    if not isinstance(warn_references, bool):
        raise TypeError(f"warn_references must be a bool, got {describe(warn_references)}")
    sources = _check_references(references)
    warn = _warner(warn)
    files = _open_all([(hypotheses, name), *((source, None) for source in sources)])
    names = [file.name for file in files]
    try:

        def tasks() -> Iterator[tuple[Callable[..., np.ndarray], Callable[..., np.ndarray], tuple]]:
            while True:
                first_line = files[0].lines + 1
                chunks = [file.read(chunk_lines) for file in files]
                for index, (file, lines) in enumerate(zip(files, chunks)):
                    if file.starts_with_bom(lines) and (index == 0 or warn_references):
                        warn(bom_message(file.name))
                sizes = {len(lines) for lines in chunks}
                if len(sizes) > 1:
                    raise _mismatch(files)
                if not chunks[0]:
                    return
                blocks = [b"".join(lines) for lines in chunks]
                yield _block_rows, _worker_block_rows, (blocks[0], blocks[1:], names, first_line)

        # A regular file's lines are counted first, so the rows fill one array of the final
        # size (40 bytes a segment) instead of being concatenated at the end (twice that).
        capacity = files[0].count_ahead()
        rows = np.empty((capacity or 0, _WIDTH), np.int64)
        parts: list[np.ndarray] = []
        filled = 0
        for part in _run(scorer, jobs, tasks()):
            if not parts and filled + len(part) <= len(rows):
                rows[filled : filled + len(part)] = part
                filled += len(part)
            else:  # a stream, or a file that grew while it was read
                parts.append(part)
    finally:
        for file in files:
            file.close()
    if parts:
        return _concatenate([rows[:filled], *parts], scorer)
    return _stats(rows if filled == len(rows) else rows[:filled].copy(), scorer)
