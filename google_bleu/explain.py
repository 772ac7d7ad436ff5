"""Why one segment scores what it does: the chosen reference and the matched n-grams.

For one hypothesis and its references this recounts the segment's statistics with plain
Python counters (a segment is small) and records *which* n-gram occurrences are the
clipped matches, so a person can see them highlighted. The numbers are the engine's:
the same ``(n_match, n_hyp, n_ref, n_all)`` row and the same reference choice (nltk's
``max`` over ``n_match / n_all``, the first reference on a tie; references with
``n_all == 0`` are not candidates).

Which occurrences of a repeated n-gram count as matched is not defined by the metric,
only how many: here the first ``min(hyp count, ref count)`` occurrences, left to right,
on each side.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from .validation import check_orders, check_tokens

Tokens = Sequence[Hashable]


@dataclass(frozen=True)
class Explanation:
    """The statistics of one segment and the n-gram occurrences behind them.

    Attributes:
        hypothesis: The hypothesis tokens.
        reference: The chosen reference's tokens (the first reference when none is a
            candidate).
        reference_index: Index of the chosen reference, ``None`` when every reference
            has ``n_all == 0`` (the segment is left out of the sums).
        n_match: Clipped n-gram matches against the chosen reference.
        n_hyp: Hypothesis n-grams of orders ``min_len..max_len``.
        n_ref: Chosen reference's n-grams.
        n_all: ``max(n_hyp, n_ref)``.
        hyp_matches: ``(start, order)`` of every matched n-gram occurrence in the
            hypothesis; there are exactly ``n_match`` of them.
        ref_matches: The same for the chosen reference.
        min_len: Lowest n-gram order.
        max_len: Highest n-gram order.
    """

    hypothesis: tuple
    reference: tuple
    reference_index: int | None
    n_match: int
    n_hyp: int
    n_ref: int
    n_all: int
    hyp_matches: tuple[tuple[int, int], ...]
    ref_matches: tuple[tuple[int, int], ...]
    min_len: int
    max_len: int

    @property
    def row(self) -> tuple[int, int, int, int]:
        """``(n_match, n_hyp, n_ref, n_all)``, the segment's row in :class:`GleuStats`."""
        return (self.n_match, self.n_hyp, self.n_ref, self.n_all)

    def score(self) -> float:
        """Sentence GLEU: ``n_match / n_all`` (0.0 when ``n_all == 0``)."""
        return self.n_match / self.n_all if self.n_all else 0.0

    def hypothesis_orders(self) -> list[int]:
        """Per hypothesis token, the longest matched n-gram covering it (0: none)."""
        return _coverage(len(self.hypothesis), self.hyp_matches)

    def reference_orders(self) -> list[int]:
        """Per chosen-reference token, the longest matched n-gram covering it (0: none)."""
        return _coverage(len(self.reference), self.ref_matches)


def _coverage(length: int, matches: Sequence[tuple[int, int]]) -> list[int]:
    orders = [0] * length
    for start, order in matches:
        for position in range(start, start + order):
            orders[position] = max(orders[position], order)
    return orders


def _occurrences(tokens: Tokens, min_len: int, max_len: int) -> dict[tuple, list[int]]:
    """Start positions of each n-gram, in order, for all orders ``min_len..max_len``."""
    found: dict[tuple, list[int]] = defaultdict(list)
    tokens = tuple(tokens)
    for order in range(min_len, min(max_len, len(tokens)) + 1):
        for start in range(len(tokens) - order + 1):
            found[tokens[start : start + order]].append(start)
    return found


def explain(hypothesis: Tokens, references: Sequence[Tokens], min_len: int = 1, max_len: int = 4) -> Explanation:
    """Explains one segment: the chosen reference and its matched n-grams.

    Args:
        hypothesis: The hypothesis tokens.
        references: One or more reference token sequences.
        min_len: Lowest n-gram order (default 1).
        max_len: Highest n-gram order (default 4).

    Returns:
        An :class:`Explanation` whose :attr:`~Explanation.row` equals the engine's row
        for this segment.

    Raises:
        TypeError: For a bare string where tokens are expected.
        ValueError: For no reference or bad orders.

    Example:
        >>> e = explain("the cat sat on the mat".split(), ["a dog".split(), "the cat ate the mat".split()])
        >>> e.reference_index, e.row, e.score()
        (1, (6, 18, 14, 18), 0.3333333333333333)
        >>> e.hypothesis_orders()
        [2, 2, 0, 0, 2, 2]
        >>> sorted(e.hyp_matches)
        [(0, 1), (0, 2), (1, 1), (4, 1), (4, 2), (5, 1)]
    """
    min_len, max_len = check_orders(min_len, max_len)
    (hypothesis,), (references,) = check_tokens([hypothesis], [references])
    hyp_found = _occurrences(hypothesis, min_len, max_len)
    n_hyp = sum(map(len, hyp_found.values()))
    candidates = []
    for index, reference in enumerate(references):
        ref_found = _occurrences(reference, min_len, max_len)
        n_ref = sum(map(len, ref_found.values()))
        clipped = Counter({gram: min(len(starts), len(ref_found[gram])) for gram, starts in hyp_found.items()})
        n_match = sum(clipped.values())
        n_all = max(n_hyp, n_ref)
        if n_all > 0:
            candidates.append((n_match / n_all, index, n_match, n_ref, n_all, ref_found, clipped))
    if not candidates:
        return Explanation(tuple(hypothesis), tuple(references[0]), None, 0, 0, 0, 0, (), (), min_len, max_len)
    # nltk: max(..., key=ratio) keeps the first reference among equal ratios.
    best = max(candidates, key=lambda candidate: candidate[0])
    _, index, n_match, n_ref, n_all, ref_found, clipped = best
    hyp_matches = []
    ref_matches = []
    for gram, count in clipped.items():
        if count:
            order = len(gram)
            hyp_matches.extend((start, order) for start in hyp_found[gram][:count])
            ref_matches.extend((start, order) for start in ref_found[gram][:count])
    return Explanation(
        tuple(hypothesis),
        tuple(references[index]),
        index,
        n_match,
        n_hyp,
        n_ref,
        n_all,
        tuple(sorted(hyp_matches)),
        tuple(sorted(ref_matches)),
        min_len,
        max_len,
    )
