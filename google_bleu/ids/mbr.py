"""Minimum Bayes risk selection with GLEU: exact expected scores, or reference aggregation (``docs/mbr.md``)."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..counting import ngram_counts, pair_counts, walk
from ..settings import GLEU, scorer_from_options
from ..stats import ratio
from ..validation import check_bool, describe, is_tensor
from .means import carry, integer_weights, limb_value, to_limbs, weighted_means
from .pairwise import Prepared, ngram_groups, prepare, score_matrix

__all__ = ["MbrResult", "mbr_select"]


def aggregate_scores(prepared: Prepared, weights: list[int], exclude: bool, min_len: int, max_len: int) -> np.ndarray:
    """Per candidate, its GLEU against the pseudo-references' weighted mean n-gram counts (docs/mbr.md).

    Exact: with integer weights ``W`` summing to ``D_i``, ``min(h, r_g)`` is ``h`` where ``sum_j W_j c_jg >= h * D_i``,
    else that sum over ``D_i``, so the score is one quotient of integers (weighted counts summed in limbs).
    """
    within = prepared.ref is None
    hyp = prepared.hyp
    ref = hyp if within else prepared.ref
    n_left = hyp.lengths.size
    lengths = hyp.lengths if within else np.concatenate((hyp.lengths, ref.lengths))
    n_sentences = lengths.size
    n_pos = int(lengths.sum())
    n_inputs = hyp.inverse.size
    # Integer weights per distinct pseudo-reference sentence, and what each input leaves out.
    sentence_weights = [0] * ref.lengths.size
    for j, sentence in enumerate(ref.inverse.tolist()):
        sentence_weights[sentence] += weights[j]
    own = weights if exclude else [0] * n_inputs
    total = sum(weights)
    denominators = [total - value for value in own]
    n_hyp = ngram_counts(hyp.lengths, min_len, max_len).tolist()
    ref_totals = ngram_counts(ref.lengths, min_len, max_len).tolist()
    weighted_total = sum(weight * count for weight, count in zip(sentence_weights, ref_totals))
    hyp_sentence = hyp.inverse.tolist()
    # With exclude the candidates are the pseudo-references: candidate i's sentence is its own.
    mean_totals = [weighted_total - (own[i] * ref_totals[hyp_sentence[i]] if exclude else 0) for i in range(n_inputs)]
    # Limbs: every float64 sum below is of integers under 2**50 (a carry may add 2**51).
    width = max(1, 50 - max(n_pos, 1).bit_length())
    bits = max(total, 1).bit_length() + max(n_pos, 1).bit_length() + 1
    count = -(-bits // width)
    weight_limbs = to_limbs(sentence_weights, width, count)  # [count, sentences]
    own_limbs = to_limbs(own, width, count)  # [count, inputs]
    denominator_limbs = to_limbs([max(value, 0) for value in denominators], width, count)
    capped_h, kept_sums = np.zeros(n_inputs), np.zeros((count, n_inputs))
    by_sentence = np.argsort(hyp.inverse, kind="stable")
    inputs_of = np.bincount(hyp.inverse, minlength=n_left)
    if n_pos:
        sentence_of = np.repeat(np.arange(n_sentences, dtype=np.int64), lengths)
        limbs = (weight_limbs, own_limbs, denominator_limbs)
        capped_h, kept_sums = _aggregate_orders(
            ngram_groups(prepared, lengths), sentence_of, n_left, 0 if within else n_left, *limbs, inputs_of,
            by_sentence, width, min_len, max_len,
        )
    expected = np.zeros(n_inputs)
    if count == 1 and (max(total, 1) * max(n_pos, 1)) << 2 < 1 << 53:
        # Every number below fits float64 exactly: one correctly rounded division each.
        denominator = np.array(denominators, np.float64)
        n_all = np.take(np.array(n_hyp, np.float64), hyp.inverse) * denominator
        n_all = np.maximum(n_all, np.array(mean_totals, np.float64))
        # A denominator of 0 (every other weight 0) makes n_all 0: ratio's 0.0.
        return ratio(capped_h * denominator + kept_sums[0], n_all)
    for i in range(n_inputs):
        denominator = denominators[i]
        n_all = max(n_hyp[hyp_sentence[i]] * denominator, mean_totals[i])
        expected[i] = ratio(int(capped_h[i]) * denominator + limb_value(kept_sums[:, i], width), n_all)
    return expected


def _aggregate_orders(
    group: np.ndarray, sentence_of: np.ndarray, n_left: int, ref_offset: int, weight_limbs: np.ndarray,
    own_limbs: np.ndarray, denominator_limbs: np.ndarray, inputs_of: np.ndarray, by_sentence: np.ndarray,
    width: int, min_len: int, max_len: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Per candidate input, the sum of its capped counts ``h`` and (in limbs) of its weighted pseudo-reference
    counts where those are below ``h``."""
    n_inputs = by_sentence.size
    count = weight_limbs.shape[0]
    capped_h = np.zeros(n_inputs)
    kept_sums = np.zeros((count, n_inputs))
    for step in walk(group, sentence_of[1:] == sentence_of[:-1], min_len, max_len):
        group, n = step.group, step.n
        sentence = np.take(sentence_of, step.position)
        # Weighted sum of the pseudo-references' counts of each n-gram (group), per limb.
        on_ref = sentence >= ref_offset
        ref_group = group[on_ref]
        ref_sentence = sentence[on_ref] - ref_offset
        ref_sum = np.stack(
            [np.bincount(ref_group, weights=np.take(limb, ref_sentence), minlength=n) for limb in weight_limbs]
        )
        # Count each (n-gram, candidate sentence) pair once.
        on_hyp = np.flatnonzero(sentence < n_left)
        hyp_group = np.take(group, on_hyp)
        pair_sentence_all = np.take(sentence, on_hyp)
        _, pair_count = pair_counts(hyp_group, pair_sentence_all, n_left)
        found = np.flatnonzero(pair_count)
        pair_group = np.take(hyp_group, found)
        pair_sentence = np.take(pair_sentence_all, found)
        h = pair_count[found].astype(np.float64)
        if step.counted:
            # Every input of the pair's sentence gets the pair (its own leave-one-out mean).
            n_each = np.take(inputs_of, pair_sentence)
            which = np.repeat(np.arange(found.size), n_each)
            first = np.cumsum(inputs_of) - inputs_of
            rank = np.arange(which.size) - np.repeat(np.cumsum(n_each) - n_each, n_each)
            target = np.take(by_sentence, np.take(first, np.take(pair_sentence, which)) + rank)
            h_each = np.take(h, which)
            # kept = sum over the other pseudo-references of weight x count, exactly.
            kept = np.take(ref_sum, np.take(pair_group, which), axis=1) - np.take(own_limbs, target, axis=1) * h_each
            # min(h, kept / D) is h where kept - h * D >= 0 (the sign of the top limb, once carried).
            difference = carry(kept - np.take(denominator_limbs, target, axis=1) * h_each, width)
            capped = difference[-1] >= 0
            capped_h += np.bincount(target[capped], weights=h_each[capped], minlength=n_inputs)
            kept = carry(kept[:, ~capped], width)
            for k in range(count):
                kept_sums[k] += np.bincount(target[~capped], weights=kept[k], minlength=n_inputs)
        if step.order < max_len:
            # Only an n-gram in some candidate and some weighted pseudo-reference can extend.
            live = np.zeros(n, bool)
            live[pair_group] = True
            live &= ref_sum.any(axis=0)
            step.live = live
    return capped_h, kept_sums


