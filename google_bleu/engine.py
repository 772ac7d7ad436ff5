"""The counting engine: per-segment GLEU statistics for token sequences, vectorised.

How it works (integer numpy work; where a hash is used, its result is checked):

1. A chunk of segments is laid out as one token array: the hypotheses of its
   segments, then their references (segment by segment).
2. Order 1: every position gets a key for (segment, token) such that equal keys mean
   equal pairs. For ``str`` tokens the key comes from their UTF-8 bytes, joined into one
   buffer at C speed (see :func:`_str_token_keys`); other hashable tokens get ids from a
   dict, so any token works and equal tokens (as Python compares them) match.
   Order n+1: a position p whose n-gram and whose neighbour's n-gram (at p+1, same
   sentence) are both "live" gets the key (group of p, group of p+1), which
   identifies its (n+1)-gram within the segment exactly.
3. The position is packed into the low bits of the key, so one plain ``np.sort``
   yields both the grouping and the permutation (an argsort costs several times more).
   Within a group, positions ascend, so the hypothesis's occurrences come first and
   each reference's occurrences form one run. Clipped matches of a reference are
   ``min(run length, hypothesis count)`` summed per reference.
4. A group is live when it occurs in the hypothesis and in some reference; only live
   n-grams can extend to longer matches, so later orders see ever fewer positions.

N-gram totals per sentence follow from lengths alone. The reference kept for a
segment is the first with the highest ``n_match / max(n_hyp, n_ref)``, as nltk's
``max`` over ``(tp, n_all)`` pairs keeps it.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import chain, compress, count

import numpy as np

#: Tokens per chunk (all sides together). Small enough that a chunk's temporaries stay
#: in CPU cache (measured faster than 2**18 to 2**20) and extra memory stays bounded
#: whatever the corpus size; a single segment longer than this is one chunk of its own.
CHUNK_TOKENS = 1 << 16
#: Largest chunk the 63-bit sort keys can address: three fields of 21 bits.
_MAX_CHUNK_TOKENS = 1 << 21
#: Bytes of a token that its first word holds exactly; longer tokens are hashed.
_WORD = 8
#: ``_WORD_MASKS[k]`` keeps the low ``k`` bytes of a little-endian word (k = 0..8).
_WORD_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(_WORD)] + [(1 << 64) - 1], np.uint64)
#: Odd 64-bit multipliers for hashing (Fibonacci hashing, word mixing).
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX = np.uint64(0xBF58476D1CE4E5B9)
_SPACE = ord(" ")


def ngram_counts(lengths: np.ndarray, min_len: int, max_len: int) -> np.ndarray:
    """Number of n-grams of orders ``min_len..max_len`` in sequences of these lengths.

    Example:
        >>> ngram_counts(np.array([0, 1, 4, 6]), 1, 4).tolist()
        [0, 1, 10, 18]
    """
    lengths = np.asarray(lengths, np.int64)
    top = np.minimum(lengths, max_len)
    terms = np.maximum(top - min_len + 1, 0)
    # Arithmetic series from (L - min_len + 1) down to (L - top + 1).
    return (terms * (2 * lengths - min_len - top + 2)) // 2


def _sorted_token_keys(
    sentences: list, lengths: np.ndarray, spaced: bool, segment_of: np.ndarray, pos_bits: int
) -> np.ndarray:
    """Sorted ``(segment, token key, position)`` packed in 63 bits, one per token.

    ``sentences`` are token sequences, or with ``spaced`` texts whose tokens are
    separated by ASCII spaces (see :func:`spaced_segment_rows`); ``lengths`` are their
    token counts. ``segment_of`` holds each position's segment. The token key takes the
    bits that the segment and the position leave; token keys of one segment are equal
    exactly when the tokens are, so after the sort the positions of each (segment,
    token) pair are contiguous and ascending.
    """
    n_tokens = segment_of.size
    key_bits = 63 - pos_bits - max(1, int(segment_of.max()).bit_length())
    non_empty = compress(sentences, lengths.tolist())
    try:
        text = "\0".join(non_empty) if spaced else "\0".join(map("\0".join, non_empty))
    except TypeError:  # some token is not a str
        keys = None
    else:
        keys = _str_token_keys(text, spaced, segment_of, key_bits, pos_bits)
    if keys is None:
        tokens = chain.from_iterable(map(str.split, sentences) if spaced else sentences)
        keys = segment_of << key_bits  # ids (below 2**pos_bits) always fit in key_bits
        keys |= _token_ids(tokens, n_tokens)
        keys <<= pos_bits
        keys |= np.arange(n_tokens, dtype=np.int64)
        keys.sort()
    return keys


def _token_ids(tokens: Iterable, n_tokens: int) -> np.ndarray:
    # One pass: a token's id is the position of its first occurrence (setdefault keeps it).
    vocabulary: dict = {}
    try:
        return np.fromiter(map(vocabulary.setdefault, tokens, count()), np.int64, n_tokens)
    except TypeError as error:
        raise TypeError(f"tokens must be hashable (e.g. str or int): {error}") from None


def _str_token_keys(text: str, spaced: bool, segment_of: np.ndarray, key_bits: int, pos_bits: int) -> np.ndarray | None:
    """Sorted keys (see :func:`_sorted_token_keys`) of ``str`` tokens from their UTF-8
    bytes, without a Python call per token; None when the dictionary path must do it.

    ``text`` holds the (non-empty) sentences joined with NUL: their tokens joined with
    NUL too, or with ``spaced`` separated by runs of ASCII spaces. A token of at
    most 8 bytes is its own word (zero-padded: exact, as no token here holds NUL); a
    longer one gets a 64-bit hash of its length and words. The token key is a
    ``key_bits`` hash of the word. After the sort, every token is checked against its
    predecessor with the same segment and key (equal word; for long tokens equal length
    and bytes), so a collision never merges two tokens: it sends the chunk to the
    dictionary path instead, as do tokens that are not ``str`` or contain NUL.
    ``str`` subclasses are compared by their text.
    """
    n = segment_of.size
    data = text.encode("utf-8", "surrogatepass")  # injective, lone surrogates included
    size = len(data)
    buffer = np.zeros((size + 3 * _WORD) // _WORD * _WORD, np.uint8)  # whole words past the end
    buffer[:size] = np.frombuffer(data, np.uint8)
    aligned = buffer.view("<u8").astype(np.uint64, copy=False)  # a view on little-endian hosts
    if spaced:
        starts, lengths = _spaced_tokens(buffer[: size + 1])
        if starts.size != n:
            return None  # some token holds a NUL character
    else:
        ends = np.flatnonzero(buffer[:size] == 0)
        if ends.size != n - 1:
            return None  # some token holds a NUL character
        starts = np.empty(n, np.int64)
        starts[0] = 0
        starts[1:] = ends
        starts[1:] += 1
        lengths = np.empty(n, np.int64)
        lengths[:-1] = ends
        lengths[-1] = size
        lengths -= starts
    words = _words_at(aligned, starts, lengths)
    long = np.flatnonzero(lengths > _WORD)
    if long.size:
        words[long] = _hash_long(aligned, np.take(starts, long), np.take(lengths, long), np.take(words, long))
    packed = words * _GOLDEN  # Fibonacci hashing: the top key_bits
    packed >>= np.uint64(64 - key_bits)
    packed |= segment_of.astype(np.uint64) << np.uint64(key_bits)
    packed <<= np.uint64(pos_bits)
    packed |= np.arange(n, dtype=np.uint64)
    packed = packed.view(np.int64)
    packed.sort()
    order = packed & ((1 << pos_bits) - 1)
    group = packed >> pos_bits
    same = group[1:] == group[:-1]  # same segment and key as the token before it
    ordered = np.take(words, order)
    if np.any(same & (ordered[1:] != ordered[:-1])):
        return None
    is_long = np.take(lengths, order) > _WORD
    pair = np.flatnonzero(same & (is_long[1:] | is_long[:-1]))
    if pair.size and not _tokens_equal(aligned, starts, lengths, np.take(order, pair), np.take(order, pair + 1)):
        return None
    return packed


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


def _hash_long(aligned: np.ndarray, starts: np.ndarray, lengths: np.ndarray, first: np.ndarray) -> np.ndarray:
    """64-bit hashes of tokens longer than one word (their length and every word)."""
    hashed = lengths.astype(np.uint64)
    hashed *= _MIX
    hashed ^= first
    hashed *= _GOLDEN
    active = np.arange(starts.size)
    offset = _WORD
    while active.size:
        mixed = np.take(hashed, active)
        mixed ^= _words_at(aligned, np.take(starts, active) + offset, np.take(lengths, active) - offset)
        mixed ^= mixed >> np.uint64(29)
        mixed *= _MIX
        hashed[active] = mixed
        offset += _WORD
        active = active[np.take(lengths, active) > offset]
    hashed ^= hashed >> np.uint64(32)
    return hashed


def _tokens_equal(aligned: np.ndarray, starts: np.ndarray, lengths: np.ndarray, a: np.ndarray, b: np.ndarray) -> bool:
    """Whether every token ``a[i]`` has the same bytes as token ``b[i]``."""
    if not np.array_equal(np.take(lengths, a), np.take(lengths, b)):
        return False
    offset = 0
    while a.size:
        rest = np.take(lengths, a) - offset
        if not np.array_equal(
            _words_at(aligned, np.take(starts, a) + offset, rest), _words_at(aligned, np.take(starts, b) + offset, rest)
        ):
            return False
        offset += _WORD
        keep = rest > _WORD
        a, b = a[keep], b[keep]
    return True


def _chunk_matches(
    sentences: list, lengths: np.ndarray, spaced: bool, n_refs: np.ndarray, min_len: int, max_len: int
) -> np.ndarray:
    """Clipped matches of every reference sentence in one chunk.

    The chunk's sentences are its segments' hypotheses, then all their references
    (segment by segment, in order), as listed in ``sentences`` (token sequences, or
    spaced texts with ``spaced``); ``lengths`` holds one length per sentence. Returns
    the matches per sentence (0 for hypotheses).
    """
    n_segments = len(n_refs)
    n_sentences = lengths.size
    matches = np.zeros(n_sentences, np.int64)
    n_pos = int(lengths.sum())
    if n_pos == 0:
        return matches
    pos_bits = max(1, (n_pos - 1).bit_length())
    pos_mask = (1 << pos_bits) - 1
    segment_of_sentence = np.concatenate(
        (np.arange(n_segments, dtype=np.int64), np.repeat(np.arange(n_segments, dtype=np.int64), n_refs))
    )
    sentence_of = np.repeat(np.arange(n_sentences, dtype=np.int64), lengths)
    keys = _sorted_token_keys(sentences, lengths, spaced, np.take(segment_of_sentence, sentence_of), pos_bits)
    same_sentence = sentence_of[1:] == sentence_of[:-1]
    group = np.empty(0, np.int64)
    group_bits = 0
    for order in range(1, max_len + 1):
        if order > 1:
            live = group >= 0
            live_pair = live[:-1]
            live_pair &= live[1:]
            live_pair &= same_sentence
            candidates = np.flatnonzero(live_pair)
            if candidates.size == 0:
                break
            keys = np.take(group, candidates)
            keys <<= group_bits
            keys |= np.take(group, candidates + 1)
            keys <<= pos_bits
            keys |= candidates
            keys.sort()
        positions = keys & pos_mask
        keys >>= pos_bits  # now the n-gram's key alone
        sentence = np.take(sentence_of, positions)
        size = keys.size
        starts_group = np.empty(size, bool)
        starts_group[0] = True
        np.not_equal(keys[1:], keys[:-1], out=starts_group[1:])
        group_of_key = np.empty(size, np.int64)
        np.cumsum(starts_group, out=group_of_key)
        group_of_key -= 1
        n_groups = int(group_of_key[-1]) + 1
        # Runs: one per (n-gram, sentence); a group's hypothesis run comes first.
        starts_run = sentence[1:] != sentence[:-1]
        starts_run |= starts_group[1:]
        bounds = np.empty(int(np.count_nonzero(starts_run)) + 2, np.int64)
        bounds[0] = 0
        bounds[-1] = size
        bounds[1:-1] = np.flatnonzero(starts_run)
        bounds[1:-1] += 1
        run_start = bounds[:-1]
        run_length = bounds[1:] - run_start
        run_is_hyp = np.take(sentence, run_start)
        run_is_hyp = run_is_hyp < n_segments
        first_run = np.flatnonzero(np.take(starts_group, run_start))  # one per group, in group order
        if order >= min_len:
            hyp_count = np.take(run_length, first_run)
            hyp_count *= np.take(run_is_hyp, first_run)
            ref_runs = np.flatnonzero(~run_is_hyp)
            ref_starts = np.take(run_start, ref_runs)
            clipped = np.minimum(np.take(run_length, ref_runs), np.take(hyp_count, np.take(group_of_key, ref_starts)))
            # float64 sums of counts this small are exact
            matches += np.bincount(
                np.take(sentence, ref_starts), weights=clipped.astype(np.float64), minlength=n_sentences
            ).astype(np.int64)
        if order == max_len:
            break
        # Hypothesis occurrences come first in a group, references last: an n-gram can
        # extend to a longer match only when it occurs on both sides.
        live_group = np.take(run_is_hyp, first_run)
        last_run = np.empty_like(first_run)
        last_run[:-1] = first_run[1:]
        last_run[-1] = run_start.size
        last_run -= 1
        live_group &= ~np.take(run_is_hyp, last_run)
        if not live_group.any():
            break
        label = np.arange(n_groups, dtype=np.int64)  # a live group keeps its number, others get -1
        label *= live_group
        label += live_group
        label -= 1
        group_bits = max(1, (n_groups - 1).bit_length())
        group = np.full(n_pos, -1, np.int64)
        group[positions] = np.take(label, group_of_key)
    return matches


def segment_rows(hypotheses: list, list_of_references: list, min_len: int, max_len: int) -> np.ndarray:
    """Per-segment ``(n_match, n_hyp, n_ref, n_all)`` rows for validated token input.

    Args:
        hypotheses: Token sequences (already validated).
        list_of_references: Per segment, a non-empty list of token sequences.
        min_len: Lowest n-gram order.
        max_len: Highest n-gram order.

    Returns:
        ``int64`` array of shape ``(len(hypotheses), 4)``.
    """
    n_segments = len(hypotheses)
    hyp_lengths = np.fromiter(map(len, hypotheses), np.int64, n_segments)
    n_refs = np.fromiter(map(len, list_of_references), np.int64, n_segments)
    ref_lengths = np.fromiter(map(len, chain.from_iterable(list_of_references)), np.int64, int(n_refs.sum()))
    return _rows(hypotheses, list_of_references, False, hyp_lengths, n_refs, ref_lengths, min_len, max_len)


def spaced_segment_rows(
    hypotheses: list[str],
    list_of_references: list[list[str]],
    hyp_lengths: np.ndarray,
    ref_lengths: np.ndarray,
    min_len: int,
    max_len: int,
) -> np.ndarray:
    """:func:`segment_rows` for tokenized text kept as text.

    Each sentence is a ``str`` whose tokens are separated by ASCII spaces only, so that
    ``sentence.split()`` gives them (as from :func:`google_bleu.tokenizers.spaced_13a_batch`);
    ``hyp_lengths`` and ``ref_lengths`` (references flattened in order) are the token
    counts. No token objects are made.
    """
    n_refs = np.fromiter(map(len, list_of_references), np.int64, len(hypotheses))
    return _rows(hypotheses, list_of_references, True, hyp_lengths, n_refs, ref_lengths, min_len, max_len)


def _rows(
    hypotheses: list,
    list_of_references: list,
    spaced: bool,
    hyp_lengths: np.ndarray,
    n_refs: np.ndarray,
    ref_lengths: np.ndarray,
    min_len: int,
    max_len: int,
) -> np.ndarray:
    n_segments = len(hypotheses)
    rows = np.zeros((n_segments, 4), np.int64)
    if n_segments == 0:
        return rows
    first_ref = np.cumsum(n_refs) - n_refs
    segment_tokens = hyp_lengths + np.add.reduceat(ref_lengths, first_ref)  # every segment has a reference
    too_long = np.flatnonzero(segment_tokens > _MAX_CHUNK_TOKENS)
    if too_long.size:
        i = int(too_long[0])
        raise ValueError(
            f"segment {i} has {int(segment_tokens[i])} tokens over its hypothesis and references; "
            f"the limit is {_MAX_CHUNK_TOKENS}"
        )
    ends = np.cumsum(segment_tokens)
    start = 0
    while start < n_segments:
        offset = int(ends[start - 1]) if start else 0
        stop = max(int(np.searchsorted(ends, offset + CHUNK_TOKENS, side="right")), start + 1)
        chunk_refs = n_refs[start:stop]
        ref_start = int(first_ref[start])
        ref_stop = ref_start + int(chunk_refs.sum())
        lengths = np.concatenate((hyp_lengths[start:stop], ref_lengths[ref_start:ref_stop]))
        sentences = hypotheses[start:stop]
        sentences += chain.from_iterable(list_of_references[start:stop])
        matches = _chunk_matches(sentences, lengths, spaced, chunk_refs, min_len, max_len)
        rows[start:stop] = _choose_references(matches, lengths, chunk_refs, min_len, max_len)
        start = stop
    return rows


def _choose_references(
    matches: np.ndarray, lengths: np.ndarray, n_refs: np.ndarray, min_len: int, max_len: int
) -> np.ndarray:
    """Keeps, per segment, nltk's reference: highest ``tp / n_all``, the first on a tie."""
    n_segments = len(n_refs)
    counts = ngram_counts(lengths, min_len, max_len)
    ref_segment = np.repeat(np.arange(n_segments), n_refs)
    n_hyp = counts[:n_segments]
    ref_match = matches[n_segments:]
    ref_count = counts[n_segments:]
    ref_all = np.maximum(n_hyp[ref_segment], ref_count)
    # References with n_all == 0 are not candidates (nltk skips them); -1 ranks below any ratio.
    ratio = np.full(ref_all.size, -1.0)
    np.divide(ref_match, ref_all, out=ratio, where=ref_all > 0)
    first_ref = np.concatenate(([0], np.cumsum(n_refs)[:-1]))
    best_ratio = np.maximum.reduceat(ratio, first_ref)
    tied = np.flatnonzero(ratio == best_ratio[ref_segment])
    keep = np.ones(tied.size, bool)
    keep[1:] = ref_segment[tied[1:]] != ref_segment[tied[:-1]]
    best = tied[keep]  # exactly one per segment, the first maximal reference
    rows = np.stack([ref_match[best], n_hyp, ref_count[best], ref_all[best]], axis=1)
    rows[best_ratio < 0] = 0  # every reference had n_all == 0: left out of the sums
    return rows
