"""The counting engine: per-segment GLEU rows of token input (docs/design.md, "The counting engine")."""

from __future__ import annotations

try:  # Counter's own counting loop, in C, without Counter() (tests/core/test_counting.py pins it)
    from collections import _count_elements
except ImportError:  # pragma: no cover - the loop collections itself falls back to
    def _count_elements(mapping: dict, iterable: Any) -> None:
        for element in iterable:
            mapping[element] = mapping.get(element, 0) + 1
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from itertools import chain, count, repeat
from operator import add, and_, eq
from typing import Any

from .imports import lazy_module
from .keys import group_keys, token_groups
from .stats import ratio
from .validation import check_token_kinds

np = lazy_module("numpy")

#: Tokens per chunk (all sides together): a chunk's temporaries stay near the CPU caches.
CHUNK_TOKENS = 1 << 16
#: Inputs of at most this many tokens (all sides) are counted in plain Python (benchmarks/bench_small.py).
SMALL_TOKENS = 1024
#: Characters per token assumed when text is sized before it is tokenized (13a on WMT news: 5 to 6).
CHARS_PER_TOKEN = 5


def chunks(sizes: np.ndarray, limit: int) -> Any:
    """``(start, stop)`` ranges of consecutive items whose ``sizes`` add up to about ``limit``.

    Example:
        >>> list(chunks(np.array([2, 2, 5, 1]), 4))
        [(0, 2), (2, 3), (3, 4)]
    """
    ends = np.cumsum(sizes)
    start = 0
    while start < len(ends):
        offset = int(ends[start - 1]) if start else 0
        stop = max(int(np.searchsorted(ends, offset + limit, side="right")), start + 1)
        yield start, stop
        start = stop


STRATEGIES = ("auto", "python", "numpy")
_STRATEGY: ContextVar[str] = ContextVar("google_bleu_strategy", default="auto")


@contextmanager
def strategy(name: str) -> Iterator[None]:
    """Count with one of :data:`STRATEGIES` inside the block (``"auto"``: by :func:`small_input`)."""
    if name not in STRATEGIES:
        raise ValueError(f"strategy must be one of {', '.join(STRATEGIES)}, got {name!r}")
    token = _STRATEGY.set(name)
    try:
        yield
    finally:
        _STRATEGY.reset(token)


def small_input(n_tokens: int = 0, n_chars: int = 0) -> bool:
    """Whether ``n_tokens`` tokens and ``n_chars`` characters of text not yet tokenized are counted in plain Python."""
    forced = _STRATEGY.get()
    return n_tokens + n_chars // CHARS_PER_TOKEN <= SMALL_TOKENS if forced == "auto" else forced == "python"


def ngram_counts(lengths: Any, min_len: int, max_len: int) -> Any:
    """Number of n-grams of orders ``min_len..max_len`` in sequences of these lengths (an ``int`` or an array).

    Example:
        >>> ngram_counts(np.array([0, 1, 4, 6]), 1, 4).tolist(), ngram_counts(6, 1, 4)
        ([0, 1, 10, 18], 18)
    """
    if type(lengths) is int:
        top = lengths if lengths < max_len else max_len
        terms = top - min_len + 1 if top >= min_len else 0
    else:
        top = lengths.clip(max=max_len)
        terms = (top - min_len + 1).clip(min=0)
    # Arithmetic series from (L - min_len + 1) down to (L - top + 1).
    return (terms * (2 * lengths - min_len - top + 2)) // 2


def _clipped(a: list, b: Any) -> int:
    """``sum_g min(count of g in a, count of g in b)`` (``b`` may be an iterator), a set intersection where it can."""
    a_counts: dict = {}
    _count_elements(a_counts, a)
    if len(a_counts) == len(a):
        return len(a_counts.keys() & b)
    b = b if type(b) is list else list(b)
    b_counts: dict = {}
    _count_elements(b_counts, b)
    common = a_counts.keys() & b_counts.keys()
    if len(b_counts) == len(b):
        return len(common)
    n_match = 0
    for gram in common:
        x, y = a_counts[gram], b_counts[gram]
        n_match += x if x < y else y
    return n_match


