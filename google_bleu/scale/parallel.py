"""Statistics counted by worker processes, ``==`` one process's: :func:`parallel_stats` of text
in memory, :func:`files_stats` of files that the workers index and read by ranges of lines.
docs/scale.md says how to use them, docs/design.md ("Worker processes") how they work."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..settings import GLEU
from ..stats import GleuStats
from ..text import checked_text_stats
from ..validation import check_texts, describe
from .files import FileError, PathOrStream
from .plan import SystemFiles
from .pool import WorkerError, WorkerPool, check_scorer, resolve_jobs, whole_number

__all__ = ["FileError", "WorkerError", "file_stats", "files_stats", "parallel_stats", "SystemFiles"]

#: Segments a task of text in memory: about 0.1 s of work.
DEFAULT_CHUNK_SIZE = 10_000


def _count(scorer: GLEU, predictions: list[str], references: list[list[str]]) -> GleuStats:
    return checked_text_stats(predictions, references, scorer.tokenizer, scorer.min_len, scorer.max_len)


def parallel_stats(
    scorer: Any, predictions: Sequence[str], references: Sequence[str | Sequence[str]], jobs: int = 1,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
) -> GleuStats:  # fmt: skip
    """``scorer.stats(predictions, references)`` counted by ``jobs`` processes (``0``: every
    core), ``chunk_size`` segments a task; bad input raises before any worker starts.

    Example:
        >>> from google_bleu import GLEU
        >>> predictions, references = ["the cat sat", "", "a b c"], [["the cat"], ["x"], ["a b c", "a b"]]
        >>> parallel_stats(GLEU(), predictions, references, chunk_size=2) == GLEU().stats(predictions, references)
        True
    """
    jobs, size = resolve_jobs(jobs), whole_number(chunk_size, "chunk_size")
    check_scorer(scorer, jobs)
    predictions, references = check_texts(predictions, references)
    if jobs == 1 or len(predictions) <= size:
        return _count(scorer, predictions, references)
    starts = range(0, len(predictions), size)
    with WorkerPool(scorer, min(jobs, len(starts))) as pool:
        return GleuStats.concatenate(pool.run((_count, (predictions[i : i + size], references[i : i + size])) for i in starts))


def files_stats(
    hypotheses: Sequence[PathOrStream], references: Any, scorer: Any = None, jobs: int = 1,
    warn: Callable[[str], None] | None = None, names: Sequence[str | None] | None = None, num_refs: int = 1,
    chunk_lines: int | None = None,
) -> Iterator[GleuStats]:  # fmt: skip
    """Each hypothesis file's (system's) per-segment statistics against the same references, in order.

    Args:
        hypotheses: Paths, or binary streams such as ``sys.stdin.buffer`` (copied once).
        references: A path or a list of paths / binary streams (several = several references).
        scorer: A :class:`~google_bleu.GLEU` (default: ``GLEU()``).
        jobs: At most this many worker processes (``0``: every core), fewer where the input
            does not pay for them (:func:`~google_bleu.scale.pool.workers_for`).
        warn: Called with the warning for a file that starts with a byte-order mark (default:
            a ``UnicodeWarning``).
        names: Each system's name in messages (default: the path, or the stream's name).
        num_refs: References per line of the one reference file, tab-separated (``-nr``).
        chunk_lines: Lines a task (``jobs`` workers start whatever the size); by default planned.

    Raises:
        ValueError: Files of different lengths, unreadable or changed while read, a line that
            is not UTF-8 (:class:`FileError`, :class:`~.lines.LineError`). TypeError: Bad arguments.

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
        yield from (part[0] for part in files)


def file_stats(
    hypotheses: PathOrStream, references: Any, scorer: Any = None, jobs: int = 1,
    warn: Callable[[str], None] | None = None, name: str | None = None, num_refs: int = 1,
    chunk_lines: int | None = None,
) -> GleuStats:  # fmt: skip
    """:func:`files_stats` of one hypothesis file (``name``: its name in messages)."""
    if isinstance(hypotheses, Sequence) and not isinstance(hypotheses, (str, bytes)):
        raise TypeError(f"hypotheses must be a path or a binary stream, got {describe(hypotheses)}")
    (stats,) = files_stats([hypotheses], references, scorer, jobs, warn, [name], num_refs, chunk_lines)
    return stats
