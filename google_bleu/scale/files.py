"""Input files, each checked once on its way in and planned into byte ranges of whole lines.

The parent process never holds or sends line data. It reads each input once, a large block
at a time, at C speed (``bytes.count``, and numpy for the line starts it keeps): the line
count, the long-line limit of the line policy, a byte-order mark, and the byte offset of
every :data:`STEP`-th line start. Standard input, pipes, FIFOs and devices are copied once
into a temporary file on the way (a pipe cannot be read twice), then planned the same way.
A worker gets ``(path, start, end)`` of the same lines in systems and references, and reads
and decodes them itself (:func:`read_lines`).

Example:
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "x.txt")
    >>> _ = open(path, "wb").write(b"a\\nb b\\nc")
    >>> source = open_source(path, None, step=2)
    >>> source.lines, source.size, source.offset(2)
    (3, 7, 6)
    >>> read_lines(source.path, source.offset(0), source.offset(2), path, 1, 2)
    ['a', 'b b']
"""

from __future__ import annotations

import io
import os
import stat
import tempfile
from array import array
from typing import Any, BinaryIO, Callable, Union

from ..validation import describe, lazy_module
from .lines import BOM, MAX_LINE_BYTES, LineError, bom_warning, lines_from_bytes, long_line_message

np = lazy_module("numpy")

PathOrStream = Union[str, "os.PathLike[str]", BinaryIO]

#: Bytes read at a time when an input is planned or spooled (less than ``MAX_LINE_BYTES``).
BLOCK = 1 << 20
#: From this many bytes a block's line breaks are found by numpy (a short input never imports it).
SMALL = 1 << 16
#: Lines between two line starts kept by the plan: a range of lines starts at a multiple of
#: it, and the parent keeps 8 bytes per STEP lines (128 KiB for 4M lines).
STEP = 256
_BOM = BOM.encode("utf-8")


class FileError(ValueError):
    """An input file that cannot be scored: unreadable, or of another length than the others."""