def _matches(hyp_slices: list, hyp_grams: list, reference: list, max_len: int) -> list[int]:
    """Clipped matches against ``reference`` of each order from 1 up to the first with none. ``hyp_grams[k - 1]``
    (order k's n-grams) and ``hyp_slices[k - 1]`` (from token k) grow here and serve the other references."""
    found = [_clipped(hyp_grams[0], reference)]
    if not found[0] or max_len == 1:
        return found
    if len(hyp_grams) < 2:
        hyp_slices.append(hyp_slices[0][1:])
        hyp_grams.append(list(zip(*hyp_slices)))
    bigram_at = dict(zip(zip(reference, reference[1:]), count()))
    if len(bigram_at) == len(reference) - 1 and len(set(hyp_grams[1])) == len(hyp_grams[1]):
        return found + _chained(hyp_grams[1], bigram_at, max_len)
    ref_slices = [reference, reference[1:]]
    for order in range(2, max_len + 1):
        if len(hyp_grams) < order:
            hyp_slices.append(hyp_slices[0][order - 1 :])
            hyp_grams.append(list(zip(*hyp_slices)))
        if order > 2:
            ref_slices.append(reference[order - 1 :])
        clipped = _clipped(hyp_grams[order - 1], zip(*ref_slices))
        if not clipped:
            break
        found.append(clipped)
    return found


def _chained(bigrams: list, bigram_at: dict, max_len: int) -> list[int]:
    """Clipped matches of orders 2 and up when neither side holds a bigram twice: the k-gram at i matches
    when the k - 1 bigrams from i are at consecutive reference positions (``bigram_at``)."""
    at = list(map(bigram_at.get, bigrams, repeat(-2)))  # -2: not in the reference
    found = [len(at) - at.count(-2)]
    follows = list(map(eq, at[1:], map(add, at[:-1], repeat(1))))  # -1 is no position
    runs = follows  # per start, whether the n-gram there matches (order 3 first)
    for order in range(3, max_len + 1):
        n_match = sum(runs)
        if not n_match:
            break
        found.append(n_match)
        runs = list(map(and_, runs[:-1], follows[order - 2 :]))
    return found


def _best(n_hyp_tokens: int, candidates: list, min_len: int, max_len: int) -> tuple[tuple, int]:
    """nltk's reference rule: the row and index of the first best of ``candidates`` (index, length, matches)."""
    n_hyp = ngram_counts(n_hyp_tokens, min_len, max_len)
    best, best_ratio, index = (0, 0, 0, 0), -1.0, -1
    for j, length, found in candidates:
        n_ref = ngram_counts(length, min_len, max_len)
        n_all = n_hyp if n_hyp > n_ref else n_ref
        if not n_all:
            continue  # not a candidate (nltk skips it)
        n_match = sum(found[min_len - 1 : max_len])
        share = n_match / n_all  # n_all > 0 here: no zero guard (stats.ratio) needed
        if share > best_ratio:  # the first best, as nltk's max keeps it
            best, best_ratio, index = (n_match, n_hyp, n_ref, n_all), share, j
    return best, index


def python_rows(hypotheses: list, list_of_references: list, min_len: int, max_len: int, by_order: bool = False) -> Any:
    """:func:`segment_rows` in plain Python: nltk's algorithm with set intersections."""
    spans = order_spans(min_len, max_len, by_order)
    results: list = [([], []) for _ in spans]
    for hypothesis, references in zip(hypotheses, list_of_references):
        if type(hypothesis) not in (list, tuple):  # arrays, Series: slice and zip as lists
            hypothesis = list(hypothesis)
        n_hyp_tokens = len(hypothesis)
        hyp_slices, hyp_grams = [hypothesis], [hypothesis]
        candidates = []
        for j, reference in enumerate(references):
            length = len(reference)
            if length < min_len and n_hyp_tokens < min_len:
                continue  # no n-gram on either side: a candidate for no order
            if type(reference) not in (list, tuple):
                reference = list(reference)
            candidates.append((j, length, _matches(hyp_slices, hyp_grams, reference, max_len)))
        for (low, high), (rows, chosen) in zip(spans, results):
            row, index = _best(n_hyp_tokens, candidates, low, high)
            rows.append(row)
            chosen.append(index)
    return results if by_order else results[0]


