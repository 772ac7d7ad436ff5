"""One line-reading policy for every surface that takes text a line at a time.

The rule is sacrebleu's command line (``sacrebleu/sacrebleu.py`` reads every file with
``open(path, encoding="utf-8", newline="\\n")`` and ``rstrip()``\\s each line), applied
the same way to files, standard input and text pasted into a page:

1. Bytes are decoded as strict UTF-8; a line that is not valid UTF-8 is an error that
   names the source and the line (nothing is replaced or guessed).
2. Lines are split on ``"\\n"`` only. ``"\\r"``, ``"\\x0b"``, ``"\\x0c"``, ``"\\x1c"``-``"\\x1e"``,
   ``"\\x85"``, ``"\\u2028"`` and ``"\\u2029"`` are not line breaks (``str.splitlines`` would
   split on them; sacrebleu does not).
3. A final ``"\\n"`` ends the last line; it does not start an empty one. So ``"a\\nb\\n"``
   and ``"a\\nb"`` are both two lines, ``""`` is no line, and ``"\\n"`` is one empty line.
4. Trailing whitespace is stripped from each line (``str.rstrip()``: a Windows ``"\\r"``,
   spaces, tabs). For every named tokenizer this changes no token (their output is split
   on the same whitespace); it only keeps a custom tokenizer or a tab-separated column
   from seeing an invisible trailing character. Leading whitespace is kept.
5. A byte-order mark (U+FEFF) at the start is kept as part of line 1, as sacrebleu keeps
   it; :func:`bom_warning` says so, for the surface to show (the CLI prints it on stderr).
6. A line of files and streams holds at most :data:`MAX_LINE_BYTES` bytes before its
   ``"\n"``; a longer one is an error that names the source and the line, raised after
   reading that many bytes, so input without a line break (``/dev/zero``, a binary file
   read by mistake) ends in bounded time and memory instead of being read for ever.

Nothing here imports anything beyond the standard library.

Example:
    >>> lines_from_bytes(b"a b \\r\\n\\n\\xef\\xbb\\xbfc\\n", "x.txt")
    ['a b', '', '\\ufeffc']
    >>> split_lines("first\\t\\nsecond")
    ['first', 'second']
"""

from __future__ import annotations

#: The byte-order mark, as a character.
BOM = "\ufeff"
#: The most bytes one line of a file or stream may hold (its ``"\n"`` aside): 64 MiB, far
#: beyond any segment (a whole book is a few MiB), and little enough to hold in memory.
MAX_LINE_BYTES = 1 << 26


def long_line_message(name: str, number: int) -> str:
    """The error for a line longer than :data:`MAX_LINE_BYTES` (rule 6).

    Example:
        >>> long_line_message("/dev/zero", 1)
        '/dev/zero: line 1 is longer than 67108864 bytes (64 MiB) with no line break; is it a text file with one segment a line?'
    """
    return (
        f"{name}: line {number} is longer than {MAX_LINE_BYTES} bytes ({MAX_LINE_BYTES >> 20} MiB) with no line "
        "break; is it a text file with one segment a line?"
    )


class LineError(ValueError):
    """A line that cannot be read (not UTF-8); the message names the source and the line."""


def split_lines(text: str) -> list[str]:
    """Splits decoded text into lines by the policy above (rules 2-4).

    Example:
        >>> split_lines("a\\r\\n b \\n\\nc\\rd\\n")
        ['a', ' b', '', 'c\\rd']
        >>> split_lines(""), split_lines("\\n"), split_lines("x")
        ([], [''], ['x'])
    """
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line.rstrip() for line in lines]


def lines_from_bytes(data: bytes, name: str, first_line: int = 1) -> list[str]:
    """Lines of a file's (or standard input's) bytes: strict UTF-8, then :func:`split_lines`.

    Args:
        data: The raw bytes (a whole file, or a block of whole lines of one).
        name: The source, for error messages (a path, ``"standard input"``, ...).
        first_line: The number of the block's first line in its file, for error messages.

    Raises:
        LineError: A line is not valid UTF-8 (the message gives its number and byte offset).

    Example:
        >>> lines_from_bytes(b"ok\\n\\xff\\n", "x.txt")
        Traceback (most recent call last):
        ...
        google_bleu.scale.lines.LineError: x.txt: line 2 is not valid UTF-8 (invalid start byte at byte 0); convert it to UTF-8 first, e.g. iconv -f LATIN1 -t UTF-8 FILE > NEW
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        # The line is counted on the raw bytes, so it is right whatever comes after it.
        line_start = data.rfind(b"\n", 0, error.start) + 1
        number = data.count(b"\n", 0, error.start) + first_line
        raise LineError(
            f"{name}: line {number} is not valid UTF-8 ({error.reason} at byte {error.start - line_start}); convert it to UTF-8 first, e.g. iconv -f LATIN1 -t UTF-8 FILE > NEW"
        ) from None
    return split_lines(text)


def bom_warning(lines: list[str], name: str) -> str | None:
    """The warning to show when line 1 starts with a byte-order mark, else ``None``.

    Example:
        >>> bom_warning(["\\ufeffa"], "x.txt")
        'x.txt starts with a byte-order mark (U+FEFF); it is kept as part of line 1, as sacrebleu does'
        >>> bom_warning(["a"], "x.txt") is None
        True
    """
    if lines and lines[0].startswith(BOM):
        return f"{name} starts with a byte-order mark (U+FEFF); it is kept as part of line 1, as sacrebleu does"
    return None
