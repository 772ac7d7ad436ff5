"""Inputs opened once and read through that descriptor by ranges of whole lines, which an
index of the line breaks in each grain locates: docs/design.md, "Worker processes"."""

from __future__ import annotations

import io
import os
import select
import stat
import tempfile
from array import array
from bisect import bisect_left
from typing import Any, BinaryIO, Callable, Union

from ..validation import describe
from .lines import BOM, MAX_LINE_BYTES, LineError, bom_warning, lines_from_bytes, long_line_message

PathOrStream = Union[str, "os.PathLike[str]", BinaryIO]
#: Bytes copied at a time from a stream, and the most bytes an index task counts.
BLOCK = 1 << 20
#: The smallest and largest grain (the index's unit): about 1,000 grains a file.
GRAIN = (4 << 10, 64 << 10)


class FileError(ValueError):
    """An input that cannot be scored: unreadable, changed while it was read, or of another length."""


def _unreadable(name: str, error: OSError) -> FileError:
    return FileError(f"cannot read {name}: {error.strerror or error}")


def _changed(name: str) -> FileError:
    return FileError(f"{name} changed while it was read; score it again once it is written")


class _Runs:
    """The long-line rule over consecutive blocks of one input, each shorter than the limit."""

    def __init__(self, name: str) -> None:
        self.name, self.lines, self.run = name, 0, 0

    def add(self, size: int, count: int, first: int, last: int) -> None:
        """A block of ``size`` bytes, ``count`` line breaks, the first and last at these offsets (-1: none)."""
        if first >= 0 and self.run + first > MAX_LINE_BYTES:
            raise LineError(long_line_message(self.name, self.lines + 1))
        self.run = self.run + size if first < 0 else size - last - 1
        if self.run > MAX_LINE_BYTES:
            raise LineError(long_line_message(self.name, self.lines + count + 1))
        self.lines += count


def _stamp(fd: int) -> tuple[int, int, int, int]:
    status = os.fstat(fd)
    return status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_nlink