def order_spans(min_len: int, max_len: int, by_order: bool) -> list[tuple[int, int]]:
    """The spans of orders one walk scores: ``min_len-max_len``, then with ``by_order`` each order ``n-n`` alone."""
    return [(min_len, max_len)] + ([(n, n) for n in range(min_len, max_len + 1)] if by_order else [])


def pair_counts(group: np.ndarray, sentence: np.ndarray, n_sentences: int) -> tuple[Any, Any]:
    """Per entry, a representative entry of its (n-gram, sentence) pair, and per entry how many it represents."""
    key = group * n_sentences
    key += sentence
    pair = group_keys(key)
    return pair, np.bincount(pair, minlength=int(pair.shape[0]))


class Step:
    """One order of a :func:`walk`: per entry (n-gram occurrence) its label ``group`` in ``0..n-1`` and its
    ``position``, the first side's ``n_first`` first. The consumer sets ``live`` (per label: may extend)."""

    __slots__ = ("order", "counted", "group", "position", "n", "n_first", "live")


def walk(group: np.ndarray, same_sentence: np.ndarray, min_len: int, max_len: int, n_first: int = 0) -> Iterator[Step]:
    """The one order loop of the n-gram walk: from order-1 labels ``group`` (``same_sentence``: whether
    positions p and p + 1 share a sentence), one :class:`Step` per order; the live n-grams extend.

    Example:
        >>> for step in walk(np.array([0, 1, 0, 1, 4]), np.ones(4, bool), 1, 4):  # a b a b c
        ...     print(step.order, step.position.tolist())
        ...     step.live = np.bincount(step.group, minlength=step.n) > 1  # occurs twice: extends
        1 [0, 1, 2, 3, 4]
        2 [0, 1, 2]
    """
    step, n = Step(), int(group.shape[0])
    step.group, step.position, step.n, step.n_first = group, np.arange(n, dtype=np.int64), n, n_first
    for order in range(1, max_len + 1 if n else 1):
        step.order, step.counted, step.live = order, order >= min_len, None
        yield step
        if order == max_len or step.live is None:
            return
        # The (n+1)-gram at p: the live n-grams at p and p + 1 in one sentence, keyed by their labels.
        live_at = np.take(step.live, step.group)
        extends = live_at[:-1] & live_at[1:]
        extends &= same_sentence if order == 1 else np.diff(step.position) == 1
        kept = np.flatnonzero(extends)
        key = np.take(step.group, kept)
        key *= step.n
        key += np.take(step.group[1:], kept)  # the label at kept + 1
        step.group, step.position = group_keys(key), np.take(step.position, kept)
        step.n, step.n_first = int(kept.shape[0]), int(np.searchsorted(kept, step.n_first))
        if step.n == 0:
            return


def clip(hyp_count: np.ndarray, ref_count: np.ndarray) -> np.ndarray:
    """``min(h, r)``: nltk's clip (:func:`_clipped` on lists)."""
    return np.minimum(hyp_count, ref_count)


