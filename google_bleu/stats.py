""":class:`GleuStats`, one row of four integers per segment, and :func:`ratio` (docs/design.md, "The statistics")."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .imports import lazy_module
from .validation import check_orders, describe, integer, is_sequence

np = lazy_module("numpy")

#: Column order of :attr:`GleuStats.rows`.
COLUMNS = ("n_match", "n_hyp", "n_ref", "n_all")


def ratio(numerator: Any, denominator: Any) -> Any:
    """``numerator / denominator`` of integers (ints, numpy arrays or torch tensors), 0.0 where the denominator
    is 0, each quotient correctly rounded as Python's ``int / int`` (nltk's).

    Example:
        >>> ratio(1, 3), ratio(0, 0), ratio(np.array([1, 0]), np.array([4, 0])).tolist()
        (0.3333333333333333, 0.0, [0.25, 0.0])
    """
    if type(denominator) is int or isinstance(denominator, np.integer):
        return numerator / denominator if denominator else 0.0
    if isinstance(denominator, np.ndarray):
        out = np.zeros(np.broadcast(numerator, denominator).shape, np.float64)
        return np.divide(numerator, denominator, out=out, where=denominator > 0)
    # A torch tensor (torch is not imported here).
    quotient = numerator.double() / denominator.clamp(min=1).double()
    return quotient.where(denominator > 0, quotient.new_zeros(()))


class GleuStats:
    """Per-segment GLEU statistics: ``rows`` of shape ``(n_segments, 4)``; ``+`` (and ``sum()``) joins segments.

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

    __slots__ = ("_rows", "_index", "min_len", "max_len")

    def __init__(self, rows: Any, min_len: int = 1, max_len: int = 4, reference_index: Any = None) -> None:
        self.min_len, self.max_len = check_orders(min_len, max_len)
        self._rows = _check_rows(rows)
        self._rows.setflags(write=False)
        self._index = None if reference_index is None else _check_reference_index(reference_index, len(self))

    @classmethod
    def trusted(cls, rows: Any, min_len: int, max_len: int, reference_index: Any = None) -> GleuStats:
        """Statistics from the engine or already checked; ``rows`` and ``reference_index`` may be lists."""
        stats = cls.__new__(cls)
        stats.min_len, stats.max_len = min_len, max_len
        stats._rows, stats._index = rows, reference_index
        return stats

    @property
    def rows(self) -> np.ndarray:
        """The ``int64`` rows, shape ``(n_segments, 4)``, columns :data:`COLUMNS` (read only)."""
        if type(self._rows) is list:
            self._rows = np.array(self._rows, np.int64).reshape(-1, len(COLUMNS))
        self._rows.setflags(write=False)
        return self._rows

    @property
    def reference_index(self) -> np.ndarray | None:
        """Per segment, the index of the chosen reference (-1: none is a candidate); ``None`` when not known."""
        if type(self._index) is list:
            self._index = np.array(self._index, np.int64)
        if self._index is not None:
            self._index.setflags(write=False)
        return self._index

    @classmethod
    def empty(cls, min_len: int = 1, max_len: int = 4) -> GleuStats:
        """Statistics of an empty corpus."""
        return cls(np.zeros((0, len(COLUMNS)), np.int64), min_len, max_len, np.zeros(0, np.int64))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GleuStats:
        """Inverse of :meth:`to_dict`."""
        missing = [key for key in (*COLUMNS, "min_len", "max_len") if key not in data]
        if missing:
            raise ValueError(f"GleuStats dict is missing keys {missing}")
        columns = [np.atleast_1d(np.asarray(data[key])) for key in COLUMNS]
        return cls(np.stack(columns, axis=1), data["min_len"], data["max_len"])

    def __add__(self, other: Any) -> GleuStats:
        return GleuStats.concatenate([self, other]) if isinstance(other, GleuStats) else NotImplemented

    def __radd__(self, other: Any) -> GleuStats:
        return self if isinstance(other, int) and other == 0 else NotImplemented  # sum() starts from 0

    @classmethod
    def concatenate(cls, parts: Iterable[GleuStats]) -> GleuStats:
        """Joins many statistics at once (faster than repeated ``+``)."""
        parts = list(parts)
        if not parts:
            raise ValueError("concatenate needs at least one GleuStats")
        for i, part in enumerate(parts):
            check_stats(part, f"parts[{i}]", (parts[0].min_len, parts[0].max_len))
        rows = np.concatenate([part.rows for part in parts])
        _check_totals(rows)
        indices = [part.reference_index for part in parts]
        index = None if any(i is None for i in indices) else np.concatenate(indices)
        return cls.trusted(rows, parts[0].min_len, parts[0].max_len, index)

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, index: Any) -> GleuStats:
        if isinstance(index, tuple):
            raise TypeError("GleuStats takes one index (segments), not a tuple")
        rows = self.rows[index]
        chosen = None if self.reference_index is None else self.reference_index[index]
        if rows.ndim == 1:
            rows = rows[None, :]
            chosen = None if chosen is None else np.atleast_1d(chosen)
        return GleuStats.trusted(rows, self.min_len, self.max_len, chosen)

    def __eq__(self, other: object) -> bool:
        # Equal orders and rows; and equal chosen references where both sides know them.
        if not isinstance(other, GleuStats):
            return NotImplemented
        if (self.min_len, self.max_len) != (other.min_len, other.max_len) or not np.array_equal(self.rows, other.rows):
            return False
        known = self.reference_index is not None and other.reference_index is not None
        return not known or np.array_equal(self.reference_index, other.reference_index)

    def __repr__(self) -> str:
        totals = dict(zip(COLUMNS, self.totals()))
        return f"GleuStats(segments={len(self)}, orders={self.min_len}-{self.max_len}, totals={totals})"

    def totals(self) -> tuple[int, int, int, int]:
        """Column sums as Python ints: ``(n_match, n_hyp, n_ref, n_all)``."""
        if type(self._rows) is list:  # the engine's plain-Python rows: no numpy needed
            return tuple(map(sum, zip(*self._rows))) if self._rows else (0, 0, 0, 0)  # type: ignore[return-value]
        sums = self._rows.sum(axis=0, dtype=np.int64)  # the constructor checked that they fit
        return tuple(int(value) for value in sums)  # type: ignore[return-value]

    def total(self) -> GleuStats:
        """The corpus reduced to one row of sums."""
        return GleuStats.summed([self])

    @classmethod
    def summed(cls, parts: Iterable[GleuStats]) -> GleuStats:
        """All ``parts`` reduced to one row of exact sums, checked to fit int64: every path adds statistics here.

        Example:
            >>> GleuStats.summed([GleuStats([[1, 2, 3, 3]]), GleuStats([[2, 2, 2, 2]])]).rows.tolist()
            [[3, 4, 5, 5]]
        """
        parts = list(parts)
        if not parts:
            raise ValueError("summed needs at least one GleuStats")
        orders = (parts[0].min_len, parts[0].max_len)
        sums = [0] * len(COLUMNS)
        for i, part in enumerate(parts):
            check_stats(part, f"parts[{i}]", orders)
            sums = [total + value for total, value in zip(sums, part.totals())]
        if max(sums) > _INT64_MAX:
            raise ValueError(f"the statistics' totals {sums} do not fit in int64")
        return cls.trusted([sums], *orders)  # a list row: numpy is imported only when the rows are read

    def score(self) -> float:
        """Corpus GLEU: ``sum(n_match) / sum(n_all)``; 0.0 when nothing was counted."""
        n_match, _, _, n_all = self.totals()
        return ratio(n_match, n_all)

    def precision(self) -> float:
        """Corpus precision: ``sum(n_match) / sum(n_hyp)``; 0.0 when nothing was counted."""
        n_match, n_hyp, _, _ = self.totals()
        return ratio(n_match, n_hyp)

    def recall(self) -> float:
        """Corpus recall: ``sum(n_match) / sum(n_ref)``; 0.0 when nothing was counted."""
        n_match, _, n_ref, _ = self.totals()
        return ratio(n_match, n_ref)

    def sentence_scores(self) -> np.ndarray:
        """GLEU of each segment (``n_match / n_all``, 0.0 where ``n_all == 0``)."""
        return ratio(self.rows[:, 0], self.rows[:, 3])

    def segment_scores(self) -> list[tuple[float, float, float]]:
        """``(gleu, precision, recall)`` of each segment, as Python floats.

        Example:
            >>> GleuStats([[1, 2, 4, 4]]).segment_scores()
            [(0.25, 0.5, 0.25)]
        """
        rows = self._rows if type(self._rows) is list else self._rows.tolist()
        return [(ratio(m, a), ratio(m, h), ratio(m, r)) for m, h, r, a in rows]

    def to_dict(self) -> dict[str, Any]:
        """The corpus totals and orders as plain Python values (JSON-ready)."""
        return {**dict(zip(COLUMNS, self.totals())), "min_len": self.min_len, "max_len": self.max_len}


