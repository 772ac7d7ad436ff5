"""sacrebleu's 13a tokenizer, token-identical and faster (docs/design.md, "The 13a tokenizer")."""

from __future__ import annotations

import re
from typing import NamedTuple

from .imports import lazy_module
from .validation import check_strings

np = lazy_module("numpy")


class TokenSpans(NamedTuple):
    """Tokenized lines as spans of UTF-8 bytes: token ``k`` is ``codes[starts[k]:starts[k] + lengths[k]]``
    (``starts`` ascends; other bytes may lie between tokens), line ``i`` has ``counts[i]`` tokens."""

    codes: np.ndarray
    starts: np.ndarray
    lengths: np.ndarray
    counts: np.ndarray


_13A_PUNCTUATION = ' !"#$%&()*+/:;<=>?@[\\]^_`{|}~'
#: The punctuation above but the space, as byte ranges (first, last): range tests beat a table lookup.
_13A_RANGES = ((0x21, 0x26), (0x28, 0x2B), (0x2F, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E))
_PERIOD, _COMMA, _DASH, _SPACE = b".,- "
#: Characters that can stand between lines of a batch: not whitespace for str.split, touched by no 13a step.
_SEPARATORS = tuple(map(chr, range(0x00, 0x09))) + tuple(map(chr, range(0xE000, 0xE100)))
#: Whitespace for str.split other than the space itself.
_OTHER_WHITESPACE_CHARS = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f\x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B)))
_OTHER_WHITESPACE_CHARS += "\u2028\u2029\u202f\u205f\u3000"


def _whitespace_tails() -> dict[int, list[bytes]]:
    """Non-ASCII whitespace as UTF-8: lead byte -> the tail bytes of each such character."""
    tails: dict[int, list[bytes]] = {}
    for char in _OTHER_WHITESPACE_CHARS:
        if ord(char) >= 0x80:
            encoded = char.encode("utf-8")
            tails.setdefault(encoded[0], []).append(encoded[1:])
    return tails


_WHITESPACE_TAILS = _whitespace_tails()
#: Characters per vectorised pass; bounds the temporaries (about 20 bytes a character).
CHUNK_CHARS_13A = 1 << 22


def _unescape_13a(text: str) -> str:
    text = text.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in text:
        text = text.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    return text


def _in_range(codes: np.ndarray, first: int, last: int) -> np.ndarray:
    shifted = codes - np.uint8(first)  # wraps around below ``first``
    return shifted <= np.uint8(last - first)


def _split_13a(codes: np.ndarray) -> np.ndarray:
    """Per byte of ``codes`` (UTF-8 between spaces), whether 13a's steps 1-4 put spaces around it."""
    digit = _in_range(codes, ord("0"), ord("9"))
    split = _in_range(codes, *_13A_RANGES[0])
    for first, last in _13A_RANGES[1:]:
        split |= _in_range(codes, first, last)
    marks = np.flatnonzero((codes == _PERIOD) | (codes == _COMMA))
    if marks.size:
        run_starts = np.ones(marks.size, bool)
        np.not_equal(marks[1:], marks[:-1] + 1, out=run_starts[1:])
        run_start = marks[run_starts][np.cumsum(run_starts) - 1]
        after_digit = digit[run_start - 1]
        offset = marks - run_start
        matched = (offset >= after_digit) & ((offset - after_digit) % 2 == 0)
        split[marks[matched | ~digit[marks + 1]]] = True
    dashes = np.flatnonzero(codes == _DASH)
    if dashes.size:
        split[dashes[digit[dashes - 1]]] = True
    return split


def _blank_whitespace(codes: np.ndarray) -> None:
    np.putmask(codes, _in_range(codes, 0x09, 0x0D) | _in_range(codes, 0x1C, 0x1F), _SPACE)
    for lead, tails in _WHITESPACE_TAILS.items():
        at = np.flatnonzero(codes == lead)  # few: the lead bytes of some non-ASCII characters
        if at.size == 0:
            continue
        for tail in tails:  # a valid UTF-8 lead byte is always followed by its tail bytes
            match = np.ones(at.size, bool)
            for k, byte in enumerate(tail, 1):
                match &= codes[at + k] == byte
            hit = at[match]
            for k in range(len(tail) + 1):
                codes[hit + k] = _SPACE


def _batch_13a(texts: list[str]) -> TokenSpans:
    """13a of a batch, in runs of lines that leave a separator free."""
    joined = "".join(texts)
    separator = next((sep for sep in _SEPARATORS if sep not in joined), None)
    if separator is not None:
        return _spans_13a_between(texts, separator)
    parts = []
    start, free = 0, set(_SEPARATORS)
    for stop, text in enumerate(texts):
        left = free.difference(text)
        if not left:
            if start < stop:
                parts.append(_spans_13a_between(texts[start:stop], min(free)))
            start, left = stop, set(_SEPARATORS).difference(text)
            if not left:
                parts.append(_spans_13a_between([text], None))
                start, left = stop + 1, set(_SEPARATORS)
        free = left
    if start < len(texts):
        parts.append(_spans_13a_between(texts[start:], min(free)))
    return _joined(parts)