class Source:
    """One input as the workers read it: a path they open, its name in messages, its size
    and lines, whether it starts with a byte-order mark, and every ``step``-th line start."""

    def __init__(self, path: str, name: str, step: int, spool: Any = None) -> None:
        self.path, self.name, self.step, self.spool = path, name, step, spool
        self.size = self.lines = 0
        self.bom = False
        self.starts = array("q", [0])

    def offset(self, line: int) -> int:
        """The byte offset where line ``line`` starts (0-based; a multiple of the step, or the end)."""
        return self.size if line >= self.lines else self.starts[line // self.step]

    def scan(self, stream: Any, write: Callable[[Any], Any] | None = None) -> None:
        """Reads the input to its end once (copying each block to ``write``, if given)."""
        lines = run = 0  # line breaks so far, and bytes since the last one
        buffer = bytearray(BLOCK)  # one buffer for every block: no allocation per block
        head = b""
        while True:
            try:
                size = stream.readinto(buffer)
            except OSError as error:
                raise FileError(f"cannot read {self.name}: {error.strerror or error}") from None
            except (AttributeError, io.UnsupportedOperation, TypeError):  # a text stream, or no readinto
                raise TypeError(f"{self.name} must be a binary stream opened for reading ('rb')") from None
            if not size:
                break
            if write is not None:
                try:
                    write(memoryview(buffer)[:size])
                except OSError as error:  # the temporary file, not the input, failed
                    folder = tempfile.gettempdir()
                    raise FileError(f"cannot copy {self.name} to a temporary file in {folder}: {error.strerror or error}") from None
            if len(head) < len(_BOM):
                head += buffer[: min(size, len(_BOM) - len(head))]
            breaks = None
            if size >= SMALL:  # numpy's vector compare beats bytes.count on a large block
                breaks = np.flatnonzero(np.frombuffer(buffer, np.uint8, size) == 10)
                count = len(breaks)
                first, last = (int(breaks[0]), int(breaks[-1])) if count else (-1, -1)
            else:
                count, first, last = buffer.count(b"\n", 0, size), buffer.find(b"\n", 0, size), buffer.rfind(b"\n", 0, size)
            # A block is shorter than the limit, so only a line that began in an earlier
            # block can pass it: the bytes before this block's first break end that line.
            if first < 0:
                run += size
            elif run + first > MAX_LINE_BYTES:
                raise LineError(long_line_message(self.name, lines + 1))
            else:
                run = size - last - 1
            if run > MAX_LINE_BYTES:
                raise LineError(long_line_message(self.name, lines + count + 1))
            wanted = (lines // self.step + 1) * self.step  # the next line start to keep
            if wanted <= lines + count:
                if breaks is None:
                    breaks = np.flatnonzero(np.frombuffer(buffer, np.uint8, size) == 10)
                self.starts.extend((breaks[wanted - lines - 1 :: self.step] + (self.size + 1)).tolist())
            lines += count
            self.size += size
        self.lines = lines + (run > 0)
        self.bom = head.startswith(_BOM)

    def close(self) -> None:
        if self.spool is not None:
            self.spool.close()


def open_source(source: Any, name: str | None, step: int = STEP) -> Source:
    """Checks and plans one input: a regular file in place, anything else (a stream, a pipe,
    a FIFO, a device, ``/dev/stdin``) copied once into a temporary file.

    Raises:
        FileError: The input cannot be read, or its copy cannot be written.
        LineError: A line longer than :data:`~google_bleu.scale.lines.MAX_LINE_BYTES`.
        TypeError: Not a path or a binary stream.
    """
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        name = path if name is None else name
        try:
            handle = open(path, "rb")  # noqa: SIM115 - closed below
        except OSError as error:
            raise FileError(f"cannot read {name}: {error.strerror or error}") from None
        with handle:
            if _regular(handle):
                planned = Source(path, name, step)
                planned.scan(handle)
                return planned
            return _spooled(handle, name, step)
    if hasattr(source, "read") and not isinstance(source, (str, bytes)):
        return _spooled(source, str(getattr(source, "name", "stream")) if name is None else name, step)
    raise TypeError(f"files must be paths or binary streams, got {describe(source)}")


def _regular(handle: Any) -> bool:
    try:
        return stat.S_ISREG(os.fstat(handle.fileno()).st_mode)
    except (OSError, AttributeError, ValueError):
        return False


def _spooled(stream: Any, name: str, step: int) -> Source:
    """A stream copied once into a temporary file that workers open by a path: where ``/proc``
    is mounted it has no name on disk (workers open this process's descriptor), so it goes
    when this process ends, however it ends; elsewhere a named one, removed when closed."""
    if isinstance(stream, io.TextIOBase):
        raise TypeError(f"{name} must be opened in binary mode ('rb'), got a text stream")
    copy = tempfile.TemporaryFile()  # noqa: SIM115 - closed with its Source
    path = f"/proc/{os.getpid()}/fd/{copy.fileno()}"
    if not os.path.exists(path):
        copy.close()
        copy = tempfile.NamedTemporaryFile(prefix="google-bleu-")  # noqa: SIM115
        path = copy.name
    planned = Source(path, name, step, copy)
    try:
        planned.scan(stream, copy.write)
        copy.flush()
    except BaseException:
        copy.close()
        raise
    return planned


def open_all(inputs: list[tuple[Any, str | None]], step: int, warn: Callable[[str], None]) -> list[Source]:
    """Each input checked and planned once, in order, with the byte-order-mark warning of
    the line policy; on an error, the ones already opened are closed."""
    sources: list[Source] = []
    try:
        for source, name in inputs:
            sources.append(open_source(source, name, step))
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


def read_lines(path: str, start: int, end: int, name: str, first_line: int, count: int) -> list[str]:
    """The ``count`` lines of ``path`` between byte offsets ``start`` and ``end``, by the line
    policy (errors name the file and number lines from ``first_line``): a worker's read."""
    try:
        with open(path, "rb") as handle:
            handle.seek(start)
            data = handle.read(end - start)
    except OSError as error:
        raise FileError(f"cannot read {name}: {error.strerror or error}") from None
    lines = lines_from_bytes(data, name, first_line)
    if len(lines) != count:
        raise FileError(f"{name} changed while it was read (lines {first_line}-{first_line + count - 1})")
    return lines