def check_stats(stats: Any, name: str, orders: tuple[int, int] | None = None) -> GleuStats:
    """``stats`` when it is a :class:`GleuStats` (counted with ``orders``, when given).

    Example:
        >>> check_stats(GleuStats.empty(1, 4), "systems[1]", (1, 2))
        Traceback (most recent call last):
        ...
        ValueError: systems[1] were counted with orders 1-4, not 1-2: statistics of different orders do not combine
    """
    if not isinstance(stats, GleuStats):
        raise TypeError(f"{name} must be a GleuStats, got {describe(stats)}")
    if orders is not None and (stats.min_len, stats.max_len) != orders:
        counted = f"{name} were counted with orders {stats.min_len}-{stats.max_len}, not {orders[0]}-{orders[1]}"
        raise ValueError(f"{counted}: statistics of different orders do not combine")
    return stats


_INT64_MAX = (1 << 63) - 1


def _check_rows(rows: Any) -> np.ndarray:
    """Rows from outside the engine, checked to be rows GLEU can produce (a segment's or a sum), totals in int64."""
    if isinstance(rows, GleuStats):
        return rows.rows
    if isinstance(rows, (list, tuple)):  # rows from Python (a harness's log): each one checked
        for i, row in enumerate(rows):
            if not is_sequence(row) or isinstance(row, (str, bytes)) or len(row) != len(COLUMNS) or None in map(integer, row):
                raise TypeError(f"rows[{i}] must be a row of {len(COLUMNS)} integers ({', '.join(COLUMNS)}), got {describe(row)}")
        rows = np.array([list(map(integer, row)) for row in rows] or np.zeros((0, len(COLUMNS))), dtype=object)
    try:
        array = np.asarray(rows)
    except (TypeError, ValueError) as error:
        raise TypeError(f"rows must be an integer array of shape (n_segments, {len(COLUMNS)}): {error}") from None
    if array.ndim == 0:
        raise TypeError(f"rows must be a sequence of statistics rows ({', '.join(COLUMNS)}), got {describe(rows)}")
    if array.ndim != 2 or array.shape[1] != len(COLUMNS):
        raise ValueError(f"rows must have shape (n_segments, {len(COLUMNS)}), got shape {array.shape}")
    # Python ints (dtype object) may be too large for int64: checked below.
    python_ints = array.dtype.kind == "O" and all(isinstance(v, int) and not isinstance(v, bool) for v in array.ravel())
    if array.size and array.dtype.kind not in "iu" and not python_ints:
        raise TypeError(f"rows must hold integers, got dtype {array.dtype}")
    if array.size and (int(array.max()) > _INT64_MAX or int(array.min()) < 0):
        raise ValueError(f"rows must hold counts from 0 to 2**63 - 1, got values from {int(array.min())} to {int(array.max())}")
    array = array.astype(np.int64, copy=False)
    if array.size:
        n_match, n_hyp, n_ref, n_all = array.T
        bad = (n_match > np.minimum(n_hyp, n_ref)) | (n_all < np.maximum(n_hyp, n_ref)) | (n_all - n_hyp > n_ref)
        bad = np.flatnonzero(bad)
        if bad.size:
            row = f"rows[{int(bad[0])}] = {array[bad[0]].tolist()}"
            raise ValueError(f"{row} is not a GLEU statistics row (n_match, n_hyp, n_ref, n_all): it needs n_match <= min(n_hyp, n_ref) and max(n_hyp, n_ref) <= n_all <= n_hyp + n_ref")
    _check_totals(array)
    return array


def _check_totals(rows: np.ndarray) -> None:
    if len(rows) and int(rows.max(initial=0)) > _INT64_MAX // len(rows):  # the sums might not fit
        totals = [sum(column) for column in rows.T.tolist()]
        if max(totals) > _INT64_MAX:
            raise ValueError(f"the statistics' totals {totals} do not fit in int64")


def _check_reference_index(values: Any, n_segments: int) -> np.ndarray:
    array = np.asarray(values)
    if array.shape != (n_segments,) or (array.size and array.dtype.kind not in "iu"):
        raise ValueError(f"reference_index must hold one integer per segment ({n_segments}), got {array.dtype} {array.shape}")
    array = array.astype(np.int64)
    if array.size and int(array.min()) < -1:
        raise ValueError(f"reference_index must be -1 (no candidate) or a reference's index, got {int(array.min())}")
    array.setflags(write=False)
    return array
