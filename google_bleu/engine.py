"""The counting engine: per-segment GLEU statistics for token sequences, vectorised.

How it works (integer numpy work, no sort; every hash is checked against exact values):

1. A chunk of segments is laid out as one token array: the hypotheses of its
   segments, then their references (segment by segment).
2. Grouping: each position gets the position of a representative occurrence of the same
   n-gram in the same segment (:func:`_group`, a one-pass hash table whose every hit is
   verified, so equal keys and only they share a representative).
   Order 1 keys a token by (segment, token). ``str`` tokens are read from their UTF-8
   bytes, joined into one buffer at C speed (see :func:`_str_token_words`); other
   hashable tokens get ids from a dict, so any token works and equal tokens (as Python
   compares them) match. Order n+1: a position p whose n-gram and whose neighbour's
   n-gram (at p+1, same sentence) are both "live" gets the exact key (group of p, group
   of p+1), which identifies its (n+1)-gram within the segment.
3. Counting: ``np.bincount`` of the groups gives each n-gram's count in the hypothesis;
   grouping the reference occurrences once more by (n-gram, reference sentence) gives
   each reference's count (with one reference per segment, the n-gram alone does).
   Clipped matches of a reference are ``min(reference count, hypothesis count)`` summed
   over its n-grams.
4. A group is live when it occurs in the hypothesis and in some reference; only live
   n-grams can extend to longer matches, so later orders see ever fewer positions.

N-gram totals per sentence follow from lengths alone. The reference kept for a
segment is the first with the highest ``n_match / max(n_hyp, n_ref)``, as nltk's
``max`` over ``(tp, n_all)`` pairs keeps it.

No step sorts: numpy's sort is fast where its SIMD quicksort suits the processor and
several times slower where it does not (AVX-512 on AMD Zen 4), while scatters, gathers
and ``bincount`` cost about the same everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import chain, compress, count
from typing import Any

import numpy as np

#: Tokens per chunk (all sides together). Small enough that a chunk's hash table and
#: temporaries stay near the CPU caches (2**15 to 2**18 measured alike here) and extra
#: memory stays bounded whatever the corpus size; a single segment longer than this is
#: one chunk of its own.
CHUNK_TOKENS = 1 << 16
#: Most tokens of one segment (hypothesis and references): a segment is never split, so
#: this bounds a chunk and with it the extra memory.
_MAX_CHUNK_TOKENS = 1 << 21
#: Bytes of a token that its first word holds exactly; longer tokens are hashed.
_WORD = 8
#: ``_WORD_MASKS[k]`` keeps the low ``k`` bytes of a little-endian word (k = 0..8).
_WORD_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(_WORD)] + [(1 << 64) - 1], np.uint64)
#: Odd 64-bit multipliers for hashing (Fibonacci hashing, word mixing).
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX = np.uint64(0xBF58476D1CE4E5B9)
_SPACE = ord(" ")


def ngram_counts(lengths: Any, min_len: int, max_len: int) -> Any:
    """Number of n-grams of orders ``min_len..max_len`` in sequences of these lengths
    (a numpy array or a torch tensor of integers).

    Example:
        >>> ngram_counts(np.array([0, 1, 4, 6]), 1, 4).tolist()
        [0, 1, 10, 18]
    """
    if isinstance(lengths, (list, tuple)):
        lengths = np.asarray(lengths, np.int64)
    top = lengths.clip(max=max_len)
    terms = (top - min_len + 1).clip(min=0)
    # Arithmetic series from (L - min_len + 1) down to (L - top + 1).
    return (terms * (2 * lengths - min_len - top + 2)) // 2


def _group(hashed: np.ndarray, exact: tuple[np.ndarray, ...]) -> np.ndarray:
    """For each element, the index of an element equal to it in every array of ``exact``.

    Equal elements get the same index (their group's representative), unequal ones never do.
    ``hashed`` holds ``uint64`` hashes of the exact values (equal values, equal hashes;
    only the top bits are used). One pass of a hash table with no probing: each element
    writes its index into its slot and reads back the slot's winner, which represents it
    when its exact values equal the winner's. Elements that lost their slot to another value
    take another round with rehashed slots, among themselves; each round settles at least
    every slot's winner, so the rounds end, and how the slots fall changes no result.
    """
    n = hashed.size
    bits = n.bit_length() + 1  # at least twice as many slots as elements
    shift = np.uint64(64 - bits)
    table = np.empty(1 << bits, np.int64)  # only slots written in a round are read back in it
    slot = (hashed >> shift).view(np.int64)
    table[slot] = np.arange(n)
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


def _group_keys(keys: np.ndarray) -> np.ndarray:
    """:func:`_group` for exact non-negative ``int64`` keys (Fibonacci-hashed)."""
    return _group(keys.view(np.uint64) * _GOLDEN, (keys,))


def _group_in_segments(values: np.ndarray, segment_of: np.ndarray, segment_hash: np.ndarray) -> np.ndarray:
    """:func:`_group` for exact ``uint64`` values that are equal only within one segment."""
    hashed = values ^ segment_hash
    hashed *= _GOLDEN
    return _group(hashed, (values, segment_of))


def _token_groups(sentences: list, lengths: np.ndarray, spaced: bool, segment_of: np.ndarray) -> np.ndarray:
    """Per token position, a representative position holding the same token in the same segment.

    ``sentences`` are token sequences, or with ``spaced`` texts whose tokens are separated
    by ASCII spaces (see :func:`spaced_segment_rows`); ``lengths`` are their token counts,
    ``segment_of`` each position's segment. ``str`` tokens are read from their UTF-8 bytes
    (:func:`_str_token_words`); other tokens, and chunks that path declines, get exact ids
    from a dict, so any hashable token works and equal tokens (as Python compares them) match.
    """
    n_tokens = segment_of.size
    segment_hash = segment_of.astype(np.uint64)
    segment_hash *= _MIX
    non_empty = compress(sentences, lengths.tolist())
    try:
        text = "\0".join(non_empty) if spaced else "\0".join(map("\0".join, non_empty))
    except TypeError:  # some token is not a str
        words = None
    else:
        # A NUL inside a spaced line would read as a gap between tokens (it joins lines):
        # such chunks take the dictionary path, which splits on whitespace only.
        holds_nul = spaced and text.count("\0") != int(np.count_nonzero(lengths)) - 1
        words = None if holds_nul else _str_token_words(text, spaced, n_tokens)
    if words is not None:
        words, check = words
        rep = _group_in_segments(words, segment_of, segment_hash)
        if check(rep):
            return rep
    tokens = chain.from_iterable(map(str.split, sentences) if spaced else sentences)
    return _group_in_segments(_token_ids(tokens, n_tokens).view(np.uint64), segment_of, segment_hash)


def _token_ids(tokens: Iterable, n_tokens: int) -> np.ndarray:
    # One pass: a token's id is the position of its first occurrence (setdefault keeps it).
    vocabulary: dict = {}
    try:
        return np.fromiter(map(vocabulary.setdefault, tokens, count()), np.int64, n_tokens)
    except TypeError as error:
        raise TypeError(f"tokens must be hashable (e.g. str or int): {error}") from None


def _str_token_words(text: str, spaced: bool, n_tokens: int):
    """Per token of ``text``, a 64-bit word standing for its bytes, and a check of groups.

    ``text`` holds the (non-empty) sentences joined with NUL: their tokens joined with NUL
    too, or with ``spaced`` separated by runs of ASCII spaces. A token of at most 8 bytes
    is its own word (zero-padded: exact, as no token here holds NUL, so its first byte is
    not zero unless the token is empty); a longer one gets a hash of its length and words
    whose low byte is zero and which is not zero, so it never equals a short token's word.
    Returns ``(words, check)`` where ``check(rep)`` says whether every long token has the
    bytes of its representative (a hash collision makes it False, and the caller counts
    with exact ids instead), or None when a token holds NUL. ``str`` subclasses are read
    (and so compared) by their text.
    """
    data = text.encode("utf-8", "surrogatepass")  # injective, lone surrogates included
    size = len(data)
    buffer = np.zeros((size + 3 * _WORD) // _WORD * _WORD, np.uint8)  # whole words past the end
    buffer[:size] = np.frombuffer(data, np.uint8)
    aligned = buffer.view("<u8").astype(np.uint64, copy=False)  # a view on little-endian hosts
    if spaced:
        starts, lengths = _spaced_tokens(buffer[: size + 1])
        if starts.size != n_tokens:
            return None  # some token holds a NUL character
    else:
        ends = np.flatnonzero(buffer[:size] == 0)
        if ends.size != n_tokens - 1:
            return None  # some token holds a NUL character
        starts = np.empty(n_tokens, np.int64)
        starts[0] = 0
        starts[1:] = ends
        starts[1:] += 1
        lengths = np.empty(n_tokens, np.int64)
        lengths[:-1] = ends
        lengths[-1] = size
        lengths -= starts
    words = _words_at(aligned, starts, lengths)
    long = np.flatnonzero(lengths > _WORD)
    if long.size:
        hashed = _hash_long(aligned, np.take(starts, long), np.take(lengths, long), np.take(words, long))
        hashed &= ~np.uint64(0xFF)
        hashed |= np.uint64(0x100)
        words[long] = hashed

    def check(rep: np.ndarray) -> bool:
        other = np.take(rep, long)
        moved = other != long
        return _tokens_equal(aligned, starts, lengths, long[moved], other[moved])

    return words, check


def _spaced_tokens(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Starts and lengths of the runs of bytes other than space and NUL (``codes`` ends with NUL)."""
    gap = codes == _SPACE
    gap |= codes == 0
    edge = gap[1:] != gap[:-1]  # a token starts after a gap and ends before one
    bounds = np.flatnonzero(edge)
    bounds += 1
    if not gap[0]:
        bounds = np.concatenate(([0], bounds))
    starts = bounds[0::2]
    return starts, bounds[1::2] - starts


def _words_at(aligned: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The bytes ``starts[i] .. starts[i] + min(lengths[i], 8)`` as little-endian words.

    Two aligned reads and shifts per token (unaligned fancy indexing is several times slower).
    """
    index = starts >> 3
    shift = ((starts & 7) << 3).astype(np.uint64)
    words = np.take(aligned, index)
    words >>= shift
    index += 1
    high = np.take(aligned, index)
    high <<= np.uint64(1)
    high <<= np.uint64(63) - shift  # two steps: a shift by 64 is not defined
    words |= high
    words &= np.take(_WORD_MASKS, np.minimum(lengths, _WORD))
    return words


def _word_spans(lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every 8-byte word of tokens of these byte lengths: its token, its byte offset in the
    token, and each token's index of its first word (one C-level pass, whatever the lengths)."""
    n_words = (lengths + (_WORD - 1)) // _WORD
    first_word = np.cumsum(n_words) - n_words
    token = np.repeat(np.arange(lengths.size), n_words)
    offset = np.arange(token.size, dtype=np.int64)
    offset -= np.repeat(first_word, n_words)
    offset *= _WORD
    return token, offset, first_word


def _hash_long(aligned: np.ndarray, starts: np.ndarray, lengths: np.ndarray, first: np.ndarray) -> np.ndarray:
    """64-bit hashes of tokens longer than one word (their length and every word).

    Each word is mixed with its offset and the mixed words of a token are summed (modulo
    2**64), so the cost is linear in the bytes with a fixed number of numpy passes, however
    long a token is. ``first`` (the tokens' first words) is part of the words read here.
    """
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
    """Whether every token ``a[i]`` has the same bytes as token ``b[i]`` (one pass over their words)."""
    length = np.take(lengths, a)
    if not np.array_equal(length, np.take(lengths, b)):
        return False
    token, offset, _ = _word_spans(length)
    rest = np.take(length, token) - offset
    return np.array_equal(
        _words_at(aligned, np.take(np.take(starts, a), token) + offset, rest),
        _words_at(aligned, np.take(np.take(starts, b), token) + offset, rest),
    )


# -- the counting core, written once over a small backend interface -------------------


class NumpyBackend:
    """CPU arrays with numpy: the verified hash grouping, and dead positions dropped.

    Dropping every position whose n-gram cannot extend to a match (``compacts``) makes
    later orders see ever fewer positions; sizes that depend on the data cost nothing on
    a CPU. ``xp`` is the array module (``where``, ``minimum``, ``maximum``).
    """

    compacts = True
    xp = np
    group = staticmethod(_group_keys)  # per key, the index of a representative equal key
    found = staticmethod(np.flatnonzero)  # the labels that occur (others add nothing)

    def arange(self, n: int) -> np.ndarray:
        return np.arange(n, dtype=np.int64)

    def full(self, n: int, value: int) -> np.ndarray:
        return np.full(n, value, np.int64)

    def count(self, labels: np.ndarray, n: int) -> np.ndarray:
        return np.bincount(labels, minlength=n)

    def index_sum(self, index: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
        # float64 sums of counts this small are exact
        return np.bincount(index, weights=values.astype(np.float64), minlength=n).astype(np.int64)

    def ratio(self, numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
        # One correctly rounded float64 division, as Python's int / int; -1.0 where 0 / 0.
        out = np.full(numerator.shape, -1.0)
        return np.divide(numerator, denominator, out=out, where=denominator > 0)

    def per_segment(self, reduce: str, values: np.ndarray, segment: np.ndarray, first: np.ndarray) -> np.ndarray:
        # A segment's values are contiguous from ``first`` (at least one each).
        return (np.maximum if reduce == "max" else np.minimum).reduceat(values, first)

    def columns(self, *columns: np.ndarray) -> np.ndarray:
        return np.stack(columns, axis=1)


class TorchBackend:
    """torch on any device, with every size fixed by the input's shape.

    Nothing here reads a value back to the host (no ``nonzero``, ``unique``, ``bincount``
    or ``.item()``): dead positions are not dropped but given keys of their own, grouping
    is a sort, and counts are scatter-adds into buffers of known size. A call can therefore
    be captured as a CUDA graph and replayed. The same code runs on CPU tensors.
    """

    compacts = False

    def __init__(self, device: Any) -> None:
        import torch

        self.xp = torch
        self.device = torch.device(device)

    def arange(self, n: int) -> Any:
        return self.xp.arange(n, dtype=self.xp.int64, device=self.device)

    def full(self, n: int, value: int) -> Any:
        return self.xp.full((n,), value, dtype=self.xp.int64, device=self.device)

    def count(self, labels: Any, n: int) -> Any:
        return self.full(n, 0).scatter_add_(0, labels, self.xp.ones_like(labels))

    def found(self, counts: Any) -> Any:
        return self.arange(counts.numel())  # labels that do not occur have count 0

    def group(self, keys: Any, *more: Any) -> Any:
        """Per element, a representative index of its equal elements (by ``keys`` and then
        each of ``more``, any int64 values): stable sorts, last key first."""
        if keys.numel() == 0:
            return keys.clone()
        perm = None
        for values in (*more[::-1], keys):
            order = self.xp.sort(values if perm is None else values[perm], stable=True).indices
            perm = order if perm is None else perm[order]
        new = self.xp.zeros_like(keys, dtype=self.xp.bool)
        new[0] = True
        for values in (keys, *more):
            ordered = values[perm]
            new[1:] |= ordered[1:] != ordered[:-1]
        start = self.xp.where(new, self.arange(keys.numel()), 0).cummax(0).values
        rep = self.xp.empty_like(perm)
        rep[perm] = perm[start]
        return rep

    def index_sum(self, index: Any, values: Any, n: int) -> Any:
        return self.full(n, 0).scatter_add_(0, index, values)

    def ratio(self, numerator: Any, denominator: Any) -> Any:
        quotient = numerator.double() / denominator.clamp(min=1).double()
        return self.xp.where(denominator > 0, quotient, -1.0)

    def per_segment(self, reduce: str, values: Any, segment: Any, first: Any) -> Any:
        n = first.numel()
        if values.is_floating_point():
            init = self.xp.full(
                (n,), -float("inf") if reduce == "max" else float("inf"), dtype=values.dtype, device=self.device
            )
        else:
            init = self.full(n, -(1 << 62) if reduce == "max" else 1 << 62)
        return init.scatter_reduce(0, segment, values, "amax" if reduce == "max" else "amin")

    def columns(self, *columns: Any) -> Any:
        return self.xp.stack(columns, dim=1)


NUMPY = NumpyBackend()


def count_matches(
    backend: Any,
    group: Any,
    sentence_of: Any,
    n_hyp_pos: int,
    n_sentences: int,
    one_ref: bool,
    min_len: int,
    max_len: int,
) -> Any:
    """Clipped n-gram matches of every reference sentence (0 for hypotheses).

    Args:
        backend: :class:`NumpyBackend` or a :class:`TorchBackend`.
        group: Per position, the order-1 group: the position of a representative holding
            the same token in the same segment (positions that hold no token, such as
            padding, each in a group of their own).
        sentence_of: Per position, its sentence. The hypotheses' positions come first
            (``n_hyp_pos`` of them), then the references'; a sentence's positions are
            contiguous, in token order.
        n_hyp_pos: Positions of the hypotheses.
        n_sentences: Sentences (hypotheses and references).
        one_ref: Every segment has exactly one reference (a shortcut).
        min_len: Lowest n-gram order.
        max_len: Highest n-gram order.

    A group is "live" when it occurs in the hypothesis and in some reference of its
    segment: only live n-grams can extend to longer matches. The (n+1)-gram at position p
    is the n-gram at p followed by the n-gram at p + 1, so its exact key is the pair of
    their groups. A backend that ``compacts`` keeps only live positions; one that does not
    gives every dead position a key of its own, so it never matches.
    """
    n_pos = int(sentence_of.shape[0])
    matches = backend.full(n_sentences, 0)
    if n_pos == 0:
        return matches
    positions = backend.arange(n_pos)
    same_sentence = sentence_of[1:] == sentence_of[:-1]
    n_hyp = n_hyp_pos
    for order in range(1, max_len + 1):
        hyp_count = backend.count(group[:n_hyp], n_pos)
        ref_group = group[n_hyp:]
        ref_count = backend.count(ref_group, n_pos)
        if order >= min_len:
            ref_sentence = sentence_of[positions[n_hyp:]]
            if one_ref:
                # A group's reference occurrences all lie in its segment's one reference.
                found = backend.found(ref_count)
                sentence_at = backend.full(n_pos, 0)
                sentence_at[ref_group] = ref_sentence
                sentence = sentence_at[found]
                clipped = backend.xp.minimum(ref_count[found], hyp_count[found])
            else:
                # Count each (n-gram, reference) pair: group its occurrences by their exact key.
                pair = backend.group(ref_group * n_sentences + ref_sentence)
                pair_count = backend.count(pair, int(pair.shape[0]))
                found = backend.found(pair_count)
                sentence = ref_sentence[found]
                clipped = backend.xp.minimum(pair_count[found], hyp_count[ref_group[found]])
            matches += backend.index_sum(sentence, clipped, n_sentences)
        if order == max_len:
            break
        live = (hyp_count > 0) & (ref_count > 0)
        group_at = backend.full(n_pos, -1)
        group_at[positions] = backend.xp.where(live[group], group, -1)
        extends = (group_at[:-1] >= 0) & (group_at[1:] >= 0) & same_sentence
        key = group_at[:-1] * n_pos + group_at[1:]
        if backend.compacts:
            positions = backend.found(extends)
            if int(positions.shape[0]) == 0:
                break
            key = key[positions]
            n_hyp = int(np.searchsorted(positions, n_hyp_pos))
        else:
            # Dead positions (and the last one) get keys of their own, above every live key.
            dead_key = positions + n_pos * n_pos
            dead_key[:-1] = backend.xp.where(extends, key, dead_key[:-1])
            key = dead_key
        group = positions[backend.group(key)]
    return matches


def choose_references(
    backend: Any,
    matches: Any,
    lengths: Any,
    n_segments: int,
    ref_segment: Any,
    first_ref: Any,
    min_len: int,
    max_len: int,
    present: Any = None,
) -> tuple[Any, Any]:
    """Per segment nltk's reference and its statistics row.

    nltk keeps the reference with the highest ``n_match / n_all`` and the first one on a
    tie (Python's ``max``); references with ``n_all == 0`` are not candidates, and a
    segment without a candidate is left out of the sums (a row of zeros).

    Args:
        backend: The backend of the arrays.
        matches: Per sentence (hypotheses, then references), its clipped matches.
        lengths: Per sentence, its token count.
        n_segments: Segments (one hypothesis each, first in ``matches`` and ``lengths``).
        ref_segment: Per reference, its segment (contiguous, ascending).
        first_ref: Per segment, the index of its first reference.
        min_len: Lowest n-gram order.
        max_len: Highest n-gram order.
        present: Optionally, per reference, whether it exists (an absent slot of a padded
            batch is no candidate).

    Returns:
        ``(rows, chosen)``: int64 ``[n_segments, 4]`` rows ``(n_match, n_hyp, n_ref, n_all)``
        and, per segment, the index of the chosen reference among its own (-1: none).
    """
    counts = ngram_counts(lengths, min_len, max_len)
    n_hyp = counts[:n_segments]
    ref_match = matches[n_segments:]
    ref_count = counts[n_segments:]
    ref_all = backend.xp.maximum(n_hyp[ref_segment], ref_count)
    ratio = backend.ratio(ref_match, ref_all)  # -1.0: not a candidate, below every ratio
    if present is not None:
        ratio = backend.xp.where(present, ratio, -1.0)
    best_ratio = backend.per_segment("max", ratio, ref_segment, first_ref)
    n_refs = int(ref_segment.shape[0])
    first_best = backend.xp.where(ratio == best_ratio[ref_segment], backend.arange(n_refs), n_refs)
    best = backend.per_segment("min", first_best, ref_segment, first_ref)
    scored = best_ratio >= 0
    rows = backend.columns(ref_match[best], n_hyp, ref_count[best], ref_all[best])
    rows = backend.xp.where(scored[:, None], rows, 0)
    chosen = backend.xp.where(scored, best - first_ref, -1)
    return rows, chosen


# -- CPU drivers: chunks of segments through the core -------------------------------


def segment_rows(
    hypotheses: list, list_of_references: list, min_len: int, max_len: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per-segment ``(n_match, n_hyp, n_ref, n_all)`` rows for validated token input.

    Args:
        hypotheses: Token sequences (already validated).
        list_of_references: Per segment, a non-empty list of token sequences.
        min_len: Lowest n-gram order.
        max_len: Highest n-gram order.
        present: Optionally, per reference, whether it exists (an absent slot of a padded
            batch is no candidate).

    Returns:
        ``(rows, chosen)``: ``int64`` rows of shape ``(len(hypotheses), 4)`` and, per
        segment, the index of the reference nltk keeps (-1 when none is a candidate).
    """
    n_segments = len(hypotheses)
    hyp_lengths = np.fromiter(map(len, hypotheses), np.int64, n_segments)
    n_refs = np.fromiter(map(len, list_of_references), np.int64, n_segments)
    ref_lengths = np.fromiter(map(len, chain.from_iterable(list_of_references)), np.int64, int(n_refs.sum()))
    return _rows(
        _sentence_groups(hypotheses, list_of_references, False), hyp_lengths, n_refs, ref_lengths, min_len, max_len
    )


def spaced_segment_rows(
    hypotheses: list[str],
    list_of_references: list[list[str]],
    hyp_lengths: np.ndarray,
    ref_lengths: np.ndarray,
    min_len: int,
    max_len: int,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`segment_rows` for tokenized text kept as text.

    Each sentence is a ``str`` whose tokens are separated by ASCII spaces only, so that
    ``sentence.split()`` gives them (as from :func:`google_bleu.tokenizers.spaced_13a_batch`);
    ``hyp_lengths`` and ``ref_lengths`` (references flattened in order) are the token
    counts. No token objects are made.
    """
    n_refs = np.fromiter(map(len, list_of_references), np.int64, len(hypotheses))
    return _rows(
        _sentence_groups(hypotheses, list_of_references, True), hyp_lengths, n_refs, ref_lengths, min_len, max_len
    )


def id_rows(
    hyp_ids: np.ndarray,
    hyp_lengths: np.ndarray,
    ref_ids: np.ndarray,
    n_refs: np.ndarray,
    ref_lengths: np.ndarray,
    min_len: int,
    max_len: int,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`segment_rows` for integer token ids laid out flat.

    Args:
        hyp_ids: ``int64`` ids of every hypothesis, one after the other.
        hyp_lengths: Per segment, its hypothesis length.
        ref_ids: ``int64`` ids of every reference, segment by segment.
        n_refs: Per segment, its number of references (at least 1).
        ref_lengths: Per reference, its length.
        min_len: Lowest n-gram order.
        max_len: Highest n-gram order.
    """
    hyp_ends = np.cumsum(hyp_lengths)
    ref_ends = np.cumsum(ref_lengths)

    def groups(
        start: int, stop: int, ref_start: int, ref_stop: int, lengths: np.ndarray, segment_of: np.ndarray
    ) -> np.ndarray:
        first = int(hyp_ends[start - 1]) if start else 0
        ref_first = int(ref_ends[ref_start - 1]) if ref_start else 0
        ids = np.concatenate(
            (hyp_ids[first : int(hyp_ends[stop - 1])], ref_ids[ref_first : int(ref_ends[ref_stop - 1])])
        )
        segment_hash = segment_of.astype(np.uint64)
        segment_hash *= _MIX
        return _group_in_segments(ids.view(np.uint64), segment_of, segment_hash)

    return _rows(groups, hyp_lengths, n_refs, ref_lengths, min_len, max_len)


def _sentence_groups(hypotheses: list, list_of_references: list, spaced: bool) -> Any:
    """Order-1 groups of a chunk of token sequences (or spaced lines), for :func:`_rows`."""

    def groups(
        start: int, stop: int, ref_start: int, ref_stop: int, lengths: np.ndarray, segment_of: np.ndarray
    ) -> np.ndarray:
        sentences = hypotheses[start:stop]
        sentences += chain.from_iterable(list_of_references[start:stop])
        return _token_groups(sentences, lengths, spaced, segment_of)

    return groups


def _rows(
    groups: Any,
    hyp_lengths: np.ndarray,
    n_refs: np.ndarray,
    ref_lengths: np.ndarray,
    min_len: int,
    max_len: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Rows and chosen references, a chunk of about :data:`CHUNK_TOKENS` tokens at a time.

    ``groups(start, stop, ref_start, ref_stop, lengths, segment_of)`` gives the order-1
    groups of segments ``start:stop`` (references ``ref_start:ref_stop``), laid out as
    their hypotheses then their references. A segment is never split: one longer than a
    chunk is a chunk of its own, and memory grows with it.
    """
    n_segments = len(hyp_lengths)
    rows = np.zeros((n_segments, 4), np.int64)
    chosen = np.full(n_segments, -1, np.int64)
    if n_segments == 0:
        return rows, chosen
    first_ref = np.cumsum(n_refs) - n_refs
    segment_tokens = hyp_lengths + np.add.reduceat(ref_lengths, first_ref)  # every segment has a reference
    ends = np.cumsum(segment_tokens)
    backend = NUMPY
    start = 0
    while start < n_segments:
        offset = int(ends[start - 1]) if start else 0
        stop = max(int(np.searchsorted(ends, offset + CHUNK_TOKENS, side="right")), start + 1)
        chunk_refs = n_refs[start:stop]
        n_chunk = stop - start
        ref_start = int(first_ref[start])
        ref_stop = ref_start + int(chunk_refs.sum())
        lengths = np.concatenate((hyp_lengths[start:stop], ref_lengths[ref_start:ref_stop]))
        n_sentences = lengths.size
        segment_of_sentence = np.concatenate(
            (np.arange(n_chunk, dtype=np.int64), np.repeat(np.arange(n_chunk, dtype=np.int64), chunk_refs))
        )
        sentence_of = np.repeat(np.arange(n_sentences, dtype=np.int64), lengths)
        group = groups(start, stop, ref_start, ref_stop, lengths, np.take(segment_of_sentence, sentence_of))
        n_hyp_pos = int(lengths[:n_chunk].sum())
        matches = count_matches(
            backend, group, sentence_of, n_hyp_pos, n_sentences, bool((chunk_refs == 1).all()), min_len, max_len
        )
        chunk_first = first_ref[start:stop] - ref_start
        rows[start:stop], chosen[start:stop] = choose_references(
            backend, matches, lengths, n_chunk, segment_of_sentence[n_chunk:], chunk_first, min_len, max_len
        )
        start = stop
    return rows, chosen