def count_matches(
    group: Any, sentence_of: Any, n_hyp_pos: int, n_sentences: int, one_ref: bool, min_len: int, max_len: int,
    by_order: bool = False,
) -> Any:
    """Clipped n-gram matches of every reference sentence (0 for hypotheses), per order with ``by_order``, from the
    order-1 ``group`` of each position and its sentence (``sentence_of``, the hypotheses' positions first)."""
    n_rows = max_len - min_len + 1 if by_order else 1
    matches = np.zeros(n_rows * n_sentences, np.int64)
    n_segments = n_sentences // 2  # with one reference each: hypotheses, then references
    same_sentence = sentence_of[1:] == sentence_of[:-1]
    for step in walk(group, same_sentence, min_len, max_len, n_hyp_pos):
        group, position, n, n_hyp = step.group, step.position, step.n, step.n_first
        hyp_count = np.bincount(group[:n_hyp], minlength=n)
        ref_group = group[n_hyp:]
        ref_count = np.bincount(ref_group, minlength=n)
        step.live = live = (hyp_count > 0) & (ref_count > 0)
        if not step.counted:
            continue
        if one_ref:
            # A live group's reference occurrences lie in its segment's one reference: sentence n_segments + segment.
            found = np.flatnonzero(live)
            ref_sentence = np.take(sentence_of, np.take(position, found))
            ref_sentence = np.where(ref_sentence < n_segments, ref_sentence + n_segments, ref_sentence)
            clipped = clip(np.take(hyp_count, found), np.take(ref_count, found))
        else:
            # Each (n-gram, reference) pair, over the reference occurrences of the hypothesis' n-grams.
            hyp_at = np.take(hyp_count, ref_group)
            found = np.flatnonzero(hyp_at > 0)
            ref_sentence = np.take(sentence_of, np.take(position[n_hyp:], found))
            pair, pair_count = pair_counts(np.take(ref_group, found), ref_sentence, n_sentences)
            clipped = clip(np.take(hyp_at, found), pair_count)  # nonzero at one entry per pair
        row = step.order - min_len if by_order else 0
        sums = np.bincount(ref_sentence, weights=clipped.astype(np.float64), minlength=n_sentences)  # exact
        matches[row * n_sentences : (row + 1) * n_sentences] += sums.astype(np.int64)
    return matches.reshape(n_rows, n_sentences) if by_order else matches


def choose_references(
    matches: Any, lengths: Any, n_segments: int, ref_segment: Any, first_ref: Any, min_len: int, max_len: int,
    present: Any = None,
) -> tuple[Any, Any]:
    """Per segment its int64 row and the reference nltk keeps (-1: none), from per sentence (hypotheses first) its
    ``matches`` and ``lengths``, per reference its segment and whether it exists, per segment its first reference."""
    counts = ngram_counts(lengths, min_len, max_len)
    n_hyp, ref_count, ref_match = counts[:n_segments], counts[n_segments:], matches[n_segments:]
    ref_all = np.maximum(n_hyp[ref_segment], ref_count)
    candidate = ref_all > 0 if present is None else (ref_all > 0) & present
    ratios = np.where(candidate, ratio(ref_match, ref_all), -1.0)  # below every ratio
    best_ratio = np.maximum.reduceat(ratios, first_ref)
    n_refs = int(ref_segment.shape[0])
    first_best = np.where(ratios == best_ratio[ref_segment], np.arange(n_refs, dtype=np.int64), n_refs)
    best = np.minimum.reduceat(first_best, first_ref)
    scored = best_ratio >= 0
    rows = np.stack((ref_match[best], n_hyp, ref_count[best], ref_all[best]), axis=1)
    rows = np.where(scored[:, None], rows, 0)
    chosen = np.where(scored, best - first_ref, -1)
    return rows, chosen


def segment_rows(hypotheses: list, list_of_references: list, min_len: int, max_len: int, by_order: bool = False) -> Any:
    """``(rows, chosen)`` of checked token input, lists or int64 arrays: per segment its row and the index of the
    reference nltk keeps (-1: none); with ``by_order``, one pair per span of :func:`order_spans`."""
    all_references = list(chain.from_iterable(list_of_references))
    n_tokens = sum(map(len, hypotheses)) + sum(map(len, all_references))
    if small_input(n_tokens):
        check_token_kinds(chain(chain.from_iterable(hypotheses), *all_references))
        return python_rows(hypotheses, list_of_references, min_len, max_len, by_order)
    n_segments = len(hypotheses)
    hyp_lengths = np.fromiter(map(len, hypotheses), np.int64, n_segments)
    n_refs = np.fromiter(map(len, list_of_references), np.int64, n_segments)
    ref_lengths = np.fromiter(map(len, all_references), np.int64, len(all_references))

    def groups(start: int, stop: int, ref_start: int, ref_stop: int, lengths: np.ndarray, segment_of: np.ndarray):
        return token_groups(hypotheses[start:stop] + all_references[ref_start:ref_stop], lengths, segment_of)

    return rows_by_chunk(groups, hyp_lengths, n_refs, ref_lengths, min_len, max_len, by_order)


