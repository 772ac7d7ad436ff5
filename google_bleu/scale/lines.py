"""The line policy of every surface that reads text a line at a time, sacrebleu's command
line's: docs/cli.md, "How files are read". Standard library only.

Example:
    >>> lines_from_bytes(b"a b \\r\\n\\n\\xef\\xbb\\xbfc\\n", "x.txt")
    ['a b', '', '\\ufeffc']
"""

from __future__ import annotations

#: The byte-order mark: kept as part of line 1, as sacrebleu keeps it, with a warning.
BOM = "\ufeff"
#: The most bytes a line of a file or stream may hold, its ``"\n"`` aside.
MAX_LINE_BYTES = 1 << 26


class LineError(ValueError):
    """A line that cannot be read (not UTF-8, too long); the message names the source and the line."""


def long_line_message(name: str, number: int) -> str:
    return (
        f"{name}: line {number} is longer than {MAX_LINE_BYTES} bytes ({MAX_LINE_BYTES >> 20} MiB) with no line "
        "break; is it a text file with one segment a line?"
    )


def split_lines(text: str) -> list[str]:
    """Text split on ``"\\n"`` only (a final one ends the last line), trailing whitespace stripped.

    Example:
        >>> split_lines("a\\r\\n b \\n\\nc\\rd\\n"), split_lines(""), split_lines("\\n")
        (['a', ' b', '', 'c\\rd'], [], [''])
    """
    lines = text.split("\n")
    return [line.rstrip() for line in (lines[:-1] if lines[-1] == "" else lines)]


def lines_from_bytes(data: bytes, name: str, first_line: int = 1) -> list[str]:
    """Strict UTF-8, then :func:`split_lines`; an error names ``name`` and the line (``first_line``: the first's number).

    Example:
        >>> lines_from_bytes(b"ok\\n\\xff\\n", "x.txt")
        Traceback (most recent call last):
        ...
        google_bleu.scale.lines.LineError: x.txt: line 2 is not valid UTF-8 (invalid start byte at byte 0); convert it to UTF-8 first, e.g. iconv -f LATIN1 -t UTF-8 FILE > NEW
    """
    try:
        return split_lines(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        at = error.start - data.rfind(b"\n", 0, error.start) - 1
        number = data.count(b"\n", 0, error.start) + first_line
        raise LineError(f"{name}: line {number} is not valid UTF-8 ({error.reason} at byte {at}); convert it to UTF-8 first, e.g. iconv -f LATIN1 -t UTF-8 FILE > NEW") from None


def bom_warning(lines: list[str], name: str) -> str | None:
    """The warning to show when line 1 starts with a byte-order mark, else ``None``."""
    if lines and lines[0].startswith(BOM):
        return f"{name} starts with a byte-order mark (U+FEFF); it is kept as part of line 1, as sacrebleu does"
    return None