class MbrResult(NamedTuple):
    """What :func:`mbr_select` chose, and why."""

    index: int
    #: The chosen candidate, as given (a text, a token sequence or a tensor row).
    candidate: Any
    #: float64 numpy ``[N]`` whatever the input: each candidate's expected GLEU.
    expected_scores: np.ndarray


def _check_weights(weights: Any, n: int, name: str) -> np.ndarray:
    if is_tensor(weights):
        weights = weights.detach().cpu().numpy()
    if isinstance(weights, (str, bytes)):
        raise TypeError(f"weights must be a sequence of numbers, got {describe(weights)}")
    try:
        array = np.asarray(weights)
    except (TypeError, ValueError):
        raise TypeError(f"weights must be a sequence of numbers, got {describe(weights)}") from None
    if array.ndim != 1:
        raise ValueError(f"weights must be 1-D (one per {name[:-1]}), got shape {list(array.shape)}")
    if array.size and array.dtype.kind not in "iuf":
        raise TypeError(f"weights must be real numbers, got {array.dtype} values such as {array[0]!r}")
    if array.size != n:
        raise ValueError(f"got {array.size} weights but {n} {name}")
    array = array.astype(np.float64)
    if not np.isfinite(array).all():
        raise ValueError(f"weights must be finite, got {float(array[~np.isfinite(array)][0])!r}")
    if (array < 0).any():
        raise ValueError(f"weights must be non-negative, got {float(array[array < 0][0])!r}")
    if not (array > 0).any():
        raise ValueError("weights must not all be zero")
    return array


