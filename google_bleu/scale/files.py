"""Input files, each checked once on its way in, indexed by the workers, and read by them in
ranges of whole lines.

This process reads no line data: it takes each input's size and first bytes (a byte-order
mark), after copying a stream, pipe, FIFO or device once into a temporary file. Workers
index the inputs (:func:`count_breaks`: the line breaks in each *grain*, at C speed); this
process adds the counts up (line count, long-line limit) and keeps one count a grain. A range
of lines is then, in each input, the bytes from the grain of its first line to the grain of
its end (:meth:`Source.where`), which a worker reads, trims and decodes (:func:`read_lines`).

Example:
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "x.txt")
    >>> _ = open(path, "wb").write(b"a\\nb b\\nc")
    >>> source = open_source(path, None)
    >>> source.indexed([count_breaks(span) for span in source.spans()])
    >>> source.lines, source.size
    (3, 7)
    >>> read_lines(source.where(1, 3), 2, 2)
    ['b b', 'c']
"""

from __future__ import annotations

import io
import os
import stat
import tempfile
from array import array
from bisect import bisect_left
from typing import Any, BinaryIO, Callable, NamedTuple, Union

from ..validation import describe
from .lines import BOM, MAX_LINE_BYTES, LineError, bom_warning, lines_from_bytes, long_line_message

PathOrStream = Union[str, "os.PathLike[str]", BinaryIO]

#: Bytes read at a time when a stream is copied (less than ``MAX_LINE_BYTES``).
BLOCK = 1 << 20
#: The most bytes of one input that an index task counts at a time; less than
#: ``MAX_LINE_BYTES``, so a longer line crosses a piece's edge, where this process checks it.
INDEX_BYTES = 1 << 20
#: The smallest and largest grain: the unit of the index, and the most a worker reads beyond
#: its lines at each end of a range. About 1,000 grains a file, within these bounds.
GRAIN = (4 << 10, 64 << 10)
_BOM = BOM.encode("utf-8")


class FileError(ValueError):
    """An input file that cannot be scored: unreadable, or of another length than the others."""


def _unreadable(name: str, error: OSError) -> FileError:
    return FileError(f"cannot read {name}: {error.strerror or error}")


def _uncopied(name: str, error: OSError) -> FileError:
    """A failed write of a stream's temporary copy (the disk, not the input)."""
    return FileError(f"cannot copy {name} to a temporary file in {tempfile.gettempdir()}: {error.strerror or error}")


class Span(NamedTuple):
    """Bytes of one input that an index task counts, whole grains from ``start``."""

    path: str
    name: str
    start: int
    end: int
    grain: int


class Where(NamedTuple):
    """Where a range of lines lies in one input: read ``start`` to ``end``; the lines begin
    after ``skip`` line breaks from the first byte read and end after ``skip_end`` line
    breaks from the byte ``middle`` bytes in (``-1``: at the last byte read)."""

    path: str
    name: str
    start: int
    end: int
    skip: int
    middle: int
    skip_end: int


class _Runs:
    """The long-line rule over consecutive blocks of one input, each shorter than the limit
    (so only a line that began in an earlier block can pass it)."""

    def __init__(self, name: str) -> None:
        self.name, self.lines, self.run = name, 0, 0

    def add(self, size: int, count: int, first: int, last: int) -> None:
        """A block of ``size`` bytes with ``count`` line breaks, the first and last at these
        offsets in it (``-1``: none)."""
        if first < 0:
            self.run += size
        elif self.run + first > MAX_LINE_BYTES:
            raise LineError(long_line_message(self.name, self.lines + 1))
        else:
            self.run = size - last - 1
        if self.run > MAX_LINE_BYTES:
            raise LineError(long_line_message(self.name, self.lines + count + 1))
        self.lines += count

    def total(self) -> int:
        """The lines of the input (a last line without a break counts)."""
        return self.lines + (self.run > 0)


