"""Exact token keys, grouped by a verified hash table, and :class:`LineStore` (docs/design.md, "Token keys")."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from itertools import chain, compress, count
from typing import Any

from .imports import lazy_module
from .validation import check_token_kinds

np = lazy_module("numpy")

#: Bytes of a token that its first word holds exactly; longer tokens are hashed.
_WORD = 8
#: The ``k``-th keeps the low ``k`` bytes of a little-endian word (k = 0..8).
_WORD_MASKS = [(1 << (8 * k)) - 1 for k in range(_WORD)] + [(1 << 64) - 1]
#: Odd 64-bit multipliers for hashing (Fibonacci hashing; mixing words, segments and rounds).
_GOLDEN = 0x9E3779B97F4A7C15  # Python ints: numpy reads them as uint64 (no numpy at import)
_MIX = 0xBF58476D1CE4E5B9
#: Tokens whose words :class:`LineStore` computes at a time (bounds the temporaries).
_WORDS_AT_ONCE = 1 << 16
#: Length of the ``0, 1, 2, ...`` kept for :func:`_group` (a chunk's worth, not made at every call).
_INDEX = 1 << 17


@functools.cache
def _arrays() -> tuple:
    """The word masks and ``0, 1, 2, ...`` (read only), made once, when first needed."""
    arrays = np.array(_WORD_MASKS, np.uint64), np.arange(_INDEX)
    for array in arrays:
        array.setflags(write=False)
    return arrays


def _group(hashed: np.ndarray, exact: tuple[np.ndarray, ...]) -> np.ndarray:
    """Per element, its group's representative (equal in every array of ``exact``), by a table of ``hashed``."""
    n = hashed.size
    bits = n.bit_length() + 1  # at least twice as many slots as elements
    shift = np.uint64(64 - bits)
    table = np.empty(1 << bits, np.int64)  # only slots written in a round are read back in it
    slot = (hashed >> shift).view(np.int64)
    table[slot] = _arrays()[1][:n] if n <= _INDEX else np.arange(n)
    rep = np.take(table, slot)
    lost = np.take(exact[0], rep) != exact[0]
    for values in exact[1:]:
        lost |= np.take(values, rep) != values
    todo = np.flatnonzero(lost)
    rehashed = hashed
    while todo.size:
        rehashed = np.take(rehashed, todo) if rehashed.size != todo.size else rehashed
        rehashed = rehashed ^ (rehashed >> np.uint64(29))
        rehashed *= _MIX
        slot = (rehashed >> shift).view(np.int64)
        table[slot] = todo
        winner = np.take(table, slot)
        rep[todo] = winner
        lost = np.zeros(todo.size, bool)
        for values in exact:
            lost |= np.take(values, winner) != np.take(values, todo)
        keep = np.flatnonzero(lost)
        todo = np.take(todo, keep)
        rehashed = np.take(rehashed, keep)
    return rep


def group_keys(keys: np.ndarray) -> np.ndarray:
    """:func:`_group` for exact non-negative ``int64`` keys (Fibonacci-hashed)."""
    return _group(keys.view(np.uint64) * _GOLDEN, (keys,))


def group_in_segments(values: np.ndarray, segment_of: np.ndarray) -> np.ndarray:
    """:func:`_group` for exact ``uint64`` values that are equal only within one segment (``segment_of``)."""
    hashed = segment_of.astype(np.uint64)
    hashed *= _MIX
    hashed ^= values
    hashed *= _GOLDEN
    return _group(hashed, (values, segment_of))


def token_groups(sentences: list, lengths: np.ndarray, segment_of: np.ndarray) -> np.ndarray:
    """Per token position, a representative position of the same token in the same segment."""
    n_tokens = segment_of.size
    try:
        text = "\0".join(map("\0".join, compress(sentences, lengths.tolist())))
    except TypeError:  # some token is not a str
        text = None
    spans = None if text is None else _nul_spans(text, n_tokens)
    if spans is not None:
        rep = _word_groups(*spans, _token_words(*spans), segment_of)
        if rep is not None:
            return rep
    return group_in_segments(token_ids(chain.from_iterable(sentences), n_tokens).view(np.uint64), segment_of)


