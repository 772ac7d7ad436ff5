"""Every core of one machine: statistics counted by worker processes, ``==`` one process's
(corpus GLEU is ``sum(n_match) / sum(n_all)`` over per-segment rows). :func:`parallel_stats`
takes text in memory, :func:`files_stats` files that the workers index and read by ranges of
lines; a task holds every system of its range, so a reference line is tokenized once. With
``jobs > 1`` a tokenizer given as a callable must pickle, and a script whose workers are
spawned needs the ``if __name__ == "__main__":`` guard.

Example:
    >>> from google_bleu import GLEU
    >>> scorer = GLEU()
    >>> predictions = ["the cat sat on the mat", "", "a b c"]
    >>> references = [["the cat ate the mat"], ["x"], ["a b c", "a b"]]
    >>> parallel_stats(scorer, predictions, references, jobs=1, chunk_size=2) == scorer.stats(predictions, references)
    True
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Callable, Iterator, Sequence
from itertools import chain
from typing import Any, NamedTuple

from ..imports import lazy_module
from ..settings import GLEU
from ..stats import GleuStats
from ..text import checked_text_stats, order_text_stats
from ..validation import check_bool, check_texts, describe, integer
from .files import (
    BLOCK,
    FileError,
    PathOrStream,
    Source,
    Span,
    Where,
    check_lengths,
    count_breaks,
    open_all,
    read_lines,
)
from .lines import LineError
from .pool import Descriptor, WorkerError, WorkerPool, available_cores, check_scorer, resolve_jobs, workers_for

np = lazy_module("numpy")

__all__ = ["FileError", "WorkerError", "file_stats", "files_stats", "parallel_stats", "SystemFiles"]

#: Segments per chunk of in-memory input: about 0.1 s of work, far above the cost of a hand-off.
DEFAULT_CHUNK_SIZE = 10_000
#: Tasks per worker over files (to even out workers), and the bytes of system text a task
#: aims at: at least the first (its fixed cost is a millisecond), at most the second.
TASKS_PER_WORKER = 6
TASK_BYTES = (256 << 10, 1 << 20)

#: What a task returns per system: its statistics (rows, or one row of totals), then one
#: row of totals per order when asked.
Part = tuple[GleuStats, ...]


def _check_positive(value: Any, name: str) -> int:
    number = integer(value)
    if number is None:
        raise TypeError(f"{name} must be an int, got {describe(value)}")
    if number < 1:
        raise ValueError(f"{name} must be a positive integer, got {value}")
    return number


def _count(scorer: GLEU, predictions: list[str], references: list[list[str]]) -> list[Part]:
    return [(checked_text_stats(predictions, references, scorer.tokenizer, scorer.min_len, scorer.max_len),)]


def parallel_stats(
    scorer: Any,
    predictions: Sequence[str],
    references: Sequence[str | Sequence[str]],
    jobs: int = 1,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
) -> GleuStats:
    """``scorer.stats(predictions, references)`` counted by ``jobs`` processes (``0``: every
    core), ``chunk_size`` segments a task; bad input raises before any worker starts."""
    jobs = resolve_jobs(jobs)
    chunk_size = _check_positive(chunk_size, "chunk_size")
    check_scorer(scorer, jobs)
    predictions, references = check_texts(predictions, references)
    if jobs == 1 or len(predictions) <= chunk_size:
        return _count(scorer, predictions, references)[0][0]
    starts = range(0, len(predictions), chunk_size)
    tasks = ((_count, (predictions[i : i + chunk_size], references[i : i + chunk_size])) for i in starts)
    with WorkerPool(scorer, min(jobs, len(starts))) as pool:
        return GleuStats.concatenate(part for (part,) in chain.from_iterable(pool.run(tasks)))


# -- files ---------------------------------------------------------------------------------
class Ranges(NamedTuple):
    """A task over files: the same lines of some systems and of every reference."""

    systems: tuple[Where, ...]
    references: tuple[Where, ...]
    first_line: int  # 1-based, for messages
    count: int
    num_refs: int
    rows: bool  # per-segment rows (else each system's totals)
    by_order: bool


def _split_tabs(lines: list[str], num_refs: int, name: str, first_line: int) -> list[list[str]]:
    columns = []
    for number, line in enumerate(lines, first_line):
        fields = line.split("\t")
        if len(fields) != num_refs:
            raise LineError(f"{name}: line {number} has {len(fields)} tab-separated references, expected {num_refs} (-nr)")
        columns.append(fields)
    return columns


def count_ranges(scorer: GLEU, task: Ranges) -> list[Part]:
    """A worker's task over files: its ranges read and counted in one call (the references
    tokenized once for every system), one :data:`Part` a system."""
    first, count = task.first_line, task.count
    columns = [read_lines(where, first, count) for where in task.references]
    if task.num_refs > 1:
        references = _split_tabs(columns[0], task.num_refs, task.references[0].name, first)
    else:
        references = [list(refs) for refs in zip(*columns)]
    predictions: list[str] = []
    for where in task.systems:
        predictions += read_lines(where, first, count)
    every = references * len(task.systems)
    settings = (scorer.tokenizer, scorer.min_len, scorer.max_len)
    stats, *orders = order_text_stats(predictions, every, *settings, task.by_order)
    if len(task.systems) == 1:  # no slicing: a short input's rows stay the engine's lists
        return [(stats if task.rows else _total(stats), *map(_total, orders))]
    parts = []
    for index in range(len(task.systems)):
        segments = slice(index * count, (index + 1) * count)
        main = stats[segments]
        parts.append((main if task.rows else _total(main), *(_total(order[segments]) for order in orders)))
    return parts


def _total(*parts: GleuStats) -> GleuStats:
    """The parts' totals as one row (a list: numpy is imported only when it is needed)."""
    totals = [sum(column) for column in zip(*(part.totals() for part in parts))]
    return GleuStats.trusted([totals], parts[0].min_len, parts[0].max_len)


