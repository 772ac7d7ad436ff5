"""Exact corpus GLEU over datasets, Ray Data, Daft and Spark columns: :class:`GleuColumns`
(docs/scale.md). datasets, ray, daft and pyarrow are imported only when used."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..imports import import_optional
from ..settings import GLEU, scorer_from_options
from ..stats import COLUMNS, GleuStats
from ..validation import describe

#: Column of the sentence score added by :class:`GleuColumns` (the metric's key).
SCORE_COLUMN = "google_bleu"


class GleuColumns:
    """A batch function adding the statistics columns ``n_match``, ``n_hyp``, ``n_ref``, ``n_all``
    and ``google_bleu`` (the sentence score), and their reducer; it pickles with its scorer.

    A mapping of lists (``datasets``) gets the new columns as lists; numpy batches (Ray's
    ``batch_format="numpy"``) the batch's columns and the new ones; a pandas DataFrame a copy with the
    new columns; a ``pyarrow.Table`` only the new columns and those named in ``keep``. :meth:`arrow`
    gives them as one Arrow struct (Daft, Spark's ``mapInArrow``). ``predictions`` and ``references``
    name columns.

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

    def __init__(
        self, predictions: str = "predictions", references: str = "references", scorer: GLEU | None = None, keep: Sequence[str] = ()
    ) -> None:
        for name, value in (("predictions", predictions), ("references", references)):
            if not isinstance(value, str):
                raise TypeError(f"{name} must be a column name (str), got {describe(value)}")
        if isinstance(keep, str) or not all(isinstance(name, str) for name in keep):
            raise TypeError(f"keep must be a sequence of column names (str), got {describe(keep)}")
        self.predictions = predictions
        self.references = references
        self.keep = tuple(keep)
        self.scorer = scorer_from_options(scorer)  # a value: it pickles to every worker with its settings

    def __repr__(self) -> str:
        keep = f", keep={self.keep!r}" if self.keep else ""
        return f"GleuColumns(predictions={self.predictions!r}, references={self.references!r}, scorer={self.scorer!r}{keep})"

    def stats(self, batch: Any) -> GleuStats:
        """The :class:`GleuStats` of a batch of rows (a mapping of columns or a DataFrame)."""
        columns = [str(name) for name in batch.columns] if _is_dataframe(batch) else list(batch)
        for name in (self.predictions, self.references):
            if name not in columns:
                raise ValueError(f"column {name!r} not found; the batch has columns {sorted(columns)}")
        predictions = _plain(batch[self.predictions])
        references = [_plain(refs) for refs in _plain(batch[self.references])]
        return self.scorer.stats(predictions, references, (self.predictions, self.references))

    def __call__(self, batch: Any) -> Any:
        """The new columns for a batch (lists, numpy arrays or a DataFrame) or a single row (scalars)."""
        if _is_dataframe(batch):
            stats = self.stats(batch)
            frame = batch.copy()
            for i, name in enumerate(COLUMNS):
                frame[name] = stats.rows[:, i]
            frame[SCORE_COLUMN] = stats.sentence_scores()
            return frame
        if _is_arrow_table(batch):
            return self._arrow_table(batch)
        if not isinstance(batch, Mapping):
            raise TypeError(f"batch must be a mapping of columns, a pandas DataFrame or a pyarrow Table, got {describe(batch)}")
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

    def _arrow_table(self, batch: Any) -> Any:
        # Ray Data's batch_format="pyarrow": the text is read straight from Arrow and only the
        # columns in keep and the five new ones are returned (no numpy object arrays, no text back).
        for name in (self.predictions, self.references, *self.keep):
            if name not in batch.column_names:
                raise ValueError(f"column {name!r} not found; the batch has columns {sorted(batch.column_names)}")
        pa = import_optional("pyarrow", None, "a pyarrow batch", "pip install pyarrow")
        scored = pa.Table.from_struct_array(self.arrow(batch.column(self.predictions), batch.column(self.references)))
        for i, name in enumerate(self.keep):
            scored = scored.add_column(i, name, batch.column(name))
        return scored

    def arrow(self, predictions: Any, references: Any) -> Any:
        """The new columns of a batch as one ``pyarrow.StructArray`` (int64 statistics, a float64 score);
        the text may come in lists, numpy arrays, pandas Series, Arrow arrays or Daft ``Series``.

        Example:
            >>> GleuColumns().arrow(["a b", "x"], [["a b"], ["y"]]).to_pylist()[0]
            {'n_match': 3, 'n_hyp': 3, 'n_ref': 3, 'n_all': 3, 'google_bleu': 1.0}
        """
        pa = import_optional("pyarrow", None, "GleuColumns.arrow", "pip install pyarrow (Ray Data, Daft and datasets bring it)")

        stats = self.scorer.stats(_values(predictions), _references(references, pa), (self.predictions, self.references))
        arrays = [pa.array(stats.rows[:, i], pa.int64()) for i in range(len(COLUMNS))]
        arrays.append(pa.array(stats.sentence_scores(), pa.float64()))
        return pa.StructArray.from_arrays(arrays, names=[*COLUMNS, SCORE_COLUMN])

    def reduce(self, columns: Any) -> GleuStats:
        """The one-row corpus :class:`GleuStats` of the columns :meth:`__call__` added, in a Ray
        ``Dataset`` (each block summed where it lies), a ``datasets.Dataset``, a ``pyarrow.Table``
        or a mapping of columns. A missing column, a null or a value no segment can have is refused.

        Example:
            >>> GleuColumns().reduce({"n_match": [6, 3], "n_hyp": [18, 3], "n_ref": [14, 3], "n_all": [18, 3]}).totals()
            (9, 21, 17, 21)
        """
        orders = (self.scorer.min_len, self.scorer.max_len)
        return _ray_stats(columns, *orders) if _is_ray_dataset(columns) else _statistics(columns, *orders).total()


def _is_dataframe(batch: Any) -> bool:
    return type(batch).__name__ == "DataFrame" and hasattr(batch, "iloc") and hasattr(batch, "columns")


def _is_arrow_table(batch: Any) -> bool:
    return type(batch).__module__.startswith("pyarrow") and hasattr(batch, "column_names") and hasattr(batch, "schema")


def _is_ray_dataset(value: Any) -> bool:
    return type(value).__module__.startswith("ray.data") and hasattr(value, "aggregate")


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


def _references(values: Any, pa: Any) -> list[Any]:
    """References per row as Python values; an Arrow (or Daft) list column with one reference in
    every row becomes its flat strings (a list a row costs more than reading and scoring the text)."""
    arrow = values.to_arrow() if hasattr(values, "to_arrow") else values
    kind = getattr(arrow, "type", None)
    if isinstance(arrow, (pa.Array, pa.ChunkedArray)) and (pa.types.is_list(kind) or pa.types.is_large_list(kind)) and not arrow.null_count:
        compute = import_optional("pyarrow.compute", None, "GleuColumns.arrow")
        if compute.all(compute.equal(compute.list_value_length(arrow), 1)).as_py() in (True, None):
            return compute.list_flatten(arrow).to_pylist()
    return [_values(refs) for refs in _values(values)]


def _arrow_friendly(references: np.ndarray) -> np.ndarray:
    # Ray cannot turn its object arrays of arrays (ragged list columns) back into Arrow; of lists it can.
    if references.dtype != object or not any(isinstance(refs, np.ndarray) for refs in references):
        return references
    out = np.empty(len(references), dtype=object)
    for i, refs in enumerate(references):
        out[i] = refs.tolist() if isinstance(refs, np.ndarray) else refs
    return out


def _ray_stats(dataset: Any, min_len: int, max_len: int) -> GleuStats:
    # One execution: each block is checked and summed where it lies; four integers a block come here.
    parts = [GleuStats.empty(min_len, max_len)]
    for block in dataset.map_batches(_block_totals, batch_format="pyarrow", batch_size=None).take_all():
        if block["error"]:  # found in a task, raised here as the caller's own ValueError or TypeError
            kind, message = block["error"].split(": ", 1)
            raise (ValueError if kind == "ValueError" else TypeError)(message)
        parts.append(GleuStats([[int(block[name]) for name in COLUMNS]], min_len, max_len))
    return GleuStats.summed(parts)


def _block_totals(table: Any) -> Any:
    pa = import_optional("pyarrow", "ray", "a Ray block")
    totals, error = (0,) * len(COLUMNS), ""
    try:
        totals = _statistics(table).totals()
    except (ValueError, TypeError) as caught:
        error = f"{type(caught).__name__}: {caught}"
    return pa.table({**{name: [str(value)] for name, value in zip(COLUMNS, totals)}, "error": [error]})


def _statistics(columns: Any, min_len: int = 1, max_len: int = 4) -> GleuStats:
    """The per-row statistics of the four columns, checked as :meth:`GleuColumns.reduce` says."""
    if hasattr(columns, "with_format") and hasattr(columns, "column_names"):  # a datasets.Dataset
        _check_columns(columns.column_names)
        columns = columns.select_columns(list(COLUMNS)).with_format("arrow")[:]
    if _is_arrow_table(columns):
        _check_columns(columns.column_names)
        data = {name: _arrow_integers(columns.column(name), name) for name in COLUMNS}
    elif isinstance(columns, Mapping):
        _check_columns(list(columns))
        data = {name: _integers(np.asarray(columns[name]), name) for name in COLUMNS}
    else:
        raise TypeError(f"columns must be a datasets.Dataset, a pyarrow Table or a mapping of columns, got {describe(columns)}")
    lengths = {name: len(values) for name, values in data.items()}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"statistics columns must have one value per row each, got lengths {lengths}")
    # GleuStats checks every value (uint64 above int64, negatives, impossible rows) and that the totals fit.
    if all(values.dtype.kind == "i" for values in data.values()):
        rows = np.stack([data[name].astype(np.int64, copy=False) for name in COLUMNS], axis=1)
    else:  # unsigned columns: their values as Python ints, so none wraps on the way
        rows = np.empty((lengths["n_match"], len(COLUMNS)), dtype=object)
        for j, name in enumerate(COLUMNS):
            rows[:, j] = data[name].tolist()
    return GleuStats(rows, min_len, max_len)