class Source:
    """One input: its open file, held for the run, its size, whether it starts with a
    byte-order mark, and once indexed its lines and the line breaks before each grain.

    Example:
        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "x.txt")
        >>> _ = open(path, "wb").write(b"a\\nb b\\nc")
        >>> source = open_source(path, None)
        >>> for span in source.spans():
        ...     source.add(span, *count_breaks(span))
        >>> source.indexed()
        >>> source.lines, read_lines(source.where(1, 3), 2, 2)
        (3, ['b b', 'c'])
    """

    def __init__(self, handle: Any, name: str, copied: bool = False) -> None:
        self.handle, self.fd, self.name = handle, handle.fileno(), name
        self.stamp = None if copied else _stamp(self.fd)  # a copy of ours: nothing else writes it
        self.size = os.fstat(self.fd).st_size
        self.bom = _read(self.fd, 0, min(3, self.size), name) == BOM.encode()
        self.grain = min(GRAIN[1], max(GRAIN[0], 1 << (self.size // 1024).bit_length()))
        self.lines, self.breaks, self._runs = 0, array("q", [0]), _Runs(name)

    def spans(self) -> list[tuple[int, str, int, int, int]]:
        """What index tasks count: ``(fd, name, start, end, grain)``, whole grains, at most :data:`BLOCK` bytes."""
        step = BLOCK // self.grain * self.grain
        return [(self.fd, self.name, at, min(at + step, self.size), self.grain) for at in range(0, self.size, step)]

    def add(self, span: tuple, counts: array, first: int, last: int) -> None:
        """Adds what :func:`count_breaks` found in the next span; a long line raises :class:`LineError`."""
        for count in counts:
            self.breaks.append(self.breaks[-1] + count)
        self._runs.add(span[3] - span[2], sum(counts), first, last)

    def indexed(self) -> None:
        if len(self.breaks) != -(-self.size // self.grain) + 1:
            raise _changed(self.name)
        self.lines = self._runs.lines + (self._runs.run > 0)

    def where(self, first: int, end: int) -> tuple[int, str, int, int, int]:
        """Where lines ``first`` to ``end`` (0-based, end excluded) are, for :func:`read_lines`:
        from the grain of the line break before the first to the grain of the last one's."""
        if first >= end:
            return self.fd, self.name, 0, 0, 0
        start = 0 if first == 0 else bisect_left(self.breaks, first) - 1
        stop = self.size if end >= self.lines else min(bisect_left(self.breaks, end) * self.grain, self.size)
        return self.fd, self.name, start * self.grain, stop, first - self.breaks[start]

    def check_unchanged(self) -> None:
        """A :class:`FileError` if the file was written since it was opened: its size or
        modification time differ, or its change time does where its links do not (an unlink,
        which leaves the file held as it was, changes it too)."""
        if self.stamp is None:
            return
        try:
            size, modified, changed, links = _stamp(self.fd)
        except OSError as error:
            raise _unreadable(self.name, error) from None
        if (size, modified) != self.stamp[:2] or (changed != self.stamp[2] and links == self.stamp[3]):
            raise _changed(self.name)

    def close(self) -> None:
        self.handle.close()


class Descriptor:
    """A descriptor the workers read: a forked worker inherits it, a spawned one gets it as it starts."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def __reduce__(self) -> tuple[Any, tuple]:
        from multiprocessing.reduction import DupFd

        return Descriptor.passed, (DupFd(self.fd),)

    @staticmethod
    def passed(dup: Any) -> Descriptor:
        return Descriptor(dup.detach())


def _read(fd: int, start: int, end: int, name: str) -> bytes:
    try:
        if hasattr(os, "pread"):
            data = os.pread(fd, end - start, start)
        else:  # one reader a descriptor in each process
            os.lseek(fd, start, os.SEEK_SET)
            data = os.read(fd, end - start)
    except OSError as error:
        raise _unreadable(name, error) from None
    if len(data) != end - start:
        raise _changed(name)
    return data


def count_breaks(span: tuple[int, str, int, int, int]) -> tuple[array, int, int]:
    """An index task: the line breaks in each grain of a span, the first's and last's offsets (-1: none)."""
    fd, name, start, end, grain = span
    data = _read(fd, start, end, name)
    return array("q", (data.count(b"\n", at, at + grain) for at in range(0, len(data), grain))), data.find(b"\n"), data.rfind(b"\n")


def read_lines(where: tuple[int, str, int, int, int], first_line: int, count: int) -> list[str]:
    """A worker's read: the ``count`` lines that ``where`` locates, numbered from ``first_line`` in errors."""
    fd, name, start, end, skip = where
    data, begin = _read(fd, start, end, name), 0
    for _ in range(skip):
        begin = data.find(b"\n", begin) + 1
        if not begin:
            raise _changed(name)
    # The lines end at the count-th line break from there, `extra` others after it (-1: at the file's end).
    extra, stop = data.count(b"\n", begin) - count, len(data)
    for _ in range(extra + 1):
        stop = data.rfind(b"\n", begin, stop)
    lines = lines_from_bytes(data[begin : stop + 1 if extra >= 0 else stop], name, first_line)
    if len(lines) != count:
        raise _changed(name)
    return lines


def open_source(source: Any, name: str | None) -> Source:
    """One input: a regular file opened in place, anything else (a stream, pipe, FIFO,
    device) copied once into a temporary file with no name on disk.

    Raises:
        FileError: Unreadable, or its copy not written. LineError: A copied line too long. TypeError: Not a path or binary stream.
    """
    if not isinstance(source, (str, os.PathLike)):
        if not hasattr(source, "read") or isinstance(source, (str, bytes)):
            raise TypeError(f"files must be paths or binary streams, got {describe(source)}")
        return _spooled(source, str(getattr(source, "name", "stream")) if name is None else name)
    name = os.fspath(source) if name is None else name
    try:
        handle = open(source, "rb")  # noqa: SIM115 - held by the Source
        regular = stat.S_ISREG(os.fstat(handle.fileno()).st_mode)
    except OSError as error:
        raise _unreadable(name, error) from None
    if regular:
        return Source(handle, name)
    with handle:
        return _spooled(handle, name)


def open_all(inputs: list[tuple[Any, str | None]], warn: Callable[[str], None]) -> list[Source]:
    """Each input opened in order, a byte-order mark warned of; on an error, those opened are closed."""
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


def _spooled(stream: Any, name: str) -> Source:
    """A stream copied into a temporary file, the long-line rule applied as it is copied."""
    if isinstance(stream, io.TextIOBase):
        raise TypeError(f"{name} must be opened in binary mode ('rb'), got a text stream")
    copy, runs, buffer = None, _Runs(name), bytearray(BLOCK)
    try:
        copy = tempfile.TemporaryFile()  # noqa: SIM115 - held by the Source
        while count := _fill(stream, buffer, name):
            runs.add(count, buffer.count(b"\n", 0, count), buffer.find(b"\n", 0, count), buffer.rfind(b"\n", 0, count))
            copy.write(memoryview(buffer)[:count])
        copy.flush()
        return Source(copy, name, copied=True)
    except BaseException as error:
        if copy is not None:
            copy.close()
        if isinstance(error, OSError):  # the copy's: _fill says the input's
            raise FileError(f"cannot copy {name} to a temporary file in {tempfile.gettempdir()}: {error.strerror or error}") from None
        raise


def _fill(stream: Any, buffer: bytearray, name: str) -> int:
    """The next bytes of a stream (0 at its end), waited for when it is non-blocking."""
    while True:
        try:
            count = stream.readinto(buffer)
        except BlockingIOError:
            count = None
        except OSError as error:
            raise _unreadable(name, error) from None
        except (AttributeError, io.UnsupportedOperation, TypeError):  # a text stream, or no readinto
            raise TypeError(f"{name} must be a binary stream opened for reading ('rb')") from None
        if count is not None:
            return count
        select.select([stream], [], [])  # no data yet, and not the end
