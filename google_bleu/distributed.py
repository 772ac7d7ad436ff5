"""Exact corpus GLEU across processes and machines: torch.distributed and datasets.

Corpus GLEU is ``sum(n_match) / sum(n_all)``, so any engine that can map segments to
:class:`GleuStats` rows and sum them computes the exact corpus score. Two adapters:

- :func:`all_reduce_stats`: one ``all_reduce`` of the four totals over a
  ``torch.distributed`` process group; every rank gets the exact corpus statistics.
- :class:`GleuColumns`: a function for ``Dataset.map(..., batched=True, num_proc=N)`` that
  adds the per-row statistics and sentence score as columns, and its
  :meth:`GleuColumns.reduce` from those columns back to the exact corpus statistics.

torch is imported only when :func:`all_reduce_stats` is called, datasets not at all.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from .gleu import text_stats
from .stats import COLUMNS, GleuStats
from .tokenizers import DEFAULT_TOKENIZER, Tokenizer, get_tokenizer
from .validation import check_orders

#: Column of the sentence score added by :class:`GleuColumns` (the metric's key).
SCORE_COLUMN = "google_bleu"


def all_reduce_stats(stats: GleuStats, group: Any = None, device: Any = None) -> GleuStats:
    """Sums the statistics of every rank of a ``torch.distributed`` group.

    Each rank passes the statistics of its own shard; all ranks get back the same one-row
    :class:`GleuStats` of the whole corpus, whose ``score()`` is exactly the score of one
    process over all shards (the four totals are summed as int64, no float is reduced).
    Launched with ``torchrun`` it works unchanged on one machine or many. Every rank must
    call it, with statistics counted with the same orders (checked: a ``ValueError`` on
    every rank otherwise).

    Args:
        stats: This rank's statistics (any number of segments, also zero).
        group: The process group (default: the whole world).
        device: Where the reduced tensor lives. Default: the current CUDA device when the
            group's backend is NCCL, else the CPU (gloo).

    Returns:
        The corpus totals as a one-row :class:`GleuStats`. Without an initialised process
        group (a single process), simply ``stats.total()``.

    Example:
        >>> from google_bleu import text_stats
        >>> stats = text_stats(["the cat sat on the mat"], ["the cat ate the mat"])
        >>> all_reduce_stats(stats).score()  # one process: nothing to reduce
        0.3333333333333333
    """
    import torch
    import torch.distributed as dist

    if not isinstance(stats, GleuStats):
        raise TypeError(f"stats must be a GleuStats, got {type(stats).__name__}")
    if not (dist.is_available() and dist.is_initialized()):
        return stats.total()
    if device is None:
        backend = str(dist.get_backend(group))
        use_cuda = "nccl" in backend and torch.cuda.is_available()
        device = torch.device("cuda", torch.cuda.current_device()) if use_cuda else torch.device("cpu")
    # Orders must agree: max and -min of (min_len, max_len) over ranks, in one reduction.
    orders = torch.tensor(
        [stats.min_len, stats.max_len, -stats.min_len, -stats.max_len], dtype=torch.int64, device=device
    )
    dist.all_reduce(orders, op=dist.ReduceOp.MAX, group=group)
    high_min, high_max, low_min, low_max = (int(value) for value in orders.tolist())
    if (high_min, high_max) != (-low_min, -low_max):
        raise ValueError(
            "ranks counted statistics with different n-gram orders: min_len from "
            f"{-low_min} to {high_min}, max_len from {-low_max} to {high_max}"
        )
    totals = torch.tensor(stats.totals(), dtype=torch.int64, device=device)
    dist.all_reduce(totals, op=dist.ReduceOp.SUM, group=group)
    return GleuStats(np.asarray([totals.tolist()], np.int64), stats.min_len, stats.max_len)


class GleuColumns:
    """A ``Dataset.map`` function adding GLEU statistics columns, and their reducer.

    Called on a batch (``batched=True``) or a single row, it returns the columns
    ``n_match``, ``n_hyp``, ``n_ref``, ``n_all`` (:data:`~google_bleu.stats.COLUMNS`) and
    ``google_bleu`` (the sentence score). The settings live in the object, so the same
    object reduces the columns again with the orders they were counted with. It pickles
    (the word tokenizer is rebuilt in each worker), so ``num_proc=N`` works.

    Args:
        predictions: Name of the column of predictions (strings).
        references: Name of the column of references (a string or a list of strings per row).
        tokenizer: GLEU's word tokenizer, a name (default ``"13a"``) or a callable.
        lowercase: Lowercase before tokenizing.
        min_len: Lowest n-gram order.
        max_len: Highest n-gram order.

    Example:
        >>> columns = GleuColumns()
        >>> batch = {"predictions": ["the cat sat on the mat", "the cat"],
        ...          "references": [["the cat ate the mat"], ["the cat"]]}
        >>> columns(batch)
        {'n_match': [6, 3], 'n_hyp': [18, 3], 'n_ref': [14, 3], 'n_all': [18, 3], 'google_bleu': [0.3333333333333333, 1.0]}
        >>> columns.reduce(columns(batch)).score()
        0.42857142857142855
    """

    def __init__(
        self,
        predictions: str = "predictions",
        references: str = "references",
        tokenizer: str | Callable[[str], list[str]] | Tokenizer = DEFAULT_TOKENIZER,
        lowercase: bool = False,
        min_len: int = 1,
        max_len: int = 4,
    ) -> None:
        self.predictions = predictions
        self.references = references
        self.tokenizer = tokenizer
        self.lowercase = lowercase
        self.min_len, self.max_len = check_orders(min_len, max_len)
        self._tokenize: Tokenizer | None = get_tokenizer(tokenizer, lowercase)

    def __getstate__(self) -> dict[str, Any]:
        # The built tokenizer may hold unpicklable state; each worker rebuilds it.
        state = dict(self.__dict__)
        state["_tokenize"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def stats(self, batch: Mapping[str, Any]) -> GleuStats:
        """The :class:`GleuStats` of a batch of rows (a mapping of columns)."""
        for name in (self.predictions, self.references):
            if name not in batch:
                raise ValueError(f"column {name!r} not found; the batch has columns {sorted(batch)}")
        if self._tokenize is None:
            self._tokenize = get_tokenizer(self.tokenizer, self.lowercase)
        return text_stats(
            list(batch[self.predictions]),
            list(batch[self.references]),
            self._tokenize,
            False,
            self.min_len,
            self.max_len,
        )

    def __call__(self, batch: Mapping[str, Any]) -> dict[str, Any]:
        """The new columns for a batch (lists) or a single row (scalars)."""
        single = isinstance(batch.get(self.predictions), str)
        if single:
            batch = {self.predictions: [batch[self.predictions]], self.references: [batch[self.references]]}
        stats = self.stats(batch)
        output: dict[str, Any] = {name: stats.rows[:, i].tolist() for i, name in enumerate(COLUMNS)}
        output[SCORE_COLUMN] = stats.sentence_scores().tolist()
        if single:
            output = {name: values[0] for name, values in output.items()}
        return output

    def reduce(self, columns: Any) -> GleuStats:
        """The exact corpus statistics from the columns :meth:`__call__` added.

        Args:
            columns: A ``datasets.Dataset`` (or a shard of one), or any mapping of the
                four statistics columns to sequences of ints.

        Returns:
            A one-row :class:`GleuStats` with the corpus totals.
        """
        return stats_from_columns(columns, self.min_len, self.max_len)


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
    sums = []
    for name, values in data.items():
        if values.size and not np.issubdtype(values.dtype, np.integer):
            raise TypeError(f"column {name!r} must hold integers, got dtype {values.dtype}")
        sums.append(int(values.sum(dtype=np.int64)))
    return GleuStats(np.asarray([sums], np.int64), min_len, max_len)