def _nul_spans(text: str, n_tokens: int) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(aligned words, starts, lengths)`` of the NUL-joined tokens of ``text``; None when a token holds NUL."""
    data = text.encode("utf-8", "surrogatepass")  # injective, lone surrogates included
    size = len(data)
    buffer = np.zeros((size + 3 * _WORD) // _WORD * _WORD, np.uint8)  # whole words past the end
    buffer[:size] = np.frombuffer(data, np.uint8)
    ends = np.flatnonzero(buffer[:size] == 0)
    if ends.size != n_tokens - 1:
        return None
    starts = np.concatenate(([0], ends + 1))
    lengths = np.append(ends, size) - starts
    return buffer.view("<u8").astype(np.uint64, copy=False), starts, lengths


def _word_groups(
    aligned: np.ndarray, starts: np.ndarray, lengths: np.ndarray, words: np.ndarray, segment_of: np.ndarray,
    token: np.ndarray | None = None,
) -> np.ndarray | None:
    """Positions grouped by their tokens' words, hashed ones checked byte for byte (``token``: each position's
    index into ``starts``, if not the position); None on a hash collision."""
    rep = group_in_segments(words, segment_of)
    long = np.flatnonzero((words & np.uint64(0xFF)) == 0)  # hashes (and empty tokens): checked
    other = np.take(rep, long)
    moved = other != long
    a, b = long[moved], other[moved]
    if token is not None:
        a, b = np.take(token, a), np.take(token, b)
    return rep if _tokens_equal(aligned, starts, lengths, a, b) else None


def token_ids(tokens: Iterable, n_tokens: int) -> np.ndarray:
    """Per token, the position of its first occurrence: an exact id from a dict (one pass).

    Example:
        >>> token_ids(["b", "a", "b"], 3).tolist()
        [0, 1, 0]
    """
    vocabulary: dict = {}
    try:
        ids = np.fromiter(map(vocabulary.setdefault, tokens, count()), np.int64, n_tokens)
    except TypeError as error:
        raise TypeError(f"tokens must be hashable (e.g. str or int): {error}") from None
    check_token_kinds(vocabulary)
    return ids


def _token_words(aligned: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Per token (no NUL byte), its word: its bytes when at most 8, else a hash of them (:func:`_hashed_word`)."""
    words = _words_at(aligned, starts, lengths)
    long = np.flatnonzero(lengths > _WORD)
    if long.size:
        hashed = _hash_long(aligned, np.take(starts, long), np.take(lengths, long), np.take(words, long))
        words[long] = _hashed_word(hashed)
    return words


def _hashed_word(hashed: np.ndarray) -> np.ndarray:
    """``hashed`` with a low byte of zero and bit 8 set (in place): never zero, never a short token's word."""
    hashed &= ~np.uint64(0xFF)
    hashed |= np.uint64(0x100)
    return hashed