def stored_segment_rows(
    store: Any, hypotheses: np.ndarray, references: np.ndarray, n_refs: np.ndarray, min_len: int, max_len: int,
    by_order: bool = False,
) -> Any:
    """:func:`segment_rows` of lines of a :class:`~google_bleu.keys.LineStore`, by their indices there: the
    hypotheses, and the references one after the other (``n_refs`` per segment, at least one)."""

    def groups(start: int, stop: int, ref_start: int, ref_stop: int, lengths: np.ndarray, segment_of: np.ndarray):
        lines = np.concatenate((hypotheses[start:stop], references[ref_start:ref_stop]))
        return store.groups(lines, lengths, segment_of)

    hyp_lengths, ref_lengths = np.take(store.counts, hypotheses), np.take(store.counts, references)
    return rows_by_chunk(groups, hyp_lengths, n_refs, ref_lengths, min_len, max_len, by_order)


def rows_by_chunk(
    groups: Any, hyp_lengths: np.ndarray, n_refs: np.ndarray, ref_lengths: np.ndarray, min_len: int, max_len: int,
    by_order: bool = False,
) -> Any:
    """:func:`segment_rows` with numpy, by chunks of whole segments; ``groups(start, stop, ref_start, ref_stop,
    lengths, segment_of)`` gives the order-1 groups of those segments, their hypotheses then their references."""
    n_segments = len(hyp_lengths)
    spans = order_spans(min_len, max_len, by_order)
    rows = np.zeros((len(spans), n_segments, 4), np.int64)
    chosen = np.full((len(spans), n_segments), -1, np.int64)
    first_ref = np.cumsum(n_refs) - n_refs
    segment_tokens = hyp_lengths + np.add.reduceat(ref_lengths, first_ref)  # every segment has a reference
    for start, stop in chunks(segment_tokens, CHUNK_TOKENS):
        chunk_refs, n_chunk = n_refs[start:stop], stop - start
        ref_start = int(first_ref[start])
        ref_stop = ref_start + int(chunk_refs.sum())
        lengths = np.concatenate((hyp_lengths[start:stop], ref_lengths[ref_start:ref_stop]))
        n_sentences = lengths.size
        chunk_segments = np.arange(n_chunk, dtype=np.int64)
        segment_of_sentence = np.concatenate((chunk_segments, np.repeat(chunk_segments, chunk_refs)))
        sentence_of = np.repeat(np.arange(n_sentences, dtype=np.int64), lengths)
        group = groups(start, stop, ref_start, ref_stop, lengths, np.take(segment_of_sentence, sentence_of))
        n_hyp_pos = int(lengths[:n_chunk].sum())
        one_ref = bool((chunk_refs == 1).all())
        matches = count_matches(group, sentence_of, n_hyp_pos, n_sentences, one_ref, min_len, max_len, by_order)
        chunk_first = first_ref[start:stop] - ref_start
        # Orders' matches add up: the whole span's are their sum.
        per_span = [matches.sum(axis=0), *matches] if by_order else [matches]
        for k, ((low, high), order_matches) in enumerate(zip(spans, per_span)):
            rows[k, start:stop], chosen[k, start:stop] = choose_references(
                order_matches, lengths, n_chunk, segment_of_sentence[n_chunk:], chunk_first, low, high
            )
    return list(zip(rows, chosen)) if by_order else (rows[0], chosen[0])
