"""The counting engine: per-segment GLEU statistics, one algorithm over two backends.

:func:`count_matches` and :func:`choose_references` are written once against a small
backend interface: :class:`NumpyBackend` (CPU: a verified hash table groups exact keys,
and positions that cannot extend to a match are dropped) and :class:`TorchBackend` (any
torch device: sorts group the keys, and every size is fixed by the input's shape, so a
call reads nothing back to the host and can be replayed as a CUDA graph; it lives with
the token-id path, :mod:`google_bleu.ids.torch_backend`).

A chunk of segments is one array of positions: the hypotheses' tokens, then the
references' (segment by segment). Order 1 groups each position with the equal tokens of
its segment (token keys and the hash table: :mod:`google_bleu.keys`; integer ids are
their own keys). Order n+1 keys position p by the pair (group of the n-gram at p, group
of the n-gram at p + 1). Counting
group labels gives each n-gram's count in the hypothesis and in each reference; clipped
matches are summed per reference, and the reference kept for a segment is the first with
the highest ``n_match / max(n_hyp, n_ref)``, as nltk's ``max`` keeps it. N-gram totals
follow from lengths alone. ``docs/design.md`` explains the choices.
"""

from __future__ import annotations

from itertools import chain
from typing import Any

import numpy as np

from .keys import group_keys, token_groups

#: Tokens per chunk (all sides together). Small enough that a chunk's hash table and
#: temporaries stay near the CPU caches and extra memory stays bounded whatever the
#: corpus size; a single segment longer than this is one chunk of its own.
CHUNK_TOKENS = 1 << 16


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


# -- the counting core, written once over a small backend interface -------------------


class NumpyBackend:
    """CPU arrays with numpy: the verified hash grouping, and dead positions dropped.

    Dropping every position whose n-gram cannot extend to a match (``compacts``) makes
    later orders see ever fewer positions; sizes that depend on the data cost nothing on
    a CPU. ``xp`` is the array module (``where``, ``minimum``, ``maximum``).
    """

    compacts = True
    xp = np
    group = staticmethod(group_keys)  # per key, the index of a representative equal key
    found = staticmethod(np.flatnonzero)  # the labels that occur (others add nothing)
    take = staticmethod(np.take)  # a gather (faster than fancy indexing)

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
    their groups. A backend that ``compacts`` keeps only the positions whose n-gram can
    still match, and labels groups by their index among those, so every array of an order
    is as long as its live positions; one that does not gives every dead position a key of
    its own, so it never matches, and keeps every size fixed.
    """
    n_pos = int(sentence_of.shape[0])
    matches = backend.full(n_sentences, 0)
    if n_pos == 0:
        return matches
    take = backend.take
    xp = backend.xp
    position = backend.arange(n_pos)  # per entry, its position (entries stay in position order)
    n_hyp = n_hyp_pos
    n = n_pos  # entries, and the bound of their group labels
    n_segments = n_sentences // 2  # with one reference each: hypotheses, then references
    for order in range(1, max_len + 1):
        hyp_count = backend.count(group[:n_hyp], n)
        ref_group = group[n_hyp:]
        ref_count = backend.count(ref_group, n)
        live = hyp_count > 0
        live &= ref_count > 0
        if order >= min_len:
            if one_ref:
                # A group's reference occurrences all lie in its segment's one reference, the
                # sentence after the hypotheses' whose index is its segment's: only live groups
                # add min(h, r) > 0, each to the reference of its representative's segment.
                found = backend.found(live)
                ref_sentence = take(sentence_of, take(position, found))
                ref_sentence = xp.where(ref_sentence < n_segments, ref_sentence + n_segments, ref_sentence)
                clipped = xp.minimum(take(hyp_count, found), take(ref_count, found))
                matches += backend.index_sum(ref_sentence, clipped, n_sentences)
            else:
                # Count each (n-gram, reference) pair: group its occurrences by their exact
                # key. Only occurrences of n-grams in the hypothesis can add to a match.
                hyp_at = take(hyp_count, ref_group)
                found = backend.found(hyp_at > 0)
                pair_group = take(ref_group, found)
                ref_sentence = take(sentence_of, take(position[n_hyp:], found))
                pair_key = pair_group * n_sentences
                pair_key += ref_sentence
                pair = backend.group(pair_key)
                pair_count = backend.count(pair, int(pair.shape[0]))  # nonzero at one entry per pair
                clipped = xp.minimum(pair_count, take(hyp_at, found))
                matches += backend.index_sum(ref_sentence, clipped, n_sentences)
        if order == max_len:
            break
        live_at = take(live, group)
        extends = live_at[:-1] & live_at[1:]
        if order == 1:
            extends &= sentence_of[1:] == sentence_of[:-1]
        elif backend.compacts:
            # Live n-grams (n >= 2) at adjacent positions overlap, so they share a sentence.
            extends &= xp.diff(position) == 1
        if backend.compacts:
            index = backend.found(extends)
            if int(index.shape[0]) == 0:
                break
            key = take(group, index)
            key *= n
            key += take(group[1:], index)  # the group at index + 1
            position = take(position, index)
            n_hyp = int(np.searchsorted(index, n_hyp))
            n = int(index.shape[0])
        else:
            # Dead positions (and the last one) get keys of their own, above every live key.
            key = position + n * n
            key[:-1] = xp.where(extends, group[:-1] * n + group[1:], key[:-1])
        group = backend.group(key)
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
        _sentence_groups(hypotheses, list_of_references), hyp_lengths, n_refs, ref_lengths, min_len, max_len
    )


def stored_segment_rows(
    store: Any, hypotheses: np.ndarray, references: np.ndarray, n_refs: np.ndarray, min_len: int, max_len: int
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`segment_rows` for lines held by a :class:`~google_bleu.keys.LineStore`.

    ``hypotheses`` and ``references`` are line indices in the store: per segment its
    hypothesis, and every segment's references one after the other (``n_refs`` per
    segment, at least one). No text or token object is made.
    """
    hyp_lengths = np.take(store.counts, hypotheses)
    ref_lengths = np.take(store.counts, references)

    def groups(
        start: int, stop: int, ref_start: int, ref_stop: int, lengths: np.ndarray, segment_of: np.ndarray
    ) -> np.ndarray:
        lines = np.concatenate((hypotheses[start:stop], references[ref_start:ref_stop]))
        return store.groups(lines, lengths, segment_of)

    return _rows(groups, hyp_lengths, n_refs, ref_lengths, min_len, max_len)


def _sentence_groups(hypotheses: list, list_of_references: list) -> Any:
    """Order-1 groups of a chunk of token sequences, for :func:`_rows`."""

    def groups(
        start: int, stop: int, ref_start: int, ref_stop: int, lengths: np.ndarray, segment_of: np.ndarray
    ) -> np.ndarray:
        sentences = hypotheses[start:stop]
        sentences += chain.from_iterable(list_of_references[start:stop])
        return token_groups(sentences, lengths, segment_of)

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
