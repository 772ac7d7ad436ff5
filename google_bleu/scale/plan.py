"""The plan over files: :class:`SystemFiles` opens and indexes the inputs with the workers, cuts the lines
into tasks (:func:`count_ranges`), puts each system's results together in order (docs/design.md)."""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Callable, Iterator, Sequence
from itertools import chain
from typing import Any

from ..imports import lazy_module
from ..settings import GLEU, scorer_from_options
from ..stats import GleuStats
from ..text import order_text_stats
from ..validation import check_bool, describe
from .files import Descriptor, FileError, PathOrStream, count_breaks, open_all, read_lines
from .lines import LineError
from .pool import WorkerPool, check_scorer, resolve_jobs, whole_number, workers_for

np = lazy_module("numpy")

#: Tasks a worker over files, and the smallest and largest task (bytes of system text).
TASKS_PER_WORKER = 6
TASK_BYTES = (256 << 10, 1 << 20)
#: A task's result for one system: its rows (or one row of totals), then each order's totals when asked.
Part = tuple[GleuStats, ...]


def count_ranges(
    scorer: GLEU, systems: list[tuple], references: list[tuple], first: int, count: int, num_refs: int, rows: bool,
    by_order: bool,
) -> list[Part]:  # fmt: skip
    """A worker's task over files: the same lines (``count`` from ``first``, 1-based) of some
    systems and every reference (:meth:`~.files.Source.where`), one :data:`Part` a system."""
    columns = [read_lines(where, first, count) for where in references]
    if num_refs == 1:
        lists = [list(refs) for refs in zip(*columns)]
    else:
        lists = [line.split("\t") for line in columns[0]]
        for number, fields in enumerate(lists, first):
            if len(fields) != num_refs:
                where = f"{references[0][1]}: line {number} has {len(fields)} tab-separated references"
                raise LineError(f"{where}, expected {num_refs} (-nr)")
    predictions = list(chain.from_iterable(read_lines(where, first, count) for where in systems))
    # The references tokenized once for every system; one system's rows left as the engine made them.
    every = order_text_stats(predictions, lists * len(systems), scorer.tokenizer, scorer.min_len, scorer.max_len, by_order)
    each = [every] if len(systems) == 1 else [
        [stats[at : at + count] for stats in every] for at in range(0, len(predictions), count)
    ]
    return [(main if rows else GleuStats.summed([main]), *(GleuStats.summed([one]) for one in orders)) for main, *orders in each]


def _breaks(scorer: GLEU, span: tuple) -> tuple:
    return count_breaks(span)


class _System:
    """One system's parts in order: its rows copied, as they come, into arrays of the final
    size where there are several (40 bytes a segment, not twice that), its totals summed."""

    def __init__(self, lines: int, several: bool) -> None:
        self.parts: list[Part] = []
        self.rows = (np.empty((lines, 4), np.int64), np.empty(lines, np.int64)) if several else None

    def add(self, part: Part, start: int, end: int) -> None:
        if self.rows is not None:
            self.rows[0][start:end], self.rows[1][start:end] = part[0].rows, part[0].reference_index
            part = (None, *part[1:])  # type: ignore[assignment]
        self.parts.append(part)

    def done(self, scorer: GLEU, rows: bool, orders: int) -> Part:
        low, high = scorer.min_len, scorer.max_len
        if not self.parts:  # an empty corpus
            self.parts = [(GleuStats.empty(low, high), *(GleuStats.empty(n, n) for n in range(low, low + orders)))]
        main, *each = zip(*self.parts)
        if self.rows is not None:
            joined = GleuStats.trusted(self.rows[0], low, high, self.rows[1])
        else:
            joined = (main[0] if len(main) == 1 else GleuStats.concatenate(main)) if rows else GleuStats.summed(main)
        return (joined, *(GleuStats.summed(order) for order in each))