def _check_columns(names: Any) -> None:
    missing = [name for name in COLUMNS if name not in names]
    if missing:
        raise ValueError(f"missing statistics columns {missing}; got {sorted(map(str, names))}")


def _nulls(name: str, count: int) -> TypeError:
    return TypeError(f"column {name!r} holds {count} null value{'s' * (count != 1)}: a statistic is an integer count, never missing")


def _arrow_integers(values: Any, name: str) -> np.ndarray:
    pa = import_optional("pyarrow", None, "a pyarrow batch", "pip install pyarrow")
    if values.null_count:
        raise _nulls(name, values.null_count)
    if not len(values):
        return np.zeros(0, np.int64)
    if not pa.types.is_integer(values.type):
        raise TypeError(f"column {name!r} must hold integers, got {values.type}")
    return values.to_numpy()


def _integers(values: np.ndarray, name: str) -> np.ndarray:
    if values.dtype == object:
        count = sum(value is None for value in values.ravel().tolist())
        if count:
            raise _nulls(name, count)
    elif values.dtype.kind == "f" and np.isnan(values).any():
        raise _nulls(name, int(np.isnan(values).sum()))
    if not values.size:
        return np.zeros(0, np.int64)
    if values.ndim != 1 or not np.issubdtype(values.dtype, np.integer):
        raise TypeError(f"column {name!r} must hold integers, got dtype {values.dtype} and shape {values.shape}")
    return values
