"""Exact weighted means for MBR: integers summed in float64 "limbs" (limb k worth ``2**(width * k)``, no sum of
them reaching 2**53), and one correctly rounded ``int / int`` at the end (docs/mbr.md)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..stats import ratio


def integer_weights(w: np.ndarray) -> list[int]:
    """Integers in the same ratios as the float weights, exactly (``w[j] = W[j] * 2**e``)."""
    ratios = [weight.as_integer_ratio() for weight in w.tolist()]  # denominators: powers of two
    scale = max(denominator for _, denominator in ratios)
    integers = [numerator * (scale // denominator) for numerator, denominator in ratios]
    common = 0
    for value in integers:
        common |= value
    shift = (common & -common).bit_length() - 1  # the powers of two they all share
    return [value >> shift for value in integers]


def to_limbs(values: Sequence[int], width: int, count: int) -> np.ndarray:
    """``[count, len(values)]`` float64: the non-negative ``values`` in limbs of ``width`` bits."""
    mask = (1 << width) - 1
    limbs = [[(value >> (width * k)) & mask for value in values] for k in range(count)]
    return np.array(limbs, np.float64).reshape(count, len(values))


def carry(limbs: np.ndarray, width: int) -> np.ndarray:
    """The same numbers with every limb but the last in ``[0, 2**width)`` (the last keeps the
    sign); float64 operations on integers below 2**53, all exact."""
    out = limbs.copy()
    scale = float(1 << width)
    for k in range(len(out) - 1):
        carry = np.floor(out[k] / scale)
        out[k] -= carry * scale
        out[k + 1] += carry
    return out


def limb_value(limbs: Sequence[float], width: int) -> int:
    return sum(int(limb) << (width * k) for k, limb in enumerate(limbs))


def weighted_means(scores: np.ndarray, weights: list[int], exclude: bool) -> np.ndarray:
    """Per row ``i`` of the ``N x M`` scores, ``sum_j W[j] * scores[i, j] / sum_j W[j]`` (``j != i`` with
    ``exclude``), exact and rounded once; 0.0 where the weights sum to 0."""
    n, m = scores.shape
    x = scores.astype(np.float64, copy=True)
    if exclude:
        np.fill_diagonal(x, 0.0)
    # Every score is a float in [0, 1], so an integer multiple of 2**-bits for the finest
    # of their last bits (a score m/n of integers below 2**63 needs at most 116).
    positive = x[x > 0]
    bits = 53 - int(np.frexp(positive)[1].min()) if positive.size else 0
    # Limbs of ``width`` bits: a product of two is below 2**(2 * width) and M of them sum
    # below 2**53, so one float64 matrix product (BLAS, any order) sums them exactly.
    width = max(1, (52 - max(m, 1).bit_length()) // 2)
    n_score_limbs = max(1, -(-bits // width))
    weight_limbs = to_limbs(weights, width, max(1, -(-max(weights).bit_length() // width))).T  # [M, limbs]
    # sums[l][i, k] = sum_j (limb l of score ij, from the top) * (limb k of W[j])
    sums = []
    for _ in range(n_score_limbs):
        x *= float(1 << width)
        limb = np.floor(x)
        x -= limb
        sums.append((limb @ weight_limbs).tolist())
    total = sum(weights)
    expected = np.zeros(n, np.float64)
    for i in range(n):
        denominator = total - weights[i] if exclude else total
        numerator = 0
        for row in sums:
            numerator = (numerator << width) + sum(int(value) << (width * k) for k, value in enumerate(row[i]))
        expected[i] = ratio(numerator, denominator << (width * n_score_limbs))
    return expected