class SystemFiles:
    """Systems' files against the same references, opened and indexed when this is made;
    iterating gives each system's :data:`Part` in order. Close it (or use ``with``) to end the
    workers and close the inputs. Arguments are :func:`files_stats`'s, and ``rows`` (per-segment
    rows, else each system's totals) and ``by_order`` (each order's totals too)."""

    def __init__(
        self, hypotheses: Sequence[PathOrStream], references: Any, scorer: Any = None, jobs: int = 1,
        warn: Callable[[str], None] | None = None, names: Sequence[str | None] | None = None, num_refs: int = 1,
        rows: bool = True, by_order: bool = False, chunk_lines: int | None = None,
    ) -> None:  # fmt: skip
        jobs, self.scorer = resolve_jobs(jobs), scorer_from_options(scorer)
        check_scorer(self.scorer, jobs)
        self.rows, self.by_order = check_bool(rows, "rows"), check_bool(by_order, "by_order")
        self.num_refs = whole_number(num_refs, "num_refs")
        chunk_lines = None if chunk_lines is None else whole_number(chunk_lines, "chunk_lines")
        if isinstance(hypotheses, (str, os.PathLike)) or hasattr(hypotheses, "read") or not isinstance(hypotheses, Sequence):
            raise TypeError(f"hypotheses must be a list of paths or binary streams, got {describe(hypotheses)}")
        names = [None] * len(hypotheses) if names is None else list(names)
        if len(names) != len(hypotheses):
            raise ValueError(f"got {len(names)} names for {len(hypotheses)} hypothesis files")
        if isinstance(references, (str, os.PathLike)) or hasattr(references, "read"):
            references = [references]
        if not isinstance(references, Sequence) or not references:
            raise TypeError(f"references must be a path or a non-empty list of paths, got {describe(references)}")
        if self.num_refs > 1 and len(references) != 1:
            raise ValueError(f"num_refs={num_refs} reads the references tab-separated from one file, got {len(references)} files")
        if warn is not None and not callable(warn):
            raise TypeError(f"warn must be a callable taking the message, got {describe(warn)}")
        warn = warn or (lambda message: warnings.warn(message, UnicodeWarning, stacklevel=4))
        self.counting, self.pool = None, None
        opened = open_all([(path, None) for path in references] + list(zip(hypotheses, names)), warn)
        self.references, self.systems = opened[: len(references)], opened[len(references) :]
        try:
            self._index(jobs, chunk_lines)
        except BaseException:
            self.close()
            raise
        self.per_range, self.per_task = (chunk_lines, 1) if chunk_lines else self._plan()

    def _index(self, jobs: int, chunk_lines: int | None) -> None:
        """Starts the workers and has them index every input, in order (a long line stops it there)."""
        inputs = [*self.references, *self.systems]
        if os.name != "posix":  # workers read this process's descriptors, passed as POSIX passes them
            jobs = 1
        elif chunk_lines is None:
            jobs = workers_for(sum(source.size for source in inputs), jobs)
        self.pool = WorkerPool(self.scorer, jobs, tuple(Descriptor(source.fd) for source in inputs))
        self.workers = self.pool.processes
        spans = [(source, span) for source in inputs for span in source.spans()]
        for (source, span), counted in zip(spans, self.pool.run((_breaks, (span,)) for _, span in spans)):
            source.add(span, *counted)
        for source in inputs:
            source.indexed()
        for source in inputs:  # the references first
            if source.lines != inputs[0].lines:
                left, right = (source, inputs[0]) if source in self.systems else (inputs[0], source)
                raise FileError(f"{left.name} has {left.lines} lines but {right.name} has {right.lines}")
        self.lines = inputs[0].lines  #: the line count every input shares

    def _plan(self) -> tuple[int, int]:
        """Lines a range and systems a task: about :data:`TASKS_PER_WORKER` tasks a worker in
        :data:`TASK_BYTES`, cut along the lines first (a task holds every system where it can)."""
        total, (low, high) = sum(source.size for source in self.systems), TASK_BYTES
        if total <= low:  # a short input: one task a system (its rows stay the engine's lists)
            return max(self.lines, 1), 1
        tasks = math.ceil(total / min(max(total / (TASKS_PER_WORKER * self.workers), low), high))
        per_range = max(1, math.ceil(self.lines / tasks))
        groups = math.ceil(tasks / math.ceil(self.lines / per_range))
        return per_range, max(1, math.ceil(len(self.systems) / groups))

    def __iter__(self) -> Iterator[Part]:
        self.counting = self._counted()  # closed by close(): its workers never wait for collection
        return self.counting

    def _counted(self) -> Iterator[Part]:
        ranges = [(start, min(start + self.per_range, self.lines)) for start in range(0, self.lines, self.per_range)]
        groups = [self.systems[at : at + self.per_task] for at in range(0, len(self.systems), self.per_task)]
        settings = (self.num_refs, self.rows, self.by_order)
        results = self.pool.run(  # type: ignore[union-attr]
            (count_ranges, ([system.where(*lines) for system in group], [ref.where(*lines) for ref in self.references],
                            lines[0] + 1, lines[1] - lines[0], *settings))
            for group in groups for lines in ranges
        )  # fmt: skip
        orders = self.scorer.max_len - self.scorer.min_len + 1 if self.by_order else 0
        for group in groups:
            systems = [_System(self.lines, self.rows and len(ranges) > 1) for _ in group]
            for start, end in ranges:
                for system, part in zip(systems, next(results)):
                    system.add(part, start, end)
            for source in [*self.references, *group]:  # read as opened, or an error
                source.check_unchanged()
            yield from (system.done(self.scorer, self.rows, orders) for system in systems)

    def close(self) -> None:
        """Ends the workers, if any, and closes the inputs (idempotent)."""
        for opened in (self.counting, self.pool, *self.references, *self.systems):
            if opened is not None:
                opened.close()

    def __enter__(self) -> SystemFiles:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()
