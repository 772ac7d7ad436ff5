"""Exact corpus GLEU over datasets, Ray Data and Daft columns.

Corpus GLEU is ``sum(n_match) / sum(n_all)``, so any engine that can map segments to
:class:`GleuStats` rows and sum them computes the exact corpus score.
:class:`GleuColumns` is a function for ``datasets.Dataset.map(..., batched=True, num_proc=N)``
  and for Ray Data's ``Dataset.map_batches`` (numpy or pandas batches) that adds the
  per-row statistics and sentence score as columns, and its :meth:`GleuColumns.reduce`
  from those columns back to the exact corpus statistics (on Ray, by Ray's own ``sum``);
  :meth:`GleuColumns.arrow` gives the columns as one Arrow struct array, for a Daft batch UDF.

datasets, ray, daft and pyarrow are imported only when used (never here).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..scorer import GLEU, scorer_from_options
from ..stats import COLUMNS, GleuStats
from ..validation import describe, import_optional, integer

#: Column of the sentence score added by :class:`GleuColumns` (the metric's key).
SCORE_COLUMN = "google_bleu"


class GleuColumns:
    """A batch function adding GLEU statistics columns, and their reducer: for ``datasets``
    and Ray Data alike.

    Called on a batch (``batched=True``) or a single row, it returns the columns
    ``n_match``, ``n_hyp``, ``n_ref``, ``n_all`` (:data:`~google_bleu.stats.COLUMNS`) and
    ``google_bleu`` (the sentence score). The settings live in the object (a
    :class:`~google_bleu.scorer.GLEU`), so the same object reduces the columns again with
    the orders they were counted with. It pickles with its scorer,
    so ``num_proc=N`` and Ray workers work.

    The batch decides the shape of the answer:

    - a mapping of lists (``datasets.Dataset.map``): a dict of the new columns as lists
      (``datasets`` merges them into the rows);
    - a mapping of numpy arrays (Ray Data's ``batch_format="numpy"``): the batch's own
      columns plus the new ones as numpy arrays (Ray keeps only what the function returns);
    - a pandas DataFrame (``batch_format="pandas"``): a copy with the new columns.

    :meth:`arrow` gives the same columns as one Arrow struct array, the return value of a
    Daft batch method (``@daft.method.batch(return_dtype=..., unnest=True)``).

    Args:
        predictions: Name of the column of predictions (strings).
        references: Name of the column of references (a string or a list of strings per row).
        scorer: The settings, a :class:`~google_bleu.GLEU` (default ``GLEU()``).

    Example:
        >>> columns = GleuColumns()
        >>> batch = {"predictions": ["the cat sat on the mat", "the cat"],
        ...          "references": [["the cat ate the mat"], ["the cat"]]}
        >>> columns(batch)
        {'n_match': [6, 3], 'n_hyp': [18, 3], 'n_ref': [14, 3], 'n_all': [18, 3], 'google_bleu': [0.3333333333333333, 1.0]}
        >>> columns.reduce(columns(batch)).score()
        0.42857142857142855
        >>> import numpy as np
        >>> ray_batch = {"id": np.array([7, 8]), "predictions": np.array(["a b", ""], dtype=object),
        ...              "references": np.array([np.array(["a b", "a"]), np.array(["x"])], dtype=object)}
        >>> out = columns(ray_batch)
        >>> list(out), out["n_match"].tolist(), out["google_bleu"].tolist()
        (['id', 'predictions', 'references', 'n_match', 'n_hyp', 'n_ref', 'n_all', 'google_bleu'], [3, 0], [1.0, 0.0])
    """

    def __init__(self, predictions: str = "predictions", references: str = "references", scorer: GLEU | None = None) -> None:
        for name, value in (("predictions", predictions), ("references", references)):
            if not isinstance(value, str):
                raise TypeError(f"{name} must be a column name (str), got {describe(value)}")
        self.predictions = predictions
        self.references = references
        self.scorer = scorer_from_options(scorer)  # a value: it pickles to every worker with its settings

    def __repr__(self) -> str:
        return f"GleuColumns(predictions={self.predictions!r}, references={self.references!r}, scorer={self.scorer!r})"

    def stats(self, batch: Any) -> GleuStats:
        """The :class:`GleuStats` of a batch of rows (a mapping of columns or a DataFrame)."""
        columns = _column_names(batch)
        for name in (self.predictions, self.references):
            if name not in columns:
                raise ValueError(f"column {name!r} not found; the batch has columns {sorted(columns)}")
        predictions = _plain(batch[self.predictions])
        references = [_plain(refs) for refs in _plain(batch[self.references])]
        return self.scorer.stats(predictions, references)

    def __call__(self, batch: Any) -> Any:
        """The new columns for a batch (lists, numpy arrays or a DataFrame) or a single row (scalars)."""
        if _is_dataframe(batch):
            stats = self.stats(batch)
            frame = batch.copy()
            for i, name in enumerate(COLUMNS):
                frame[name] = stats.rows[:, i]
            frame[SCORE_COLUMN] = stats.sentence_scores()
            return frame
        if not isinstance(batch, Mapping):
            raise TypeError(f"batch must be a mapping of columns or a pandas DataFrame, got {describe(batch)}")
        single = isinstance(batch.get(self.predictions), str)
        if single:
            batch = {self.predictions: [batch[self.predictions]], self.references: [batch[self.references]]}
        stats = self.stats(batch)
        if isinstance(batch.get(self.predictions), np.ndarray):
            # Ray Data's numpy batches: keep every column (Ray keeps only what is returned).
            arrays: dict[str, Any] = dict(batch)
            arrays[self.references] = _arrow_friendly(batch[self.references])
            arrays.update({name: stats.rows[:, i].copy() for i, name in enumerate(COLUMNS)})
            arrays[SCORE_COLUMN] = stats.sentence_scores()
            return arrays
        output: dict[str, Any] = {name: stats.rows[:, i].tolist() for i, name in enumerate(COLUMNS)}
        output[SCORE_COLUMN] = stats.sentence_scores().tolist()
        if single:
            output = {name: values[0] for name, values in output.items()}
        return output

    def arrow(self, predictions: Any, references: Any) -> Any:
        """The new columns of a batch as one ``pyarrow.StructArray`` (fields ``n_match``,
        ``n_hyp``, ``n_ref``, ``n_all`` as int64 and ``google_bleu`` as float64).

        Args:
            predictions: The batch's predictions: a list, numpy array, pandas Series, Arrow
                array or Daft ``Series`` of strings.
            references: Per row a string or a list of strings, in any of those containers.

        Example:
            >>> GleuColumns().arrow(["a b", "x"], [["a b"], ["y"]]).to_pylist()[0]
            {'n_match': 3, 'n_hyp': 3, 'n_ref': 3, 'n_all': 3, 'google_bleu': 1.0}
        """
        pa = import_optional("pyarrow", None, "GleuColumns.arrow", "pip install pyarrow (Ray Data, Daft and datasets bring it)")

        stats = self.scorer.stats(_values(predictions), [_values(refs) for refs in _values(references)])
        arrays = [pa.array(stats.rows[:, i], pa.int64()) for i in range(len(COLUMNS))]
        arrays.append(pa.array(stats.sentence_scores(), pa.float64()))
        return pa.StructArray.from_arrays(arrays, names=[*COLUMNS, SCORE_COLUMN])

    def reduce(self, columns: Any) -> GleuStats:
        """The exact corpus statistics from the columns :meth:`__call__` added.

        Args:
            columns: A Ray ``Dataset`` (summed by Ray's own aggregation: only four integers
                reach this process), a ``datasets.Dataset`` (or a shard of one), or any
                mapping of the four statistics columns to sequences of ints.

        Returns:
            A one-row :class:`GleuStats` with the corpus totals.
        """
        if _is_ray_dataset(columns):
            return ray_stats(columns, self.scorer.min_len, self.scorer.max_len)
        return stats_from_columns(columns, self.scorer.min_len, self.scorer.max_len)


def _is_dataframe(batch: Any) -> bool:
    return type(batch).__name__ == "DataFrame" and hasattr(batch, "iloc") and hasattr(batch, "columns")


def _is_ray_dataset(value: Any) -> bool:
    return type(value).__module__.startswith("ray.data") and hasattr(value, "aggregate")


def _column_names(batch: Any) -> list[str]:
    if _is_dataframe(batch):
        return [str(name) for name in batch.columns]
    return list(batch)


def _plain(values: Any) -> Any:
    """Python lists of str from numpy arrays and pandas Series (Ray hands out both)."""
    if isinstance(values, np.ndarray) or (hasattr(values, "tolist") and hasattr(values, "iloc")):
        return values.tolist()
    return values


def _values(values: Any) -> Any:
    """Python lists from Arrow arrays and Daft Series (``to_pylist``) and from numpy and pandas."""
    if hasattr(values, "to_pylist") and not isinstance(values, (str, list)):
        return values.to_pylist()
    return _plain(values)


def _arrow_friendly(references: np.ndarray) -> np.ndarray:
    # Ray gives ragged list columns as object arrays of arrays, which it cannot turn back
    # into Arrow; object arrays of lists it can.
    if references.dtype != object or not any(isinstance(refs, np.ndarray) for refs in references):
        return references
    out = np.empty(len(references), dtype=object)
    for i, refs in enumerate(references):
        out[i] = refs.tolist() if isinstance(refs, np.ndarray) else refs
    return out


def ray_stats(dataset: Any, min_len: int = 1, max_len: int = 4) -> GleuStats:
    """The one-row corpus :class:`GleuStats` of a Ray ``Dataset`` with the statistics columns.

    The four columns are summed by Ray (``Dataset.sum``, an int64 aggregation on the
    cluster); only the four totals travel to this process.

    Args:
        dataset: A Ray ``Dataset`` with integer columns ``n_match``, ``n_hyp``, ``n_ref``, ``n_all``.
        min_len: The lowest order the columns were counted with.
        max_len: The highest order the columns were counted with.
    """
    schema = dataset.schema()
    names = list(schema.names) if schema is not None else []
    missing = [name for name in COLUMNS if name not in names]
    if missing:
        raise ValueError(f"dataset has no columns {missing}; it has {names}")
    for name, kind in zip(schema.names, schema.types):
        if name in COLUMNS and not _is_integer_type(kind):
            raise TypeError(f"column {name!r} must hold integers, got {kind}")
    sums = dataset.sum(list(COLUMNS))
    if sums is None:  # an empty dataset
        return GleuStats(np.zeros((1, len(COLUMNS)), np.int64), min_len, max_len)
    totals = []
    for name in COLUMNS:
        value = sums[f"sum({name})"]
        if value is None:
            value = 0
        if integer(value) is None:
            raise TypeError(f"Ray summed column {name!r} to a non-integer {describe(value)}")
        totals.append(int(value))
    return GleuStats(np.asarray([totals], np.int64), min_len, max_len)


def _is_integer_type(kind: Any) -> bool:
    try:
        pa = import_optional("pyarrow", "ray", "an Arrow column type")
        if isinstance(kind, pa.DataType):
            return bool(pa.types.is_integer(kind))
    except ImportError:  # pragma: no cover - Ray Data needs pyarrow; a numpy type is read below
        pass
    return bool(np.issubdtype(np.dtype(kind), np.integer))


def stats_from_columns(columns: Any, min_len: int = 1, max_len: int = 4) -> GleuStats:
    """The one-row corpus :class:`GleuStats` of the columns ``n_match``, ``n_hyp``, ``n_ref``, ``n_all``.

    Args:
        columns: A ``datasets.Dataset`` or a mapping of column name to sequence of ints.
        min_len: The lowest order the columns were counted with.
        max_len: The highest order the columns were counted with.

    Example:
        >>> stats_from_columns({"n_match": [6, 3], "n_hyp": [18, 3], "n_ref": [14, 3], "n_all": [18, 3]}).totals()
        (9, 21, 17, 21)
    """
    if hasattr(columns, "with_format") and hasattr(columns, "column_names"):
        missing = [name for name in COLUMNS if name not in columns.column_names]
        if missing:
            raise ValueError(f"dataset has no columns {missing}; it has {columns.column_names}")
        columns = columns.select_columns(list(COLUMNS)).with_format("numpy")[:]
    elif not isinstance(columns, Mapping):
        raise TypeError(f"columns must be a datasets.Dataset or a mapping of columns, got {type(columns).__name__}")
    data = {name: np.asarray(columns[name]) if name in columns else None for name in COLUMNS}
    missing = [name for name, values in data.items() if values is None]
    if missing:
        raise ValueError(f"missing statistics columns {missing}; got {sorted(columns)}")
    lengths = {name: len(values) for name, values in data.items()}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"statistics columns must have one value per row each, got lengths {lengths}")
    for name, values in data.items():
        if values.size and not np.issubdtype(values.dtype, np.integer):
            raise TypeError(f"column {name!r} must hold integers, got dtype {values.dtype}")
    # Rows, then sums: GleuStats checks every value (uint64 above int64, negatives,
    # impossible rows) and that the totals fit, where a sum in int64 would wrap silently.
    if all(values.dtype.kind == "i" or not values.size for values in data.values()):
        rows = np.stack([data[name].astype(np.int64) for name in COLUMNS], axis=1)
    else:  # unsigned columns: their values as Python ints, so none wraps on the way
        rows = np.empty((lengths["n_match"], len(COLUMNS)), dtype=object)
        for j, name in enumerate(COLUMNS):
            rows[:, j] = data[name].tolist()
    return GleuStats(rows, min_len, max_len).total()
