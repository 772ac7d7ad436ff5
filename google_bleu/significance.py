"""Bootstrap intervals and paired tests of corpus GLEU, resampling :class:`GleuStats` rows (docs/statistics.md).

Example:
    >>> from google_bleu import GLEU
    >>> stats = GLEU().stats(["the cat sat", "a dog ran off", "hello"], ["the cat sat down", "a dog ran", "hi"])
    >>> low, high = bootstrap_ci(stats, n_bootstrap=200, seed=1)
    >>> low <= stats.score() <= high
    True
    >>> paired_bootstrap_p(stats, stats, n_samples=99), paired_randomization_p(stats, stats, n_samples=99)
    (1.0, 1.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .imports import lazy_module
from .stats import GleuStats, check_stats, ratio
from .validation import check_n_samples, check_seed, check_sequence

np = lazy_module("numpy")

# sacrebleu's defaults: the seed, bootstrap resamples, approximate-randomization trials.
DEFAULT_SEED = 12345
DEFAULT_N_BOOTSTRAP = 1000
DEFAULT_N_RANDOMIZATION = 10000
TESTS = ("bs", "ar")

_BLOCK_CELLS = 1 << 21  # index counts of one block of resampled corpora (bounds the memory)
_EXACT_LIMIT = 1 << 53  # float64 (BLAS) column sums are exact below it


def check_bootstrap(n_bootstrap: Any, seed: Any) -> tuple[int | None, int | None]:
    """A number of bootstrap resamples (``None``: no interval) and a seed, checked."""
    return (None if n_bootstrap is None else check_n_samples(n_bootstrap, "n_bootstrap")), check_seed(seed)


def _check_paired(baseline: GleuStats, system: Any, name: str = "system") -> GleuStats:
    check_stats(system, name, (baseline.min_len, baseline.max_len))
    if len(baseline) != len(system):
        raise ValueError(f"paired statistics need the same segments: baseline has {len(baseline)}, {name} {len(system)}")
    return system


def _scores(totals: np.ndarray) -> np.ndarray:
    """Corpus GLEU of each row of column sums (exact in float64: :meth:`GleuStats.score`'s bits)."""
    return ratio(totals[..., 0], totals[..., 3])


def _as_float_rows(rows: np.ndarray) -> np.ndarray:
    # Every resampled sum is at most n_segments * max|row|: exact in float64 below 2**53.
    if len(rows) and int(np.abs(rows).max()) * len(rows) >= _EXACT_LIMIT:
        raise ValueError("statistics too large to resample exactly (sums reach 2**53)")
    return rows.astype(np.float64)


def _block_size(n_segments: int) -> int:
    return max(1, _BLOCK_CELLS // max(n_segments, 1))


def _resampled_totals(rows: np.ndarray, n_samples: int, seed: int | None) -> np.ndarray:
    """Column sums of ``n_samples`` bootstrap corpora of ``rows``; the draws depend only on (seed, N, n_samples)."""
    n_segments = rows.shape[0]
    out = np.zeros((n_samples, rows.shape[1]), np.float64)
    if n_segments == 0:
        return out
    rng = np.random.default_rng(seed)
    values = _as_float_rows(rows)
    block = _block_size(n_segments)
    for start in range(0, n_samples, block):
        size = min(block, n_samples - start)
        indices = rng.integers(0, n_segments, size=(size, n_segments))
        indices += np.arange(size)[:, None] * n_segments
        counts = np.bincount(indices.ravel(), minlength=size * n_segments).reshape(size, n_segments)
        out[start : start + size] = counts.astype(np.float64) @ values
    return out


def bootstrap_scores(stats: GleuStats, n_samples: int = DEFAULT_N_BOOTSTRAP, seed: int | None = DEFAULT_SEED) -> np.ndarray:
    """Corpus GLEU of ``n_samples`` bootstrap resamples of the segments, each ``==`` ``GleuStats(drawn).score()``.

    Example:
        >>> from google_bleu import gleu_stats
        >>> stats = gleu_stats([["a", "b"], ["c"]], [[["a", "b"]], [["d"]]])
        >>> sorted(set(bootstrap_scores(stats, 50, seed=0).round(4).tolist()))
        [0.0, 0.75, 1.0]
    """
    stats = check_stats(stats, "stats")
    n_samples, seed = check_n_samples(n_samples), check_seed(seed)
    return _scores(_resampled_totals(stats.rows, n_samples, seed))


def percentile_interval(scores: np.ndarray) -> tuple[float, float]:
    """The 95% percentile interval of resampled scores: sacrebleu's ``[n // 40]`` and ``[n - n // 40 - 1]``.

    Example:
        >>> percentile_interval(np.arange(1000) / 1000)
        (0.025, 0.974)
    """
    values = np.sort(np.asarray(scores, np.float64))
    if values.size == 0:
        raise ValueError("percentile_interval needs at least one score")
    lower = values.size // 40
    return float(values[lower]), float(values[values.size - lower - 1])


def bootstrap_ci(stats: GleuStats, n_bootstrap: int = DEFAULT_N_BOOTSTRAP, seed: int | None = DEFAULT_SEED) -> tuple[float, float]:
    """The 95% bootstrap interval ``(ci_low, ci_high)`` of corpus GLEU; ``(0.0, 0.0)`` for an empty corpus.

    Example:
        >>> from google_bleu import GLEU
        >>> stats = GLEU().stats(["the cat sat on the mat"] * 5, ["the cat ate the mat"] * 5)
        >>> bootstrap_ci(stats) == (stats.score(), stats.score())
        True
    """
    n_bootstrap = check_n_samples(n_bootstrap, "n_bootstrap")
    return checked_bootstrap_ci(check_stats(stats, "stats"), n_bootstrap, check_seed(seed))


def checked_bootstrap_ci(stats: GleuStats, n_bootstrap: int, seed: int | None) -> tuple[float, float]:
    """:func:`bootstrap_ci` of arguments already checked (by :meth:`~google_bleu.GLEU.score_stats`, ...)."""
    return percentile_interval(_scores(_resampled_totals(stats.rows, n_bootstrap, seed)))


def _p_value(count: int, n_samples: int) -> float:
    return (count + 1) / (n_samples + 1)  # never 0 (sacrebleu's, after multeval)


def paired_bootstrap_p(
    baseline: GleuStats, system: GleuStats, n_samples: int = DEFAULT_N_BOOTSTRAP, seed: int | None = DEFAULT_SEED
) -> float:
    """Two-sided paired bootstrap p-value of the corpus GLEU difference (docs/statistics.md)."""
    system = _check_paired(check_stats(baseline, "baseline"), system)
    n_samples, seed = check_n_samples(n_samples), check_seed(seed)
    return _bootstrap_p(baseline, system, _stacked_bootstrap_scores([baseline, system], n_samples, seed))


def _stacked_bootstrap_scores(systems: Sequence[GleuStats], n_samples: int, seed: int | None) -> np.ndarray:
    # [n_samples, n_systems] scores on the same resampled corpora; column k == bootstrap_scores(systems[k], ...).
    rows = np.hstack([stats.rows for stats in systems])
    return _scores(_resampled_totals(rows, n_samples, seed).reshape(n_samples, len(systems), 4))


def _bootstrap_p(baseline: GleuStats, system: GleuStats, resampled: np.ndarray) -> float:
    # resampled: [n_samples, 2] scores of (baseline, system) on the same corpora.
    observed = _scores(np.asarray([baseline.totals(), system.totals()], np.float64))
    delta = observed[1] - observed[0]
    deltas = resampled[:, 1] - resampled[:, 0]
    count = int(np.count_nonzero(np.abs(deltas - delta) >= abs(delta)))
    return _p_value(count, len(deltas))


def paired_randomization_p(
    baseline: GleuStats, system: GleuStats, n_samples: int = DEFAULT_N_RANDOMIZATION, seed: int | None = DEFAULT_SEED
) -> float:
    """Two-sided approximate-randomization p-value of the corpus GLEU difference (docs/statistics.md)."""
    system = _check_paired(check_stats(baseline, "baseline"), system)
    return _randomization_p(baseline, system, check_n_samples(n_samples), check_seed(seed))


def _randomization_p(baseline: GleuStats, system: GleuStats, n_samples: int, seed: int | None) -> float:
    n_segments = len(baseline)
    base_total, sys_total = (np.asarray(stats.totals(), np.float64) for stats in (baseline, system))
    observed = abs(float(_scores(sys_total) - _scores(base_total)))
    if n_segments == 0:
        return 1.0
    difference = _as_float_rows(system.rows - baseline.rows)
    rng = np.random.default_rng(seed)
    block = _block_size(n_segments)
    count = 0
    for start in range(0, n_samples, block):
        size = min(block, n_samples - start)
        swap = rng.integers(2, size=(size, n_segments), dtype=bool)
        # Each trial's corpora: baseline + swap @ (system - baseline), and system - the same.
        moved = swap.astype(np.float64) @ difference
        statistic = np.abs(_scores(base_total + moved) - _scores(sys_total - moved))
        count += int(np.count_nonzero(statistic >= observed))
    return _p_value(count, n_samples)


def paired_intervals(
    systems: Sequence[GleuStats], test: str = "bs", n_samples: int | None = None, seed: int | None = DEFAULT_SEED,
    n_bootstrap: int = DEFAULT_N_BOOTSTRAP,
) -> tuple[list[tuple[float, float, float | None]], int, int, int | None]:
    """Each system's 95% interval and p-value against the first (the baseline).

    Args:
        test: ``"bs"`` (paired bootstrap resampling) or ``"ar"`` (approximate randomization).
        n_samples: Resamples (bs, default 1000) or trials (ar, default 10000).
        n_bootstrap: Resamples behind each interval for ``"ar"`` (``"bs"`` uses the test's own).

    Returns:
        ``([(ci_low, ci_high, p_value), ...], n_samples, n_bootstrap, seed)``: per system a triple that depends
        only on it and the baseline (whose ``p_value`` is None), then the counts and seed used.

    Example:
        >>> from google_bleu import GLEU
        >>> refs = ["the cat sat on the mat", "a dog ran", "hello there"]
        >>> base = GLEU().stats(["the cat sat on a mat", "a dog", "hello"], refs)
        >>> [p for _, _, p in paired_intervals([base, base], n_samples=100)[0]]
        [None, 1.0]
    """
    if test not in TESTS:
        raise ValueError(f"test must be one of {list(TESTS)}, got {test!r}")
    check_sequence(systems, "systems", "a sequence of GleuStats, the baseline first")
    if not systems:
        raise ValueError("systems is empty: a paired test needs at least one system (the baseline)")
    baseline = check_stats(systems[0], "systems[0]")
    systems = [baseline, *(_check_paired(baseline, stats, f"systems[{i}]") for i, stats in enumerate(systems[1:], 1))]
    default = DEFAULT_N_BOOTSTRAP if test == "bs" else DEFAULT_N_RANDOMIZATION
    n_samples = default if n_samples is None else check_n_samples(n_samples)
    n_bootstrap = n_samples if test == "bs" else check_n_samples(n_bootstrap, "n_bootstrap")
    return checked_paired_intervals(systems, test, n_samples, check_seed(seed), n_bootstrap)


def checked_paired_intervals(
    systems: Sequence[GleuStats], test: str, n_samples: int, seed: int | None, n_bootstrap: int
) -> tuple[list[tuple[float, float, float | None]], int, int, int | None]:
    """:func:`paired_intervals` of arguments already checked (``n_samples`` resolved)."""
    baseline, n_bootstrap = systems[0], n_samples if test == "bs" else n_bootstrap
    # One draw for all systems, each paired with the baseline's column.
    resampled = _stacked_bootstrap_scores(systems, n_bootstrap, seed)
    results = [(*percentile_interval(resampled[:, 0]), None)]
    for index, stats in enumerate(systems[1:], 1):
        if test == "bs":
            p_value = _bootstrap_p(baseline, stats, resampled[:, [0, index]])
        else:
            p_value = _randomization_p(baseline, stats, n_samples, seed)
        results.append((*percentile_interval(resampled[:, index]), p_value))
    return results, n_samples, n_bootstrap, seed
