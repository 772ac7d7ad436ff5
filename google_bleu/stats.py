"""Sufficient statistics of Google-BLEU: the one representation everything is built on.

Each segment becomes one row of four integers: ``n_match`` (clipped n-gram matches
against the chosen reference), ``n_hyp`` (hypothesis n-grams), ``n_ref`` (n-grams of
the chosen reference) and ``n_all = max(n_hyp, n_ref)``. A segment that nltk leaves out
of the sums (no n-gram on either side for every reference) is a row of zeros, so it
adds nothing. Corpus scores, sentence scores, precision, recall, resampling, batching
and distributed reduction are all sums or slices of these rows.

``n_all`` is stored rather than derived because the corpus denominator is the sum of
per-segment maxima (Wu et al. 2016, via nltk's ``corpus_gleu``), which cannot be
recovered from ``sum(n_hyp)`` and ``sum(n_ref)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from .validation import check_orders

#: Column order of :attr:`GleuStats.rows`.
COLUMNS = ("n_match", "n_hyp", "n_ref", "n_all")


def _ratio(numerator: int, denominator: int) -> float:
    # Python int division: correctly rounded, identical to nltk's arithmetic.
    return numerator / denominator if denominator else 0.0


class GleuStats:
    """Per-segment GLEU statistics for one setting of n-gram orders.

    Args:
        rows: Integer array of shape ``(n_segments, 4)`` with columns :data:`COLUMNS`.
        min_len: Lowest n-gram order the rows were counted with.
        max_len: Highest n-gram order the rows were counted with.

    Adding two ``GleuStats`` concatenates their segments; ``sum()`` works too. A
    corpus reduced to one row (:meth:`total`) has the same corpus score, precision and
    recall as the full corpus.

    Example:
        >>> from google_bleu import gleu_stats
        >>> stats = gleu_stats([["the", "cat"], ["a"]], [[["the", "cat"]], [["b"]]])
        >>> stats.rows.tolist()
        [[3, 3, 3, 3], [0, 1, 1, 1]]
        >>> stats.score()
        0.75
        >>> (stats[:1] + stats[1:]).score() == stats.total().score()
        True
    """

    __slots__ = ("rows", "min_len", "max_len")

    def __init__(self, rows: Any, min_len: int = 1, max_len: int = 4) -> None:
        self.min_len, self.max_len = check_orders(min_len, max_len)
        array = np.asarray(rows)
        if array.ndim != 2 or array.shape[1] != len(COLUMNS):
            raise ValueError(f"rows must have shape (n_segments, {len(COLUMNS)}), got shape {array.shape}")
        if array.size and not np.issubdtype(array.dtype, np.integer):
            raise TypeError(f"rows must hold integers, got dtype {array.dtype}")
        self.rows = array.astype(np.int64, copy=False)
        self.rows.setflags(write=False)

    # -- construction ---------------------------------------------------------
    @classmethod
    def empty(cls, min_len: int = 1, max_len: int = 4) -> GleuStats:
        """Statistics of an empty corpus."""
        return cls(np.zeros((0, len(COLUMNS)), np.int64), min_len, max_len)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GleuStats:
        """Inverse of :meth:`to_dict`."""
        missing = [key for key in (*COLUMNS, "min_len", "max_len") if key not in data]
        if missing:
            raise ValueError(f"GleuStats dict is missing keys {missing}")
        columns = [np.atleast_1d(np.asarray(data[key])) for key in COLUMNS]
        return cls(np.stack(columns, axis=1), data["min_len"], data["max_len"])

    # -- combination ----------------------------------------------------------
    def _check_compatible(self, other: GleuStats) -> None:
        if (self.min_len, self.max_len) != (other.min_len, other.max_len):
            raise ValueError(
                "cannot combine statistics counted with different orders: "
                f"{self.min_len}-{self.max_len} and {other.min_len}-{other.max_len}"
            )

    def __add__(self, other: Any) -> GleuStats:
        if not isinstance(other, GleuStats):
            return NotImplemented
        self._check_compatible(other)
        return GleuStats(np.concatenate([self.rows, other.rows]), self.min_len, self.max_len)

    def __radd__(self, other: Any) -> GleuStats:
        # Lets the builtin sum() start from 0.
        if isinstance(other, int) and other == 0:
            return self
        return NotImplemented

    @classmethod
    def concatenate(cls, parts: Iterable[GleuStats]) -> GleuStats:
        """Joins many statistics at once (faster than repeated ``+``)."""
        parts = list(parts)
        if not parts:
            raise ValueError("concatenate needs at least one GleuStats")
        for part in parts[1:]:
            parts[0]._check_compatible(part)
        return cls(np.concatenate([part.rows for part in parts]), parts[0].min_len, parts[0].max_len)

    def __len__(self) -> int:
        return int(self.rows.shape[0])

    def __getitem__(self, index: Any) -> GleuStats:
        rows = self.rows[index]
        if rows.ndim == 1:
            rows = rows[None, :]
        return GleuStats(rows, self.min_len, self.max_len)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GleuStats):
            return NotImplemented
        return (self.min_len, self.max_len) == (other.min_len, other.max_len) and np.array_equal(self.rows, other.rows)

    def __repr__(self) -> str:
        totals = dict(zip(COLUMNS, self.totals()))
        return f"GleuStats(segments={len(self)}, orders={self.min_len}-{self.max_len}, totals={totals})"

    # -- reduction and scores -------------------------------------------------
    def totals(self) -> tuple[int, int, int, int]:
        """Column sums as Python ints: ``(n_match, n_hyp, n_ref, n_all)``."""
        sums = self.rows.sum(axis=0, dtype=np.int64)
        return tuple(int(value) for value in sums)  # type: ignore[return-value]

    def total(self) -> GleuStats:
        """The corpus reduced to one row of sums."""
        return GleuStats(np.asarray([self.totals()], np.int64), self.min_len, self.max_len)

    def score(self) -> float:
        """Corpus GLEU: ``sum(n_match) / sum(n_all)``; 0.0 when nothing was counted."""
        n_match, _, _, n_all = self.totals()
        return _ratio(n_match, n_all)

    def precision(self) -> float:
        """Corpus precision: ``sum(n_match) / sum(n_hyp)``; 0.0 when nothing was counted."""
        n_match, n_hyp, _, _ = self.totals()
        return _ratio(n_match, n_hyp)

    def recall(self) -> float:
        """Corpus recall: ``sum(n_match) / sum(n_ref)``; 0.0 when nothing was counted."""
        n_match, _, n_ref, _ = self.totals()
        return _ratio(n_match, n_ref)

    def sentence_scores(self) -> np.ndarray:
        """GLEU of each segment (``n_match / n_all``, 0.0 where ``n_all == 0``)."""
        n_match = self.rows[:, 0].astype(np.float64)
        n_all = self.rows[:, 3].astype(np.float64)
        out = np.zeros(len(self), np.float64)
        np.divide(n_match, n_all, out=out, where=n_all > 0)
        return out

    # -- serialisation --------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The corpus totals and orders as plain Python values (JSON-ready)."""
        return {**dict(zip(COLUMNS, self.totals())), "min_len": self.min_len, "max_len": self.max_len}
