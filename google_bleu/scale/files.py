"""Input files: each opened once and held open for the run, indexed, and read by ranges
of whole lines through that descriptor, so a file replaced on disk during the run is read
as it was opened, and one rewritten in place is an error. A stream, pipe, FIFO or device is
copied once into a temporary file with no name on disk. The index counts the line breaks in
each *grain* (:func:`count_breaks`) and adds them up in order (:meth:`Source.add`), so a
line longer than the limit stops the reading there; a range of lines is then the bytes from
the grain of its first line to the grain of its end (:meth:`Source.where`).

Example:
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "x.txt")
    >>> _ = open(path, "wb").write(b"a\\nb b\\nc")
    >>> source = open_source(path, None)
    >>> for span in source.spans():
    ...     source.add(span, *count_breaks(span))
    >>> source.indexed()
    >>> source.lines, source.size
    (3, 7)
    >>> read_lines(source.where(1, 3), 2, 2)
    ['b b', 'c']
    >>> source.close()
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

#: Bytes read at a time when a stream is copied, and the most bytes of one input that an
#: index task counts at a time: less than ``MAX_LINE_BYTES``, so a longer line crosses an edge.
BLOCK = 1 << 20
#: The smallest and largest grain: the unit of the index, and the most a worker reads beyond
#: its lines at each end of a range. About 1,000 grains a file, within these bounds.
GRAIN = (4 << 10, 64 << 10)
_BOM = BOM.encode("utf-8")


class FileError(ValueError):
    """An input file that cannot be scored: unreadable, changed while it was read, or of
    another length than the others."""


def _unreadable(name: str, error: OSError) -> FileError:
    return FileError(f"cannot read {name}: {error.strerror or error}")


def _changed(name: str) -> FileError:
    return FileError(f"{name} changed while it was read; score it again once it is written")


class Span(NamedTuple):
    """Bytes of one input that an index task counts, whole grains from ``start``."""

    fd: int
    name: str
    start: int
    end: int
    grain: int


class Where(NamedTuple):
    """Where a range of lines lies in one input: read ``start`` to ``end``; the lines begin
    after ``skip`` line breaks from the first byte read and end after ``skip_end`` line
    breaks from the byte ``middle`` bytes in (``-1``: at the last byte read)."""

    fd: int
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


def _stamp(fd: int) -> tuple[int, int]:
    status = os.fstat(fd)
    return status.st_size, status.st_mtime_ns


class Source:
    """One input as it is read: its open file (held for the run), its name in messages, its
    size, a byte-order mark, and once indexed its lines and the line breaks before each grain."""

    def __init__(self, handle: Any, name: str, size: int, head: bytes, copied: bool) -> None:
        self.handle, self.fd, self.name, self.size = handle, handle.fileno(), name, size
        self.bom = head.startswith(_BOM)
        #: The size and modification time as opened (None: a copy of ours, which nothing else writes).
        self.stamp = None if copied else _stamp(self.fd)
        low, high = GRAIN
        self.grain = min(high, max(low, 1 << max(0, size // 1024).bit_length()))
        self.lines = 0
        #: Line breaks before the start of each grain, and in the whole input.
        self.breaks = array("q", [0])
        self._runs = _Runs(name)

    def spans(self) -> list[Span]:
        """The pieces of this input that index tasks count: whole grains, at most :data:`BLOCK` each."""
        step = BLOCK // self.grain * self.grain
        return [Span(self.fd, self.name, start, min(start + step, self.size), self.grain) for start in range(0, self.size, step)]

    def add(self, span: Span, counts: array, first: int, last: int) -> None:
        """Adds what :func:`count_breaks` found in the next span, in order.

        Raises:
            LineError: A line longer than :data:`~google_bleu.scale.lines.MAX_LINE_BYTES`.
        """
        for count in counts:
            self.breaks.append(self.breaks[-1] + count)
        self._runs.add(span.end - span.start, sum(counts), first, last)

    def indexed(self) -> None:
        """Ends the index: the line count, once every span is added."""
        if len(self.breaks) != -(-self.size // self.grain) + 1:
            raise _changed(self.name)
        self.lines = self._runs.total()

    def where(self, first: int, end: int) -> Where:
        """The bytes a worker reads for lines ``first`` to ``end`` (0-based, end excluded)."""
        grain, breaks = self.grain, self.breaks
        if first >= end:  # no line: nothing to read
            return Where(self.fd, self.name, 0, 0, 0, 0, -1)
        start = 0 if first == 0 else bisect_left(breaks, first) - 1  # the grain of the first line's break before it
        if end >= self.lines:
            return Where(self.fd, self.name, start * grain, self.size, first - breaks[start], 0, -1)
        last = bisect_left(breaks, end) - 1  # the grain holding the break that ends line end - 1
        stop = min((last + 1) * grain, self.size)
        return Where(self.fd, self.name, start * grain, stop, first - breaks[start], (last - start) * grain, end - breaks[last])

    def check_unchanged(self) -> None:
        """Raises :class:`FileError` when the file was written to since it was opened."""
        try:
            if self.stamp is not None and _stamp(self.fd) != self.stamp:
                raise _changed(self.name)
        except OSError as error:
            raise _unreadable(self.name, error) from None

    def close(self) -> None:
        self.handle.close()


def _read(fd: int, start: int, end: int, name: str) -> bytes:
    try:
        if hasattr(os, "pread"):
            data = os.pread(fd, end - start, start)
        else:  # one reader per descriptor in each process
            os.lseek(fd, start, os.SEEK_SET)
            data = os.read(fd, end - start)
    except OSError as error:
        raise _unreadable(name, error) from None
    if len(data) != end - start:
        raise _changed(name)
    return data


def count_breaks(span: Span) -> tuple[array, int, int]:
    """An index task's work on one span: the line breaks in each grain, and the offsets of
    the span's first and last line break (``-1``: none)."""
    data = _read(span.fd, span.start, span.end, span.name)
    grain = span.grain
    counts = array("q", (data.count(b"\n", at, at + grain) for at in range(0, len(data), grain)))
    return counts, data.find(b"\n"), data.rfind(b"\n")