def _words_at(aligned: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Each token's first ``min(length, 8)`` bytes as a word, by aligned reads (unaligned ones are much slower)."""
    index = starts >> 3
    shift = (starts & 7).view(np.uint64)
    shift <<= np.uint64(3)
    words = np.take(aligned, index)
    words >>= shift
    index += 1
    high = np.take(aligned, index)
    high <<= np.uint64(1)
    high <<= np.uint64(63) - shift  # two steps: a shift by 64 is not defined
    words |= high
    words &= np.take(_arrays()[0], np.minimum(lengths, _WORD))
    return words


def _word_spans(lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every 8-byte word of tokens of these lengths: its token and byte offset, and each token's first word."""
    n_words = (lengths + (_WORD - 1)) // _WORD
    first_word = np.cumsum(n_words) - n_words
    token = np.repeat(np.arange(lengths.size), n_words)
    offset = np.arange(token.size, dtype=np.int64)
    offset -= np.repeat(first_word, n_words)
    offset *= _WORD
    return token, offset, first_word


def _hash_long(aligned: np.ndarray, starts: np.ndarray, lengths: np.ndarray, first: np.ndarray) -> np.ndarray:
    """64-bit hashes of tokens longer than one word (``first``: their first words), from two words or from all."""
    hashed = _words_at(aligned, starts + _WORD, lengths - _WORD)  # the second words
    hashed ^= first * _GOLDEN
    hashed *= _MIX
    hashed ^= hashed >> np.uint64(32)
    more = np.flatnonzero(lengths > 2 * _WORD)
    if more.size:
        hashed[more] = _hash_words(aligned, np.take(starts, more), np.take(lengths, more))
    return hashed


def _hash_words(aligned: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    token, offset, first_word = _word_spans(lengths)
    words = _words_at(aligned, np.take(starts, token) + offset, np.take(lengths, token) - offset)
    mixed = offset.astype(np.uint64)
    mixed *= _GOLDEN
    mixed ^= words
    mixed *= _MIX
    mixed ^= mixed >> np.uint64(29)
    mixed *= _GOLDEN
    hashed = np.add.reduceat(mixed, first_word) if mixed.size else np.zeros(0, np.uint64)
    length_hash = lengths.astype(np.uint64)
    length_hash *= _MIX
    hashed ^= length_hash
    hashed *= _GOLDEN
    hashed ^= hashed >> np.uint64(32)
    return hashed


def _tokens_equal(aligned: np.ndarray, starts: np.ndarray, lengths: np.ndarray, a: np.ndarray, b: np.ndarray) -> bool:
    length = np.take(lengths, a)
    if not np.array_equal(length, np.take(lengths, b)):
        return False
    start_a, start_b = np.take(starts, a), np.take(starts, b)
    if length.size and int(length.max()) <= 2 * _WORD:  # at most two words each: compare both
        rest = np.maximum(length - _WORD, 0)
        return np.array_equal(_words_at(aligned, start_a, length), _words_at(aligned, start_b, length)) and (
            np.array_equal(_words_at(aligned, start_a + _WORD, rest), _words_at(aligned, start_b + _WORD, rest))
        )
    token, offset, _ = _word_spans(length)
    rest = np.take(length, token) - offset
    words_a, words_b = (_words_at(aligned, np.take(start, token) + offset, rest) for start in (start_a, start_b))
    return np.array_equal(words_a, words_b)


class LineStore:
    """Each distinct line's tokens once, as UTF-8 byte spans with their words in growing buffers."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        # Per line: hash(text), the index of its first token, its number of tokens.
        self.hashes, self.first, self.counts = (np.zeros(1 << 10, np.int64) for _ in range(3))
        self.codes = np.zeros(1 << 16, np.uint8)
        # Per token: its start in codes, its length, its word.
        self.starts, self.lengths = np.zeros(1 << 12, np.int64), np.zeros(1 << 12, np.int64)
        self.words = np.zeros(1 << 12, np.uint64)
        self.n_lines = self.n_codes = self.n_tokens = 0

    def clear(self) -> None:
        self.texts = []
        self.n_codes = self.n_tokens = self.n_lines = 0

    def ids(self, lines: list[str], tokenize: Any) -> np.ndarray:
        """Per line, its index in the store; new lines are added, ``tokenize(texts)`` giving their ``TokenSpans``."""
        n, stored = len(lines), self.n_lines
        hashes = np.fromiter(map(hash, lines), np.int64, n)
        # Per line, the first of its equal hashes: a stored line's, else its first in ``lines``.
        every_hash = np.concatenate((self.hashes[:stored], hashes))
        group = group_keys(every_hash)
        first = np.full(group.size, group.size, np.int64)
        np.minimum.at(first, group, np.arange(group.size))
        rep = np.take(first, group[stored:])
        own = np.arange(stored, stored + n)
        same = np.flatnonzero(rep != own)
        if same.size:
            texts = self.texts + lines
            pairs = map(str.__eq__, map(lines.__getitem__, same.tolist()), map(texts.__getitem__, rep[same].tolist()))
            equal = np.fromiter(pairs, bool, same.size)
            if not equal.all():
                # Unequal lines with equal hashes: a dictionary matches the lines that share such a hash.
                shared = np.flatnonzero(np.isin(every_hash, np.take(hashes, same[~equal])))
                exact = np.take(shared, first_positions(list(map(texts.__getitem__, shared.tolist()))))
                new_lines = shared >= stored
                rep[shared[new_lines] - stored] = exact[new_lines]
        new = np.flatnonzero(rep == own)
        index = np.empty(stored + n, np.int64)
        index[:stored] = np.arange(stored)
        index[own[new]] = np.arange(stored, stored + new.size)
        if new.size:
            texts = list(map(lines.__getitem__, new.tolist()))
            self._add(texts, np.take(hashes, new), tokenize(texts), "\0" in "".join(texts))
        return np.take(index, rep)

    def _add(self, texts: list[str], hashes: np.ndarray, spans: Any, holds_nul: bool) -> None:
        size = spans.codes.size
        self.codes = _room(self.codes, self.n_codes + size + 2 * _WORD, self.n_codes)
        self.codes[self.n_codes : self.n_codes + size] = spans.codes
        self.codes[self.n_codes + size : self.n_codes + size + 2 * _WORD] = 0  # whole words past the end
        n_new = spans.starts.size
        end = self.n_tokens + n_new
        for name in ("starts", "lengths", "words"):
            setattr(self, name, _room(getattr(self, name), end, self.n_tokens))
        starts = self.starts[self.n_tokens : end]
        np.add(spans.starts, self.n_codes, out=starts)
        self.lengths[self.n_tokens : end] = spans.lengths
        aligned = self._aligned()
        words = self.words[self.n_tokens : end]
        for low in range(0, n_new, _WORDS_AT_ONCE):  # bounded temporaries
            block = slice(low, low + _WORDS_AT_ONCE)
            words[block] = _token_words(aligned, starts[block], spans.lengths[block])
        if holds_nul:
            # A token holding a zero byte: hashed from every word and its length, checked as long ones.
            nul = np.flatnonzero(spans.codes == 0)
            at = np.searchsorted(spans.starts, nul, side="right") - 1
            inside = (at >= 0) & (nul < np.take(spans.starts, at) + np.take(spans.lengths, at))
            odd = np.unique(at[inside])
            words[odd] = _hashed_word(_hash_words(aligned, np.take(starts, odd), np.take(spans.lengths, odd)))
        self.n_codes += size
        n_lines = spans.counts.size
        stop = self.n_lines + n_lines
        for name in ("hashes", "first", "counts"):
            setattr(self, name, _room(getattr(self, name), stop, self.n_lines))
        self.hashes[self.n_lines : stop] = hashes
        first = np.cumsum(spans.counts)
        first -= spans.counts
        first += self.n_tokens
        self.first[self.n_lines : stop] = first
        self.counts[self.n_lines : stop] = spans.counts
        self.texts += texts
        self.n_lines = stop
        self.n_tokens = end

    def _aligned(self) -> np.ndarray:
        return self.codes.view("<u8").astype(np.uint64, copy=False)

    def groups(self, lines: np.ndarray, lengths: np.ndarray, segment_of: np.ndarray) -> np.ndarray:
        """:func:`token_groups` for sentences that are stored lines (``lengths``: their counts)."""
        n = segment_of.size
        # The store index of each position's token: a line's tokens are consecutive.
        offsets = np.cumsum(lengths)
        offsets -= lengths
        token = np.repeat(np.take(self.first, lines) - offsets, lengths)
        token += np.arange(n)
        rep = _word_groups(self._aligned(), self.starts, self.lengths, np.take(self.words, token), segment_of, token)
        if rep is not None:
            return rep
        # A hash collision: exact ids from the tokens' bytes.
        starts = np.take(self.starts, token)
        ends = starts + np.take(self.lengths, token)
        tokens = (self.codes[start:end].tobytes() for start, end in zip(starts.tolist(), ends.tolist()))
        return group_in_segments(token_ids(tokens, n).view(np.uint64), segment_of)


def first_positions(values: list) -> np.ndarray:
    """:func:`token_ids` of a list of values."""
    return token_ids(values, len(values))


def _room(array: np.ndarray, size: int, used: int) -> np.ndarray:
    """``array``, or a copy of its first ``used`` items with room for ``size`` (and half again if any are kept)."""
    if size <= array.size:
        return array
    if used:
        size = max(size + (size - used) // 2, array.size + array.size // 2)
    grown = np.empty(size // _WORD * _WORD + _WORD, array.dtype)
    grown[:used] = array[:used]
    return grown