class Source:
    """One input as the workers read it: a path, its name in messages, its size, a byte-order
    mark, and once indexed its lines and the line breaks before each grain."""

    def __init__(self, path: str, name: str, size: int, head: bytes, spool: Any = None) -> None:
        self.path, self.name, self.size, self.spool = path, name, size, spool
        self.bom = head.startswith(_BOM)
        low, high = GRAIN
        self.grain = min(high, max(low, 1 << max(0, size // 1024).bit_length()))
        self.lines = 0
        #: Line breaks before the start of each grain, and in the whole input.
        self.breaks = array("q", [0])

    def spans(self) -> list[Span]:
        """The pieces of this input that index tasks count: whole grains, at most
        :data:`INDEX_BYTES` each."""
        step = INDEX_BYTES // self.grain * self.grain
        return [Span(self.path, self.name, start, min(start + step, self.size), self.grain) for start in range(0, self.size, step)]

    def indexed(self, counted: list[tuple[array, int, int]]) -> None:
        """Adds up what :func:`count_breaks` found in each span, in order.

        Raises:
            LineError: A line longer than :data:`~google_bleu.scale.lines.MAX_LINE_BYTES`.
            FileError: The file changed since it was opened.
        """
        runs = _Runs(self.name)
        breaks = array("q", [0])
        for span, (counts, first, last) in zip(self.spans(), counted):
            for count in counts:
                breaks.append(breaks[-1] + count)
            runs.add(span.end - span.start, sum(counts), first, last)
        if len(breaks) != -(-self.size // self.grain) + 1:
            raise FileError(f"{self.name} changed while it was read")
        self.breaks, self.lines = breaks, runs.total()

    def where(self, first: int, end: int) -> Where:
        """The bytes a worker reads for lines ``first`` to ``end`` (0-based, end excluded)."""
        grain, breaks = self.grain, self.breaks
        if first >= end:  # no line: nothing to read
            return Where(self.path, self.name, 0, 0, 0, 0, -1)
        start = 0 if first == 0 else bisect_left(breaks, first) - 1  # the grain of the first line's break before it
        if end >= self.lines:
            return Where(self.path, self.name, start * grain, self.size, first - breaks[start], 0, -1)
        last = bisect_left(breaks, end) - 1  # the grain holding the break that ends line end - 1
        stop = min((last + 1) * grain, self.size)
        return Where(self.path, self.name, start * grain, stop, first - breaks[start], (last - start) * grain, end - breaks[last])

    def close(self) -> None:
        if self.spool is not None:
            self.spool.close()


def count_breaks(span: Span) -> tuple[array, int, int]:
    """An index task's work on one span: the line breaks in each grain, and the offsets of
    the span's first and last line break (``-1``: none)."""
    data = _read(span.path, span.start, span.end, span.name)
    if len(data) != span.end - span.start:
        raise FileError(f"{span.name} changed while it was read")
    grain = span.grain
    counts = array("q", (data.count(b"\n", at, at + grain) for at in range(0, len(data), grain)))
    return counts, data.find(b"\n"), data.rfind(b"\n")


def _read(path: str, start: int, end: int, name: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            handle.seek(start)
            return handle.read(end - start)
    except OSError as error:
        raise _unreadable(name, error) from None


def open_source(source: Any, name: str | None) -> Source:
    """Checks one input: a regular file in place (its size and first bytes), anything else
    (a stream, a pipe, a FIFO, a device, ``/dev/stdin``) copied once into a temporary file.

    Raises:
        FileError: The input cannot be read, or its copy cannot be written.
        LineError: A line of a copied stream longer than :data:`~google_bleu.scale.lines.MAX_LINE_BYTES`.
        TypeError: Not a path or a binary stream.
    """
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        name = path if name is None else name
        try:
            handle = open(path, "rb")  # noqa: SIM115 - closed below
        except OSError as error:
            raise _unreadable(name, error) from None
        with handle:
            size = _regular_size(handle)
            if size is None:
                return _spooled(handle, name)
            try:
                head = handle.read(len(_BOM))
            except OSError as error:
                raise _unreadable(name, error) from None
            return Source(path, name, size, head)
    if hasattr(source, "read") and not isinstance(source, (str, bytes)):
        return _spooled(source, str(getattr(source, "name", "stream")) if name is None else name)
    raise TypeError(f"files must be paths or binary streams, got {describe(source)}")


def _regular_size(handle: Any) -> int | None:
    try:
        status = os.fstat(handle.fileno())
    except (OSError, AttributeError, ValueError):
        return None
    return status.st_size if stat.S_ISREG(status.st_mode) else None


def _spooled(stream: Any, name: str) -> Source:
    """A stream copied once into a temporary file that workers open by a path: with ``/proc``
    it has no name on disk (workers open this process's descriptor), so it goes when this
    process ends, however it ends; elsewhere a named one, removed when closed. The long-line
    rule applies as it is copied: ``/dev/zero`` ends after that many bytes."""
    if isinstance(stream, io.TextIOBase):
        raise TypeError(f"{name} must be opened in binary mode ('rb'), got a text stream")
    copy = tempfile.TemporaryFile()  # noqa: SIM115 - closed with its Source
    path = f"/proc/{os.getpid()}/fd/{copy.fileno()}"
    if not os.path.exists(path):
        copy.close()
        copy = tempfile.NamedTemporaryFile(prefix="google-bleu-")  # noqa: SIM115
        path = copy.name
    try:
        size, head = _copy(stream, copy, name)
    except BaseException:
        copy.close()
        raise
    return Source(path, name, size, head, copy)


def _copy(stream: Any, copy: Any, name: str) -> tuple[int, bytes]:
    runs = _Runs(name)
    buffer = bytearray(BLOCK)  # one buffer for every block: no allocation per block
    size, head = 0, b""
    while True:
        try:
            count = stream.readinto(buffer)
        except OSError as error:
            raise _unreadable(name, error) from None
        except (AttributeError, io.UnsupportedOperation, TypeError):  # a text stream, or no readinto
            raise TypeError(f"{name} must be a binary stream opened for reading ('rb')") from None
        if not count:
            break
        try:
            copy.write(memoryview(buffer)[:count])
        except OSError as error:  # the temporary file, not the input, failed
            raise _uncopied(name, error) from None
        if len(head) < len(_BOM):
            head += buffer[: min(count, len(_BOM) - len(head))]
        runs.add(count, buffer.count(b"\n", 0, count), buffer.find(b"\n", 0, count), buffer.rfind(b"\n", 0, count))
        size += count
    try:
        copy.flush()
    except OSError as error:
        raise _uncopied(name, error) from None
    return size, bytes(head)


def open_all(inputs: list[tuple[Any, str | None]], warn: Callable[[str], None]) -> list[Source]:
    """Each input checked once, in order, with the byte-order-mark warning of the line
    policy; on an error, the ones already opened are closed."""
    sources: list[Source] = []
    try:
        for source, name in inputs:
            sources.append(open_source(source, name))
            if sources[-1].bom:
                warn(str(bom_warning([BOM], sources[-1].name)))
    except BaseException:
        close_all(sources)
        raise
    return sources


def close_all(sources: list[Source]) -> None:
    for source in sources:
        source.close()


def check_lengths(systems: list[Source], references: list[Source]) -> int:
    """The common line count, or the usual one-line error (references first)."""
    first = references[0]
    for other in [*references[1:], *systems]:
        if other.lines != first.lines:
            left, right = (first, other) if other in references else (other, first)
            raise FileError(f"{left.name} has {left.lines} lines but {right.name} has {right.lines}")
    return first.lines


def _after(data: bytes, at: int, breaks: int, where: Where) -> int:
    """The offset just after the ``breaks``-th line break from ``at`` (at most a grain's lines)."""
    for _ in range(breaks):
        at = data.find(b"\n", at) + 1
        if not at:
            raise FileError(f"{where.name} changed while it was read")
    return at


def read_lines(where: Where, first_line: int, count: int) -> list[str]:
    """The ``count`` lines of an input that ``where`` locates, by the line policy (errors
    name the file and number lines from ``first_line``): a worker's read."""
    data = _read(where.path, where.start, where.end, where.name)
    begin = _after(data, 0, where.skip, where)
    end = len(data) if where.skip_end < 0 else _after(data, where.middle, where.skip_end, where)
    lines = lines_from_bytes(data[begin:end], where.name, first_line)
    if len(lines) != count:
        raise FileError(f"{where.name} changed while it was read (lines {first_line}-{first_line + count - 1})")
    return lines