def open_source(source: Any, name: str | None) -> Source:
    """Opens one input: a regular file in place (held open), anything else (a stream, a pipe,
    a FIFO, a device, ``/dev/stdin``) copied once into a temporary file.

    Raises:
        FileError: The input cannot be read, or its copy cannot be written.
        LineError: A line of a copied stream longer than :data:`~google_bleu.scale.lines.MAX_LINE_BYTES`.
        TypeError: Not a path or a binary stream.
    """
    if isinstance(source, (str, os.PathLike)):
        name = os.fspath(source) if name is None else name
        try:
            handle = open(source, "rb")  # noqa: SIM115 - held by the Source, or closed below
            status = os.fstat(handle.fileno())
        except OSError as error:
            raise _unreadable(name, error) from None
        if not stat.S_ISREG(status.st_mode):
            with handle:
                return _spooled(handle, name)
        try:
            return Source(handle, name, status.st_size, os.pread(handle.fileno(), len(_BOM), 0), False)
        except OSError as error:
            handle.close()
            raise _unreadable(name, error) from None
    if hasattr(source, "read") and not isinstance(source, (str, bytes)):
        return _spooled(source, str(getattr(source, "name", "stream")) if name is None else name)
    raise TypeError(f"files must be paths or binary streams, got {describe(source)}")


def _spooled(stream: Any, name: str) -> Source:
    """A stream copied once into a temporary file with no name on disk (it goes when this
    process ends, however it ends). The long-line rule applies as it is copied:
    ``/dev/zero`` ends after that many bytes."""
    if isinstance(stream, io.TextIOBase):
        raise TypeError(f"{name} must be opened in binary mode ('rb'), got a text stream")
    try:
        copy = tempfile.TemporaryFile()  # noqa: SIM115 - held by the Source
    except OSError as error:
        raise _uncopied(name, error) from None
    try:
        size, head = _copy(stream, copy, name)
    except BaseException:
        copy.close()
        raise
    return Source(copy, name, size, head, True)


def _uncopied(name: str, error: OSError) -> FileError:
    """A failed write of a stream's temporary copy (the disk, not the input)."""
    return FileError(f"cannot copy {name} to a temporary file in {tempfile.gettempdir()}: {error.strerror or error}")


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
    """Each input opened once, in order, with the byte-order-mark warning of the line policy;
    on an error, the ones already opened are closed."""
    sources: list[Source] = []
    try:
        for source, name in inputs:
            sources.append(open_source(source, name))
            if sources[-1].bom:
                warn(str(bom_warning([BOM], sources[-1].name)))
    except BaseException:
        for opened in sources:
            opened.close()
        raise
    return sources


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
            raise _changed(where.name)
    return at


def read_lines(where: Where, first_line: int, count: int) -> list[str]:
    """The ``count`` lines of an input that ``where`` locates, by the line policy (errors
    name the file and number lines from ``first_line``): a worker's read."""
    data = _read(where.fd, where.start, where.end, where.name)
    begin = _after(data, 0, where.skip, where)
    end = len(data) if where.skip_end < 0 else _after(data, where.middle, where.skip_end, where)
    lines = lines_from_bytes(data[begin:end], where.name, first_line)
    if len(lines) != count:
        raise _changed(where.name)
    return lines