def _plan(total: int, lines: int, systems: int, workers: int) -> tuple[int, int]:
    """Lines per range and systems per task for ``total`` bytes of systems: about
    :data:`TASKS_PER_WORKER` tasks a worker of :data:`TASK_BYTES`, cut along the lines first
    (a task holds every system where it can)."""
    low, high = TASK_BYTES
    if total <= low:  # a short input: one task a system (its rows stay the engine's lists, unsliced)
        return max(lines, 1), 1
    tasks = math.ceil(total / min(max(total / (TASKS_PER_WORKER * workers), low), high))
    per_range = max(1, math.ceil(lines / tasks))
    groups = math.ceil(tasks / max(1, math.ceil(lines / per_range)))
    return per_range, max(1, math.ceil(systems / groups))


def _index(scorer: GLEU, spans: tuple[Span, ...]) -> list[Any]:
    """An index task: the line breaks of some pieces of the inputs (the scorer is the pool's)."""
    return [count_breaks(span) for span in spans]


def _index_tasks(sources: list[Source]) -> Iterator[tuple[Callable[..., Any], tuple]]:
    """The pieces of every input, in order, a task holding pieces of several small inputs up
    to :data:`~google_bleu.scale.files.BLOCK` bytes."""
    spans: list[Span] = []
    size = 0  # the bytes of the spans gathered
    for source in sources:
        for span in source.spans():
            if spans and size + span.end - span.start > BLOCK:
                yield _index, (tuple(spans),)
                spans, size = [], 0
            spans.append(span)
            size += span.end - span.start
    if spans:
        yield _index, (tuple(spans),)


def _warner(warn: Callable[[str], None] | None) -> Callable[[str], None]:
    if warn is None:
        return lambda message: warnings.warn(message, UnicodeWarning, stacklevel=4)
    if not callable(warn):
        raise TypeError(f"warn must be a callable taking the message, got {describe(warn)}")
    return warn


def _check_references(references: Any) -> list[PathOrStream]:
    if isinstance(references, (str, os.PathLike)) or hasattr(references, "read"):
        return [references]
    if not isinstance(references, Sequence) or not references:
        raise TypeError(f"references must be a path or a non-empty list of paths, got {describe(references)}")
    return list(references)


