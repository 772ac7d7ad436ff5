"""Google-BLEU as a ``torchmetrics.Metric``: :class:`GoogleBLEUScore` (docs/metrics-harnesses.md,
"torchmetrics"). torchmetrics' public API only, 1.4.0 to the newest."""

# No `from __future__ import annotations` here: torch.jit.script reads the state attributes'
# annotations (n_match: Tensor, ...) at run time, as torchmetrics' own metrics are scripted.
from collections.abc import Sequence
from typing import Any, NamedTuple, Optional, Union

import numpy as np

from ..imports import import_optional
from ..settings import GLEU, SETTINGS, scorer_from_options
from ..stats import COLUMNS, GleuStats
from ..validation import check_bool, check_texts, describe, is_sequence

torch = import_optional("torch", "torchmetrics", "google_bleu.integrations.torchmetrics")
Tensor = torch.Tensor
Metric = import_optional("torchmetrics", "torchmetrics", "google_bleu.integrations.torchmetrics").Metric

# The optional per-sentence state: one row of COLUMNS a sentence.
SENTENCE_STATE = "sentence_rows"


def _as_text_batch(preds: Any, target: Any) -> tuple[list[str], list[list[str]]]:
    """``preds``/``target`` as torchmetrics' text metrics read them (docs/metrics-harnesses.md), except
    that counts that differ are an error, never silently zipped (``BLEUScore`` zips them)."""
    if isinstance(preds, str):
        preds = [preds]
    if isinstance(preds, bytes) or not is_sequence(preds):
        raise TypeError(f"preds must be a str or a list of str, got {describe(preds)}")
    if isinstance(target, (str, bytes)) or not is_sequence(target):
        raise TypeError(f"target must be a list of str or a list of lists of str, got {describe(target)}")
    if len(preds) == 1 and all(isinstance(ref, str) for ref in target):
        target = [target]
    return check_texts(preds, target, ("preds", "target"))


class _Counted(NamedTuple):
    """A batch already counted, passed through torchmetrics' ``forward`` to ``update``."""

    stats: GleuStats


def _state_count(value: Any, name: str) -> int:
    if isinstance(value, Tensor) and value.dim() == 0 and not value.is_floating_point() and value.dtype != torch.bool:
        return int(value.item())
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise ValueError(f"incoming state {name!r} must be a count (an int or a 0-d integer tensor), got {describe(value)}")


def _rows(rows: Any) -> Tensor:
    """The sentence state (a list of batches, or one tensor after a sync) as one int64 ``(n, 4)``."""
    parts = [rows] if isinstance(rows, Tensor) else rows
    width = len(COLUMNS)
    if not isinstance(parts, list) or not all(
        isinstance(r, Tensor) and r.dtype == torch.int64 and r.dim() == 2 and r.shape[1] == width for r in parts
    ):
        raise ValueError(f"sentence rows must be a list of int64 tensors of shape (n, {width}), got {describe(rows)}")
    return torch.cat([r.cpu() for r in parts]) if parts else torch.zeros((0, width), dtype=torch.int64)


