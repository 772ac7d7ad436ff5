"""The counting engine: per-segment GLEU statistics for token sequences, vectorised.

How it works (all integer numpy work, no hashing that could collide):

1. A chunk of segments is laid out as one token array: the hypotheses of its
   segments, then their references (segment by segment), joined with C-level
   iterators. Tokens get chunk-local integer ids through a dict, so any hashable
   token works and equal tokens (as Python compares them) share an id.
2. Order 1: every position gets the key (segment, token id). Order n+1: a position p
   whose n-gram and whose neighbour's n-gram (at p+1, same sentence) are both "live"
   gets the key (group of p, group of p+1), which identifies its (n+1)-gram within
   the segment exactly. The position is packed into the low bits of the key, so one
   plain ``np.sort`` yields both the grouping and the permutation (an argsort costs
   ten times more).
3. Within a group, positions ascend, so the hypothesis's occurrences come first and
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
from itertools import chain, count

import numpy as np

#: Tokens per chunk (all sides together). Small enough that a chunk's temporaries stay
#: in CPU cache (measured faster than 2**18 to 2**20) and extra memory stays bounded
#: whatever the corpus size; a single segment longer than this is one chunk of its own.
CHUNK_TOKENS = 1 << 16
#: Largest chunk the 63-bit sort keys can address: three fields of 21 bits.
_MAX_CHUNK_TOKENS = 1 << 21


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


def _encode(tokens: Iterable, n_tokens: int) -> np.ndarray:
    # One pass: a token's id is the position of its first occurrence (setdefault keeps it).
    vocabulary: dict = {}
    try:
        return np.fromiter(map(vocabulary.setdefault, tokens, count()), np.int64, n_tokens)
    except TypeError as error:
        raise TypeError(f"tokens must be hashable (e.g. str or int): {error}") from None


def _chunk_matches(tokens: Iterable, lengths: np.ndarray, n_refs: np.ndarray, min_len: int, max_len: int) -> np.ndarray:
    """Clipped matches of every reference sentence in one chunk.

    The chunk's sentences are its segments' hypotheses, then all their references
    (segment by segment, in order); ``tokens`` iterates over their tokens in that order
    and ``lengths`` holds one length per sentence. Returns the matches per sentence
    (0 for hypotheses).
    """
    n_segments = len(n_refs)
    n_sentences = lengths.size
    matches = np.zeros(n_sentences, np.int64)
    n_pos = int(lengths.sum())
    if n_pos == 0:
        return matches
    ids = _encode(tokens, n_pos)
    is_hyp = np.zeros(n_sentences, bool)
    is_hyp[:n_segments] = True
    segment_of_sentence = np.concatenate(
        (np.arange(n_segments, dtype=np.int64), np.repeat(np.arange(n_segments, dtype=np.int64), n_refs))
    )
    # Positions, sentences and segments of a chunk fit in 32 bits (at most 2**21 tokens).
    sentence_of = np.repeat(np.arange(n_sentences, dtype=np.int32), lengths)
    same_sentence = sentence_of[1:] == sentence_of[:-1]

    pos_bits = max(1, (n_pos - 1).bit_length())
    pos_mask = (1 << pos_bits) - 1
    vocab_bits = max(1, int(ids.max()).bit_length())
    # A segment's hypothesis positions come before its references', so within a group
    # (sorted by position) the hypothesis occurrences come first, then each reference's.
    keys = np.repeat(segment_of_sentence, lengths)
    keys <<= vocab_bits
    keys |= ids
    keys <<= pos_bits
    keys |= np.arange(n_pos, dtype=np.int64)
    del ids
    group = np.empty(0, np.int64)
    n_groups = 0
    for order in range(1, max_len + 1):
        if order > 1:
            live = group >= 0
            live_pair = live[:-1]
            live_pair &= live[1:]
            live_pair &= same_sentence
            candidates = np.flatnonzero(live_pair)
            if candidates.size == 0:
                break
            group_bits = max(1, (n_groups - 1).bit_length())
            keys = group[candidates]
            keys <<= group_bits
            keys |= group[candidates + 1]
            keys <<= pos_bits
            keys |= candidates
        keys.sort()
        positions = keys & pos_mask
        keys >>= pos_bits  # now the n-gram's key alone
        sentence = sentence_of[positions]
        size = keys.size
        starts_group = np.empty(size, bool)
        starts_group[0] = True
        np.not_equal(keys[1:], keys[:-1], out=starts_group[1:])
        starts_run = np.not_equal(sentence[1:], sentence[:-1])
        starts_run |= starts_group[1:]
        run_start = np.flatnonzero(starts_run)
        run_start += 1
        run_start = np.concatenate(([0], run_start))
        run_length = np.diff(run_start, append=size)
        run_sentence = sentence[run_start]
        run_is_hyp = is_hyp[run_sentence]
        run_new_group = starts_group[run_start]
        group_of_run = np.cumsum(run_new_group)
        group_of_run -= 1
        first_run = np.flatnonzero(run_new_group)
        if order >= min_len:
            hyp_count = np.where(run_is_hyp[first_run], run_length[first_run], 0)
            ref_runs = np.flatnonzero(~run_is_hyp)
            clipped = np.minimum(run_length[ref_runs], hyp_count[group_of_run[ref_runs]])
            matches += np.bincount(run_sentence[ref_runs], weights=clipped, minlength=n_sentences).astype(np.int64)
        if order == max_len:
            break
        # Hypothesis occurrences come first in a group, references last: an n-gram can
        # extend to a longer match only when it occurs on both sides.
        last_run = np.empty_like(first_run)
        last_run[:-1] = first_run[1:]
        last_run[-1] = run_start.size
        last_run -= 1
        live_group = run_is_hyp[first_run]
        live_group &= ~run_is_hyp[last_run]
        n_groups = int(np.count_nonzero(live_group))
        if n_groups == 0:
            break
        renumbered = np.cumsum(live_group)
        renumbered -= 1
        renumbered[~live_group] = -1
        group = np.full(n_pos, -1, np.int64)
        group[positions] = np.repeat(renumbered[group_of_run], run_length)
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
    rows = np.zeros((n_segments, 4), np.int64)
    if n_segments == 0:
        return rows
    hyp_lengths = np.fromiter(map(len, hypotheses), np.int64, n_segments)
    n_refs = np.fromiter(map(len, list_of_references), np.int64, n_segments)
    ref_lengths = np.fromiter(map(len, chain.from_iterable(list_of_references)), np.int64, int(n_refs.sum()))
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
        tokens = chain(
            chain.from_iterable(hypotheses[start:stop]),
            chain.from_iterable(chain.from_iterable(list_of_references[start:stop])),
        )
        matches = _chunk_matches(tokens, lengths, chunk_refs, min_len, max_len)
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