class _System:
    """One system's parts as they come, in order: rows copied into arrays of the final size
    when there are several parts (40 bytes a segment, not twice that), totals summed."""

    def __init__(self, lines: int, join: bool) -> None:
        self.tables = (np.empty((lines, 4), np.int64), np.empty(lines, np.int64)) if join else None
        self.parts: list[Part] = []

    def add(self, part: Part, start: int, end: int) -> None:
        if self.tables is not None:
            self.tables[0][start:end], self.tables[1][start:end] = part[0].rows, part[0].reference_index
            part = (None, *part[1:])  # type: ignore[assignment]
        self.parts.append(part)

    def done(self, scorer: GLEU, rows: bool, n_orders: int) -> Part:
        if not self.parts:  # an empty corpus
            orders = range(scorer.min_len, scorer.min_len + n_orders)
            self.parts = [(GleuStats.empty(scorer.min_len, scorer.max_len), *(GleuStats.empty(n, n) for n in orders))]
        main, *orders = zip(*self.parts)
        if self.tables is not None:
            joined = GleuStats.trusted(self.tables[0], scorer.min_len, scorer.max_len, self.tables[1])
        else:
            joined = (main[0] if len(main) == 1 else GleuStats.concatenate(main)) if rows else _total(*main)
        return (joined, *(_total(*order) for order in orders))


class SystemFiles:
    """Systems' files against the same references, opened and indexed when this is made;
    iterating gives each system's :data:`Part` in order. Close it (or use ``with``) to stop
    the workers and close the inputs. Arguments are those of :func:`files_stats`, and:

    Args:
        rows: Per-segment rows (per-sentence output, an interval, a paired test need them);
            ``False`` gives each system's totals as one row, and workers send only those.
        by_order: Also each order's totals (orders ``n-n``, ``min_len`` to ``max_len``).
    """

    def __init__(
        self,
        hypotheses: Sequence[PathOrStream],
        references: Any,
        scorer: Any = None,
        jobs: int = 1,
        warn: Callable[[str], None] | None = None,
        names: Sequence[str | None] | None = None,
        num_refs: int = 1,
        rows: bool = True,
        by_order: bool = False,
        chunk_lines: int | None = None,
    ) -> None:
        jobs = resolve_jobs(jobs)
        self.scorer = GLEU() if scorer is None else scorer
        check_scorer(self.scorer, jobs)
        self.rows, self.by_order = check_bool(rows, "rows"), check_bool(by_order, "by_order")
        if chunk_lines is not None:
            chunk_lines = _check_positive(chunk_lines, "chunk_lines")
        if isinstance(hypotheses, (str, os.PathLike)) or hasattr(hypotheses, "read") or not isinstance(hypotheses, Sequence):
            raise TypeError(f"hypotheses must be a list of paths or binary streams, got {describe(hypotheses)}")
        names = [None] * len(hypotheses) if names is None else list(names)
        if len(names) != len(hypotheses):
            raise ValueError(f"got {len(names)} names for {len(hypotheses)} hypothesis files")
        sources = _check_references(references)
        self.num_refs = _check_positive(num_refs, "num_refs")
        if self.num_refs > 1 and len(sources) != 1:
            raise ValueError(f"num_refs={num_refs} reads the references tab-separated from one file, got {len(sources)} files")
        warn = _warner(warn)
        self.counting: Any = None
        self.pool: WorkerPool | None = None
        self.references = open_all([(source, None) for source in sources], warn)
        self.systems: list[Source] = []
        try:
            self.systems = open_all(list(zip(hypotheses, names)), warn)
            inputs = [*self.references, *self.systems]
            if os.name != "posix":  # workers read this process's descriptors, passed as POSIX passes them
                self.workers = 1
            elif chunk_lines is None:
                self.workers = workers_for(sum(source.size for source in inputs), jobs)
            else:
                self.workers = min(jobs, available_cores())
            self.pool = WorkerPool(self.scorer, self.workers, keep=tuple(Descriptor(source.fd) for source in inputs))
            # The counts come in order, so a line over the limit stops the reading there.
            counted = chain.from_iterable(self.pool.run(_index_tasks(inputs)))
            for source in inputs:
                for span in source.spans():
                    source.add(span, *next(counted))
                source.indexed()
            #: The line count every input shares.
            self.lines = check_lengths(self.systems, self.references)
        except BaseException:
            self.close()
            raise
        if chunk_lines is not None:
            self.per_range, self.per_task = chunk_lines, 1
        else:
            total = sum(source.size for source in self.systems)
            self.per_range, self.per_task = _plan(total, self.lines, len(self.systems), self.workers)

    def _tasks(self, ranges: list[tuple[int, int]]) -> Iterator[tuple[Callable[..., Any], tuple]]:
        for group in range(0, len(self.systems), self.per_task):
            for start, end in ranges:
                spans = tuple(source.where(start, end) for source in self.systems[group : group + self.per_task])
                on_refs = tuple(source.where(start, end) for source in self.references)
                task = Ranges(spans, on_refs, start + 1, end - start, self.num_refs, self.rows, self.by_order)
                yield count_ranges, (task,)

    def __iter__(self) -> Iterator[Part]:
        self.counting = self._counted()  # closed by close(): its workers never wait for collection
        return self.counting

    def _counted(self) -> Iterator[Part]:
        lines, count = self.lines, len(self.systems)
        ranges = [(start, min(start + self.per_range, lines)) for start in range(0, lines, self.per_range)]
        n_orders = self.scorer.max_len - self.scorer.min_len + 1 if self.by_order else 0
        results = chain.from_iterable(self.pool.run(self._tasks(ranges)))  # type: ignore[union-attr]
        for group in range(0, count, self.per_task):
            systems = [_System(lines, self.rows and len(ranges) > 1) for _ in range(group, min(group + self.per_task, count))]
            for start, end in ranges:
                for system in systems:
                    system.add(next(results), start, end)
            # Read as opened, or an error: never the score of a file rewritten meanwhile.
            for source in [*self.references, *self.systems[group : group + self.per_task]]:
                source.check_unchanged()
            for system in systems:
                yield system.done(self.scorer, self.rows, n_orders)

    def close(self) -> None:
        """Stops the workers, if any, and closes the inputs (idempotent)."""
        if self.counting is not None:
            self.counting.close()
        if self.pool is not None:
            self.pool.close()
        for source in [*self.references, *self.systems]:
            source.close()

    def __enter__(self) -> SystemFiles:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()


