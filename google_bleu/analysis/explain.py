"""Why one segment scores what it does (docs/python-api.md, "explain")."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from itertools import chain

from ..counting import clip, walk
from ..imports import lazy_module
from ..keys import token_ids
from ..tokens import check_tokens, checked_gleu_stats
from ..validation import check_orders, integer

np = lazy_module("numpy")

Tokens = Sequence[Hashable]


def _no_matches() -> np.ndarray:
    return np.zeros((0, 2), np.int64)


@dataclass(frozen=True, eq=False)
class Explanation:
    """The statistics of one segment and the n-gram occurrences behind them.

    Attributes:
        reference: The chosen reference's tokens (the first reference when none is a candidate).
        reference_index: Index of the chosen reference, ``None`` when no reference is a candidate.
        hyp_match_array: ``int64 (n_match, 2)``: ``(start, order)`` of every matched n-gram occurrence in
            the hypothesis, sorted (only those starting before :func:`explain`'s ``limit``, if any).
        ref_match_array: The same for the chosen reference.
    """

    hypothesis: tuple
    reference: tuple
    reference_index: int | None
    n_match: int
    n_hyp: int
    n_ref: int
    n_all: int
    min_len: int
    max_len: int
    hyp_match_array: np.ndarray = field(default_factory=lambda: _no_matches(), repr=False)
    ref_match_array: np.ndarray = field(default_factory=lambda: _no_matches(), repr=False)

    @property
    def row(self) -> tuple[int, int, int, int]:
        """``(n_match, n_hyp, n_ref, n_all)``, the segment's row in :class:`GleuStats`."""
        return (self.n_match, self.n_hyp, self.n_ref, self.n_all)

    @property
    def hyp_matches(self) -> tuple[tuple[int, int], ...]:
        """:attr:`hyp_match_array` as tuples, built on access (prefer the array for long segments)."""
        return tuple(map(tuple, self.hyp_match_array.tolist()))

    @property
    def ref_matches(self) -> tuple[tuple[int, int], ...]:
        """The same as :attr:`hyp_matches` for the chosen reference."""
        return tuple(map(tuple, self.ref_match_array.tolist()))

    def score(self) -> float:
        """Sentence GLEU: ``n_match / n_all`` (0.0 when ``n_all == 0``)."""
        return self.n_match / self.n_all if self.n_all else 0.0

    def hypothesis_orders(self, limit: int | None = None) -> list[int]:
        """Per hypothesis token (the first ``limit``), the longest matched n-gram covering it (0: none)."""
        return _coverage(len(self.hypothesis), self.hyp_match_array, limit)

    def reference_orders(self, limit: int | None = None) -> list[int]:
        """The same as :meth:`hypothesis_orders` for the chosen reference."""
        return _coverage(len(self.reference), self.ref_match_array, limit)

    def hypothesis_joins(self, limit: int | None = None) -> list[bool]:
        """Per pair of neighbouring hypothesis tokens (of the first ``limit``), whether a matched 2+-gram holds both."""
        return _joins(len(self.hypothesis), self.hyp_match_array, limit)

    def reference_joins(self, limit: int | None = None) -> list[bool]:
        """The same as :meth:`hypothesis_joins` for the chosen reference."""
        return _joins(len(self.reference), self.ref_match_array, limit)


def _joins(length: int, matches: np.ndarray, limit: int | None) -> list[bool]:
    # A matched n-gram at `start` joins the pairs start..start+n-2.
    if limit is not None:
        length = max(min(length, int(limit)), 0)
    edges = np.zeros(max(length, 1), np.int64)
    longer = matches[(matches[:, 1] >= 2) & (matches[:, 0] < length - 1)]
    np.add.at(edges, longer[:, 0], 1)
    np.add.at(edges, np.minimum(longer[:, 0] + longer[:, 1] - 1, length - 1), -1)
    return (np.cumsum(edges)[: max(length - 1, 0)] > 0).tolist()


def _coverage(length: int, matches: np.ndarray, limit: int | None) -> list[int]:
    # One pass per order, shortest first, so a longer order overwrites a shorter one.
    if limit is not None:
        length = max(min(length, int(limit)), 0)
    orders = np.zeros(length, np.int64)
    matches = matches[matches[:, 0] < length]
    starts, spans = matches[:, 0], matches[:, 1]
    for order in np.unique(spans).tolist():
        chosen = starts[spans == order]
        edges = np.zeros(length + 1, np.int64)
        np.add.at(edges, chosen, 1)
        np.add.at(edges, np.minimum(chosen + order, length), -1)
        orders[np.cumsum(edges[:-1]) > 0] = order
    return orders.tolist()


def _matched_occurrences(
    hypothesis: Sequence, reference: Sequence, min_len: int, max_len: int, limit: int | None
) -> tuple[np.ndarray, np.ndarray]:
    """Matched occurrences ``(start, order)`` in the hypothesis and in the reference, within ``limit``."""
    n_hyp_tokens = len(hypothesis)
    n = n_hyp_tokens + len(reference)  # entries (n-gram occurrences), and their labels' bound
    if n == 0:
        return _no_matches(), _no_matches()
    # Order 1: a token's group is the position of its first occurrence (exact, via a dict).
    group = token_ids(chain(hypothesis, reference), n)
    same_side = np.arange(n - 1) != n_hyp_tokens - 1  # positions p and p + 1 on one side
    found = []
    for step in walk(group, same_side, min_len, max_len, n_hyp_tokens):
        group, position, n, n_hyp = step.group, step.position, step.n, step.n_first
        counts = clip(np.bincount(group[:n_hyp], minlength=n), np.bincount(group[n_hyp:], minlength=n))
        step.live = counts > 0  # found on both sides: may extend
        if not step.counted:
            continue
        clip_at = counts[group]  # > 0: the n-gram occurs on both sides
        matched = np.flatnonzero(clip_at)
        start = position[matched]
        if limit is not None:
            # An occurrence's rank depends only on the occurrences before it on its side.
            kept = np.where(start < n_hyp_tokens, start, start - n_hyp_tokens) < limit
            matched, start = matched[kept], start[kept]
        # Rank each occurrence among the same n-gram on the same side, left to right;
        # the first `clip` of them are the matches.
        key = group[matched] * 2 + (matched >= n_hyp)
        by_key = np.argsort(key, kind="stable")
        key = key[by_key]
        run_start = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
        rank = np.arange(key.size) - np.repeat(run_start, np.diff(np.append(run_start, key.size)))
        keep = by_key[rank < clip_at[matched][by_key]]
        found.append(np.stack((start[keep], np.full(keep.size, step.order)), axis=1))
    if not found:
        return _no_matches(), _no_matches()
    everything = np.concatenate(found)
    everything = everything[np.lexsort((everything[:, 1], everything[:, 0]))]
    in_hyp = everything[:, 0] < n_hyp_tokens
    ref_side = everything[~in_hyp]
    ref_side[:, 0] -= n_hyp_tokens
    return everything[in_hyp], ref_side


def explain(
    hypothesis: Tokens, references: Sequence[Tokens], min_len: int = 1, max_len: int = 4, *, limit: int | None = None
) -> Explanation:
    """Explains one segment: the chosen reference and its matched n-grams.

    Args:
        limit: Keep only the matched occurrences that start among the first ``limit`` tokens of their
            side (the statistics still count every n-gram).

    Example:
        >>> e = explain("the cat sat on the mat".split(), ["a dog".split(), "the cat ate the mat".split()])
        >>> e.reference_index, e.row, e.score()
        (1, (6, 18, 14, 18), 0.3333333333333333)
        >>> e.hypothesis_orders()
        [2, 2, 0, 0, 2, 2]
        >>> e.hyp_matches
        ((0, 1), (0, 2), (1, 1), (4, 1), (4, 2), (5, 1))
        >>> explain("the cat sat on the mat".split(), ["the cat ate the mat".split()], limit=2).hyp_matches
        ((0, 1), (0, 2), (1, 1))
    """
    if limit is not None and (integer(limit) is None or limit < 0):
        raise ValueError(f"limit must be None or an integer >= 0, got {limit!r}")
    min_len, max_len = check_orders(min_len, max_len)
    (hypothesis,), (references,) = check_tokens([hypothesis], [references])  # tensors of ids become lists
    stats = checked_gleu_stats([hypothesis], [references], min_len, max_len)
    row = stats.rows[0].tolist()
    index = int(stats.reference_index[0])
    hypothesis = tuple(hypothesis)
    if index < 0:
        return Explanation(hypothesis, tuple(references[0]), None, 0, 0, 0, 0, min_len, max_len)
    reference = tuple(references[index])
    hyp_found, ref_found = _matched_occurrences(hypothesis, reference, min_len, max_len, limit)
    return Explanation(hypothesis, reference, index, *row, min_len, max_len, hyp_found, ref_found)