def _joined(parts: list[TokenSpans]) -> TokenSpans:
    if len(parts) == 1:
        return parts[0]
    offsets = np.cumsum([0] + [part.codes.size for part in parts[:-1]]).tolist()
    shifted = [part._replace(starts=part.starts + offset) for part, offset in zip(parts, offsets)]
    return TokenSpans(*map(np.concatenate, zip(*shifted)))


def _line_codes(text: str) -> np.ndarray:
    """The UTF-8 bytes 13a works on: ``text`` unescaped, between spaces, other whitespace blanked."""
    codes = np.frombuffer(f" {_unescape_13a(text)} ".encode("utf-8", "surrogatepass"), np.uint8).copy()
    _blank_whitespace(codes)
    return codes


def _spans_13a_between(texts: list[str], separator: str | None) -> TokenSpans:
    """13a of ``texts`` in one pass, ``separator`` (which none of them holds) between lines (None: one line)."""
    codes = _line_codes(f" {separator} ".join(texts))
    starts, ends = _token_bounds(codes)
    boundary = np.zeros(starts.size, bool)
    if separator is not None:  # the tokens that are the separator, by each of its bytes
        mark = separator.encode("utf-8")
        boundary = codes[starts] == mark[0]
        for k in range(1, len(mark)):
            boundary &= codes[np.minimum(starts + k, codes.size - 1)] == mark[k]
    counts = np.bincount(np.cumsum(boundary)[~boundary], minlength=len(texts))
    keep = ~boundary
    starts = starts[keep]
    return TokenSpans(codes, starts, ends[keep] - starts, counts)


def _token_bounds(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each 13a token of ``codes`` starts and ends (a split character is a token of its own)."""
    is_token = codes != _SPACE
    split = _split_13a(codes)
    cut = split[1:] | ~is_token[1:]  # between bytes i and i + 1: a token ends at i
    cut |= split[:-1]
    starts = np.flatnonzero(is_token[1:] & (cut | ~is_token[:-1]))  # codes starts with a space
    starts += 1
    ends = np.flatnonzero(is_token[:-1] & cut)  # and ends with one
    ends += 1
    return starts, ends


def token_spans_13a(texts: list[str]) -> TokenSpans:
    """13a tokenization of many lines as :class:`TokenSpans`, :data:`CHUNK_CHARS_13A` characters at a time.

    Example:
        >>> spans = token_spans_13a(["Hello, world!", "3.5-4"])
        >>> [spans.codes[s : s + n].tobytes().decode() for s, n in zip(spans.starts, spans.lengths)]
        ['Hello', ',', 'world', '!', '3.5', '-', '4']
        >>> spans.counts.tolist()
        [4, 3]
    """
    check_strings(texts, "texts")
    parts = []
    start, size = 0, 0
    for stop, text in enumerate(texts, 1):
        size += len(text) + 3
        if size >= CHUNK_CHARS_13A:
            parts.append(_batch_13a(texts[start:stop]))
            start, size = stop, 0
    if start < len(texts) or not parts:  # an empty input: one empty batch
        parts.append(_batch_13a(texts[start:]))
    return _joined(parts)


#: Each digit, period, comma and dash as its class; other bytes are left as they are.
_CLASSES = bytes.maketrans(b"0123456789,", b"0000000000.")
#: Every byte that is not split off in a line where no digit touches a period, comma or dash.
_KEPT = bytes(code for code in range(256) if chr(code) not in _13A_PUNCTUATION + ".,")
_SPACED = {code: f" {chr(code)} " for code in range(128)}
#: 13a's tokens where a digit touches a period, comma or dash (and no run of periods and commas occurs).
_TOKEN = re.compile(r"(?:[^\s!-&(-+/:-@\[-`{-~.,\-]+|(?<=[0-9])[.,](?=[0-9])|(?<![0-9])-)+|[!-&(-+/:-@\[-`{-~.,\-]")
#: mteval-v13a's four regular expressions, as sacrebleu applies them, where such a line holds a run of them too.
_MTEVAL = tuple((re.compile(pattern), replacement) for pattern, replacement in (
    (r"([\{-\~\[-\` -\&\(-\+\:-\@\/])", r" \1 "),
    (r"([^0-9])([\.,])", r"\1 \2 "),
    (r"([\.,])([^0-9])", r" \1 \2"),
    (r"([0-9])(-)", r"\1 \2 "),
))


def tokenize_13a(text: str) -> list[str]:
    """13a tokens of one line, identical to sacrebleu's ``Tokenizer13a`` split.

    Example:
        >>> tokenize_13a("e.g. 3.5-4 <skipped> &lt;b&gt;")
        ['e', '.', 'g', '.', '3.5', '-', '4', '<', 'b', '>']
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__} {text!r:.40}")
    text = _unescape_13a(text)
    codes = text.encode("utf-8", "surrogatepass")
    classes = codes.translate(_CLASSES)
    if b"0." in classes or b".0" in classes or b"0-" in classes:
        if b".." in classes:
            text = f" {text} "
            for pattern, replacement in _MTEVAL:
                text = pattern.sub(replacement, text)
            return text.split()
        return _TOKEN.findall(text)
    for code in set(codes.translate(None, _KEPT)):
        text = text.replace(chr(code), _SPACED[code])
    return text.split()