def files_stats(
    hypotheses: Sequence[PathOrStream],
    references: Any,
    scorer: Any = None,
    jobs: int = 1,
    warn: Callable[[str], None] | None = None,
    names: Sequence[str | None] | None = None,
    num_refs: int = 1,
    chunk_lines: int | None = None,
) -> Iterator[GleuStats]:
    """Each hypothesis file's (system's) per-segment statistics against the same references, in order.

    Args:
        hypotheses: Paths, or binary streams such as ``sys.stdin.buffer`` (copied once).
        references: A path or a list of paths / binary streams (several = several references).
        scorer: The :class:`~google_bleu.settings.GLEU` (default: ``GLEU()``).
        jobs: At most this many worker processes (``0``: every core), fewer where the input
            does not pay for them (:func:`~google_bleu.scale.pool.workers_for`).
        warn: Called with the warning for a file that starts with a byte-order mark (default:
            a ``UnicodeWarning``).
        names: Each system's name in messages (default: the path, or the stream's name).
        num_refs: References per line of the one reference file, tab-separated (``-nr``).
        chunk_lines: Lines per task (``jobs`` workers start whatever the size); by default
            the plan sizes the tasks.

    Raises:
        ValueError: Files of different lengths, unreadable or changed while read, a line that
            is not UTF-8. TypeError: For bad arguments.

    Example:
        >>> import os, tempfile
        >>> folder = tempfile.mkdtemp()
        >>> paths = [os.path.join(folder, name) for name in ("ref.txt", "a.txt", "b.txt")]
        >>> for path, text in zip(paths, ["the cat\\n", "the cat\\n", "a dog\\n"]):
        ...     _ = open(path, "w", encoding="utf-8").write(text)
        >>> [stats.rows.tolist() for stats in files_stats(paths[1:], paths[0])]
        [[[3, 3, 3, 3]], [[0, 3, 3, 3]]]
    """
    with SystemFiles(hypotheses, references, scorer, jobs, warn, names, num_refs, True, False, chunk_lines) as files:
        for part in files:
            yield part[0]


def file_stats(
    hypotheses: PathOrStream,
    references: Any,
    scorer: Any = None,
    jobs: int = 1,
    warn: Callable[[str], None] | None = None,
    name: str | None = None,
    num_refs: int = 1,
    chunk_lines: int | None = None,
) -> GleuStats:
    """:func:`files_stats` of one hypothesis file (``name``: its name in messages)."""
    if isinstance(hypotheses, Sequence) and not isinstance(hypotheses, (str, bytes)):
        raise TypeError(f"hypotheses must be a path or a binary stream, got {describe(hypotheses)}")
    (stats,) = files_stats([hypotheses], references, scorer, jobs, warn, [name], num_refs, chunk_lines)
    return stats