class GoogleBLEUScore(Metric):
    """Corpus Google-BLEU as a ``torchmetrics`` metric: ``compute()`` is a float64 tensor ``==``
    :meth:`google_bleu.GLEU.corpus_score` of everything counted since the last ``reset()``. ``kwargs``
    are the settings (as ``scorer`` gives them) and ``torchmetrics.Metric`` options;
    ``return_sentence_scores`` makes ``compute`` return ``(corpus_score, sentence_scores)``.

    Example:
        >>> from google_bleu.integrations.torchmetrics import GoogleBLEUScore
        >>> metric = GoogleBLEUScore()
        >>> metric.update(["the cat sat on the mat"], [["the cat ate the mat"]])
        >>> metric.update("a b c", ["a b c", "x y"])
        >>> metric.compute()
        tensor(0.5000, dtype=torch.float64)
        >>> metric.totals()
        (12, 24, 20, 24)
        >>> sentences = GoogleBLEUScore(return_sentence_scores=True)
        >>> sentences(["the cat sat on the mat", "a b c"], ["the cat ate the mat", "a b c"])
        (tensor(0.5000, dtype=torch.float64), tensor([0.3333, 1.0000], dtype=torch.float64))
    """

    is_differentiable: bool = False
    higher_is_better: bool = True
    full_state_update: bool = False
    plot_lower_bound: float = 0.0
    plot_upper_bound: float = 1.0

    n_match: Tensor
    n_hyp: Tensor
    n_ref: Tensor
    n_all: Tensor

    def __init__(self, scorer: Optional[GLEU] = None, return_sentence_scores: bool = False, **kwargs: Any) -> None:
        check_bool(return_sentence_scores, "return_sentence_scores")
        # The settings among the keywords (BLEUScore(n_gram=4) style); the rest are torchmetrics'.
        scorer = scorer_from_options(scorer, {key: kwargs.pop(key) for key in SETTINGS if key in kwargs})
        super().__init__(**kwargs)
        self.scorer = scorer
        self.return_sentence_scores = return_sentence_scores
        for name in COLUMNS:
            self.add_state(name, default=torch.tensor(0, dtype=torch.int64), dist_reduce_fx="sum")
        if return_sentence_scores:
            self.add_state(SENTENCE_STATE, default=[], dist_reduce_fx="cat")

    @torch.jit.unused  # as torchmetrics' own Metric.forward: text metrics run in Python
    def forward(self, preds: Any, target: Any) -> Any:
        """Scores a batch and adds it to the states (torchmetrics' ``forward``)."""
        # Counted first: torchmetrics' forward resets the states before it calls update, so a
        # batch rejected there would take everything counted so far with it.
        return super().forward(_Counted(self._count(preds, target)), None)

    def merge_state(self, incoming_state: Union[dict[str, Any], Metric]) -> None:
        """Adds another metric's states (or a state dict) to this one, with torchmetrics' checks and words
        on every torchmetrics from 1.4, and refuses a metric of other settings; nothing is kept unless
        everything is valid."""
        if not isinstance(incoming_state, (dict, Metric)):
            raise ValueError(f"Expected incoming state to be a dict or an instance of Metric but got {type(incoming_state)}")
        if self.full_state_update or self.full_state_update is None or self.dist_sync_on_step:
            raise RuntimeError("``merge_state`` is not supported for metrics with ``full_state_update=True`` or ``dist_sync_on_step=True``. Please overwrite the merge_state method in the metric class.")
        state = incoming_state
        if isinstance(incoming_state, Metric):
            if not isinstance(incoming_state, type(self)):
                raise ValueError(f"Expected incoming state to be an instance of {type(self).__name__} but got {type(incoming_state)}")
            if incoming_state.scorer != self.scorer:
                raise ValueError(f"cannot merge a metric counted with {incoming_state.scorer!r} into one counted with {self.scorer!r}")
            state = incoming_state.metric_state
        for name in self.metric_state:
            if name not in state:
                raise ValueError(f"Expected state variable {name} to be present in incoming state {state}")
        incoming = [_state_count(state[name], name) for name in COLUMNS]
        orders = (self.scorer.min_len, self.scorer.max_len)
        totals = GleuStats.summed([self._stats(), GleuStats([incoming], *orders)])
        if self.return_sentence_scores:
            rows = _rows(state[SENTENCE_STATE])
            GleuStats(rows.numpy(), *orders)
        # Everything that can fail has run: only now are the states touched.
        self._set_totals(totals)
        if self.return_sentence_scores:
            setattr(self, SENTENCE_STATE, [rows.to(self.device), _rows(getattr(self, SENTENCE_STATE)).to(self.device)])
        # An empty update drops a value an earlier compute() cached and counts as an update (no warning).
        self.update([], [])

    def sync(self, *args: Any, **kwargs: Any) -> None:
        """torchmetrics' ``sync``, after giving a rank without sentences an empty int64 batch (not
        the empty float tensor torchmetrics would give, which cannot be gathered with int64 rows)."""
        rows = getattr(self, SENTENCE_STATE, None)
        empty = isinstance(rows, list) and not rows
        if empty:
            rows.append(torch.zeros((0, len(COLUMNS)), dtype=torch.int64, device=self.device))
        try:
            super().sync(*args, **kwargs)
        finally:
            if empty and getattr(self, SENTENCE_STATE) is rows:
                rows.clear()  # not synced (one process): the state stays as it was

    def set_dtype(self, dst_type: Union[str, torch.dtype]) -> "GoogleBLEUScore":
        """Returns the metric unchanged: its states are exact int64 counts (float16 is exact only to 2,048)."""
        return self

    def update(self, preds: Union[str, Sequence[str]], target: Sequence[Union[str, Sequence[str]]]) -> None:
        """Counts a batch (``preds`` and ``target`` as ``BLEUScore`` takes them)."""
        stats = preds.stats if isinstance(preds, _Counted) else self._count(preds, target)
        totals = GleuStats.summed([self._stats(), stats])
        # Everything that can fail has run: only now are the states touched.
        self._set_totals(totals)
        if self.return_sentence_scores:
            rows = torch.tensor(np.asarray(stats.rows), dtype=torch.int64).reshape(-1, len(COLUMNS))
            getattr(self, SENTENCE_STATE).append(rows.to(self.device))

    def _count(self, preds: Any, target: Any) -> GleuStats:
        return self.scorer.checked_stats(*_as_text_batch(preds, target))

    def _stats(self) -> GleuStats:
        totals = [int(getattr(self, name).item()) for name in COLUMNS]
        return GleuStats(np.asarray([totals], np.int64), self.scorer.min_len, self.scorer.max_len)

    def _set_totals(self, stats: GleuStats) -> None:
        for name, total in zip(COLUMNS, stats.totals()):
            setattr(self, name, torch.tensor(total, dtype=torch.int64, device=self.device))

    def totals(self) -> tuple[int, int, int, int]:
        """The current totals ``(n_match, n_hyp, n_ref, n_all)`` as Python ints (this process)."""
        return self._stats().totals()

    def compute(self) -> Union[Tensor, tuple[Tensor, Tensor]]:
        """Corpus GLEU, and the sentence scores when ``return_sentence_scores``, as float64 CPU tensors."""
        score = torch.tensor(self._stats().score(), dtype=torch.float64)
        if not self.return_sentence_scores:
            return score
        rows = _rows(getattr(self, SENTENCE_STATE)).cpu().numpy()
        sentence = GleuStats(rows, self.scorer.min_len, self.scorer.max_len).sentence_scores()
        return score, torch.from_numpy(np.asarray(sentence, np.float64))