def mbr_select(
    candidates: Any, pseudo_references: Any = None, *, weights: Any = None, include_self: bool = False,
    aggregate: bool = False, scorer: GLEU | None = None, pad_id: int | None = None, candidate_lengths: Any = None,
    reference_lengths: Any = None, **settings: Any,
) -> MbrResult:
    """Minimum Bayes risk selection: the candidate with the highest expected GLEU, the weighted mean of its
    sentence GLEU against the pseudo-references, exact and rounded once; the first best wins a tie (docs/mbr.md).

    Args:
        candidates: ``N >= 1`` texts, token sequences or a 2-D id tensor (as in :func:`pairwise_gleu`).
        pseudo_references: ``M`` of the same kind, or None: the candidates, each not counted against itself.
        weights: One non-negative finite weight per pseudo-reference, not all zero (default: equal).
        include_self: With ``pseudo_references=None``, count a candidate against itself.
        aggregate: Score each candidate once against the weighted mean n-gram counts (N + M, approximate).
        scorer: As for :func:`pairwise_gleu`; so are ``pad_id``, the lengths and ``**settings``.

    Example:
        >>> candidates = [["a", "b", "c"], ["a", "b"], ["x", "y"]]
        >>> mbr_select(candidates).index
        0
        >>> mbr_select(candidates, weights=[0, 1, 1]).expected_scores.tolist()
        [0.25, 0.0, 0.0]
        >>> approximate = mbr_select(candidates, aggregate=True)  # N + M, and not always the same pick
        >>> approximate.index, approximate.expected_scores.round(4).tolist()
        (1, [0.25, 0.3333, 0.0])
        >>> mbr_select(candidates, weights=[1, 1, -1])
        Traceback (most recent call last):
        ...
        ValueError: weights must be non-negative, got -1.0
    """
    check_bool(include_self, "include_self")
    check_bool(aggregate, "aggregate")
    scorer = scorer_from_options(scorer, settings, caller="mbr_select")
    min_len, max_len = scorer.min_len, scorer.max_len
    names = ("candidates", "pseudo_references", "candidate_lengths", "reference_lengths")
    prepared = prepare(  # aggregation counts on the host
        candidates, pseudo_references, scorer, pad_id, candidate_lengths, reference_lengths, names, not aggregate
    )
    n_candidates = prepared.hyp.inverse.size
    if n_candidates == 0:
        raise ValueError("candidates must hold at least one candidate, got none")
    within = pseudo_references is None
    if include_self and not within:
        raise ValueError("include_self applies when the candidates are their own pseudo-references")
    n_refs = n_candidates if within else prepared.ref.inverse.size
    if n_refs == 0:
        raise ValueError("pseudo_references must hold at least one pseudo-reference, got none")
    ref_name = "candidates" if within else "pseudo_references"
    w = [1] * n_refs if weights is None else integer_weights(_check_weights(weights, n_refs, ref_name))
    exclude = within and not include_self
    if aggregate:
        expected = aggregate_scores(prepared, w, exclude, min_len, max_len)
    else:
        scores = score_matrix(prepared, min_len, max_len)
        if prepared.device is not None:
            scores = scores.cpu().numpy()
        expected = weighted_means(scores, w, exclude)
    index = int(np.argmax(expected))
    return MbrResult(index, candidates[index], expected)
